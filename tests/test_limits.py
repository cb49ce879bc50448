"""`max_pages` bounds every request of the crawl but robots.txt and sitemaps: pages, alternates and
the status checks of URLs nobody fetched. What it leaves out is not examined (HL206), and the log
says how many URLs that is."""

from __future__ import annotations

import signal
import time
from itertools import product

import pycountry
import pytest
import pytest_twisted

import settings as shipped
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.extract.hreflang_values import check_hreflang
from qivrora_spider.facts import Page, RobotsTxt, SitemapFile, TargetStatus
from qivrora_spider.outcome import INTERRUPTED
from qivrora_spider.spiders.hreflang import PROBED_SITEMAPS
from qivrora_spider.state.jobdir import FactLog

from .conftest import FAST, CrawlResult, crawl
from .fixture_sites import url_entry, urlset
from .test_jobdir import chain_site, finish, scrapy_crawl

#: The politeness (and fault) settings as shipped, instead of the tests' fast ones.
POLITE = {name: getattr(shipped, name) for name in FAST if name != "QIVRORA_STATE"}
#: What max_pages does not count, as the test sites serve it.
EXEMPT = ("/robots.txt", *PROBED_SITEMAPS)


def counted_requests(result: CrawlResult) -> int:
    """Requests the crawl sent, by its stats, but robots.txt and sitemaps (one fact each) and the
    ``data:`` request that hands out the audit's findings."""
    exempt = len(result.of(RobotsTxt)) + len(result.of(SitemapFile)) + 1
    return result.stats["downloader/request_count"] - exempt


def left_out(result: CrawlResult) -> list[str]:
    return [s.url for s in result.of(TargetStatus) if s.not_examined == "max_pages"]


def counted_by(*servers: SiteServer) -> list[str]:
    """The requests max_pages counts, as the sites saw them: "METHOD /path"."""
    return [f"{method} {path}" for server in servers for method, path in server.log if path not in EXEMPT]


def logged(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if text in r.getMessage()]


def hreflang_values(count: int) -> list[str]:
    """`count` distinct values search engines accept: language-region pairs."""
    languages = sorted(lang.alpha_2 for lang in pycountry.languages if hasattr(lang, "alpha_2"))
    regions = sorted(country.alpha_2 for country in pycountry.countries)
    pairs = (f"{language}-{region}" for language, region in product(languages, regions))
    return [value for value in pairs if check_hreflang(value) is None][:count]


@pytest.mark.slow  # a crawl of 10,000 alternates at the shipped politeness
@pytest_twisted.ensureDeferred
async def test_max_pages_ends_a_crawl_of_10000_alternates_after_its_requests_at_the_shipped_politeness(
    site, caplog
):
    a = site.url
    alternates = [a(f"/alt{i}/") for i in range(10_000)]
    annotations = (alternate(value, url) for value, url in zip(hreflang_values(10_000), alternates))
    site.routes["/en/"] = Route(html_page(alternate("en", a("/en/")), *annotations))
    site.not_found = Route(html_page())  # each alternate a page, so AutoThrottle may lower the delay

    result = await crawl(POLITE, start=a("/en/"), max_pages="300")

    assert counted_requests(result) == 300, "the page and 299 of its alternates; no status checks after"
    assert len(counted_by(site)) == 300, "as the site saw them"
    assert max(site.requests().values()) == 1, "every URL once"
    unexamined = alternates[299:]
    assert left_out(result) == unexamined
    hl206 = [f for f in result.findings if f.check == "HL206"]
    assert sorted(f.target for f in hl206) == sorted(unexamined)
    assert all("`-a max_pages`" in f.message for f in hl206), "the reason names the limit"
    assert logged(caplog, "max_pages reached: no further page, alternate or status check is requested")
    assert logged(caplog, "max_pages=300 left 9,701 URLs out")


