"""Rendering (`-a render=1`): what a browser builds beside what the server sends (HL701 to HL703).

Fixture pages with inline scripts are served on 127.0.0.1 and crawled through Debian's Chromium, as
users run it. One crawl of one site serves most tests (a browser start costs a second); the tests of
processes (no browser without render=1, none left behind) run `scrapy crawl` in a subprocess.
"""

from __future__ import annotations

import json

import pytest
import pytest_twisted

from qivrora_spider.audit import audit
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.facts import Page, fact_from_dict, fact_to_dict

from .conftest import crawl

#: Fast enough for tests, slow enough for a loaded CI machine to render a page.
RENDER = {"QIVRORA_RENDER_TIMEOUT": 3, "QIVRORA_PROGRESS_INTERVAL": 0}

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


@pytest.fixture(scope="module")
def render_site():
    with SiteServer() as server:
        fixture_site(server)
        server.crawl = None  # type: ignore[attr-defined]
        yield server


async def rendered(site):
    """The one render crawl of the fixture site (run by the first test that asks)."""
    if site.crawl is None:
        site.crawl = await crawl(RENDER, start=site.url("/"), render="1")
    return site.crawl


def findings(result, check: str) -> dict[str, object]:
    return {f.url: f for f in result.findings if f.check == check}


@pytest_twisted.ensureDeferred
async def test_annotations_a_script_adds_are_hl701_and_count_for_the_graph(render_site):
    result = await rendered(render_site)
    hl701 = findings(result, "HL701")
    for case in ("sync", "late"):
        url = render_site.url(f"/{case}/en")
        assert url in hl701, case
        assert "adds 2 hreflang annotations" in hl701[url].message
        page = result.page(url)
        assert page.rendered and {a.source for a in page.annotations} == {"rendered"}
    # The graph follows the rendered page: the script-added annotations are its return links.
    others = {(f.check, f.url) for f in result.findings if f.check in ("HL108", "HL201")}
    assert not {u for _, u in others if "/sync/" in u or "/late/" in u}, others
    assert set(hl701) == {render_site.url("/sync/en"), render_site.url("/late/en")}


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


@pytest_twisted.ensureDeferred
async def test_unrelated_and_throwing_scripts_change_nothing(render_site):
    result = await rendered(render_site)
    for case in ("unrelated", "throws", "private"):
        url = render_site.url(f"/{case}/en")
        page = result.page(url)
        assert page.rendered and page.render_error is None, case
        assert {a.source for a in page.annotations} == {"html"}, "as served, with their lines"
        assert all(a.line for a in page.annotations)
        assert not [f for f in result.findings if f.url == url and f.check.startswith("HL7")], case


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
