"""Rendering (`-a render=1`): what a browser builds beside what the server sends (HL701 to HL703).

Fixture pages with inline scripts are served on 127.0.0.1 and crawled through Debian's Chromium, as
users run it. One crawl of one site serves most tests (a browser start costs a second); the tests of
processes (no browser without render=1, none left behind) run `scrapy crawl` in a subprocess.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import pytest_twisted

from qivrora_spider.audit import audit
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.fact_lines import fact_from_dict, fact_to_dict
from qivrora_spider.facts import Page
from qivrora_spider.outcome import INTERRUPTED

from .conftest import ROOT, crawl


#: Fast enough for tests, slow enough for a loaded CI machine to render a page.
RENDER = {"QIVRORA_RENDER_TIMEOUT": 3, "QIVRORA_PROGRESS_INTERVAL": 1}

ADD = """<script>
for (const [lang, href] of {pairs}) {{
  const link = document.createElement('link');
  link.rel = 'alternate'; link.hreflang = lang; link.href = href;
  document.head.appendChild(link);
}}
</script>"""

LATE = """<script>
document.addEventListener('DOMContentLoaded', () => setTimeout(() => {{ {add} }}, 300));
</script>"""


def pairs(site: SiteServer, cluster: str, *langs: str) -> list[tuple[str, str]]:
    return [(lang, site.url(f"/{cluster}/{lang}")) for lang in langs]


def served(site: SiteServer, cluster: str, *langs: str) -> list[str]:
    return [alternate(lang, href) for lang, href in pairs(site, cluster, *langs)]


def adding(site: SiteServer, cluster: str, *langs: str) -> str:
    return ADD.format(pairs=json.dumps(pairs(site, cluster, *langs)))


def fixture_site(site: SiteServer) -> None:
    """One page per behaviour, each with a static partner (`/<case>/de`) that annotates both."""
    cases = {
        # annotations added by a script, at once
        "sync": html_page(adding(site, "sync", "en", "de")),
        # added 300 ms after DOMContentLoaded, as a hydrating framework does
        "late": html_page(LATE.format(add=adding(site, "late", "en", "de").removeprefix("<script>").removesuffix("</script>"))),
        # served annotations rewritten: de points elsewhere after rendering
        "rewrite": html_page(*served(site, "rewrite", "en", "de"), f"""<script>
document.querySelector('link[hreflang=de]').href = {json.dumps(site.url('/rewrite/de-x'))};
</script>"""),
        # served annotations removed
        "removed": html_page(*served(site, "removed", "en", "de"), """<script>
document.querySelectorAll('link[hreflang]').forEach(l => l.remove());
</script>"""),
        # a script that does something unrelated: no finding
        "unrelated": html_page(*served(site, "unrelated", "en", "de"), """<script>
document.title = 'Rendered'; document.addEventListener('DOMContentLoaded', () => document.body.append('hello'));
</script>""", '<script src="/app.js"></script>', body='<img src="/photo.png" alt="">'),
        # a script that throws
        "throws": html_page(*served(site, "throws", "en", "de"), "<script>throw new Error('broken');</script>"),
        # an endless loop: HL703, the served annotations stand
        "loop": html_page(*served(site, "loop", "en", "de"), "<script>while (true) {}</script>"),
        # a redirect by location.href: HL703, and the destination is not fetched by the browser
        "redirect": html_page(*served(site, "redirect", "en", "de"), "<script>location.href = '/redirect/elsewhere';</script>"),
        # a popup and a dialog: the popup is refused, the dialog dismissed, and the page renders
        "popup": html_page(*served(site, "popup", "en", "de"), "<script>window.open('/popup/elsewhere');</script>"),
        "dialog": html_page(*served(site, "dialog", "en", "de"), "<script>alert('Cookies?'); confirm('Sure?');</script>"),
        # a script that asks an internal address: refused, the page renders
        "private": html_page(*served(site, "private", "en", "de"), f"""<script>