@pytest_twisted.ensureDeferred
async def test_sitemap_entries_past_max_pages_are_left_out_without_a_status_check(site):
    a = site.url
    site.routes.update(
        {
            "/s.xml": Route(urlset(*(url_entry(a(f"/p{i}/")) for i in range(4))), content_type="text/xml"),
            **{f"/p{i}/": Route(html_page()) for i in range(4)},
        }
    )
    result = await crawl(start=a("/s.xml"), max_pages="1")
    assert site.requests("GET") == {"/robots.txt": 1, "/s.xml": 1, **dict.fromkeys(PROBED_SITEMAPS, 1), "/p0/": 1}
    assert site.requests("HEAD") == {}
    assert left_out(result) == [a("/p1/"), a("/p2/"), a("/p3/")]


@pytest.mark.parametrize(
    ("max_pages", "checks", "unexamined"),
    [
        pytest.param(7, ["HEAD /de/", "GET /de/", "HEAD /fr/", "HEAD /fr/final/"], [], id="all-within"),
        pytest.param(5, ["HEAD /de/", "HEAD /fr/"], ["/de/", "/fr/final/"], id="fallback-and-next-hop-out"),
        pytest.param(4, ["HEAD /de/"], ["/de/", "/fr/"], id="a-head-out"),
    ],
)
@pytest_twisted.ensureDeferred
async def test_status_checks_count_against_max_pages(site, other_site, max_pages, checks, unexamined, caplog):
    """Three pages, then the statuses of where two of them redirect (off the site, so nobody GETs
    them): one refuses HEAD (a GET follows), the other redirects again (a HEAD of where it leads)."""
    a, b = site.url, other_site.url
    cluster = (alternate("en", a("/")), alternate("de", a("/de/")), alternate("fr", a("/fr/")))
    site.routes.update(
        {
            "/": Route(html_page(*cluster)),
            "/de/": Route("", status=301, headers=[("Location", b("/de/"))]),
            "/fr/": Route("", status=301, headers=[("Location", b("/fr/"))]),
        }
    )
    other_site.routes.update(
        {
            "/de/": Route("", status=405),
            "/fr/": Route("", status=301, headers=[("Location", b("/fr/final/"))]),
            "/fr/final/": Route(html_page()),
        }
    )
    result = await crawl(start=a("/"), max_pages=str(max_pages))

    assert len(counted_by(site, other_site)) == max_pages
    assert sorted(counted_by(other_site)) == sorted(checks), "each check once, and no more"
    assert sorted(left_out(result)) == [b(path) for path in unexamined]
    assert bool(logged(caplog, f"max_pages={max_pages} left {len(unexamined)} URLs out")) == bool(unexamined)


@pytest.mark.slow  # interrupts a `scrapy crawl` process with SIGINT and resumes it
def test_max_pages_counts_the_requests_of_a_crawl_paused_and_resumed_with_jobdir(site, other_site, tmp_path):
    chain_site(site, other_site)
    start, limit = site.url("/en/0/"), ("-a", "max_pages=12", "-s", f"JOBDIR={tmp_path / 'job'}")
    for route in site.routes.values():
        route.delay = 0.3
    paused = scrapy_crawl(start, *limit, "-s", "CONCURRENT_REQUESTS=2")
    deadline = time.monotonic() + 60
    while len(counted_by(site)) < 5 and paused.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    paused.send_signal(signal.SIGINT)
    assert "paused before the audit" in finish(paused, INTERRUPTED)
    assert len(counted_by(site, other_site)) < 12, "paused before the limit"

    for route in site.routes.values():
        route.delay = 0
    log = finish(scrapy_crawl(start, *limit))
    assert "Resuming the crawl" in log
    counted = counted_by(site, other_site)
    assert len(counted) == 12 and len(set(counted)) == 12, counted
    facts = list(FactLog(tmp_path / "job").load())
    unexamined = [f.url for f in facts if isinstance(f, TargetStatus) and f.not_examined == "max_pages"]
    assert unexamined and len(set(unexamined)) == len(unexamined), "each URL left out once"
    assert f"max_pages=12 left {len(unexamined)} URLs out" in log


