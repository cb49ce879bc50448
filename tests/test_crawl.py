"""The crawl engine against a real local site: what it fetches, once, and the facts it records."""

from __future__ import annotations

import pytest
import pytest_twisted

from qivrora_spider.demo.site_server import Route, alternate, html_page
from qivrora_spider.facts import CrawlInfo, Page, RobotsTxt, SitemapEntry, SitemapFile, TargetStatus
from qivrora_spider.spiders.arguments import ArgumentError
from qivrora_spider.spiders.hreflang import HreflangSpider, keeps_fingerprints

from .conftest import crawl, project_settings
from .fixture_sites import multilingual_site, url_entry, urlset


@pytest_twisted.ensureDeferred
async def test_site_crawl_fetches_every_page_sitemap_and_alternate_once(site, other_site):
    multilingual_site(site, other_site)
    result = await crawl(start=site.url("/"))

    gets = site.requests("GET")
    assert set(gets) == {
        "/robots.txt", "/", "/en/", "/de/", "/about", "/old/", "/docs/guide.pdf", "/docs/guide-de.pdf",
        "/sitemap_index.xml", "/sitemap-pages.xml.gz",
    }
    assert all(count == 1 for count in gets.values()), gets
    assert site.requests("HEAD") == {}, "nothing left that needed a HEAD"
    assert "/private/it/" not in site.requests(), "robots.txt disallows it"
    assert other_site.requests() == {"/robots.txt": 1, "/fr/": 1}

    pages = {p.url: p for p in result.of(Page)}
    assert len(pages) == len(result.of(Page)), "one Page fact per URL"
    assert result.stats["qivrora/findings"] == len(result.findings)


@pytest.mark.parametrize(
    ("settings", "kept"),
    [
        pytest.param({}, False, id="nothing-compares-them"),
        pytest.param({"FEEDS": {"findings.csv": {"format": "csv"}}}, False, id="findings-feed"),
        pytest.param({"FEEDS": {"hreflang.xml": {"format": "xml"}}}, False, id="junit-report"),
        pytest.param({"QIVRORA_STATE": "state.sqlite"}, True, id="crawl-state"),
        pytest.param({"FEEDS": {"facts.jsonl": {"format": "facts"}}}, True, id="facts-feed"),
        pytest.param({"FEEDS": {"items.jl": {"format": "marshal"}}}, True, id="scrapy-exporter"),
        pytest.param({"JOBDIR": "job"}, True, id="jobdir"),
        pytest.param({"QIVRORA_FINGERPRINTS": True}, True, id="asked-for"),
    ],
)
def test_fingerprints_are_computed_where_something_compares_or_keeps_them(settings, kept):
    assert keeps_fingerprints(project_settings(**settings)) is kept


@pytest.mark.parametrize(("arguments", "addons"), [({}, []), ({"render": "1"}, ["Rendering"])])
def test_render_is_an_add_on_the_spider_names_and_scrapy_applies(arguments, addons):
    """-a render=1 names the rendering add-on; the spider itself sets no download handler."""
    from scrapy.crawler import Crawler
    from scrapy.utils.conf import build_component_list

    from qivrora_spider.rendering import HANDLER, Rendering

    crawler = Crawler(HreflangSpider, project_settings())  # its settings not applied yet, as in a crawl
    handlers = crawler.settings.getdict("DOWNLOAD_HANDLERS")
    HreflangSpider.from_crawler(crawler, start="https://example.com/", **arguments)
    assert crawler.settings.getdict("DOWNLOAD_HANDLERS") == handlers
    named = build_component_list(crawler.settings["ADDONS"])
    assert [addon.__name__ for addon in named if not isinstance(addon, str)] == addons
    if addons:
        Rendering().update_settings(crawler.settings)
        assert crawler.settings.getdict("DOWNLOAD_HANDLERS") == {"http": HANDLER, "https": HANDLER}
        assert crawler.settings.getint("PLAYWRIGHT_MAX_CONTEXTS") == crawler.settings.getint(
            "QIVRORA_RENDER_CONCURRENCY"
        )


