"""How a crawl finds a host's sitemaps, in order: robots.txt `Sitemap:` lines; `<link rel="sitemap">`
in the head of its pages; where it announces none, the common names, probed once each."""

from __future__ import annotations

import pytest_twisted

from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.facts import SitemapFile
from qivrora_spider.spiders.hreflang import PROBED_SITEMAPS

from .conftest import crawl
from .fixture_sites import sitemap_index, url_entry, urlset


def two_languages(site: SiteServer, *head: str) -> None:
    """/en/ and /de/ annotating each other in HTML, and linking each other."""
    a = site.url
    cluster = (alternate("en", a("/en/")), alternate("de", a("/de/")))
    site.routes.update(
        {
            "/en/": Route(html_page(*cluster, *head, body='<a href="/de/">de</a>')),
            "/de/": Route(html_page(*cluster, *head, body='<a href="/en/">en</a>', lang="de")),
        }
    )


def probes(site: SiteServer) -> dict[str, int]:
    return {path: count for path, count in site.requests().items() if path in PROBED_SITEMAPS}


def via(result, url: str) -> str:
    return {f.url: f.via for f in result.of(SitemapFile)}[url]


@pytest_twisted.ensureDeferred
async def test_robots_sitemap_lines_come_first_and_nothing_is_probed(site):
    a = site.url
    two_languages(site)
    site.routes["/robots.txt"] = Route(f"Sitemap: {a('/maps/all.xml')}\n", content_type="text/plain")
    site.routes["/maps/all.xml"] = Route(urlset(url_entry(a("/en/")), url_entry(a("/de/"))), content_type="application/xml")
    result = await crawl(start=a("/en/"))
    assert via(result, a("/maps/all.xml")) == "robots"
    assert probes(site) == {}
    assert "SM006" not in result.checks()


@pytest_twisted.ensureDeferred
async def test_an_astro_site_announces_its_sitemap_only_in_its_pages(site):
    """No robots.txt, no /sitemap.xml: every page names /sitemap-index.xml, whose <xhtml:link>
    annotations disagree with the HTML on every page; they must be audited."""
    a = site.url
    two_languages(site, f'<link rel="sitemap" href="/sitemap-index.xml">')
    wrong = (("en", a("/en/")), ("de", a("/de-de/")))
    site.routes.update(
        {
            "/sitemap-index.xml": Route(sitemap_index(a("/sitemap-0.xml")), content_type="application/xml"),
            "/sitemap-0.xml": Route(urlset(url_entry(a("/en/"), *wrong), url_entry(a("/de/"), *wrong)), content_type="application/xml"),
        }
    )
    result = await crawl(start=a("/en/"), max_pages="2")
    assert site.requests()["/sitemap-index.xml"] == 1 and site.requests()["/sitemap-0.xml"] == 1
    assert via(result, a("/sitemap-index.xml")) == "page"
    assert probes(site) == {"/sitemap-index.xml": 1}, "announced by the pages: nothing probed"
    conflicts = {(f.check, f.url) for f in result.findings if f.check == "HL601"}
    assert conflicts == {("HL601", a("/en/")), ("HL601", a("/de/"))}
    sm006 = [f for f in result.findings if f.check == "SM006"]
    assert [f.url for f in sm006] == [a("/robots.txt")], "found through a page: still not in robots.txt"


@pytest_twisted.ensureDeferred
async def test_a_host_that_announces_none_is_probed_for_the_common_names_once_each(site):
    a = site.url
    two_languages(site)
    site.routes["/robots.txt"] = Route("User-agent: *\nDisallow:\n", content_type="text/plain")
    site.routes["/wp-sitemap.xml"] = Route(
        urlset(url_entry(a("/en/")), url_entry(a("/de/")), url_entry(a("/gone/"))), content_type="application/xml"
    )
    result = await crawl(start=a("/en/"))
    assert probes(site) == dict.fromkeys(PROBED_SITEMAPS, 1)
    assert via(result, a("/wp-sitemap.xml")) == "probe"
    assert {(f.check, f.target) for f in result.findings if f.check == "SM001"} == {("SM001", a("/gone/"))}
    assert not [f for f in result.findings if f.check in ("SM004", "SM003")], "a 404 at a probed name is silent"
    assert [f.url for f in result.findings if f.check == "SM006"] == [a("/robots.txt")]
