"""The commands as users run them: `scrapy crawl hreflang ... -O findings.csv`, `scrapy hreflang-report`."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from scrapy import __version__ as SCRAPY

from qivrora_spider import __version__
from qivrora_spider.findings import FINDING_FIELDS

from .conftest import ROOT
from .fixture_sites import multilingual_site

#: Every test here runs the `qivrora` command in a process of its own, about a second of start-up each.
pytestmark = pytest.mark.slow

FAST = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "LOG_LEVEL=INFO", "-s", "QIVRORA_STATE="]


def scrapy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scrapy", *args], cwd=cwd, capture_output=True, text=True, timeout=240
    )


@pytest.fixture
def demo(site, other_site):
    multilingual_site(site, other_site)
    return site


def test_findings_csv_is_the_table_and_two_runs_are_identical(demo, tmp_path):
    first, second, facts = tmp_path / "1.csv", tmp_path / "2.csv", tmp_path / "facts.jsonl"
    run = scrapy("crawl", "hreflang", "-a", f"start={demo.url('/')}", "-O", str(first), "-O", f"{facts}:facts", *FAST)
    assert run.returncode == 0, run.stderr[-3000:]
    assert scrapy("crawl", "hreflang", "-a", f"start={demo.url('/')}", "-O", str(second), *FAST).returncode == 0
    assert first.read_bytes() == second.read_bytes()

    rows = list(csv.reader(first.open(encoding="utf-8")))
    assert tuple(rows[0]) == FINDING_FIELDS
    assert len(rows) > 1 and all(len(row) == len(FINDING_FIELDS) for row in rows)
    assert {row[0] for row in rows[1:]} >= {"HL401", "HL405"}, "planted: a redirecting and a blocked alternate"
    assert "Qivrora audit:" in run.stderr, "the summary is logged"

    kinds = {json.loads(line)["fact"] for line in facts.open()}
    assert kinds == {"page", "status", "robots", "sitemap", "entry", "crawl"}, "facts only, every kind"


def test_jsonl_feed_carries_the_same_findings(demo, tmp_path):
    table, lines = tmp_path / "f.csv", tmp_path / "f.jsonl"
    assert scrapy("crawl", "hreflang", "-a", f"start={demo.url('/')}", "-O", str(table), "-O", str(lines), *FAST).returncode == 0
    records = [json.loads(line) for line in lines.open(encoding="utf-8")]
    assert all(tuple(record) == FINDING_FIELDS for record in records)
    assert [list(r.values()) for r in records] == list(csv.reader(table.open(encoding="utf-8")))[1:]


def test_hreflang_report_gives_the_findings_of_the_crawl_that_exported_the_facts(demo, tmp_path):
    crawled, facts, offline = tmp_path / "crawl.csv", tmp_path / "facts.jsonl", tmp_path / "offline.csv"
    assert scrapy("crawl", "hreflang", "-a", f"start={demo.url('/')}", "-O", str(crawled), "-O", f"{facts}:facts", *FAST).returncode == 0
    # The same facts twice, as from two workers that overlap: merged, de-duplicated.
    report = scrapy("hreflang-report", str(facts), str(facts), "-O", str(offline))
    assert report.returncode == 0, report.stderr
    assert offline.read_bytes() == crawled.read_bytes()


def test_hreflang_report_rejects_a_file_that_is_not_facts(tmp_path):
    wrong = tmp_path / "findings.jsonl"
    wrong.write_text('{"check": "HL201"}\n')
    report = scrapy("hreflang-report", str(wrong), "-O", str(tmp_path / "out.csv"))
    assert report.returncode == 2
    assert report.stderr.strip().splitlines() == [
        f"qivrora: {wrong}:1: not a Qivrora fact (export facts with the `facts` feed format)"
    ]


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["-a", "start=ftp://127.0.0.1/"], "qivrora: start: 'ftp://127.0.0.1/' is not a usable URL"),
        (["-a", "max_pages=ten"], "qivrora: max_pages: 'ten' is not a whole number"),
        (["-s", "QIVRORA_FAIL_ON=sometimes"], "qivrora: QIVRORA_FAIL_ON: 'sometimes' is not one of"),
        (["-s", "QIVRORA_DISABLE=HL999"], "qivrora: QIVRORA_DISABLE names unknown check 'HL999'"),
        (["-s", "QIVRORA_AUDIT_PROCESSES=0"], "qivrora: QIVRORA_AUDIT_PROCESSES: '0' is not a whole number"),
        (["-s", "QIVRORA_STATE=s.db", "-s", "QIVRORA_RESOLVED=gone.txt"], "qivrora: QIVRORA_RESOLVED: 'gone.txt' should end"),
    ],
)
def test_a_bad_argument_stops_before_any_request_with_one_line(site, arguments, message):
    if not any(a.startswith("start=") for a in arguments):
        arguments = ["-a", f"start={site.url('/')}", *arguments]
    run = scrapy("crawl", "hreflang", *arguments, *FAST)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), run.stderr
    assert site.requests() == {}


def test_fail_on_sets_the_exit_status(demo, tmp_path):
    out = str(tmp_path / "f.csv")
    start = f"start={demo.url('/')}"
    assert scrapy("crawl", "hreflang", "-a", start, "-O", out, *FAST).returncode == 0
    assert scrapy("crawl", "hreflang", "-a", start, "-O", out, "-s", "QIVRORA_FAIL_ON=error", *FAST).returncode == 1
    disabled = "HL201,HL203,HL401,HL405,HL601,SM002,HL109"
    clean = scrapy("crawl", "hreflang", "-a", start, "-O", out, "-s", "QIVRORA_FAIL_ON=error", "-s", f"QIVRORA_DISABLE={disabled}", *FAST)
    assert clean.returncode == 0, clean.stderr[-2000:]


def test_hreflang_report_rejects_a_forged_url_in_one_line(tmp_path):
    forged = tmp_path / "facts.jsonl"
    forged.write_text('{"fact": "page", "url": "javascript:alert(1)", "requested": "x", "status": 200}\n')
    report = scrapy("hreflang-report", str(forged), "-O", str(tmp_path / "out.csv"))
    assert report.returncode == 2
    assert report.stderr.strip().splitlines() == [
        f"qivrora: {forged}:1: url 'javascript:alert(1)' is not a normalised http(s) URL"
    ]


def test_version_names_qivrora_and_the_user_agent_carries_it():
    assert scrapy("version").stdout == f"Qivrora {__version__}\n"
    verbose = scrapy("version", "-v").stdout.splitlines()
    assert verbose[0] == f"Qivrora {__version__}" and verbose[1].split() == ["Scrapy", ":", SCRAPY]
    user_agent = scrapy("settings", "--get", "USER_AGENT").stdout.strip()
    assert user_agent == f"Qivrora/{__version__} (hreflang auditor; +https://github.com/qivrora/qivrora)"


def test_audit_is_crawl_hreflang_in_short(demo, tmp_path):
    short, full = tmp_path / "short.csv", tmp_path / "full.csv"
    run = scrapy("audit", demo.url("/"), "--max-depth", "0", "-o", str(short), *FAST)
    assert run.returncode == 0, run.stderr[-3000:]
    crawl = scrapy("crawl", "hreflang", "-a", f"start={demo.url('/')}", "-a", "max_depth=0", "-O", str(full), *FAST)
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    assert short.read_bytes() == full.read_bytes() and len(short.read_text().splitlines()) > 1


def test_audit_checks_its_arguments_as_crawl_does(site, tmp_path):
    run = scrapy("audit", site.url("/"), "--max-pages", "ten", "-o", str(tmp_path / "f.csv"), *FAST)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == ["qivrora: max_pages: 'ten' is not a whole number"]
    assert site.requests() == {}


def test_the_command_exits_after_its_exit_handlers_without_tearing_down(tmp_path: Path) -> None:
    # An object alive until the interpreter's teardown says so when it is freed; an exit handler
    # and a log line buffered in a file say whether they ran and were flushed.
    script = (
        "import atexit, logging, sys\n"
        "class Late:\n"
        "    def __del__(self): print('torn down', file=sys.stderr)\n"
        "keep = Late()\n"
        "atexit.register(lambda: print('exit handler ran', file=sys.stderr))\n"
        f"log = open({str(tmp_path / 'log')!r}, 'w', buffering=65536)\n"
        "log.write('buffered line')\n"
        "atexit.register(log.close)\n"
        "sys.argv = ['qivrora', 'explain', 'HL999']\n"
        "from qivrora_spider.cli import main; main()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode != 0 and "HL999" in done.stderr  # an unknown check: the command's own status
    assert "exit handler ran" in done.stderr
    assert (tmp_path / "log").read_text() == "buffered line"
    assert "torn down" not in done.stderr
