"""Bad input gets a finding or a clear error, never a crash, a hang or unbounded memory.

Each test crawls a fixture site serving one kind of hostile or broken input and asserts that the crawl
runs to the audit without a traceback, that time and memory stay bounded (``bounded_crawl``; tighter
bounds where the input is big), and that the expected finding or log line is there. The docs' table "Bad input" (docs/bad-input.md) is generated from
``tests/bad_input.py``, which names the test of each row.
"""

from __future__ import annotations

import gzip
import io
import logging
import random
import zlib
from typing import Any

import pytest
import pytest_twisted

from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.extract.sitemap_parse import MAX_SITEMAP_BYTES
from qivrora_spider.facts import CrawlInfo, Page, RobotsTxt, SitemapFile
from qivrora_spider.spiders.hreflang import PROBED_SITEMAPS
from qivrora_spider.spiders.page_text import MAX_PAGE_BYTES

from .conftest import CrawlResult, crawl
from .fixture_sites import sitemap_index, url_entry, urlset
from .measure import MB, Measure
from .traps import SECRET, trap  # noqa: F401 (fixture)

SITEMAP_NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def assert_completed(result: CrawlResult, caplog: pytest.LogCaptureFixture | None = None) -> None:
    """The crawl ran to the audit and nothing crashed on the way (a traceback is a crash)."""
    assert "qivrora/findings" in result.stats, "the audit ran"
    crashes = [key for key in result.stats if key.startswith("spider_exceptions")]
    assert not crashes, crashes
    if caplog is not None:
        tracebacks = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]
        assert not tracebacks, tracebacks


_warmed: list[bool] = []


async def bounded_crawl(
    caplog: pytest.LogCaptureFixture, settings: dict[str, Any] | None = None, *, trace: bool = False, **arguments: Any
) -> tuple[CrawlResult, Measure]:
    """Crawl, measuring time and memory (Python allocations too with `trace`, which slows the crawl):
    it ends with the audit, within a minute and within 500 MB whatever the input; tests of big inputs
    assert tighter bounds."""
    if trace and not _warmed:
        # Scrapy imports its components at the first crawl of a process: not the input's cost.
        with SiteServer() as warm_up:
            await crawl(start=warm_up.url("/"))
        _warmed.append(True)
    with Measure(trace=trace) as measured:
        result = await crawl(settings, **arguments)
    assert_completed(result, caplog)
    assert measured.seconds < 60, measured
    assert measured.rss_growth is None or measured.rss_growth < 500 * MB, measured
    return result, measured


def findings(result: CrawlResult, check: str) -> list[str]:
    return [f.message for f in result.findings if f.check == check]


def logged(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if text in r.getMessage()]


# --- sitemaps -------------------------------------------------------------------------------------


