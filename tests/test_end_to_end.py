"""The answer key: the audit finds every planted defect of the demo site, and nothing else.

The demo site (qivrora_spider/demo/site.py) documents every finding it must produce in
``ANSWER_KEY``: each planted defect, and each finding that follows from one. A finding the key does
not list is a false positive (or a missing entry with its reason); a key entry not found is a miss.
The clean site, crawled on both hosts, must produce no finding at all.
"""

from __future__ import annotations

import csv
import signal
import subprocess
import sys
from collections import Counter
from typing import Iterable
from urllib.parse import urlsplit
from urllib.request import urlopen

import pytest_twisted

from qivrora_spider.audit import CHECKS
from qivrora_spider.demo.site import (
    ANSWER_KEY,
    CLEAN_CLUSTERS,
    MAIN,
    SECOND,
    build_clean_site,
    build_demo_site,
)
from qivrora_spider.demo.site_server import SiteServer
from qivrora_spider.facts import Page, SitemapEntry
from qivrora_spider.findings import FINDING_FIELDS, Finding

from .conftest import ROOT, CrawlResult, crawl, docs_extension

Key = tuple[str, ...]


def answer_key(main: SiteServer, second: SiteServer) -> Counter[Key]:
    bases = {MAIN: main.base, SECOND: second.base}
    return Counter(defect.key(bases) for defect in ANSWER_KEY)


def keys(findings: Iterable[Finding]) -> Counter[Key]:
    return Counter((f.check, f.url, f.target, f.hreflang) for f in findings)


def differences(found: Counter[Key], expected: Counter[Key]) -> str:
    """Misses and extras, one a line, for an assertion message a person can act on."""
    lines = [f"missed: {key}" for key in sorted((expected - found).elements())]
    lines += [f"not in the answer key: {key}" for key in sorted((found - expected).elements())]
    return "\n".join(lines)


async def crawl_demo(site: SiteServer, other_site: SiteServer) -> CrawlResult:
    build_demo_site(site, other_site)
    return await crawl(start=site.url("/"))


@pytest_twisted.ensureDeferred
async def test_demo_findings_are_exactly_the_answer_key(site, other_site):
    result = await crawl_demo(site, other_site)
    found, expected = keys(result.findings), answer_key(site, other_site)
    assert found == expected, differences(found, expected)


@pytest_twisted.ensureDeferred
async def test_demo_clean_clusters_have_no_finding(site, other_site):
    result = await crawl_demo(site, other_site)
    bases = {MAIN: site.base, SECOND: other_site.base}
    clean = {bases[ref.host] + ref.path for cluster in CLEAN_CLUSTERS for ref in cluster.refs}
    assert [f for f in result.findings if f.url in clean or f.target in clean] == []
    pages = [
        path for server in (site, other_site) for path, route in server.routes.items() if route.status == 200
    ]
    assert len(clean) * 2 > len(pages), "most of the demo is clean"


@pytest_twisted.ensureDeferred
async def test_demo_crawl_fetches_every_url_once(site, other_site):
    result = await crawl_demo(site, other_site)
    for server in (site, other_site):
        assert all(count == 1 for count in server.requests().values()), server.requests()
    gets = site.requests("GET")
    assert {"/robots.txt", "/sitemap_index.xml", "/sitemap-pages.xml.gz", "/de/p/alpine-gtx/"} <= set(gets)
    assert "/fr/soldes/" not in gets and "/search?q=tent" not in gets, "robots.txt disallows them"
    assert set(other_site.requests("GET")) == set(other_site.routes) - {"/sitemap.xml"}, (
        "the Japanese store is examined one hop: its pages, all alternates, but not its sitemap"
    )
    assert result.stats["qivrora/findings"] == len(ANSWER_KEY)


@pytest_twisted.ensureDeferred
async def test_clean_site_has_no_finding(site, other_site):
    build_clean_site(site, other_site)
    result = await crawl(start=f"{site.url('/')},{other_site.url('/zh-hans/')}")
    assert [(f.check, f.url, f.target, f.message) for f in result.findings] == []
    # Not quiet for want of looking: both hosts, every source, every sitemap were read.
    annotated = [*result.of(Page), *result.of(SitemapEntry)]
    assert {a.source for fact in annotated for a in fact.annotations} == {"html", "header", "sitemap"}
    assert {e.sitemap for e in result.of(SitemapEntry)} == {
        site.url("/sitemaps/pages.xml.gz"),
        site.url("/sitemaps/exhibitions.xml"),
        other_site.url("/sitemap.xml"),
    }


def test_docs_demo_page_shows_the_answer_key_row_for_row():
    """The docs' demo page includes the table the build generates from ANSWER_KEY: every finding the
    audit must report, in the key's order, each check linked to its page."""
    page = (ROOT / "docs" / "demo.md").read_text(encoding="utf-8")
    assert "```{include} _generated/demo-findings.md\n```" in page
    header, rule, *rows = docs_extension().demo_findings().strip().splitlines()
    assert (header, rule) == ("| check | url | target | hreflang | what |", "|---|---|---|---|---|")
    assert len(rows) == len(ANSWER_KEY)
    for row, defect in zip(rows, ANSWER_KEY):
        assert defect.check in CHECKS
        assert row.startswith(f"| [{defect.check}](checks/{defect.check.lower()}.md) | `"), row
        assert row.endswith(f" | {defect.note} |"), row


def test_demo_command_audits_the_demo_and_says_where_the_findings_are(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "qivrora_spider.demo", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    findings = tmp_path / "findings.csv"
    with findings.open(encoding="utf-8", newline="") as table:
        rows = list(csv.DictReader(table))
    assert tuple(rows[0]) == FINDING_FIELDS
    # The command chose its own ports: compare paths.
    found = Counter(
        (r["check"], urlsplit(r["url"]).path, urlsplit(r["target"]).path, r["hreflang"]) for r in rows
    )
    expected = Counter(
        (d.check, d.url.path, d.target.path if d.target else "", d.hreflang) for d in ANSWER_KEY
    )
    assert found == expected, differences(found, expected)
    assert str(findings.resolve()) in run.stdout
    report = tmp_path / "report.html"
    if report.exists():  # QIVRORA_REPORT, being added beside this
        assert str(report.resolve()) in run.stdout
    assert f"all {len(ANSWER_KEY)} documented findings" in run.stdout


def test_demo_serve_serves_until_ctrl_c():
    with subprocess.Popen(
        [sys.executable, "-m", "qivrora_spider.demo", "--serve"], cwd=ROOT, stdout=subprocess.PIPE, text=True
    ) as server:
        assert server.stdout is not None
        shop = server.stdout.readline().split()[-1]
        assert server.stdout.readline().startswith("Japanese store: http://127.0.0.1:")
        assert server.stdout.readline() == "Serving until Ctrl-C.\n"
        with urlopen(f"{shop}robots.txt", timeout=10) as robots:
            assert f"Sitemap: {shop}sitemap_index.xml" in robots.read().decode()
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=10) == 0