@pytest.mark.parametrize(("state", "kept"), [("", False), ("state.sqlite", True)])
def test_a_distributed_worker_fingerprints_by_the_same_rule(state, kept):
    """The auditor warns of the pages a worker without a state fetched (test_distributed.py)."""
    from qivrora_spider.distributed import DistributedCrawl

    settings = project_settings(QIVRORA_STATE=state)
    DistributedCrawl().update_settings(settings)
    assert keeps_fingerprints(settings) is kept


def test_stats_are_counted_as_scrapy_counts_them_without_its_per_lookup_hook():
    from scrapy.statscollectors import MemoryStatsCollector
    from scrapy.utils.test import get_crawler

    from qivrora_spider.compat.scrapy import DirectStatsCollector

    stats = get_crawler(HreflangSpider, project_settings()).stats
    assert type(stats) is DirectStatsCollector
    assert MemoryStatsCollector.__getattribute__ is not object.__getattribute__, "Scrapy's hook is there to skip"
    stats.inc_value("count")
    stats.inc_value("count", 2)
    stats.max_value("most", 3)
    stats.max_value("most", 1)
    stats.min_value("least", 5)
    stats.min_value("least", 2)
    stats.set_value("said", "yes")
    assert stats.get_stats() == {"count": 3, "most": 3, "least": 2, "said": "yes"}


def test_no_callback_of_the_spider_returns_a_value_so_scrapy_need_not_parse_their_source():
    """WARN_ON_GENERATOR_RETURN_VALUE is off: Scrapy's check parses a callback's source with ast for
    each response, its cache keyed on bound methods that die with their request (2 % of a crawl)."""
    from scrapy.utils.misc import is_generator_with_return_value

    spider = HreflangSpider(start="https://a.example/")
    names = [name for name in dir(HreflangSpider) if name.startswith("parse") or name.endswith("_failed")]
    callbacks = [getattr(spider, name) for name in names]
    assert len(callbacks) >= 9
    assert not any(is_generator_with_return_value(callback) for callback in callbacks)
    assert project_settings().getbool("WARN_ON_GENERATOR_RETURN_VALUE") is False


@pytest_twisted.ensureDeferred
async def test_facts_of_pages_headers_redirects_and_robots(site, other_site):
    multilingual_site(site, other_site)
    result = await crawl(start=site.url("/"))
    a, b = site.url, other_site.url

    en = result.page(a("/en/"))
    assert en.status == 200 and en.is_html and en.in_scope
    assert [(x.source, x.hreflang, x.url, x.in_head) for x in en.annotations][:4] == [
        ("html", "en", a("/en/"), True), ("html", "de", a("/de/"), True),
        ("html", "fr", b("/fr/"), True), ("html", "x-default", a("/"), True),
    ]
    assert [c.url for c in en.canonicals] == [a("/en/")]
    assert en.html_lang == "en"
    assert en.fingerprint is None, "no crawl state, no facts feed: nothing compares fingerprints"

    pdf = result.page(a("/docs/guide.pdf"))
    assert not pdf.is_html and pdf.content_type == "application/pdf"
    assert [(x.source, x.hreflang, x.url) for x in pdf.annotations] == [
        ("header", "en", a("/docs/guide.pdf")), ("header", "de", a("/docs/guide-de.pdf")),
    ]

    old = result.page(a("/old/"))
    assert (old.status, old.location) == (301, a("/en/"))

    fr = result.page(b("/fr/"))
    assert fr.status == 200 and not fr.in_scope and fr.html_lang == "fr"

    blocked = [s for s in result.of(TargetStatus) if s.url == a("/private/it/")]
    assert [s.not_examined for s in blocked] == ["robots"]

    robots = {r.origin: r for r in result.of(RobotsTxt)}
    assert robots[site.base].exists and robots[site.base].sitemaps == [a("/sitemap_index.xml")]
    assert robots[other_site.base].status == 404 and not robots[other_site.base].exists

    assert a("/about") in en.links or a("/about") in result.page(a("/")).links
    crawl_info = result.of(CrawlInfo)
    assert len(crawl_info) == 1 and crawl_info[0].start_urls == [a("/")]