def _padded_urlset(locs: list[str], entries: int, pad: int = MB) -> bytes:
    """A sitemap of `entries` <url>s (locs taken in turn), each padded with `pad` bytes of whitespace:
    big, yet few entries, so that the crawl fetches little."""
    padding = b" " * pad
    parts = [f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {SITEMAP_NS}>\n'.encode()]
    for i in range(entries):
        parts.append(f"<url><loc>{locs[i % len(locs)]}</loc>".encode() + padding + b"</url>\n")
    parts.append(b"</urlset>\n")
    return b"".join(parts)


def _gzip_bomb(locs: list[str], entries: int, pad: int = MB) -> bytes:
    """The same sitemap, gzipped without ever holding it whole: ~70 KB that inflate to ~70 MB."""
    out = io.BytesIO()
    padding = b" " * pad
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as file:
        file.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {SITEMAP_NS}>\n'.encode())
        for i in range(entries):
            file.write(f"<url><loc>{locs[i % len(locs)]}</loc>".encode() + padding + b"</url>\n")
        file.write(b"</urlset>\n")
    return out.getvalue()


def _one_page_site(site, **extra_routes: Route) -> None:
    a = site.url
    site.routes.update(
        {
            "/en/": Route(html_page(alternate("en", a("/en/")), alternate("de", a("/de/")))),
            "/de/": Route(html_page(alternate("en", a("/en/")), alternate("de", a("/de/")), lang="de")),
            **extra_routes,
        }
    )


@pytest_twisted.ensureDeferred
async def test_entity_bomb_and_external_entities_in_a_sitemap_are_never_expanded(site, trap, tmp_path, caplog):  # noqa: F811
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    a = site.url
    laughs = "\n".join(
        f'<!ENTITY lol{i} "{("&lol%d;" % (i - 1)) * 10}">' if i else '<!ENTITY lol0 "lol">' for i in range(10)
    )
    bomb = (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset [\n{laughs}\n'
        f'<!ENTITY xxe SYSTEM "{secret.as_uri()}">\n'
        f'<!ENTITY % remote SYSTEM "{trap.url("/evil.dtd")}">\n%remote;\n]>\n'
        f"<urlset {SITEMAP_NS}><url><loc>{a('/en/')}?&lol9;&xxe;</loc></url></urlset>\n"
    )
    external = (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset SYSTEM "{trap.url("/evil.dtd")}">\n'
        f"<urlset {SITEMAP_NS}><url><loc>{a('/de/')}?&ext;</loc></url></urlset>\n"
    )
    _one_page_site(
        site,
        **{
            "/robots.txt": Route(f"Sitemap: {a('/bomb.xml')}\nSitemap: {a('/external.xml')}\n", content_type="text/plain"),
            "/bomb.xml": Route(bomb, content_type="application/xml"),
            "/external.xml": Route(external, content_type="application/xml"),
        },
    )
    result, measured = await bounded_crawl(caplog, start=a("/en/"), trace=True)
    print(f"\nentity bomb + XXE: {measured}")
    files = {f.url: f for f in result.of(SitemapFile)}
    assert "entity declarations are not allowed in a sitemap" in files[a("/bomb.xml")].errors
    assert files[a("/external.xml")].errors, "the undeclared entity of an external DTD is an error"
    sm004 = findings(result, "SM004")
    assert any("entity declarations are not allowed" in m for m in sm004)
    assert any(a("/external.xml") in f.url for f in result.findings if f.check == "SM004")
    assert trap.requests() == {}, "no DTD or entity was fetched"
    assert not any(SECRET in repr(item) for item in result.items), "no file was read into a fact"
    assert measured.python_peak is not None and measured.python_peak < 32 * MB, "nothing expanded"


@pytest.mark.slow  # inflates 50 MB
@pytest_twisted.ensureDeferred
async def test_gzip_bomb_sitemap_is_inflated_only_up_to_the_50_mb_limit(site, caplog):
    a = site.url
    bomb = _gzip_bomb([a("/en/"), a("/de/")], entries=70)
    assert len(bomb) < 200_000
    _one_page_site(site, **{"/sitemap.xml.gz": Route(bomb, content_type="application/gzip")})
    result, measured = await bounded_crawl(caplog, start=a("/sitemap.xml.gz"), trace=True)
    print(f"\ngzip bomb ({len(bomb):,} bytes -> 70 MB): {measured}")
    (sitemap,) = [f for f in result.of(SitemapFile) if f.url == a("/sitemap.xml.gz")]
    assert sitemap.gzip and sitemap.truncated and sitemap.size > MAX_SITEMAP_BYTES
    assert any("larger than 52,428,800 bytes" in m for m in findings(result, "SM003"))
    assert {p.url for p in result.of(Page)} == {a("/en/"), a("/de/")}, "entries before the limit are audited"
    # 70 MB inflated in 64 KB steps, each entry dropped once read: memory stays flat.
    assert measured.python_peak is not None and measured.python_peak < 32 * MB
    assert measured.rss_growth is None or measured.rss_growth < 100 * MB


@pytest.mark.slow  # crawls 60 MB
@pytest_twisted.ensureDeferred
async def test_sitemap_of_60_mb_is_read_up_to_the_50_mb_limit(site, caplog):
    a = site.url
    body = _padded_urlset([a("/en/"), a("/de/")], entries=60)
    assert len(body) > 60 * MB
    _one_page_site(site, **{"/sitemap.xml": Route(body, content_type="application/xml")})
    result, measured = await bounded_crawl(caplog, start=a("/sitemap.xml"), trace=True)
    print(f"\n60 MB sitemap: {measured}")
    del body
    (sitemap,) = [f for f in result.of(SitemapFile) if f.url == a("/sitemap.xml")]
    assert sitemap.truncated and sitemap.size > MAX_SITEMAP_BYTES and not sitemap.gzip
    assert sitemap.url_count < 50, "entries past 50 MB are not read"
    assert any("larger than 52,428,800 bytes" in m for m in findings(result, "SM003"))
    # The body itself (60 MB) is downloaded and kept while it is parsed; parsing adds little.
    assert measured.python_peak is not None and measured.python_peak < 200 * MB
    assert measured.rss_growth is None or measured.rss_growth < 300 * MB


@pytest.mark.slow  # crawls tens of MB
@pytest.mark.parametrize("found", ["start", "robots"])
@pytest_twisted.ensureDeferred
async def test_sitemap_larger_than_download_maxsize_is_sm003_not_a_download_error(site, found, caplog):
    """70 MB, past DOWNLOAD_MAXSIZE (64 MiB), which would drop the whole file: the download stops at
    the protocol's 50 MB instead, and what arrived is read."""
    a = site.url
    body = _padded_urlset([a("/en/"), a("/de/")], entries=70)
    assert len(body) > 64 * MB
    _one_page_site(site, **{"/big.xml": Route(body, content_type="application/xml")})
    if found == "robots":
        site.routes["/robots.txt"] = Route(f"Sitemap: {a('/big.xml')}\n", content_type="text/plain")
    result, measured = await bounded_crawl(caplog, start=a("/big.xml" if found == "start" else "/en/"), trace=True)
    del body
    (sitemap,) = [f for f in result.of(SitemapFile) if f.url == a("/big.xml")]
    assert sitemap.truncated and sitemap.error is None
    assert any("larger than 52,428,800 bytes" in m for m in findings(result, "SM003"))
    assert "SM004" not in result.checks()
    assert result.page(a("/en/")).status == 200, "the entries before the limit are audited"
    assert measured.python_peak is not None and measured.python_peak < 200 * MB


@pytest.mark.slow  # crawls 60 MB
@pytest.mark.parametrize("served", ["plain", "gzip"])
@pytest_twisted.ensureDeferred
async def test_sitemap_of_60_mb_of_whitespace_is_too_large_not_invalid_xml(site, served, caplog):
    """Valid XML whose whitespace after one <url> is a single text node six times libxml2's 10 MB
    limit: too large (SM003), not an XML error (SM004)."""
    a = site.url
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {SITEMAP_NS}>\n<url><loc>{a("/en/")}</loc></url>'
    ).encode() + b" " * (60 * MB) + b"</urlset>\n"
    path = "/sitemap.xml"
    if served == "gzip":
        body, path = gzip.compress(body, compresslevel=1), "/sitemap.xml.gz"
    _one_page_site(site, **{path: Route(body, content_type="application/xml")})
    result, measured = await bounded_crawl(caplog, start=a(path), trace=True)
    print(f"\n60 MB of whitespace ({served}, {len(body):,} bytes served): {measured}")
    del body
    (sitemap,) = [f for f in result.of(SitemapFile) if f.url == a(path)]
    assert (sitemap.gzip, sitemap.truncated, sitemap.url_count) == (served == "gzip", True, 1)
    assert sitemap.errors == [], "valid XML, whatever libxml2's default limits"
    (message,) = findings(result, "SM003")
    assert "larger than 52,428,800 bytes uncompressed" in message
    assert "so only its first 52,428,800 bytes were read" in message, "the message says how far it was read"
    assert "SM004" not in result.checks()
    assert result.page(a("/en/")).status == 200, "the entry before the limit is audited"
    # libxml2 holds the text node (up to 50 MB, outside Python); Python itself adds little.
    assert measured.python_peak is not None and measured.python_peak < 200 * MB
    assert measured.rss_growth is None or measured.rss_growth < 300 * MB


def _broken_sitemaps(a):
    page = html_page(body='<a href="/en/">English</a>')
    return {
        "html": ("/sitemap.html", Route(page), "the content is an HTML page"),
        "empty": ("/empty.xml", Route("", content_type="application/xml"), "empty document"),
        "index-lists-itself": (
            "/index.xml",
            Route(sitemap_index(a("/index.xml"), a("/pages.xml")), content_type="application/xml"),
            "the sitemap index lists itself",
        ),
        "index-inside-index": (
            "/index.xml",
            Route(sitemap_index(a("/inner-index.xml")), content_type="application/xml"),
            "is a sitemap index inside the sitemap index",
        ),
    }


@pytest.mark.parametrize("case", ["html", "empty", "index-lists-itself", "index-inside-index"])
@pytest_twisted.ensureDeferred
async def test_broken_sitemap_is_reported_as_invalid(site, case, caplog):
    a = site.url
    path, route, expected = _broken_sitemaps(a)[case]
    _one_page_site(
        site,
        **{
            "/robots.txt": Route(f"Sitemap: {a(path)}\n", content_type="text/plain"),
            path: route,
            "/pages.xml": Route(urlset(url_entry(a("/en/")), url_entry(a("/de/"))), content_type="application/xml"),
            "/inner-index.xml": Route(sitemap_index(a("/pages.xml")), content_type="application/xml"),
        },
    )
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    assert all(count == 1 for count in site.requests().values()), site.requests()
    assert any(expected in m for m in findings(result, "SM004")), findings(result, "SM004")


@pytest_twisted.ensureDeferred
async def test_a_sitemap_served_as_text_html_is_read_by_its_content(site, caplog):
    a = site.url
    _one_page_site(
        site,
        **{
            "/robots.txt": Route(f"Sitemap: {a('/sitemap.xml')}\n", content_type="text/plain"),
            "/sitemap.xml": Route(urlset(url_entry(a("/en/")), url_entry(a("/de/")))),  # text/html
        },
    )
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    (sitemap,) = [f for f in result.of(SitemapFile) if f.url == a("/sitemap.xml")]
    assert (sitemap.sitemap_kind, sitemap.url_count, sitemap.errors) == ("urlset", 2, [])
    assert "SM004" not in result.checks()


# --- pages ----------------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_page_with_invalid_utf8_is_read_with_replacement_characters(site, caplog):
    a = site.url
    head = (
        alternate("en", a("/en/")) + alternate("de", a("/de/"))
    ).encode() + b'\n<link rel="alternate" hreflang="f\xffr" href="' + a("/fr/").encode() + b'">'
    body = b"\xc3\x28 \xa0\xa1 \xf0\x28\x8c\xbc text \xed\xa0\x80 surrogate \xff\xfe\x00"
    page = html_page("@HEAD@", body="@BODY@").encode().replace(b"@HEAD@", head).replace(b"@BODY@", body)
    _one_page_site(site, **{"/en/": Route(page), "/fr/": Route(html_page(lang="fr"))})
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    en = result.page(a("/en/"))
    assert [x.hreflang for x in en.annotations] == ["en", "de", "f\ufffdr"]
    assert any("f\ufffdr" in m for m in findings(result, "HL005")), "the broken value is a finding"


@pytest_twisted.ensureDeferred
async def test_page_with_a_wrong_declared_charset_is_read_as_declared(site, caplog):
    """Search engines believe the Content-Type charset: UTF-8 read as Latin-1 turns /über/ into
    /Ã¼ber/, which the crawl fetches like they would (a 404 here: HL402)."""
    a = site.url
    page = html_page(alternate("en", a("/en/")), alternate("de", a("/über/")), alternate("fr", a("/fr/")))
    _one_page_site(
        site,
        **{
            "/en/": Route(page.encode("utf-8"), content_type="text/html; charset=iso-8859-1"),
            "/fr/": Route(html_page(lang="fr").encode("utf-8"), content_type="text/html; charset=x-no-such-charset"),
        },
    )
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    en = result.page(a("/en/"))
    assert [x.href for x in en.annotations][1] == a("/Ã¼ber/")
    assert any("404" in m for m in findings(result, "HL402"))
    assert result.page(a("/fr/")).html_lang == "fr", "an unknown charset falls back to detection"


@pytest.mark.slow  # measures a crawl's time and memory on a page of 10,000 annotations
@pytest_twisted.ensureDeferred
async def test_page_with_10000_hreflang_links(site, caplog):
    a = site.url
    languages = ["en", "de", "fr", "es", "it", "nl", "pt", "pl", "sv", "da"]
    regions = [f"{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(1000)]  # AA..LL: real and not
    links = "\n".join(
        alternate(f"{languages[i % 10]}-{regions[i // 10]}", a(f"/alt{i % 100}/")) for i in range(10_000)
    )
    _one_page_site(site, **{"/en/": Route(html_page(alternate("en", a("/en/")), links))})
    result, measured = await bounded_crawl(caplog, start=a("/en/"), trace=True)
    print(f"\n10,000 hreflang links: {measured}")
    assert len(result.page(a("/en/")).annotations) == 10_001
    assert sum(site.requests("GET")[f"/alt{i}/"] for i in range(100)) == 100, "each target once"
    assert {"HL002", "HL402"} <= result.checks()
    assert measured.python_peak is not None and measured.python_peak < 100 * MB


@pytest.mark.slow  # crawls 20 MB
@pytest_twisted.ensureDeferred
async def test_page_of_20_mb_is_read_up_to_15_mb_and_says_so(site, caplog):
    a = site.url
    paragraph = b"<p>Lorem ipsum dolor sit amet, <a href='/en/'>consectetur</a> <b>adipiscing</b> elit.</p>\n"
    head = html_page(alternate("en", a("/en/")), alternate("de", a("/de/")), body="@BODY@").encode()
    filler = paragraph * (MAX_PAGE_BYTES // len(paragraph) + 1)
    late = paragraph * ((20 * MB - len(filler)) // len(paragraph))
    body = b'<a href="/early/">early</a>' + filler + b'<a href="/late/">late</a>' + late
    page = head.replace(b"@BODY@", body)
    assert len(page) > 20 * MB
    _one_page_site(site, **{"/en/": Route(page), "/early/": Route(html_page()), "/late/": Route(html_page())})
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    print(f"\n20 MB page: {measured}")
    del page, body
    assert [x.hreflang for x in result.page(a("/en/")).annotations] == ["en", "de"]
    assert "/early/" in site.requests() and "/late/" not in site.requests(), "only the first 15 MB are read"
    assert logged(caplog, "only its first 15,728,640 bytes are read")
    assert result.stats["qivrora/pages/truncated"] == 1
    assert measured.rss_growth is None or measured.rss_growth < 300 * MB


@pytest_twisted.ensureDeferred
async def test_link_header_of_100_kb_is_read(site, caplog):
    a = site.url
    preload = ", ".join(f'<{a("/assets/%05d.css" % i)}>; rel="preload"; as="style"' for i in range(1700))
    header = preload + f', <{a("/de/")}>; rel="alternate"; hreflang="de", <{a("/en/")}>; rel="alternate"; hreflang="en"'
    assert len(header) > 100_000
    _one_page_site(site, **{"/de/": Route(html_page(lang="de"), headers=[("Link", header)])})
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    de = result.page(a("/de/"))
    assert de.status == 200 and [(x.source, x.hreflang) for x in de.annotations] == [("header", "de"), ("header", "en")]
    assert "/assets/00001.css" not in site.requests(), "preloads are not hreflang"
    assert "HL404" not in result.checks()


# --- redirects and faults ------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_redirect_loop_on_an_alternate_is_hl401_with_the_loop(site, caplog):
    a = site.url
    _one_page_site(
        site,
        **{
            "/en/": Route(html_page(alternate("en", a("/en/")), alternate("de", a("/loop-a/")))),
            "/loop-a/": Route("", status=301, headers=[("Location", a("/loop-b/"))]),
            "/loop-b/": Route("", status=302, headers=[("Location", "/loop-a/")]),
        },
    )
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    probed = dict.fromkeys(PROBED_SITEMAPS, 1)
    assert site.requests() == {"/robots.txt": 1, **probed, "/en/": 1, "/loop-a/": 1, "/loop-b/": 1}
    assert any(
        f"redirects in a loop ({a('/loop-a/')} → {a('/loop-b/')} → {a('/loop-a/')})" in m
        for m in findings(result, "HL401")
    )


@pytest.mark.parametrize("hops", [20, 25])
@pytest_twisted.ensureDeferred
async def test_chain_of_redirects_on_an_alternate_is_hl401_with_the_chain(site, hops, caplog):
    a = site.url
    routes = {f"/r{i}/": Route("", status=301, headers=[("Location", a(f"/r{i + 1}/"))]) for i in range(hops)}
    routes[f"/r{hops}/"] = Route(html_page(lang="de"))
    _one_page_site(site, **{"/en/": Route(html_page(alternate("en", a("/en/")), alternate("de", a("/r0/")))), **routes})
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    print(f"\nchain of {hops} redirects: {measured}")
    assert all(site.requests()[f"/r{i}/"] == 1 for i in range(min(hops, 21))), "each hop once"
    hl401 = findings(result, "HL401")
    if hops == 20:
        assert any(f"goes through a chain of 20 redirects ({a('/r0/')} → {a('/r1/')} → " in m for m in hl401), hl401
        assert any(f"→ {a('/r20/')}): annotate {a('/r20/')} directly" in m for m in hl401)
    else:
        assert any("redirects more than 20 times without reaching a page" in m for m in hl401), hl401
    assert measured.seconds < 60


@pytest_twisted.ensureDeferred
async def test_server_that_resets_connections_is_hl404_and_the_crawl_goes_on(site, caplog):
    a = site.url
    _one_page_site(
        site,
        **{
            "/en/": Route(html_page(alternate("en", a("/en/")), alternate("de", a("/de/")), alternate("fr", a("/fr/")))),
            "/fr/": Route(reset=True),
        },
    )
    result, measured = await bounded_crawl(caplog, {"RETRY_TIMES": 1}, start=a("/en/"))
    assert result.page(a("/fr/")).error == "reset"
    assert result.page(a("/de/")).status == 200, "the crawl goes on"
    assert any(a("/fr/") in m and "its server drops the connection" in m for m in findings(result, "HL404"))
    assert site.requests()["/fr/"] >= 2, "retried"


@pytest.mark.slow  # waits out a real download timeout
@pytest_twisted.ensureDeferred
async def test_server_that_answers_after_the_timeout_is_hl404_and_the_crawl_goes_on(site, caplog):
    a = site.url
    _one_page_site(
        site,
        **{
            "/en/": Route(html_page(alternate("en", a("/en/")), alternate("de", a("/de/")), alternate("fr", a("/fr/")))),
            "/fr/": Route(html_page(lang="fr"), delay=2.5),
        },
    )
    result, measured = await bounded_crawl(caplog, {"DOWNLOAD_TIMEOUT": 1, "RETRY_TIMES": 1}, start=a("/en/"))
    assert result.page(a("/fr/")).error == "timeout"
    assert result.page(a("/de/")).status == 200
    assert any(a("/fr/") in m and "did not answer in time" in m for m in findings(result, "HL404"))
    assert site.requests()["/fr/"] == 2, "retried once"
    assert measured.seconds < 15


@pytest_twisted.ensureDeferred
async def test_5xx_is_retried_then_reported_as_hl403(site, caplog):
    a = site.url
    _one_page_site(site, **{"/de/": Route(html_page(lang="de"), status=503)})
    result, measured = await bounded_crawl(caplog, {"RETRY_TIMES": 2}, start=a("/en/"))
    assert site.requests("GET")["/de/"] == 3, "the first answer and two retries"
    assert result.stats["retry/count"] == 2
    assert any("answers 503 Service Unavailable" in m for m in findings(result, "HL403"))


CALENDAR_LANGUAGES = {"en": "/cal/", "de": "/de/cal/", "fr": "/fr/cal/", "es": "/es/cal/", "it": "/it/cal/"}


class _Calendar(dict):
    """An infinite URL space: /cal/<year>-<month>/ links the next and previous months, forever, and
    each month has four alternates (/de/cal/..., ...) that do the same. Five versions a month: a page
    limit that is no multiple of five leaves some alternate of a fetched month out (HL206)."""

    def __init__(self, base: str, routes: dict[str, Route]) -> None:
        super().__init__(routes)
        self.base = base

    def get(self, path: str, default: Route | None = None) -> Route | None:  # type: ignore[override]
        for lang, prefix in CALENDAR_LANGUAGES.items():
            if path.startswith(prefix) and path.endswith("/"):
                month_path = path[len(prefix) : -1]
                year, month = (int(x) for x in month_path.split("-"))
                nxt = f"{year + month // 12}-{month % 12 + 1:02d}"
                prev = f"{year - (month == 1)}-{(month - 2) % 12 + 1:02d}"
                versions = [alternate(code, f"{self.base}{where}{month_path}/") for code, where in CALENDAR_LANGUAGES.items()]
                return Route(
                    html_page(
                        *versions,
                        body=f'<a href="{prefix}{prev}/">previous</a> <a href="{prefix}{nxt}/">next</a>',
                        lang=lang,
                    )
                )
        return super().get(path, default)


@pytest.mark.parametrize("limit", [{"max_pages": "12"}, {"max_depth": "4"}])
@pytest_twisted.ensureDeferred
async def test_infinite_calendar_is_bounded_by_the_limits_which_the_log_names(site, limit, caplog):
    a = site.url
    site.routes = _Calendar(site.base, site.routes)
    result, measured = await bounded_crawl(caplog, start=a("/cal/2026-01/"), **limit)
    name = next(iter(limit))
    assert result.of(CrawlInfo)[0].limits_reached == [name]
    lines = logged(caplog, f"{name} reached")
    assert lines and all(check in lines[0] for check in ("HL206", "HL203", "HL204", "SM002")), lines
    fetched = [p for p in result.of(Page) if p.status == 200]
    assert len(fetched) <= (12 if name == "max_pages" else 60)
    if name == "max_pages":  # alternates are examined whatever the depth: only a page limit leaves some out
        assert "HL206" in result.checks(), "alternates left out are reported as not examined"
    assert measured.seconds < 30


# --- robots.txt -----------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_robots_txt_answering_5xx_is_logged_and_the_crawl_allowed(site, caplog):
    a = site.url
    _one_page_site(site, **{"/robots.txt": Route("down", status=503, content_type="text/plain")})
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    assert result.of(RobotsTxt)[0].status == 503
    assert logged(caplog, "robots.txt of") and logged(caplog, "answered 503: crawling as if it allowed everything")
    assert result.page(a("/de/")).status == 200


@pytest_twisted.ensureDeferred
async def test_robots_txt_answering_404_allows_everything(site, caplog):
    a = site.url
    _one_page_site(site)
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    robots = result.of(RobotsTxt)[0]
    assert (robots.status, robots.exists) == (404, False)
    assert result.page(a("/de/")).status == 200


@pytest_twisted.ensureDeferred
async def test_robots_txt_of_binary_garbage_is_read_as_rules_it_does_not_hold(site, caplog):
    a = site.url
    garbage = random.Random(7).randbytes(300_000) + b"\nUser-agent: *\nDisallow: /private/\n"
    _one_page_site(site, **{"/robots.txt": Route(garbage, content_type="text/plain")})
    site.routes["/en/"] = Route(html_page(alternate("en", a("/en/")), alternate("de", a("/private/de/"))))
    result, measured = await bounded_crawl(caplog, start=a("/en/"))
    assert result.of(RobotsTxt)[0].exists
    assert "/private/de/" not in site.requests(), "the rule after the garbage is obeyed"
    assert "HL405" in result.checks()


@pytest_twisted.ensureDeferred
async def test_enormous_robots_txt_is_obeyed_up_to_500_kib_and_says_so(site, caplog):
    a = site.url
    comment = b"# " + b"x" * 1000 + b"\n"
    robots = b"User-agent: *\nDisallow: /blocked/\n" + comment * 5300 + b"Disallow: /de/\n"
    assert len(robots) > 5 * MB
    _one_page_site(site, **{"/robots.txt": Route(robots, content_type="text/plain")})
    site.routes["/en/"] = Route(
        html_page(alternate("en", a("/en/")), alternate("de", a("/de/")), alternate("fr", a("/blocked/fr/")))
    )
    result, measured = await bounded_crawl(caplog, start=a("/en/"), trace=True)
    print(f"\n5 MB robots.txt: {measured}")
    assert "/blocked/fr/" not in site.requests() and "HL405" in result.checks()
    assert result.page(a("/de/")).status == 200, "a rule past 500 KiB is not read, as Google does"
    assert logged(caplog, "only its first 512,000 bytes are obeyed")
    assert measured.python_peak is not None and measured.python_peak < 100 * MB


def test_gzip_bomb_fixture_is_what_it_claims():
    bomb = _gzip_bomb(["http://x/"], entries=3, pad=1000)
    assert zlib.decompress(bomb, 16 + zlib.MAX_WBITS).count(b"<url>") == 3
