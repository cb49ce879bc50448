"""A run that could not see says so, and never leaves less than it found (DESIGN.md).

Each mishap as a user meets it: the `qivrora` command in a subprocess, against a real server on
127.0.0.1, with the outputs of a previous run in place. Interruptions are sent at points read from
the crawl's own progress (the server's request log, the crawl's log), never after a sleep.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pycountry
import pytest
from lxml import etree

from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.findings import FINDING_FIELDS
from qivrora_spider.outcome import INTERRUPTED, NOT_AUDITED

from .conftest import ROOT

#: Every test here runs the `qivrora` command in a process of its own, about a second of start-up each.
pytestmark = pytest.mark.slow

FAST = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "DOWNLOAD_TIMEOUT=5", "-s", "RETRY_TIMES=0"]
COMMAND = [sys.executable, "-c", "import sys; sys.argv[0] = 'qivrora'; from qivrora_spider.cli import main; main()"]
PAGES = 12


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def qivrora(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *args], cwd=cwd, env=environment(), capture_output=True, text=True, timeout=240
    )


class Running:
    """`qivrora` in the background, its log in a file the test reads as it grows."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.log = cwd / "run.log"
        self.process = subprocess.Popen(
            [*COMMAND, *args], cwd=cwd, env=environment(), stdout=subprocess.DEVNULL,
            stderr=self.log.open("w"), text=True,
        )

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def finish(self) -> int:
        return self.process.wait(timeout=120)


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


def junit_totals(path: Path) -> dict[str, str]:
    root = etree.parse(str(path)).getroot()
    return {name: root.get(name) for name in ("tests", "failures", "errors")}


def unreturned_site(site: SiteServer, pages: int = PAGES) -> None:
    """A home page linking to `pages` English pages, each naming a German version that does not name
    it back: one HL201 a page, and a site whose crawl takes a while to finish."""
    links = "".join(f'<a href="/p{n}/">{n}</a> ' for n in range(pages))
    site.routes["/"] = Route(html_page(body=links))
    for n in range(pages):
        en, de = site.url(f"/p{n}/"), site.url(f"/p{n}-de/")
        site.routes[f"/p{n}/"] = Route(html_page(alternate("en", en), alternate("de", de), body=f'<a href="{de}">de</a>'))
        site.routes[f"/p{n}-de/"] = Route(html_page(alternate("de", de), lang="de"))


# --- a start that yields nothing usable ------------------------------------------------------------


def test_an_unreachable_start_is_no_audit_in_every_output(tmp_path):
    start = f"http://127.0.0.1:{closed_port()}/"
    run = qivrora(
        "audit", start, "-o", "f.csv", "-o", "f.xml", *FAST,
        "-s", "QIVRORA_FAIL_ON=warning", "-s", "QIVRORA_REPORT=report.html", "-s", "QIVRORA_FIXES=fixes.jsonl",
        cwd=tmp_path,
    )
    assert run.returncode == NOT_AUDITED, run.stderr[-2000:]
    assert f"qivrora: start {start} could not be used: its server refuses the connection" in run.stderr
    assert run.stderr.rstrip().splitlines()[-2].startswith("qivrora: No audit: the start could not be used")
    found = rows(tmp_path / "f.csv")
    assert [(r["check"], r["url"]) for r in found] == [("CR001", start)], "the CR001 row is all the table holds"
    assert junit_totals(tmp_path / "f.xml") == {"tests": "1", "failures": "0", "errors": "1"}
    report = (tmp_path / "report.html").read_text()
    assert "The audit did not happen." in report and "refuses the connection" in report
    assert "every annotation the crawl read is consistent" not in report
    assert not (tmp_path / "fixes.jsonl").exists(), "no fixes computed from nothing"


@pytest.mark.parametrize(
    "path, route, why",
    [
        ("/gone/", None, "it answers 404 Not Found"),
        ("/sitemap.xml", Route(html_page(body="home")), "its path names a sitemap but it answers HTML"),
        ("/loop", Route("", status=302, headers=[("Location", "/loop")]), "its redirects loop"),
    ],
    ids=["404", "sitemap-answering-html", "redirect-loop"],
)
def test_a_start_that_is_not_what_it_names_is_cr001_and_exit_3(site, tmp_path, path, route, why):
    if route is not None:
        site.routes[path] = route
    run = qivrora("audit", site.url(path), "-o", "f.csv", *FAST, "-s", "QIVRORA_STATE=", cwd=tmp_path)
    assert run.returncode == NOT_AUDITED, run.stderr[-2000:]
    assert f"could not be used: {why}" in run.stderr
    assert [r["check"] for r in rows(tmp_path / "f.csv")] == ["CR001"]


