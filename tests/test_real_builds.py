"""Real builds of real generators (tests/corpora/builds/; MANIFEST.json says how each was built).

Each build was made for `https://example.com`. A test deploys it: a copy whose URLs name a real HTTP
server on 127.0.0.1 port 0 that serves the folder as a plain static host does. The build is audited
three ways: served (from its home page), as a build folder (`site=`) and from its sitemaps. The three
must agree, but for the rows SITEMAP_ONLY and SERVED_ONLY explain; no crawl requests a URL twice; the
counts per check are pinned, each read on the HTML (docs/modes.md, "What generators get wrong by
default", lists what each generator gets wrong).
"""

from __future__ import annotations

import functools
import json
import shutil
import threading
from collections import Counter
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
import pytest_twisted

from .conftest import CrawlResult, crawl

BUILDS = Path(__file__).parent / "corpora" / "builds"
MANIFEST: dict[str, dict[str, Any]] = {
    entry["build"]: entry for entry in json.loads((BUILDS / "MANIFEST.json").read_text(encoding="utf-8"))
}
#: The origin every build was made for (its `url`, `site`, `site_url`, `baseURL`, `hostname` or `html_baseurl`).
BUILT_FOR = "https://example.com"
#: Files whose URLs name the origin: pages, sitemaps, robots.txt.
LINKING_SUFFIXES = {".html", ".xml", ".txt"}

#: Findings per check of each build, served. Why each is true, read on the HTML:
PINNED: dict[str, dict[str, int]] = {
    # Links, hreflang and canonicals name `/docs/intro`, the file is docs/intro/index.html: a static
    # host answers 301 (trailingSlash unset); 7 pages a locale. The French home page and two docs fall
    # back to English; the root sitemap lists the redirecting URLs and not /fr/; no robots.txt.
    "docusaurus": {"HL110": 14, "HL302": 14, "HL401": 14, "HL503": 3, "SM001": 7, "SM002": 1, "SM006": 1},
    # hreflang in the sitemap only, no x-default (3 clusters); de/api-examples is English; no robots.txt.
    "vitepress": {"HL109": 3, "HL503": 1, "SM006": 1},
    # The site title links `/fr`, which redirects: no <a href> names /fr/ itself; one page falls back
    # to English. /sitemap-index.xml, announced by <link rel="sitemap"> alone, lacks the HTML's
    # x-default on all 6 pages (HL601); no robots.txt names it (SM006).
    "starlight": {"HL203": 1, "HL503": 1, "HL601": 6, "SM006": 1},
    # locale_links leaves out the current page: no page names itself (4), no x-default (2 clusters).
    # The language chooser at / (the x-default it should be) and /en/news/, English only, are in no
    # cluster (HL208).
    "eleventy": {"HL108": 4, "HL109": 2, "HL208": 2, "SM006": 1},
    # Material writes the alternates relative (`./`, `../../fr/...`, `/fr/`): 2 a page on 6 pages;
    # the sitemap's absolute ones stand alone, without x-default (3 clusters); one page is English.
    "mkdocs-material": {"HL101": 12, "HL109": 3, "HL503": 1, "SM006": 1},
    # html_baseurl makes every canonical `https://example.com/usage.html`, without the language path
    # (10 pages, 10 sitemap entries); search.html is noindex yet listed and annotated; fr/api is English.
    # Hugo's internal sitemap template writes the hreflang (HTML has none), without x-default (6
    # clusters); /en/sitemap.xml lists the English pages, which live at the root, above its folder.
    # /posts/second/ has no French version and no annotation (HL208).
    "hugo": {"HL109": 6, "HL208": 1, "SM005": 7, "SM006": 1},
    "sphinx": {"HL109": 5, "HL301": 10, "HL302": 10, "HL406": 4, "HL503": 1, "SM012": 10},
}

#: Rows that a start from every sitemap of the build gives and the crawl of the site does not, per check.
SITEMAP_ONLY: dict[str, dict[str, int]] = {
    # /fr/sitemap.xml is announced nowhere: its redirecting entries, and SM006 naming it first.
    "docusaurus": {"SM001": 7, "SM006": 1},
}
#: Rows that the crawl of the site gives and a start from every sitemap does not, per check.
SERVED_ONLY: dict[str, dict[str, int]] = {
    # /fr/ is in /fr/sitemap.xml, which the crawl cannot find; SM006 names /sitemap.xml instead.
    "docusaurus": {"SM002": 1, "SM006": 1},
}


