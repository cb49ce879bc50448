"""The markup and value checks, and HL601, judge only the pages a first pass screens as possibly at
fault (``annotation_index.url_mark``, as the facts come).

The screen exists for speed (bench/RESULTS.md); it must never hide a finding. Every audit of random
annotations, written well and badly, gives the same findings with the screen as with every annotated
page judged.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qivrora_spider.audit import AuditContext
from qivrora_spider.audit.checks import sources
from qivrora_spider.audit.core import annotation_index
from qivrora_spider.audit.core import written as written_annotations
from qivrora_spider.audit.core.fact_store import FactStore

from .builders import CrawlInfo, ann, entry, page, run

PAGES = [f"https://example.com/{name}/" for name in ("en", "de", "fr")]
HREFS = [
    *PAGES,
    "https://example.com/it/",
    "HTTPS://Example.com/de/",  # absolute, not as normalised
    "/fr/",
    "//example.com/en/",
    "http://exa mple.com/",
    "",
]
VALUES = ["en", "de", "fr", "x-default", "EN", "en_gb", "de-DE", "xx", " fr", "zh-Hant-TW"]

written = st.builds(
    lambda value, href, source, in_head: ann(value, href, source, base=PAGES[0], in_head=in_head),
    st.sampled_from(VALUES),
    st.sampled_from(HREFS),
    st.sampled_from(["html", "html", "header"]),
    st.booleans(),
)
# Most pages of a real site are plain: the interesting cases are plain pages with one slip.
plain = st.builds(
    lambda value, href, source: ann(value, href, source),
    st.sampled_from(VALUES[:4]),
    st.sampled_from([*PAGES, "https://example.com/it/"]),
    st.sampled_from(["html", "html", "header"]),
)
annotation = st.one_of(plain, plain, written)
sitemap_annotation = st.builds(
    lambda value, href: ann(value, href, "sitemap", base=PAGES[0], sitemap="https://example.com/sitemap.xml"),
    st.sampled_from(VALUES),
    st.sampled_from(HREFS),
)


@st.composite
def sites(draw: st.DrawFn) -> list[object]:
    facts: list[object] = []
    for url in PAGES:
        facts.append(page(url, *draw(st.lists(annotation, max_size=6))))
        listed = draw(st.lists(sitemap_annotation, max_size=4))
        if listed:
            facts.append(entry("https://example.com/sitemap.xml", url, *listed))
    return facts


def _judge_every_annotated_page(listed: object, usable: object) -> bool:
    return True


@settings(max_examples=300, deadline=None)
@given(sites())
def test_the_screen_hides_no_finding(facts: list[object]) -> None:
    screened = run(facts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(annotation_index, "URL_MARKS", [*annotation_index.URL_MARKS, _judge_every_annotated_page])
        patch.setattr(written_annotations, "_may_be_faulty", _judge_every_annotated_page)
        patch.setattr(sources, "_sources_disagree", _judge_every_annotated_page)
        unscreened = run(facts)
    assert screened == unscreened


def test_a_plain_page_is_screened_out_and_a_faulty_one_in() -> None:
    plain = page(PAGES[0], ann("en", PAGES[0]), ann("de", PAGES[1]))
    repeated = page(PAGES[1], ann("de", PAGES[1]), ann("de", PAGES[1]))
    ctx = AuditContext(_store([plain, repeated]))
    assert ctx.marked(written_annotations._may_be_faulty) == {PAGES[1]}


def _store(facts: list[object]) -> FactStore:
    store = FactStore()
    store.add_all([CrawlInfo(started="2026-11-29T12:00:00+00:00"), *facts])
    return store