@pytest_twisted.ensureDeferred
async def test_sitemap_index_and_gzip_sitemap_facts(site, other_site):
    multilingual_site(site, other_site)
    result = await crawl(start=site.url("/"))
    a = site.url
    files = {f.url: f for f in result.of(SitemapFile)}
    index = files[a("/sitemap_index.xml")]
    assert (index.sitemap_kind, index.via, index.children) == ("sitemapindex", "robots", [a("/sitemap-pages.xml.gz")])
    pages = files[a("/sitemap-pages.xml.gz")]
    assert (pages.sitemap_kind, pages.gzip, pages.url_count, pages.parent, pages.errors) == (
        "urlset", True, 2, index.url, []
    )
    assert pages.size > 0
    entries = {e.url: e for e in result.of(SitemapEntry)}
    assert set(entries) == {a("/en/"), a("/de/")}
    assert entries[a("/en/")].lastmod == "2026-11-01"
    assert [(x.source, x.hreflang, x.sitemap) for x in entries[a("/en/")].annotations][0] == (
        "sitemap", "en", pages.url
    )


@pytest_twisted.ensureDeferred
async def test_start_at_a_sitemap_recognised_by_content_not_name(site):
    a = site.url
    site.routes.update(
        {
            "/feed": Route(urlset(url_entry(a("/p/"))), content_type="text/plain"),
            "/p/": Route(html_page(body='<a href="/q/">q</a>')),
            "/q/": Route(html_page()),
        }
    )
    result = await crawl(start=a("/feed"))
    assert [(f.url, f.via, f.sitemap_kind) for f in result.of(SitemapFile) if f.url == a("/feed")] == [
        (a("/feed"), "start", "urlset")
    ]
    assert {p.url for p in result.of(Page)} >= {a("/p/"), a("/q/")}, "pages of the sitemap are crawled, links followed"
    assert site.requests("GET")["/feed"] == 1


@pytest_twisted.ensureDeferred
async def test_a_robots_txt_redirected_to_another_origins_is_fetched_once(site, other_site):
    """http:// to https://, apex to www: the origin redirected to reads the robots.txt received, and
    records it when it needs it, as if it had fetched it."""
    a, b = site.url, other_site.url
    cluster = alternate("en", a("/")) + alternate("de", b("/de/"))
    site.routes["/robots.txt"] = Route("", status=301, headers=[("Location", b("/robots.txt"))])
    site.routes["/"] = Route(html_page(cluster))
    other_site.routes["/robots.txt"] = Route(f"User-agent: *\nDisallow: /private/\nSitemap: {b('/s.xml')}\n",
                                             content_type="text/plain")
    other_site.routes["/de/"] = Route(html_page(cluster, lang="de"))
    result = await crawl(start=a("/"))
    assert other_site.requests("GET")["/robots.txt"] == 1
    robots = {r.origin: r for r in result.of(RobotsTxt)}
    for origin, url in ((site.base, a("/robots.txt")), (other_site.base, b("/robots.txt"))):
        assert (robots[origin].url, robots[origin].status, robots[origin].exists) == (url, 200, True)
        assert robots[origin].sitemaps == [b("/s.xml")]
    assert result.page(b("/de/")).status == 200


@pytest_twisted.ensureDeferred
async def test_start_at_robots_txt_reads_its_sitemaps(site):
    a = site.url
    site.routes.update(
        {
            "/robots.txt": Route(f"Sitemap: {a('/s.xml')}\n", content_type="text/plain"),
            "/s.xml": Route(urlset(url_entry(a("/p/"))), content_type="application/xml"),
            "/p/": Route(html_page()),
        }
    )
    result = await crawl(start=a("/robots.txt"))
    assert site.requests("GET") == {"/robots.txt": 1, "/s.xml": 1, "/p/": 1}
    assert [p.url for p in result.of(Page)] == [a("/p/")]


