"""SM010 lastmod-without-change and SM011 change-without-lastmod: an entry against the previous crawl."""

from __future__ import annotations

from typing import Any

import pytest

from qivrora_spider.audit import AuditContext, audit
from qivrora_spider.audit.core.fact_store import FactStore
from qivrora_spider.state.store import CrawlRecord, Observation
from tests.audit.builders import CRAWL_STARTED, CrawlInfo, entry, page

HOST = "https://ex.com"
SM = f"{HOST}/sitemap.xml"
EN = f"{HOST}/en/"
BEFORE = "2026-11-28T02:00:00+00:00"


def lastmod_hits(facts: list[Any], previous: CrawlRecord | None) -> list[tuple[str, str, str]]:
    store = FactStore()
    store.add_all([CrawlInfo(started=CRAWL_STARTED), *facts])
    findings = audit(AuditContext(store, previous=previous))
    return [(f.check, f.url, f.target) for f in findings if f.check in ("SM010", "SM011")]


def previous(fingerprint: str | None, lastmod: str | None) -> CrawlRecord:
    return CrawlRecord(started=BEFORE, pages={EN: Observation(fingerprint, lastmod)})


@pytest.mark.parametrize(
    "fingerprint_now, lastmod_now, fingerprint_then, lastmod_then, expected",
    [
        ("same", "2026-11-29", "same", "2026-11-28", "SM010"),  # lastmod advanced, content did not
        ("new", "2026-11-28", "old", "2026-11-28", "SM011"),  # content changed, lastmod did not
        ("new", "2026-11-27", "old", "2026-11-28", "SM011"),  # ... or went back
        ("new", "2026-11-29", "old", "2026-11-28", None),  # both moved: honest
        ("same", "2026-11-28", "same", "2026-11-28", None),  # neither moved: honest
        # The same instant written in another time zone has not advanced.
        ("same", "2026-11-28T03:00:00+01:00", "same", "2026-11-28T02:00:00Z", None),
    ],
)
def test_lastmod_is_judged_against_the_content_fingerprint_of_the_previous_crawl(
    fingerprint_now: str, lastmod_now: str, fingerprint_then: str, lastmod_then: str, expected: str | None
) -> None:
    facts = [page(EN, fingerprint=fingerprint_now), entry(SM, EN, lastmod=lastmod_now)]
    found = lastmod_hits(facts, previous(fingerprint_then, lastmod_then))
    assert found == ([(expected, SM, EN)] if expected else [])


def test_messages_name_both_lastmods_and_the_previous_crawl() -> None:
    facts = [page(EN, fingerprint="same"), entry(SM, EN, lastmod="2026-11-29", line=3)]
    store = FactStore()
    store.add_all([CrawlInfo(started=CRAWL_STARTED), *facts])
    (finding,) = [
        f for f in audit(AuditContext(store, previous=previous("same", "2026-11-28"))) if f.check == "SM010"
    ]
    assert (finding.name, finding.severity, finding.source) == (
        "lastmod-without-change",
        "warning",
        "sitemap",
    )
    assert "(line 3)" in finding.message and "`<lastmod>2026-11-29</lastmod>`" in finding.message
    assert "`2026-11-28`" in finding.message and "previous crawl (2026-11-28)" in finding.message


@pytest.mark.parametrize(
    "facts, before",
    [
        ([page(EN, fingerprint="new"), entry(SM, EN, lastmod="2026-11-28")], None),  # first crawl
        (
            [page(EN, fingerprint="new"), entry(SM, EN, lastmod="2026-11-28")],
            CrawlRecord(started=BEFORE),
        ),  # new URL
        ([page(EN, fingerprint="new"), entry(SM, EN)], previous("old", "2026-11-28")),  # no lastmod now
        (
            [page(EN, fingerprint="new"), entry(SM, EN, lastmod="2026-11-28")],
            previous("old", None),
        ),  # none then
        (
            [page(EN, fingerprint="new"), entry(SM, EN, lastmod="28/11/2026")],
            previous("old", "2026-11-28"),
        ),  # SM007
        (
            [page(EN, status=500, fingerprint="new"), entry(SM, EN, lastmod="2026-11-28")],
            previous("old", "2026-11-28"),
        ),
        (
            [page(EN, fingerprint=None), entry(SM, EN, lastmod="2026-11-28")],
            previous("old", "2026-11-28"),
        ),  # a PDF
    ],
    ids=[
        "first-crawl",
        "url-new",
        "no-lastmod-now",
        "no-lastmod-then",
        "invalid-lastmod",
        "page-failed",
        "no-content",
    ],
)
def test_nothing_is_judged_without_two_observations_to_compare(
    facts: list[Any], before: CrawlRecord | None
) -> None:
    assert lastmod_hits(facts, before) == []