fetch('http://localhost:{site.url('/').split(':')[2].split('/')[0]}/secret').catch(() => {{}});
</script>"""),
    }
    links = "".join(f'<a href="/{case}/en">{case}</a> ' for case in cases)
    site.routes["/"] = Route(html_page(body=links + '<a href="/guide.pdf">guide</a>'))
    site.routes["/guide.pdf"] = Route(b"%PDF-1.4 not really", content_type="application/pdf")
    site.routes["/app.js"] = Route("window.appLoaded = true;", content_type="text/javascript")
    site.routes["/photo.png"] = Route(b"\x89PNG", content_type="image/png")
    site.routes["/secret"] = Route("secret", content_type="text/plain")
    for case, page in cases.items():
        site.routes[f"/{case}/en"] = Route(page)
        site.routes[f"/{case}/de"] = Route(html_page(*served(site, case, "en", "de"), lang="de"))
    site.routes["/rewrite/de-x"] = Route(html_page(*served(site, "rewrite", "en", "de"), lang="de"))
    # a compressed answer: the browser gets the bytes as they came (Scrapy decompresses after the handler)
    site.routes["/gzip/en"] = Route(
        gzip.compress(html_page(adding(site, "gzip", "en", "de")).encode()), headers=[("Content-Encoding", "gzip")]
    )
    site.routes["/gzip/de"] = Route(html_page(*served(site, "gzip", "en", "de"), lang="de"))
    site.routes["/"].body += '<a href="/gzip/en">gzip</a>'  # type: ignore[operator]


@pytest.fixture(scope="module")
def render_site():
    with SiteServer() as server:
        fixture_site(server)
        server.crawl = None  # type: ignore[attr-defined]
        yield server


async def rendered(site):
    """The one render crawl of the fixture site (run by the first test that asks)."""
    if site.crawl is None:
        lines: list[str] = []
        handler = logging.Handler()
        handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
        progress = logging.getLogger("qivrora_spider.extensions.progress")
        level = progress.level
        progress.addHandler(handler)
        progress.setLevel(logging.INFO)
        try:
            site.crawl = await crawl(RENDER, start=site.url("/"), render="1")
        finally:
            progress.removeHandler(handler)
            progress.setLevel(level)
        site.crawl.progress = lines
    return site.crawl


def findings(result, check: str) -> dict[str, object]:
    return {f.url: f for f in result.findings if f.check == check}


@pytest.mark.slow  # drives Chromium
@pytest_twisted.ensureDeferred
async def test_annotations_a_script_adds_are_hl701_and_count_for_the_graph(render_site):
    result = await rendered(render_site)
    hl701 = findings(result, "HL701")
    for case in ("sync", "late", "gzip"):
        url = render_site.url(f"/{case}/en")
        assert url in hl701, case
        assert "adds 2 hreflang annotations" in hl701[url].message
        page = result.page(url)
        assert page.rendered and {a.source for a in page.annotations} == {"rendered"}
    # The graph follows the rendered page: the script-added annotations are its return links.
    others = {(f.check, f.url) for f in result.findings if f.check in ("HL108", "HL201")}
    assert not {u for _, u in others if "/sync/" in u or "/late/" in u or "/gzip/" in u}, others
    assert set(hl701) == {render_site.url(f"/{case}/en") for case in ("sync", "late", "gzip")}


@pytest.mark.slow  # drives Chromium
@pytest_twisted.ensureDeferred
async def test_served_annotations_rewritten_or_removed_are_hl702(render_site):
    result = await rendered(render_site)
    hl702 = findings(result, "HL702")
    assert set(hl702) == {render_site.url("/rewrite/en"), render_site.url("/removed/en")}
    rewrite = hl702[render_site.url("/rewrite/en")]
    assert rewrite.severity == "error" and rewrite.source == "rendered"
    assert (
        f"`de` is {render_site.url('/rewrite/de')} as served but {render_site.url('/rewrite/de-x')} after rendering"
        in rewrite.message
    )
    removed = hl702[render_site.url("/removed/en")].message
    assert f"`en` {render_site.url('/removed/en')} is removed by rendering" in removed
    assert f"`de` {render_site.url('/removed/de')} is removed by rendering" in removed
    # The graph follows the rendered page: the rewritten target is crawled, the removed ones are gone.
    assert render_site.requests("GET")["/rewrite/de-x"] == 1
    assert result.page(render_site.url("/removed/en")).annotations == []
    assert len(result.page(render_site.url("/removed/en")).served_only) == 2


@pytest.mark.slow  # drives Chromium
@pytest_twisted.ensureDeferred
async def test_unrelated_and_throwing_scripts_change_nothing(render_site):
    result = await rendered(render_site)
    for case in ("unrelated", "throws", "private", "popup", "dialog"):
        url = render_site.url(f"/{case}/en")
        page = result.page(url)
        assert page.rendered and page.render_error is None, case
        assert {a.source for a in page.annotations} == {"html"}, "as served, with their lines"
        assert all(a.line for a in page.annotations)
        assert not [f for f in result.findings if f.url == url and f.check.startswith("HL7")], case
    assert "/popup/elsewhere" not in render_site.requests(), "a popup opens no page"


@pytest.mark.slow  # drives Chromium
@pytest_twisted.ensureDeferred
async def test_an_endless_loop_and_a_script_redirect_are_hl703_with_the_served_annotations(render_site):
    result = await rendered(render_site)
    hl703 = findings(result, "HL703")
    assert set(hl703) == {render_site.url("/loop/en"), render_site.url("/redirect/en")}
    assert "timeout" in hl703[render_site.url("/loop/en")].message
    assert (
        f"a script navigates to {render_site.url('/redirect/elsewhere')}" in hl703[render_site.url("/redirect/en")].message
    )
    for case in ("loop", "redirect"):
        page = result.page(render_site.url(f"/{case}/en"))
        assert not page.rendered and page.render_error
        assert {a.source for a in page.annotations} == {"html"} and len(page.annotations) == 2
        assert not [f for f in result.findings if f.check == "HL201" and f"/{case}/" in f.url]
    assert "/redirect/elsewhere" not in render_site.requests(), "the browser's navigation is answered, not sent"


@pytest.mark.slow  # drives Chromium
@pytest_twisted.ensureDeferred
async def test_every_url_is_fetched_once_and_subresources_are_no_crawl_urls(render_site):
    result = await rendered(render_site)
    gets = render_site.requests("GET")
    assert all(count == 1 for count in gets.values()), gets
    assert gets["/app.js"] == 1, "the page's script loads, through the browser"
    assert "/photo.png" not in gets, "images are blocked by default"
    assert "/secret" not in gets, "the script's request to localhost (an internal address) is refused"
    assert result.stats["qivrora/private/refused_browser"] >= 1
    crawled = {p.url for p in result.of(Page)}
    assert render_site.url("/app.js") not in crawled
    pdf = result.page(render_site.url("/guide.pdf"))
    assert not pdf.rendered and pdf.render_error is None, "a PDF is fetched as without rendering"
    through_browser = {p.url for p in result.of(Page) if p.rendered or p.render_error}
    assert through_browser == {p.url for p in result.of(Page) if p.status == 200 and p.is_html}
    assert result.stats["qivrora/render/pages"] == len(through_browser)


@pytest.mark.slow  # drives Chromium
@pytest_twisted.ensureDeferred
async def test_exported_facts_give_the_same_findings_offline(render_site):
    result = await rendered(render_site)
    lines = [json.dumps(fact_to_dict(fact)) for fact in result.facts]
    again = audit(fact_from_dict(json.loads(line)) for line in lines)

    def key(f):
        return (f.check, f.url, f.target, f.hreflang, f.source, f.message)

    assert sorted(map(key, again)) == sorted(map(key, result.findings))
    assert {"HL701", "HL702", "HL703"} <= {f.check for f in again}


# --- without a browser: the pure parts --------------------------------------------------------------


def test_a_static_page_rendered_keeps_its_served_annotations_and_lines():
    from qivrora_spider.extract.page_facts import build_page
    from qivrora_spider.extract.rendered import with_rendering

    html = html_page(alternate("en", "https://a.example/en"), alternate("de", "https://a.example/de"))
    dom = html_page(alternate("de", "https://a.example/de-x"), alternate("fr", "https://a.example/fr"))

    def page(text: str) -> Page:
        return build_page(url="https://a.example/en", requested="https://a.example/en", status=200,
                          headers=lambda name: ["text/html"] if name == "Content-Type" else [],
                          text=text, in_scope=True, depth=0)

    same = with_rendering(page(html), page(html))
    assert same.annotations == page(html).annotations and same.served_only == [] and same.rendered
    changed = with_rendering(page(html), page(dom))
    assert [(a.source, a.hreflang, a.line) for a in changed.annotations] == [("rendered", "de", None), ("rendered", "fr", None)]
    assert [(a.hreflang, a.url) for a in changed.served_only] == [("en", "https://a.example/en"), ("de", "https://a.example/de")]
    found = {f.check: f for f in audit([changed])}
    assert "`de` is https://a.example/de as served but https://a.example/de-x after rendering" in found["HL702"].message
    assert "`en` https://a.example/en is removed by rendering" in found["HL702"].message
    assert "adds 1 hreflang annotation " in found["HL701"].message and found["HL701"].hreflang == "fr"


def test_the_rendered_main_text_is_judged_and_the_served_one_where_rendering_failed():
    from qivrora_spider.extract.page_facts import build_page
    from qivrora_spider.extract.rendered import failed_rendering, with_rendering

    english = "<p>" + "The settings are read from a configuration file when the program starts. " * 4 + "</p>"
    served = html_page(body="<main><p>Chargement de la page en cours...</p></main>", lang="de")
    dom = html_page(body=f"<main>{english}</main>", lang="de")

    def page(text: str) -> Page:
        return build_page(url="https://a.example/de", requested="https://a.example/de", status=200,
                          headers=lambda name: ["text/html"] if name == "Content-Type" else [],
                          text=text, in_scope=True, depth=0)

    rendered = with_rendering(page(served), page(dom))
    assert rendered.text_blocks == page(dom).text_blocks != page(served).text_blocks
    assert [f.check for f in audit([rendered]) if f.check == "HL503"] == ["HL503"]
    assert failed_rendering(page(served), "timeout").text_blocks == page(served).text_blocks


def test_a_facts_file_without_the_render_fields_still_loads():
    old = {"fact": "page", "url": "https://a.example/", "requested": "https://a.example/", "status": 200}
    page = fact_from_dict(old)
    assert not page.rendered and page.render_error is None and page.served_only == []
    with pytest.raises(ValueError, match="unknown field"):
        fact_from_dict({**old, "rendred": True})


# --- processes: scrapy-playwright only when asked, no browser left behind ---------------------------

CRAWL_AND_LIST_MODULES = """
import sys
from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings
settings = get_project_settings()
settings.setdict({"QIVRORA_STATE": "", "LOG_LEVEL": "ERROR", "AUTOTHROTTLE_ENABLED": False, "DOWNLOAD_DELAY": 0})
process = CrawlerProcess(settings)
process.crawl("hreflang", start=sys.argv[1])
process.start()
print(sorted(m for m in sys.modules if m.split(".")[0] in ("scrapy_playwright", "playwright")))
"""


def marked_processes(marker: str) -> list[int]:
    """Processes that inherited `marker` in their environment: the crawl and whatever it started."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
    return found


