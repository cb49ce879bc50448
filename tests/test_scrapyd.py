"""On a real Scrapyd: the egg scrapyd-deploy builds, uploaded and scheduled; the findings kept per job."""

from __future__ import annotations

import configparser
import json
import os
import socket
import subprocess
import sys
import time
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from qivrora_spider.demo.site_server import Route, alternate, html_page
from qivrora_spider.findings import FINDING_FIELDS

from .conftest import copy_checkout
from .fixture_sites import multilingual_site

pytestmark = pytest.mark.slow  # starts Scrapyd and builds an egg

#: Seconds to wait for Scrapyd to answer, and for a job to finish.
WAIT = 90


def build_egg(tmp_path: Path) -> Path:
    """The egg `scrapyd-deploy --build-egg` builds, from a copy of the checkout (it writes build files)."""
    source, egg = copy_checkout(tmp_path / "source"), tmp_path / "qivrora.egg"
    subprocess.run(
        [sys.executable, "-m", "scrapyd_client.deploy", "--build-egg", str(egg)],
        cwd=source,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return egg


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def scrapyd(home: Path) -> Iterator[str]:
    """A Scrapyd of its own on 127.0.0.1, its folders in `home`; yields its URL."""
    home.mkdir()
    port = free_port()
    (home / "scrapyd.conf").write_text(
        "[scrapyd]\nbind_address = 127.0.0.1\n"
        f"http_port = {port}\n"
        "eggs_dir = eggs\nlogs_dir = logs\nitems_dir = items\ndbs_dir = dbs\npoll_interval = 0.2\n"
    )
    # The jobs must find the settings module through the egg's entry point, as on a server.
    environment = {name: value for name, value in os.environ.items() if name != "SCRAPY_SETTINGS_MODULE"}
    with (home / "scrapyd.out").open("wb") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "scrapyd"],
            cwd=home,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + WAIT
        while True:
            assert server.poll() is None, (home / "scrapyd.out").read_text()
            try:
                api(url, "daemonstatus.json")
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "Scrapyd did not answer"
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def api(url: str, endpoint: str, **kwargs: Any) -> dict[str, Any]:
    """Scrapyd answers errors with HTTP 200 too: the JSON's status says."""
    method = requests.post if "data" in kwargs or "files" in kwargs else requests.get
    answer = method(f"{url}/{endpoint}", timeout=30, **kwargs)
    answer.raise_for_status()
    body: dict[str, Any] = answer.json()
    assert body["status"] == "ok", body
    return body


def run_job(url: str, start: str, *arguments: tuple[str, str]) -> str:
    job: str = api(
        url,
        "schedule.json",
        data=[
            ("project", "qivrora"),
            ("spider", "hreflang"),
            ("start", start),
            ("setting", "AUTOTHROTTLE_ENABLED=False"),
            ("setting", "DOWNLOAD_DELAY=0"),
            *arguments,
        ],
    )["jobid"]
    deadline = time.monotonic() + WAIT
    while job not in {j["id"] for j in api(url, "listjobs.json", params={"project": "qivrora"})["finished"]}:
        assert time.monotonic() < deadline, f"job {job} did not finish"
        time.sleep(0.2)
    return job


def test_the_egg_deployed_on_scrapyd_crawls_and_each_jobs_findings_land_in_items_dir(
    site, other_site, tmp_path
):
    egg = build_egg(tmp_path)
    with zipfile.ZipFile(egg) as archive:
        names = archive.namelist()
        assert "qivrora_spider/settings/__init__.py" in names and "qivrora_spider/spiders/hreflang.py" in names
        assert not [name for name in names if name.startswith("settings/")], "no top-level settings package"
        assert "qivrora_spider/report/templates/report.html.j2" in names, "package data"
        assert not [name for name in names if name.startswith(("tests/", "bench/"))]
        entry_points = configparser.ConfigParser()
        entry_points.read_string(archive.read("EGG-INFO/entry_points.txt").decode())
        assert dict(entry_points["scrapy"]) == {"settings": "qivrora_spider.settings"}

    multilingual_site(site, other_site)
    # A page whose annotations a script writes, for a render job (-a render=1) under Scrapyd.
    js = [("en", site.url("/js/en")), ("de", site.url("/js/de"))]
    site.routes["/js/en"] = Route(html_page(f"""<script>
for (const [lang, href] of {json.dumps(js)}) {{
  const link = document.createElement('link');
  Object.assign(link, {{rel: 'alternate', hreflang: lang, href}});
  document.head.append(link);
}}</script>"""))
    site.routes["/js/de"] = Route(html_page(*(alternate(lang, href) for lang, href in js), lang="de"))
    home = tmp_path / "scrapyd"
    with scrapyd(home) as url:
        assert api(
            url,
            "addversion.json",
            data={"project": "qivrora", "version": "1"},
            files={"egg": egg.read_bytes()},
        )
        assert api(url, "listspiders.json", params={"project": "qivrora"})["spiders"] == ["hreflang"]
        jobs = [run_job(url, site.url("/")) for _ in range(2)]
        # A loaded machine (CI) starts Chromium slowly: a long render timeout, so that HL703 means a defect.
        rendered = run_job(
            url, site.url("/js/en"), ("render", "1"), ("setting", "QIVRORA_STATE="),
            ("setting", "QIVRORA_RENDER_TIMEOUT=60"),
        )

    runs = []
    for job in jobs:
        log = (home / "logs" / "qivrora" / "hreflang" / f"{job}.log").read_text()
        assert "'finish_reason': 'finished'" in log and "Qivrora audit:" in log, log[-3000:]
        lines = (home / "items" / "qivrora" / "hreflang" / f"{job}.jl").read_text().splitlines()
        runs.append([json.loads(line) for line in lines])
    first, second = runs
    assert first and all(tuple(finding) == FINDING_FIELDS for finding in first), "findings only, no facts"
    assert {finding["check"] for finding in first} >= {"HL401", "HL405"}
    assert {finding["change"] for finding in first} == {"new"}
    assert {finding["change"] for finding in second} == {"persisting"}, "jobs share the crawl state"
    assert [{**f, "change": ""} for f in first] == [{**f, "change": ""} for f in second]
    assert (home / ".qivrora" / "state.sqlite").exists(), "in Scrapyd's working directory"

    lines = (home / "items" / "qivrora" / "hreflang" / f"{rendered}.jl").read_text().splitlines()
    found = [json.loads(line) for line in lines]
    assert [(f["check"], f["url"]) for f in found if f["check"].startswith("HL7")] == [("HL701", site.url("/js/en"))]
    js_findings = [f["check"] for f in found if "/js/" in f["url"] and f["check"] in ("HL108", "HL201")]
    assert js_findings == [], "the graph follows the rendered page"