class _CountingFolder(SimpleHTTPRequestHandler):
    """Python's static file server: `/dir` answers 301 to `/dir/`, `/dir/` serves its index.html and a
    missing file 404, with no pretty URLs and no rule files, as a plain host such as GitHub Pages. It
    counts the requests of each URL, to hold the crawl to one request a URL."""

    server: _FolderServer

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        with self.server.lock:
            self.server.requested[self.path] += 1


class _FolderServer(ThreadingHTTPServer):
    def __init__(self, folder: Path) -> None:
        super().__init__(("127.0.0.1", 0), functools.partial(_CountingFolder, directory=str(folder)))
        self.lock = threading.Lock()
        self.requested: Counter[str] = Counter()


@dataclass
class Deployed:
    folder: Path
    origin: str
    server: _FolderServer

    def requested_twice(self) -> list[str]:
        """The URLs requested more than once since the last call, which starts the count again."""
        with self.server.lock:
            twice = sorted(path for path, count in self.server.requested.items() if count > 1)
            self.server.requested.clear()
        return twice


@pytest.fixture
def deployed(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Deployed]:
    """The build named by the test's parameter, deployed on a server of its own."""
    folder = tmp_path / request.param
    server = _FolderServer(folder)
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    shutil.copytree(BUILDS / request.param, folder)
    for path in folder.rglob("*"):
        if path.suffix in LINKING_SUFFIXES:
            path.write_text(path.read_text(encoding="utf-8").replace(BUILT_FOR, origin), encoding="utf-8")
    # Stopped at once, as SiteServer is: serve_forever looks at its flag every poll_interval.
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, name=f"build-{request.param}", daemon=True
    )
    thread.start()
    try:
        yield Deployed(folder, origin, server)
    finally:
        server.shutdown()
        server.server_close()


def _rows(result: CrawlResult) -> set[tuple[str, str, str, str, str]]:
    return {(f.check, f.url, f.target, f.hreflang, f.message) for f in result.findings}


def _per_check(rows: set[tuple[str, str, str, str, str]]) -> dict[str, int]:
    return dict(Counter(row[0] for row in rows))


@pytest.mark.parametrize("deployed", list(PINNED), indirect=True)
@pytest_twisted.ensureDeferred
async def test_served_folder_and_sitemaps_give_the_pinned_findings(deployed: Deployed) -> None:
    folder, origin = deployed.folder, deployed.origin
    entry = MANIFEST[folder.name]
    served = _rows(await crawl(start=origin + entry["start"]))
    assert deployed.requested_twice() == []
    assert _per_check(served) == PINNED[folder.name]
    untranslated = {origin + path for path in entry["untranslated"]}
    assert {row[1] for row in served if row[0] == "HL503"} <= untranslated, "HL503 on a translated page"
    assert _rows(await crawl(site=str(folder), base=origin + "/", start=origin + entry["start"])) == served
    assert deployed.server.requested == Counter(), "the folder answered, not the server"
    from_sitemaps = _rows(await crawl(start=",".join(origin + path for path in entry["sitemaps"])))
    assert deployed.requested_twice() == []
    assert _per_check(from_sitemaps - served) == SITEMAP_ONLY.get(folder.name, {})
    assert _per_check(served - from_sitemaps) == SERVED_ONLY.get(folder.name, {})


def test_the_manifest_names_every_build_and_the_files_it_points_to() -> None:
    assert set(MANIFEST) == {path.name for path in BUILDS.iterdir() if path.is_dir()} == set(PINNED)
    provenance = ("generator", "source", "license", "copyright", "changes", "build_command", "dropped")
    assert [build for build, entry in MANIFEST.items() if not all(entry.get(key) for key in provenance)] == []
    for build, entry in MANIFEST.items():
        for path in [entry["start"], *entry["sitemaps"], *entry["untranslated"]]:
            file = BUILDS / build / path.lstrip("/")
            assert (file / "index.html" if path.endswith("/") else file).is_file(), f"{build}: {path}"