@pytest_twisted.ensureDeferred
async def test_list_mode_audits_exactly_the_listed_urls_and_their_alternates(site, tmp_path):
    a = site.url
    site.routes.update(
        {
            "/en/": Route(html_page(alternate("en", a("/en/")), alternate("de", a("/de/")), body='<a href="/x/">x</a>')),
            "/de/": Route(html_page(alternate("de", a("/de/")), body='<a href="/y/">y</a>')),
        }
    )
    listing = tmp_path / "urls.txt"
    listing.write_text(f"# pages to audit\n{a('/en/')}\n\n")
    result = await crawl(urls=str(listing))
    assert {p.url for p in result.of(Page)} == {a("/en/"), a("/de/")}
    assert "/x/" not in site.requests() and "/y/" not in site.requests(), "no link following in list mode"


@pytest_twisted.ensureDeferred
async def test_max_pages_stops_fetching_and_says_so(site):
    a = site.url
    body = " ".join(f'<a href="/p{i}/">{i}</a>' for i in range(10))
    site.routes["/"] = Route(html_page(alternate("en", a("/")), alternate("de", a("/de/")), body=body))
    for i in range(10):
        site.routes[f"/p{i}/"] = Route(html_page())
    result = await crawl(start=a("/"), max_pages="3")
    assert len(result.of(Page)) == 3
    assert result.of(CrawlInfo)[0].limits_reached == ["max_pages"]


@pytest_twisted.ensureDeferred
async def test_max_depth_limits_link_following_only(site):
    a = site.url
    site.routes.update(
        {
            "/": Route(html_page(body='<a href="/1/">1</a>')),
            "/1/": Route(html_page(alternate("de", a("/de/")), body='<a href="/2/">2</a>')),
            "/2/": Route(html_page()),
            "/de/": Route(html_page()),
        }
    )
    result = await crawl(start=a("/"), max_depth="1")
    fetched = {p.url for p in result.of(Page)}
    assert a("/1/") in fetched and a("/2/") not in fetched
    assert a("/de/") in fetched, "alternates are examined whatever the depth"
    assert "max_depth" in result.of(CrawlInfo)[0].limits_reached


@pytest_twisted.ensureDeferred
async def test_hosts_argument_widens_the_scope(site, other_site):
    a, b = site.url, other_site.url
    site.routes["/"] = Route(html_page(body=f'<a href="{b("/x/")}">x</a>'))
    other_site.routes["/x/"] = Route(html_page(body='<a href="/y/">y</a>'))
    other_site.routes["/y/"] = Route(html_page())
    narrow = await crawl(start=a("/"))
    assert b("/x/") not in {p.url for p in narrow.of(Page)}, "other hosts are not crawled by default"
    wide = await crawl(start=a("/"), hosts=other_site.base.split("//")[1])
    assert {b("/x/"), b("/y/")} <= {p.url for p in wide.of(Page)}


@pytest_twisted.ensureDeferred
async def test_unreachable_alternate_is_recorded_with_its_error(site):
    a = site.url
    site.routes["/"] = Route(html_page(alternate("en", a("/")), alternate("de", "http://127.0.0.1:9/de/")))
    result = await crawl(start=a("/"))
    dead = result.page("http://127.0.0.1:9/de/")
    assert dead.status is None and dead.error == "refused"


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({}, "start: missing"),
        ({"start": "ftp://example.com/"}, "start: 'ftp://example.com/' is not a usable URL"),
        ({"start": "http://exa mple.com/"}, "start:"),
        ({"start": "http://example.com/", "max_pages": "ten"}, "max_pages: 'ten' is not a whole number"),
        ({"start": "http://example.com/", "max_depth": "-1"}, "max_depth:"),
        ({"urls": "/nonexistent/urls.txt"}, "urls: cannot read '/nonexistent/urls.txt'"),
        ({"start": "http://example.com/", "colour": "red"}, "colour: unknown argument"),
    ],
)
def test_bad_arguments_are_one_line_errors(arguments, message):
    from qivrora_spider.spiders.arguments import parse_arguments

    with pytest.raises(ArgumentError) as error:
        parse_arguments(arguments)
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


