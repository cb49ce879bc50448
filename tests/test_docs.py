"""The docs site as a reader gets it: built by Sphinx, served over HTTP, opened in headless Chromium."""

from __future__ import annotations

import functools
import re
import importlib.util
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from qivrora_spider.audit import CHECKS

from .conftest import ROOT

#: `scrapy crawl` and Scrapy's other commands run by `scrapy` itself, not through `qivrora scrapy ...`:
#: they fail outside a checkout ("The crawl command is not available from this location").
SCRAPY_COMMAND = re.compile(r"(?<!qivrora )\bscrapy (?:crawl|hreflang-report|settings)\b|bin/scrapy ")


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """The test reads the browser's console, not the server's log."""


def test_every_example_outside_the_scrapy_project_page_uses_qivrora():
    """Users run `qivrora` from their own folder; only the page on Scrapy projects shows `scrapy crawl`."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    assert ROOT / "docs" / "scrapy-project.md" in pages
    found = [
        f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
        for page in pages
        if page.name != "scrapy-project.md"
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if SCRAPY_COMMAND.search(line)
    ]
    assert found == []
    assert SCRAPY_COMMAND.search((ROOT / "docs" / "scrapy-project.md").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site `make docs` builds (warnings as errors), served on 127.0.0.1."""
    if importlib.util.find_spec("sphinx") is None:
        pytest.skip("Sphinx is not installed (make docs-venv installs docs/requirements.txt; make test does)")
    html = tmp_path_factory.mktemp("docs") / "html"
    # As `make docs` builds it: warnings are errors, and every internal link leads somewhere.
    sphinx = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html"]
    build = subprocess.run([*sphinx, str(ROOT / "docs"), str(html)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    links = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "check_links.py"), str(html)], capture_output=True, text=True, timeout=120
    )
    assert links.returncode == 0, links.stderr[-3000:]
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(html)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_a_browser_shows_the_index_a_check_page_and_finds_a_check_by_name(site):
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium package is not installed (.ci/run installs it)")
    # Playwright's sync API refuses a thread whose asyncio loop runs (pytest-twisted's reactor's).
    with ThreadPoolExecutor(1) as browser_thread:
        problems = browser_thread.submit(read_the_site, site, chromium).result(timeout=300)
    assert problems == [], "\n".join(problems)


def read_the_site(site: str, chromium: str) -> list[str]:
    """Open the index, a check page, a search and the checks' index; the problems the browser saw."""
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        try:
            page = browser.new_page()
            # Each page is read once the network is idle: a request cut off by the next navigation is no fault.
            page.on("console", lambda m: m.type == "error" and problems.append(f"{m.text} ({m.location['url']})"))
            page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
            page.on("requestfailed", lambda request: problems.append(f"failed: {request.url}"))
            page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))

            page.goto(site, wait_until="networkidle")
            assert page.title().startswith("Qivrora")
            navigation = page.locator(".sidebar-tree").inner_text()
            assert "Getting started" in navigation and "Checks" in navigation

            page.goto(f"{site}checks/hl201.html", wait_until="networkidle")
            assert page.locator("h1").inner_text().startswith("HL201 missing-return-link")
            body = page.locator("article").inner_text()
            for heading in ("Why it matters", "Example", "Fix", "Precedence", "Related checks"):
                assert heading in body
            assert page.locator("div.highlight-html").count() == 2, "the failing markup and its fix, highlighted"
            page.locator("a", has_text="HL202").first.click()
            page.wait_for_url("**/checks/hl202.html", wait_until="networkidle")

            page.goto(f"{site}search.html?q=missing-return-link", wait_until="networkidle")
            # The search fetches each result page for its summary; it says when it is done.
            page.locator("#search-results", has_text="Search finished").wait_for(timeout=60_000)
            results = page.locator("#search-results ul.search li a")
            hrefs = results.evaluate_all("links => links.map(link => link.getAttribute('href'))")
            found = [href.split("?")[0].split("#")[0] for href in hrefs]
            assert found[0] == "checks/hl201.html", found

            page.goto(f"{site}reference/settings.html", wait_until="networkidle")
            setting = page.locator("section#qivrora-docs-url").inner_text()
            assert "the published one by default" in setting, "each setting with the comment above it"
            assert "'https://qivrora.readthedocs.io/en/latest/'" in setting, "and its value"

            page.goto(f"{site}checks/index.html", wait_until="networkidle")
            listed = page.locator("article table a").all_inner_texts()
            assert sorted(listed) == sorted(CHECKS), "the index lists every check"
        finally:
            browser.close()
    return problems
