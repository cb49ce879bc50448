"""Pause and resume: a crawl stopped with Ctrl-C (SIGINT) and run again with the same JOBDIR ends with
exactly the findings of an uninterrupted crawl, having fetched every URL once."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.facts import RobotsTxt, TargetStatus
from qivrora_spider.outcome import INTERRUPTED
from qivrora_spider.state.jobdir import FACTS_FILE, FactLog

from .conftest import ROOT
from .fixture_sites import url_entry, urlset

PAGES = 16
FAST = [
    "-s",
    "AUTOTHROTTLE_ENABLED=False",
    "-s",
    "DOWNLOAD_DELAY=0",
    "-s",
    "QIVRORA_STATE=",
    "-s",
    "LOG_LEVEL=INFO",
]


def chain_site(site: SiteServer, other: SiteServer) -> None:
    """English pages in a chain of links, each with a German alternate; every other German page does
    not link back (HL201), and one alternate redirects to another host (a HEAD when the crawl settles)."""
    a = site.url
    for n in range(PAGES):
        en, de = a(f"/en/{n}/"), a(f"/de/{n}/")
        links = [alternate("en", en), alternate("de", de)]
        if n == 0:
            links.append(alternate("fr", a("/fr/")))  # early: its HEAD is pending when the crawl pauses
        body = f'<a href="/en/{n + 1}/">next</a>' if n + 1 < PAGES else ""
        site.routes[f"/en/{n}/"] = Route(html_page(*links, body=body))
        site.routes[f"/de/{n}/"] = Route(html_page(*(links if n % 2 else links[1:]), lang="de"))
    site.routes["/fr/"] = Route("", status=301, headers=[("Location", other.url("/fr/"))])
    site.routes["/robots.txt"] = Route(f"Sitemap: {a('/sitemap.xml')}\n", content_type="text/plain")
    site.routes["/sitemap.xml"] = Route(
        urlset(*(url_entry(a(f"/en/{n}/"), lastmod="2026-11-01") for n in range(0, PAGES, 4))),
        content_type="application/xml",
    )
    other.routes["/fr/"] = Route(html_page(lang="fr"))


def scrapy_crawl(start: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "scrapy", "crawl", "hreflang", "-a", f"start={start}", *FAST, *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str], status: int = 0) -> str:
    _, log = process.communicate(timeout=120)
    assert process.returncode == status, log[-3000:]
    return log


@pytest.mark.slow  # interrupts a `scrapy crawl` process with SIGINT and resumes it
def test_a_crawl_paused_with_sigint_resumes_from_jobdir_to_the_findings_of_an_uninterrupted_one(
    site, other_site, tmp_path
):
    chain_site(site, other_site)
    start, jobdir = site.url("/en/0/"), tmp_path / "job"
    for route in site.routes.values():
        route.delay = 0.3

    paused = scrapy_crawl(
        start, "-s", f"JOBDIR={jobdir}", "-s", "CONCURRENT_REQUESTS=2", "-O", str(tmp_path / "paused.csv")
    )
    deadline = time.monotonic() + 60
    while sum(site.requests("GET").values()) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    paused.send_signal(signal.SIGINT)
    log = finish(paused, INTERRUPTED)
    assert "'finish_reason': 'shutdown'" in log and "paused before the audit" in log
    assert "scheduler/unserializable" not in log, "every queued request was kept in JOBDIR"
    assert not (tmp_path / "paused.csv").exists(), "no findings before the audit, so no findings file"
    kept = list(FactLog(jobdir).load())
    assert kept and any(not isinstance(fact, (RobotsTxt, TargetStatus)) for fact in kept), "the facts so far"
    fetched_before = sum(site.requests("GET").values())
    assert fetched_before < 2 * PAGES, "paused halfway"

    for route in site.routes.values():
        route.delay = 0
    log = finish(scrapy_crawl(start, "-s", f"JOBDIR={jobdir}", "-O", str(tmp_path / "resumed.csv")))
    assert "'finish_reason': 'finished'" in log and "Resuming the crawl" in log
    gets = site.requests("GET")
    assert gets.pop("/robots.txt") == 2, "read again by the resumed crawl: its rules were not kept"
    assert set(gets.values()) == {1}, f"every other URL fetched once across the pause: {gets}"
    assert other_site.requests("HEAD") == {"/fr/": 1}, "the status noted before the pause was collected"
    assert (jobdir / FACTS_FILE).exists()

    finish(scrapy_crawl(start, "-O", str(tmp_path / "whole.csv")))
    resumed, whole = (tmp_path / "resumed.csv").read_text(), (tmp_path / "whole.csv").read_text()
    assert "HL201" in whole and other_site.url("/fr/") in whole
    assert resumed == whole


def test_a_fact_line_cut_short_by_a_killed_process_is_dropped(tmp_path: Path):
    log = FactLog(tmp_path)
    log.append(RobotsTxt(origin="https://a.example", url="https://a.example/robots.txt", status=404))
    log.close()
    with (tmp_path / FACTS_FILE).open("a") as file:
        file.write('{"fact": "status", "url": "https://a.ex')
    assert [fact.origin for fact in log.load()] == ["https://a.example"]
    log.append(TargetStatus(url="https://a.example/x", status=200))
    log.close()
    assert [type(fact).__name__ for fact in log.load()] == ["RobotsTxt", "TargetStatus"]