@pytest_twisted.ensureDeferred
async def test_progress_is_logged_while_the_crawl_runs(site, caplog):
    a = site.url
    site.routes["/"] = Route(html_page(alternate("en", a("/")), alternate("de", a("/de/"))))
    site.routes["/de/"] = Route(html_page(alternate("XX", a("/")), lang="de"), delay=1.0)
    with caplog.at_level("INFO", logger="qivrora_spider.extensions.progress"):
        await crawl({"QIVRORA_PROGRESS_INTERVAL": 0.3}, start=a("/"))
    lines = [r.getMessage() for r in caplog.records if r.name == "qivrora_spider.extensions.progress"]
    assert lines and lines[0].startswith("Progress: 1 pages, 0 alternates and other URLs checked, 0 queued, 2 annotations")


@pytest_twisted.ensureDeferred
async def test_a_redirecting_sitemap_is_recorded_and_followed(site):
    a = site.url
    site.routes.update(
        {
            "/robots.txt": Route(f"Sitemap: {a('/sitemap.xml')}\n", content_type="text/plain"),
            "/sitemap.xml": Route("", status=301, headers=[("Location", "/sitemaps/main.xml")]),
            "/sitemaps/main.xml": Route(urlset(url_entry(a("/p/"))), content_type="application/xml"),
            "/p/": Route(html_page()),
        }
    )
    result = await crawl(start=a("/p/"))
    files = {f.url: f for f in result.of(SitemapFile)}
    assert files[a("/sitemap.xml")].errors == [f"redirects (301) to {a('/sitemaps/main.xml')}: list the final URL instead"]
    assert files[a("/sitemaps/main.xml")].sitemap_kind == "urlset"
    assert "SM004" in result.checks()


@pytest_twisted.ensureDeferred
async def test_a_compressed_page_too_large_to_inflate_is_recorded_not_dropped(site):
    import gzip

    a = site.url
    site.routes["/"] = Route(html_page(alternate("en", a("/")), alternate("de", a("/de/"))))
    site.routes["/de/"] = Route(gzip.compress(b" " * 2_000_000), headers=[("Content-Encoding", "gzip")])
    result = await crawl({"DOWNLOAD_MAXSIZE": 500_000}, start=a("/"))
    bomb = result.page(a("/de/"))
    assert bomb.status is None and bomb.error == "ignored"
    assert ("HL404", a("/de/")) in {(f.check, f.target) for f in result.findings}


@pytest_twisted.ensureDeferred
async def test_progress_counts_no_url_that_was_left_out_as_checked(site, caplog):
    a = site.url
    site.routes["/robots.txt"] = Route("User-agent: *\nDisallow: /fr/\n", content_type="text/plain")
    site.routes["/"] = Route(
        html_page(alternate("en", a("/")), alternate("fr", a("/fr/")), body='<a href="/slow/">more</a>')
    )
    site.routes["/slow/"] = Route(html_page(), delay=1.0)  # the crawl goes on after /fr/ was refused
    with caplog.at_level("INFO", logger="qivrora_spider.extensions.progress"):
        result = await crawl({"QIVRORA_PROGRESS_INTERVAL": 0.2}, start=a("/"))
    assert [s.not_examined for s in result.of(TargetStatus) if s.url == a("/fr/")] == ["robots"]
    lines = [r.getMessage() for r in caplog.records if r.name == "qivrora_spider.extensions.progress"]
    assert len(lines) >= 3 and all(" 0 alternates and other URLs checked" in line for line in lines)


@pytest_twisted.ensureDeferred
async def test_an_alternate_with_a_url_longer_than_2083_characters_is_fetched(site):
    """Scrapy's UrlLengthMiddleware would drop it without a fact; search engines fetch such URLs."""
    a = site.url
    long_path = "/de/" + "x" * 2100 + "/"
    site.routes["/"] = Route(html_page(alternate("en", a("/")), alternate("de", a(long_path))))
    site.routes[long_path] = Route(html_page(alternate("en", a("/")), alternate("de", a(long_path)), lang="de"))
    result = await crawl(start=a("/"))
    assert site.requests("GET")[long_path] == 1
    assert result.page(a(long_path)).status == 200
    assert not [f for f in result.findings if f.check.startswith("HL2")]