@pytest.mark.slow  # drives Chromium
def test_a_crawl_without_render_imports_no_playwright_and_starts_no_browser(render_site):
    run = subprocess.run(
        [sys.executable, "-c", CRAWL_AND_LIST_MODULES, render_site.url("/sync/en")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[]"


def _render_crawl(site: SiteServer, marker: str, tmp_path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(ROOT / ".venv/bin/scrapy") if (ROOT / ".venv/bin/scrapy").exists() else "scrapy", "crawl", "hreflang",
         "-a", f"start={site.url('/')}", "-a", "render=1", "-O", str(tmp_path / "findings.csv"),
         "-s", "QIVRORA_STATE=", "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0",
         "-s", "QIVRORA_RENDER_TIMEOUT=3"],
        cwd=ROOT, env={**os.environ, "QIVRORA_TEST_MARKER": marker}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )


@pytest.mark.slow  # drives Chromium
def test_a_render_crawl_leaves_no_browser_behind(render_site, tmp_path):
    marker = f"qivrora-render-{uuid.uuid4()}"
    crawl_process = _render_crawl(render_site, marker, tmp_path)
    output, _ = crawl_process.communicate(timeout=180)
    assert crawl_process.returncode == 0, output
    assert "HL703" in (tmp_path / "findings.csv").read_text()
    assert marked_processes(marker) == [], "Chromium or the Playwright driver outlived the crawl"


@pytest.mark.slow  # drives Chromium
def test_ctrl_c_closes_the_browser(tmp_path):
    with SiteServer() as slow:
        slow.routes["/"] = Route(html_page(body="".join(f'<a href="/p{i}">{i}</a>' for i in range(40))))
        for i in range(40):
            slow.routes[f"/p{i}"] = Route(html_page(adding(slow, "p", "en")), delay=0.3)
        marker = f"qivrora-render-{uuid.uuid4()}"
        crawl_process = _render_crawl(slow, marker, tmp_path)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(
            b"chromium" in Path(f"/proc/{pid}/cmdline").read_bytes() for pid in marked_processes(marker)
            if Path(f"/proc/{pid}/cmdline").exists()
        ):
            time.sleep(0.2)
        assert crawl_process.poll() is None, "the crawl was still running when its browser started"
        crawl_process.send_signal(signal.SIGINT)
        output, _ = crawl_process.communicate(timeout=60)
    assert "Received SIGINT: no further request is sent" in output, output[-2000:]
    assert crawl_process.returncode == INTERRUPTED, output[-2000:]
    deadline = time.monotonic() + 10  # the crawl has exited; its children may still be on their way out
    while marked_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marked_processes(marker) == [], "Chromium or the Playwright driver outlived the crawl"


@pytest.mark.slow  # drives Chromium
@pytest_twisted.ensureDeferred
async def test_the_report_matrix_marks_annotations_that_exist_only_after_rendering(render_site):
    from qivrora_spider.audit import AuditContext
    from qivrora_spider.audit.core.fact_store import FactStore
    from qivrora_spider.report import render_report

    result = await rendered(render_site)
    store = FactStore()
    store.add_all(result.facts)
    context = AuditContext(store)
    html = render_report(context, audit(context))
    # en and de of sync/en, late/en and gzip/en; the rewritten de of rewrite/en
    assert html.count('<abbr class="rendered" title=') == 2 * 3 + 1


@pytest.mark.slow  # drives Chromium
@pytest_twisted.ensureDeferred
async def test_the_progress_line_counts_rendered_pages(render_site):
    result = await rendered(render_site)
    assert result.progress, "the crawl takes seconds: progress lines come every second"
    assert all(re.search(r"checked, \d+ rendered \(\d+ could not be\), \d+ queued", line) for line in result.progress)


@pytest.mark.slow  # drives Chromium
@pytest_twisted.ensureDeferred
async def test_settings_load_images_and_bound_the_browser_pages_at_once(site):
    for i in range(6):
        site.routes[f"/p{i}"] = Route(html_page(body=f'<img src="/img{i}.png" alt="">'), delay=0.2)
        site.routes[f"/img{i}.png"] = Route(b"\x89PNG", content_type="image/png")
    site.routes["/"] = Route(html_page(body="".join(f'<a href="/p{i}">{i}</a>' for i in range(6))))
    result = await crawl(
        {**RENDER, "QIVRORA_RENDER_BLOCK": "", "QIVRORA_RENDER_CONCURRENCY": 2}, start=site.url("/"), render="1"
    )
    assert all(site.requests("GET")[f"/img{i}.png"] == 1 for i in range(6)), "QIVRORA_RENDER_BLOCK='' loads them"
    assert result.stats["qivrora/render/pages"] == 7
    assert result.stats["playwright/page_count/max_concurrent"] <= 2
    assert result.stats["playwright/context_count/max_concurrent"] <= 2
