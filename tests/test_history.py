"""Two crawls of a site that changes between them: SM010/SM011, new/persisting/resolved, clusters.

And the crawl state under faults: a crawl killed halfway leaves the state as the previous crawl left it.
"""

from __future__ import annotations

import csv
import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted

from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.facts import CrawlInfo
from qivrora_spider.findings import FINDING_FIELDS

from .conftest import ROOT, crawl
from .fixture_sites import url_entry, urlset

LANGS = ("en", "de", "fr")


def changing_site(site: SiteServer, version: int) -> None:
    """Version 1, then version 2 of a small site whose pages and sitemap change.

    Version 2: /en/ is unchanged but its <lastmod> advanced (SM010); /de/ changed but its <lastmod>
    did not (SM011); /fr/ changed, its <lastmod> advanced (honest), its <html lang> was fixed (HL501
    resolved), and it names a new Italian page (a new member of the cluster, new findings).
    """
    a = site.url
    links = [alternate(lang, a(f"/{lang}/")) for lang in LANGS]
    lastmods = {"en": "2026-11-01", "de": "2026-11-01", "fr": "2026-11-01"}
    pages = {
        "en": html_page(*links, body="<p>Hello</p>"),
        "de": html_page(*links, body="<p>Hallo</p>", lang="de"),
        "fr": html_page(*links, body="<p>Bonjour</p>", lang="de"),
    }
    if version == 2:
        lastmods.update(en="2026-11-05", fr="2026-11-05")
        pages["de"] = html_page(*links, body="<p>Hallo, Welt</p>", lang="de")
        pages["fr"] = html_page(
            *links, alternate("it", a("/it/")), body="<p>Bonjour, le monde</p>", lang="fr"
        )
        site.routes["/it/"] = Route(html_page(body="<p>Ciao</p>", lang="it"))
    site.routes.update({f"/{lang}/": Route(page) for lang, page in pages.items()})
    site.routes["/robots.txt"] = Route(f"Sitemap: {a('/sitemap.xml')}\n", content_type="text/plain")
    site.routes["/sitemap.xml"] = Route(
        urlset(*(url_entry(a(f"/{lang}/"), lastmod=lastmods[lang]) for lang in LANGS)),
        content_type="application/xml",
    )


def state_settings(tmp_path: Path) -> dict[str, Any]:
    return {
        "QIVRORA_STATE": str(tmp_path / "state.sqlite"),
        "QIVRORA_RESOLVED": str(tmp_path / "resolved.csv"),
        "QIVRORA_CLUSTER_CHANGES": str(tmp_path / "clusters.jsonl"),
    }


@pytest_twisted.ensureDeferred
async def test_two_crawls_mark_findings_and_judge_lastmod_against_the_previous_one(site, tmp_path):
    a = site.url
    changing_site(site, 1)
    first = await crawl(state_settings(tmp_path), start=a("/en/"))
    assert first.findings and {f.change for f in first.findings} == {"new"}, "the first crawl: all new"
    assert not {"SM010", "SM011"} & first.checks(), "nothing to compare with yet"
    assert (tmp_path / "resolved.csv").read_text().splitlines() == [",".join(FINDING_FIELDS)], "the columns alone"
    assert (tmp_path / "clusters.jsonl").read_text() == ""
    before = {(f.check, f.url, f.target) for f in first.findings}

    changing_site(site, 2)
    second = await crawl(state_settings(tmp_path), start=a("/en/"))
    lastmod = sorted((f.check, f.target) for f in second.findings if f.check in ("SM010", "SM011"))
    assert lastmod == [("SM010", a("/en/")), ("SM011", a("/de/"))]

    marks = {(f.check, f.url, f.target): f.change for f in second.findings}
    assert marks[("HL109", a("/de/"), "")] == "persisting", "the cluster still has no x-default"
    assert marks[("SM010", a("/sitemap.xml"), a("/en/"))] == "new"
    assert all(change == ("persisting" if key in before else "new") for key, change in marks.items())
    assert any(change == "new" and a("/it/") in key for key, change in marks.items())

    resolved = list(csv.DictReader((tmp_path / "resolved.csv").open(encoding="utf-8")))
    assert [(r["check"], r["url"], r["change"]) for r in resolved] == [("HL501", a("/fr/"), "resolved")]

    (cluster,) = [json.loads(line) for line in (tmp_path / "clusters.jsonl").open(encoding="utf-8")]
    assert cluster["change"] == "changed" and cluster["added"] == {a("/it/"): ["it"]}
    assert cluster["removed"] == {} and cluster["relabelled"] == {}

    with sqlite3.connect(tmp_path / "state.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("SELECT count(*) FROM runs").fetchone() == (2,)
        seen = {url: dates for url, *dates in db.execute("SELECT url, first_seen, last_seen FROM urls")}
    started = [result.of(CrawlInfo)[0].started for result in (first, second)]
    assert seen == {**{a(f"/{lang}/"): started for lang in LANGS}, a("/it/"): [started[1], started[1]]}


def dump(path: Path) -> list[tuple[Any, ...]]:
    """Every row of every table, to compare a state file before and after."""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        tables = [
            name
            for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        ]
        return [
            (table, *row) for table in tables for row in db.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3")
        ]


@pytest.mark.slow  # kills a crawl process mid-write
@pytest_twisted.ensureDeferred
async def test_a_killed_crawl_leaves_the_previous_state_as_it_was(site, tmp_path):
    a = site.url
    changing_site(site, 1)
    settings = state_settings(tmp_path)
    await crawl(settings, start=a("/en/"))
    recorded = dump(tmp_path / "state.sqlite")
    assert recorded

    changing_site(site, 2)
    for route in site.routes.values():
        route.delay = 0.5
    command = [sys.executable, "-m", "scrapy", "crawl", "hreflang", "-a", f"start={a('/en/')}"]
    for name, value in {**settings, "AUTOTHROTTLE_ENABLED": False, "DOWNLOAD_DELAY": 0}.items():
        command += ["-s", f"{name}={value}"]
    earlier = sum(site.requests().values())
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while (
            sum(site.requests().values()) < earlier + 2
            and process.poll() is None
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        assert process.poll() is None, "the crawl must still be running when it is killed"
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    assert dump(tmp_path / "state.sqlite") == recorded
