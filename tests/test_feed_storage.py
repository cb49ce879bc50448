"""Nothing lost: a feed is complete or absent, never half written, even when the crawl is killed."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import pytest_twisted

from qivrora_spider.demo.site_server import Route, alternate, html_page
from qivrora_spider.feeds.storage import AtomicFileFeedStorage
from qivrora_spider.findings import FINDING_FIELDS

from .conftest import ROOT, crawl

FAST = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "LOG_LEVEL=INFO"]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(".*.part"))


def test_storage_writes_a_temporary_file_and_renames_it_when_complete(tmp_path):
    target = tmp_path / "out" / "findings.csv"
    storage = AtomicFileFeedStorage(str(target), feed_options={"overwrite": True})
    file = storage.open(spider=None)  # type: ignore[arg-type]
    file.write(b"check,name\n")
    assert not target.exists() and len(_leftovers(target.parent)) == 1, "written beside the target"
    storage.store(file)
    assert target.read_bytes() == b"check,name\n" and _leftovers(target.parent) == []


def test_appending_copies_the_existing_file_first(tmp_path):
    target = tmp_path / "facts.jsonl"
    target.write_bytes(b"old\n")
    os.chmod(target, 0o640)
    storage = AtomicFileFeedStorage(target.as_uri(), feed_options={"overwrite": False})
    file = storage.open(spider=None)  # type: ignore[arg-type]
    file.write(b"new\n")
    assert target.read_bytes() == b"old\n", "untouched until complete"
    storage.store(file)
    assert target.read_bytes() == b"old\nnew\n"
    assert target.stat().st_mode & 0o777 == 0o640, "permissions kept"


@pytest_twisted.ensureDeferred
async def test_a_crawl_leaves_complete_feeds_and_no_temporary_files(site, tmp_path):
    a = site.url
    site.routes["/"] = Route(html_page(alternate("en", a("/")), alternate("de", a("/de/"))))
    table, facts = tmp_path / "findings.csv", tmp_path / "facts.jsonl"
    feeds = {str(table): {"format": "csv", "overwrite": True}, str(facts): {"format": "facts"}}
    first = await crawl({"FEEDS": feeds}, start=a("/"))
    rows = list(csv.reader(table.open(encoding="utf-8")))
    assert tuple(rows[0]) == FINDING_FIELDS and len(rows) == len(first.findings) + 1
    once = facts.read_text().count("\n")
    assert once == len(first.facts) and all(json.loads(line)["fact"] for line in facts.open())
    await crawl({"FEEDS": feeds}, start=a("/"))
    assert facts.read_text().count("\n") == 2 * once, "-o appends, as Scrapy's own storage does"
    assert len(list(csv.reader(table.open(encoding="utf-8")))) == len(rows), "-O overwrites"
    assert _leftovers(tmp_path) == []


def _start_crawl(url: str, *outputs: str) -> subprocess.Popen[bytes]:
    feeds = [arg for out in outputs for arg in ("-O", out)]
    return subprocess.Popen(
        [sys.executable, "-m", "scrapy", "crawl", "hreflang", "-a", f"start={url}", *feeds, *FAST,
         "-s", "DOWNLOAD_TIMEOUT=30"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


@pytest.mark.slow  # kills a crawl process mid-crawl
@pytest.mark.parametrize("previous", [False, True], ids=["no-previous-file", "previous-file"])
def test_a_killed_crawl_leaves_the_previous_feed_or_none(site, tmp_path, previous):
    a = site.url
    slow = [(code, a(f"/{code}/")) for code in ("de", "fr", "it", "es")]
    site.routes["/"] = Route(html_page(alternate("en", a("/")), *(alternate(c, u) for c, u in slow)))
    for code, _ in slow:
        site.routes[f"/{code}/"] = Route(html_page(lang=code), delay=20)
    table, facts = tmp_path / "findings.csv", tmp_path / "facts.jsonl"
    if previous:
        table.write_text("the previous, complete findings\n")
        facts.write_text('{"fact": "crawl", "started": "previous"}\n')
    crawl_process = _start_crawl(a("/"), str(table), f"{facts}:facts")
    try:
        deadline = time.monotonic() + 60
        # Mid-crawl: the first facts are exported (the feeds are open) and the alternates hang.
        while not (_leftovers(tmp_path) and site.requests().get("/de/")):
            assert crawl_process.poll() is None, "the crawl ended before it could be killed"
            assert time.monotonic() < deadline, "the crawl never got going"
            time.sleep(0.05)
    finally:
        crawl_process.send_signal(signal.SIGKILL)
        crawl_process.wait(timeout=30)
    assert crawl_process.returncode == -signal.SIGKILL
    if previous:
        assert table.read_text() == "the previous, complete findings\n"
        assert facts.read_text() == '{"fact": "crawl", "started": "previous"}\n'
    else:
        assert not table.exists() and not facts.exists(), "no half-written feed"