@pytest.mark.slow  # waits out real delays and a download timeout (4 to 9 s)
@pytest_twisted.ensureDeferred
async def test_a_budget_covers_every_page_before_the_largest_cluster_takes_what_is_left(site):
    """The home page links ten pages; the first carries 10,000 alternates, the nine others one each: a redirect chain, a slow target, a connection
    reset, a 500, and five that answer. With max_pages=300 the nine are examined with their findings,
    and the large cluster as far as the budget goes; the rest of it is HL206."""
    a = site.url
    big = [a(f"/big{i}/") for i in range(10_000)]
    targets = {2: "/chain/1/", 3: "/slow/", 4: "/reset/", 5: "/broken/"} | {i: f"/p{i}/de/" for i in range(6, 11)}
    site.routes.update(
        {
            "/": Route(html_page(body=" ".join(f'<a href="/p{i}/">{i}</a>' for i in range(1, 11)))),
            "/p1/": Route(html_page(alternate("en", a("/p1/")), *map(alternate, hreflang_values(10_000), big))),
            **{
                # Slower to answer than the large page, which is read first (as a depth-first crawl reads it).
                f"/p{i}/": Route(html_page(alternate("en", a(f"/p{i}/")), alternate("de", a(path))), delay=4)
                for i, path in targets.items()
            },
            "/chain/1/": Route("", status=301, headers=[("Location", a("/chain/2/"))]),
            "/chain/2/": Route("", status=301, headers=[("Location", a("/chain/3/"))]),
            "/slow/": Route(html_page(), delay=9),
            "/reset/": Route(reset=True),
            "/broken/": Route("", status=500),
        }
    )
    site.not_found = Route(html_page())  # /chain/3/, the pages of the ten alternates and of the 10,000

    result = await crawl({"DOWNLOAD_TIMEOUT": 6, "RETRY_TIMES": 0}, start=a("/"), max_pages="300")

    assert counted_requests(result) == 300
    again = {path: n for path, n in site.requests().items() if n > 1}
    assert set(again) <= {"/reset/"}, "every URL once (Twisted sends a request again when its connection is reset)"
    found = {(f.check, f.url, f.target) for f in result.findings}
    assert {
        ("HL401", a("/p2/"), a("/chain/1/")),
        ("HL404", a("/p3/"), a("/slow/")),
        ("HL404", a("/p4/"), a("/reset/")),
        ("HL403", a("/p5/"), a("/broken/")),
    } <= found
    hl206 = {target for check, _, target in found if check == "HL206"}
    assert hl206 <= set(big), "nothing of the nine pages is left unexamined"
    examined_big = {page.url for page in result.of(Page)} & set(big)
    assert examined_big == set(big[: len(examined_big)]) and len(examined_big) > 250
    assert hl206 == set(big) - examined_big
    assert all("`-a max_pages`" in f.message for f in result.findings if f.check == "HL206")


@pytest_twisted.ensureDeferred
async def test_a_cluster_that_does_not_fit_in_what_is_left_is_left_out_whole(site):
    """/ links /a/ and /b/, each with three alternates; max_pages=6 holds the three pages and one
    cluster: the other is left out whole, and HL206 says why, rather than two halves examined."""
    a = site.url
    clusters = {name: [a(f"/{name}{i}/") for i in range(3)] for name in ("a", "b")}
    site.routes.update(
        {
            "/": Route(html_page(body='<a href="/a/">a</a> <a href="/b/">b</a>')),
            **{
                f"/{name}/": Route(html_page(alternate("en", a(f"/{name}/")), *map(alternate, ("de", "fr", "it"), urls)))
                for name, urls in clusters.items()
            },
        }
    )
    site.not_found = Route(html_page())

    result = await crawl(start=a("/"), max_pages="6")

    assert counted_requests(result) == 6
    examined = {page.url for page in result.of(Page)}
    whole = [name for name, urls in clusters.items() if set(urls) <= examined]
    out = [name for name, urls in clusters.items() if not set(urls) & examined]
    assert len(whole) == 1 and len(out) == 1, examined
    hl206 = [f for f in result.findings if f.check == "HL206"]
    assert sorted(f.target for f in hl206) == sorted(clusters[out[0]])
    assert all("did not fit in what the crawl's request limit (`-a max_pages`) had left" in f.message for f in hl206)