def test_a_start_that_redirects_to_another_host_is_crawled_from_there(site, other_site, tmp_path):
    site.routes["/"] = Route("", status=301, headers=[("Location", other_site.url("/"))])
    unreturned_site(other_site, pages=2)
    run = qivrora("audit", site.url("/"), "-o", "f.csv", *FAST, "-s", "QIVRORA_STATE=", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    found = rows(tmp_path / "f.csv")
    assert "CR001" not in {r["check"] for r in found}
    assert {r["url"] for r in found if r["check"] == "HL201"} == {other_site.url("/p0/"), other_site.url("/p1/")}, (
        "the final host joined the scope: its links were followed"
    )


def test_where_some_starts_fail_the_run_goes_on(site, tmp_path):
    unreturned_site(site, pages=1)
    dead = f"http://127.0.0.1:{closed_port()}/"
    run = qivrora("audit", site.url("/"), dead, "-o", "f.csv", *FAST, "-s", "QIVRORA_STATE=", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    checks = {(r["check"], r["url"]) for r in rows(tmp_path / "f.csv")}
    assert ("CR001", dead) in checks and ("HL201", site.url("/p0/")) in checks


# --- an outage is not a fix ----------------------------------------------------------------------


def test_a_stopped_server_between_two_crawls_resolves_nothing(tmp_path):
    state = ["-s", "QIVRORA_STATE=state.sqlite", "-s", "QIVRORA_RESOLVED=resolved.csv"]
    with SiteServer() as site:
        unreturned_site(site, pages=3)
        start = site.url("/")
        first = qivrora("audit", start, "-o", "findings.csv", *FAST, *state, cwd=tmp_path)
        assert first.returncode == 0, first.stderr[-2000:]
    before = rows(tmp_path / "findings.csv")
    resolved = (tmp_path / "resolved.csv").read_bytes()
    # The home page links the clusters and is in none (HL208).
    assert {r["check"] for r in before} == {"HL201", "HL109", "HL208"} and {r["change"] for r in before} == {"new"}

    second = qivrora("audit", start, "-o", "findings.csv", *FAST, *state, cwd=tmp_path)
    assert second.returncode == NOT_AUDITED, second.stderr[-2000:]
    assert f"{len(before)} findings unknown" in second.stderr
    after = rows(tmp_path / "findings.csv")
    assert {(r["check"], r["url"], r["change"]) for r in after if r["check"] != "CR001"} == {
        (r["check"], r["url"], "unknown") for r in before
    }, "what the outage could not see stays, unknown"
    assert (tmp_path / "resolved.csv").read_bytes() == resolved, "nothing resolved, the file as the first crawl left it"


def test_most_pages_failing_is_an_outage_and_keeps_the_baseline(site, tmp_path):
    state = ["-s", "QIVRORA_STATE=state.sqlite"]
    unreturned_site(site, pages=4)
    assert qivrora("audit", site.url("/"), "-o", "f.csv", *FAST, *state, cwd=tmp_path).returncode == 0
    for n in range(4):
        site.routes[f"/p{n}/"] = Route("down", status=503)
    outage = qivrora("audit", site.url("/"), "-o", "f.csv", *FAST, *state, cwd=tmp_path)
    assert outage.returncode == NOT_AUDITED, outage.stderr[-2000:]
    assert "outage:" in outage.stderr
    assert {r["change"] for r in rows(tmp_path / "f.csv")} == {"unknown"}
    unreturned_site(site, pages=4)
    back = qivrora("audit", site.url("/"), "-o", "f.csv", *FAST, *state, cwd=tmp_path)
    assert back.returncode == 0
    assert {r["change"] for r in rows(tmp_path / "f.csv")} == {"persisting"}, "compared with the crawl before the outage"


# --- interrupted runs ----------------------------------------------------------------------------


def wide_cluster(site: SiteServer, size: int) -> None:
    """A home page naming `size` alternates, none of which names it back (HL201 each)."""
    codes = sorted(language.alpha_2 for language in pycountry.languages if hasattr(language, "alpha_2"))
    values = codes[:size]
    site.routes["/"] = Route(html_page(alternate("en", site.url("/")), *(alternate(v, site.url(f"/{v}/")) for v in values)))
    for value in values:
        site.routes[f"/{value}/"] = Route(html_page(alternate(value, site.url(f"/{value}/")), lang=value))


def interrupted_run(site: SiteServer, tmp_path: Path, times: int) -> tuple[Running, bytes]:
    """A crawl held mid-way by the server, with the previous run's findings.csv in place, and SIGINT
    sent `times` times once the crawl says it has the first."""
    wide_cluster(site, 40)
    previous = b"check,name\nHL201,previous run\n"
    (tmp_path / "findings.csv").write_bytes(previous)
    run = Running(
        "audit", site.url("/"), "-o", "findings.csv", "-o", "f.xml", *FAST, "-s", "QIVRORA_STATE=",
        "-s", "CONCURRENT_REQUESTS=2", "-s", "QIVRORA_REPORT=report.html", cwd=tmp_path,
    )
    wait_for(lambda: len(site.requests()) >= 5, "the crawl to reach the alternates")
    site.gate.clear()  # the requests from now on wait: the crawl is mid-way, with requests in flight
    asked = len(site.log)
    wait_for(lambda: len(site.log) > asked, "a request held in flight")
    run.process.send_signal(signal.SIGINT)
    wait_for(lambda: "Received SIGINT" in run.text(), "the crawl to take the interruption")
    if times == 2:
        run.process.send_signal(signal.SIGINT)
    site.gate.set()
    return run, previous


@pytest.mark.slow  # interrupts the `qivrora` process with Ctrl-C
def test_ctrl_c_audits_what_was_gathered_and_says_it_is_partial(site, tmp_path):
    run, previous = interrupted_run(site, tmp_path, times=1)
    assert run.finish() == INTERRUPTED, run.text()[-3000:]
    log = run.text()
    assert "qivrora: the crawl was interrupted (SIGINT)" in log
    found = rows(tmp_path / "findings.csv")
    assert (tmp_path / "findings.csv").read_bytes() != previous
    left_out = [r for r in found if r["check"] == "HL206"]
    assert left_out and all("interrupted" in r["message"] for r in left_out), "what was left out is HL206"
    assert {r["check"] for r in found} >= {"HL201", "HL206"}
    assert len(left_out) + len({r["target"] for r in found if r["check"] == "HL201"}) == 40, "each alternate once"
    assert junit_totals(tmp_path / "f.xml")["errors"] == "1"
    assert "This audit is partial." in (tmp_path / "report.html").read_text()
    stored = [line for line in log.splitlines() if "Stored csv feed" in line]
    assert stored and f"({len(found)} items)" in stored[0], "Scrapy's line counts the rows the file holds"


@pytest.mark.slow  # interrupts the `qivrora` process with Ctrl-C twice
def test_ctrl_c_twice_stops_at_once_and_leaves_the_previous_findings(site, tmp_path):
    run, previous = interrupted_run(site, tmp_path, times=2)
    assert run.finish() == INTERRUPTED, run.text()[-3000:]
    assert "stopped at once" in run.text()
    assert (tmp_path / "findings.csv").read_bytes() == previous
    assert not (tmp_path / "report.html").exists()
    assert not list(tmp_path.glob(".*.part")), "no temporary file left behind"


@pytest.mark.slow  # kills the `qivrora` process while it writes
def test_sigkill_during_the_final_write_leaves_the_previous_findings(site, tmp_path):
    # One page, thousands of findings: values no search engine reads, each its own row.
    wrong = "".join(alternate(f"q{n}", site.url("/x/")) for n in range(4000))
    site.routes["/"] = Route(html_page(wrong))
    previous = b"check,name\nHL201,previous run\n"
    (tmp_path / "findings.csv").write_bytes(previous)
    run = Running("audit", site.url("/"), "-o", "findings.csv", *FAST, "-s", "QIVRORA_STATE=", cwd=tmp_path)

    def writing() -> bool:
        return any(part.stat().st_size for part in tmp_path.glob(".findings.csv.*.part"))

    deadline = time.monotonic() + 120
    while not writing():  # polled without a pause: the write lasts a fraction of a second
        assert run.process.poll() is None and time.monotonic() < deadline, "the findings were never being written"
    run.process.send_signal(signal.SIGKILL)
    assert run.finish() == -signal.SIGKILL
    assert "Stored csv feed" not in run.text(), "killed before the file was complete"
    assert (tmp_path / "findings.csv").read_bytes() == previous


# --- empty and missing outputs -------------------------------------------------------------------


def test_no_findings_still_gives_the_columns(site, tmp_path):
    site.routes["/"] = Route(html_page(body="nothing multilingual here"))
    run = qivrora("audit", site.url("/"), "-o", "f.csv", "-o", "f.jsonl", *FAST, "-s", "QIVRORA_STATE=", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (tmp_path / "f.csv").read_text().splitlines() == [",".join(FINDING_FIELDS)]
    assert (tmp_path / "f.jsonl").read_bytes() == b""


def test_without_an_output_the_last_line_says_how_to_keep_the_findings(site, tmp_path):
    unreturned_site(site, pages=2)
    run = qivrora("audit", site.url("/"), *FAST, "-s", "QIVRORA_STATE=", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    # Two pages without a return link (HL201), two clusters without x-default (HL109), the home page in
    # no cluster (HL208).
    assert run.stderr.rstrip().splitlines()[-1] == "qivrora: 5 findings, not written: add -o findings.csv"
    with_facts_only = qivrora("audit", site.url("/"), "-o", "facts.jsonl:facts", *FAST, "-s", "QIVRORA_STATE=", cwd=tmp_path)
    assert with_facts_only.stderr.rstrip().splitlines()[-1].endswith("not written: add -o findings.csv")
    assert all(json.loads(line)["fact"] for line in (tmp_path / "facts.jsonl").open())
