"""The `hreflang` spider: fetch a site, its sitemaps and every alternate once; record facts.

A thin adapter: deciding what a response means is done by the pure builders (page_facts,
sitemap_facts); this class decides what to fetch next, fetches every URL at most once, and sends no
more requests than ``max_pages`` allows (robots.txt and sitemaps aside).

A budget covers the site: Scrapy's FIFO queues with DEPTH_PRIORITY take pages nearer the start first,
the budget is spent as requests leave the queue (``admit``, through ``BudgetMiddleware``), and a
page's alternates are examined together: their requests are reserved at once, or the cluster is left
out whole (``_cluster``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Iterable, Iterator

from scrapy import Request, Spider, signals
from scrapy.exceptions import StopDownload
from scrapy.http import Response
from scrapy.utils.job import job_dir
from scrapy.utils.misc import load_object
from twisted.python.failure import Failure

from ..compat.twisted import allow_long_header_lines
from ..downloadermiddlewares.fetch_errors import RefusalRecorded, describe_failure
from ..downloadermiddlewares.interrupt import Interrupted
from ..downloadermiddlewares.pace import pace_own_servers
from ..extract.locale_probe import probe_fact, probe_language
from ..extract.page_facts import build_page, followable, resolve
from ..extract.rendered import failed_rendering, with_rendering
from ..extract.sitemap_facts import read_sitemap
from ..extract.sitemap_parse import MAX_SITEMAP_BYTES, sniff_sitemap
from ..extract.urls import origin
from ..facts import (
    INTERRUPTED,
    Annotation,
    CrawlInfo,
    LocaleProbe,
    Page,
    RobotsTxt,
    SitemapFile,
    TargetStatus,
)
from ..feeds.exporters import exports_facts
from ..rendering import Rendering, RenderResult
from ..signals import audit_items, crawl_interrupted, crawl_settling, robots_recorded
from ..state.history import setting_path
from ..state.jobdir import kept
from .arguments import CrawlArguments, Scope, parse_arguments
from .page_text import page_text

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: Bodies worth downloading: pages, sitemaps (XML, gzip), and text. Others are judged by headers.
BODY_TYPES = ("text/", "application/xhtml", "application/xml", "application/gzip", "application/x-gzip",
              "application/octet-stream", "application/rss+xml", "application/atom+xml")

#: Answers that mean "this server does not do HEAD", not "this URL is broken".
HEAD_REFUSED = (405, 501)

#: The meta of a request that may fetch a sitemap: its size is bounded by ``bytes_received`` at the
#: protocol's limit rather than by DOWNLOAD_MAXSIZE (which drops a larger file whole).
SITEMAP_SIZED = {"download_maxsize": 0, "qivrora_received": 0}

#: Twisted reads a socket 64 KiB at a time: a body this short may have arrived with its headers.
WHOLE_IN_ONE_READ = 64 * 1024

#: Where hosts that announce no sitemap keep one: generic, Yoast and Rank Math, Astro, WordPress core.
PROBED_SITEMAPS = ("/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml", "/wp-sitemap.xml")

#: The priority of the largest cluster's alternates, released when the crawl settles: after any other
#: request, whatever its depth, so that they take only what the rest of the site left of the budget.
LAST = -1_000_000

#: What each limit stops, for the line that logs it the first time it is reached.
STOPPED = {
    "max_pages": "no further page, alternate or status check is requested",
    "max_depth": "links are not followed further",
}


def keeps_fingerprints(settings: BaseSettings) -> bool:
    """Whether pages need their content fingerprint, which only the crawl state compares (SM010, SM011).

    Facts that outlive the crawl (a facts feed, JOBDIR) keep it too: whoever reads them later may
    compare them with a state. QIVRORA_FINGERPRINTS (for a pipeline of your own) asks for it
    regardless. A distributed worker follows the same rule: the auditor, which keeps the state,
    warns of pages fetched without (``SharedAuditExtension``).
    """
    if settings.getbool("QIVRORA_FINGERPRINTS") or setting_path(settings, "QIVRORA_STATE"):
        return True
    if job_dir(settings):
        return True
    exporters = settings.getwithbase("FEED_EXPORTERS")
    for options in settings.getdict("FEEDS").values():
        exporter = exporters.get(options.get("format"))
        if exporter is None or exports_facts(load_object(exporter)):
            return True
    return False


@dataclass(slots=True)
class Memory:
    """What the spider remembers so that every URL is fetched once; with JOBDIR, kept across a pause."""

    crawl_info: CrawlInfo
    seen: set[str] = field(default_factory=set)
    #: Requests counted against max_pages (all but robots.txt and sitemaps), and the URLs it left out.
    requests: int = 0
    left_out: int = 0
    #: Hosts where a start's redirects ended (http://example.com/ -> https://www.example.com/): in scope.
    start_hosts: list[str] = field(default_factory=list)
    #: Requests queued for the alternates of clusters that fit: counted when they leave the queue.
    reserved: int = 0
    #: The largest cluster so far that alone exceeds max_pages (its unfetched alternates, claimed, and
    #: their depth): examined as far as the budget goes once the rest of the crawl is done.
    held: list[str] = field(default_factory=list)
    held_depth: int = 0
    #: Pages admitted and not read yet, whose clusters are still unknown; and the pages read so far
    #: with what they cost (themselves and the alternates they added): what each of those may need.
    reading: int = 0
    read_pages: int = 0
    read_cost: int = 0
    #: URLs queued as pages, not admitted yet; those of them a cluster reserved (counted as reserved).
    queued: set[str] = field(default_factory=set)
    promised: set[str] = field(default_factory=set)
    #: Pages (URL, depth) that waited for the pages being read: asked for again when the crawl settles.
    waiting: list[tuple[str, int]] = field(default_factory=list)
    #: In-scope hosts (origins) whose sitemaps robots.txt or a page announced, those whose robots.txt
    #: named none (probed when the crawl settles unless a page announced one), and those probed.
    announced: set[str] = field(default_factory=set)
    unannounced: list[str] = field(default_factory=list)
    probed: set[str] = field(default_factory=set)


def header_values(response: Response) -> Callable[[str], list[str]]:
    """The values of a response header by name, as the page builder reads them."""

    def headers(name: str) -> list[str]:
        return [value.decode("latin-1") for value in response.headers.getlist(name)]

    return headers


class HreflangSpider(Spider):
    name = "hreflang"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.arguments: CrawlArguments = parse_arguments(kwargs)
        super().__init__(*args)
        self.scope = Scope(self.arguments)
        #: Decided once the settings are final (add-ons applied), at engine_started.
        self.fingerprints = True
        self.memory = Memory(
            CrawlInfo(
                started=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                start_urls=list(self.arguments.start or self.arguments.urls),
                scope=self.scope.describe(),
            )
        )

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        if spider.arguments.render:
            # Applied with the other add-ons, after this; only then is scrapy-playwright imported.
            crawler.settings["ADDONS"].set(Rendering, 0, priority="spider")
        pace_own_servers(crawler.settings, spider.arguments)
        allow_long_header_lines()  # a Link header listing many alternates is longer than 16 KiB
        crawler.signals.connect(spider.robots_recorded, signal=robots_recorded)
        crawler.signals.connect(spider.headers_received, signal=signals.headers_received)
        crawler.signals.connect(spider.bytes_received, signal=signals.bytes_received)
        crawler.signals.connect(spider.engine_started, signal=signals.engine_started)
        crawler.signals.connect(spider.interrupted, signal=crawl_interrupted)
        crawler.signals.connect(spider.crawl_settling, signal=crawl_settling)
        return spider

    def engine_started(self) -> None:
        """With JOBDIR, go on from what a paused crawl remembered (loaded by now, at spider_opened)."""
        self.memory = kept(self, "qivrora/spider", self.memory)
        for url in self.memory.start_hosts:
            self.scope.add(url)
        self.memory.reading = 0  # what a paused crawl was reading is not being read any more
        self.fingerprints = keeps_fingerprints(self.settings)

    def closed(self, reason: str) -> None:
        """How many URLs max_pages left out in all: the warning came with the first of them."""
        if self.memory.left_out:
            logger.warning(
                "max_pages=%d left %s URLs out: not examined, so their status and return links are "
                "unknown (HL206 for the alternates among them); a higher max_pages examines them",
                self.arguments.max_pages, f"{self.memory.left_out:,}",
            )

    def interrupted(self) -> None:
        """Ctrl-C: the crawl is partial, and the audit says why what it left out was not examined (the
        Interruption extension has logged it)."""
        if INTERRUPTED not in self.crawl_info.limits_reached:
            self.crawl_info.limits_reached.append(INTERRUPTED)

    @property
    def crawl_info(self) -> CrawlInfo:
        return self.memory.crawl_info

    # --- what to fetch -----------------------------------------------------------------------

    def claim(self, url: str) -> bool:
        """True the first time a URL is asked for: every URL is fetched at most once per crawl."""
        if url in self.memory.seen:
            return False
        self.memory.seen.add(url)
        return True

    def _limit_reached(self, limit: str) -> None:
        if limit not in self.crawl_info.limits_reached:
            self.crawl_info.limits_reached.append(limit)
            logger.warning(
                "%s reached: %s, so return links of the alternates left out are unknown (HL206) and the "
                "site-wide checks (HL203, HL204, SM002) see part of the site",
                limit, STOPPED[limit],
            )

    def admit(self, request: Request) -> str:
        """Count a request against max_pages as it leaves the queue: "go"; "out" (counting nothing)
        once the budget is spent, "skip" for a locale probe then; "wait" for a page whose cluster would not fit beside those of the
        pages being read, asked for again when the crawl settles (``waiting``). A reserved request
        (a member of a cluster that fit) always goes."""
        budget = request.meta.get("qivrora_budget")
        if budget is None or budget == "counted":
            return "go"  # robots.txt, sitemaps, the audit's own request; or counted before a replay
        url = request.meta["qivrora_url"]
        if budget == "reserved" or url in self.memory.promised:
            self.memory.promised.discard(url)
            self.memory.reserved -= 1
        else:
            limit = self.arguments.max_pages
            if limit is not None and self.memory.requests + self.memory.reserved >= limit:
                self._limit_reached("max_pages")
                self.memory.queued.discard(url)
                # A probe's page was examined already: past the budget it is just not probed.
                return "skip" if budget == "probe" else "out"
            if budget == "page" and limit is not None and self.memory.reading and self._left() < self._expected():
                self.memory.waiting.append((url, request.meta["qivrora_depth"]))
                return "wait"
            if budget == "page":
                # Its cluster is not known yet: clusters reserved meanwhile leave room for one (``_left``).
                self.memory.reading += 1
                request.meta["qivrora_reading"] = True
        self.memory.queued.discard(url)
        self.memory.requests += 1
        request.meta["qivrora_budget"] = "counted"
        return "go"

    def _expected(self) -> int:
        """What reading one more page may cost: itself and its alternates, as the pages read did."""
        memory = self.memory
        return -(-memory.read_cost // memory.read_pages) if memory.read_pages else 1

    def _left(self) -> int:
        """What max_pages leaves for a cluster once those reserved and those the pages being read may
        bring (as large as the pages read so far brought) are served: a sitemap's thousand clusters
        must not take the room of the pages already fetched."""
        memory = self.memory
        assert self.arguments.max_pages is not None
        return self.arguments.max_pages - memory.requests - memory.reserved - memory.reading * (self._expected() - 1)

    def _read(self, meta: dict[str, Any]) -> bool:
        """A page admitted as one that may bring a cluster is read (or failed): it needs no estimate now."""
        if meta.pop("qivrora_reading", False):
            self.memory.reading -= 1
            return True
        return False

    def asked_elsewhere(self, urls: Iterable[str]) -> None:
        """URLs another worker of a distributed crawl asked for (its scheduler hands them over): they
        are claimed, so this worker asks for none of them, fetches none twice, and notes no status
        pending for them."""
        self.memory.seen.update(urls)

    def left_out(self, url: str, why: str = "max_pages") -> TargetStatus:
        """The fact of a URL max_pages left out (``cluster``: with its cluster, whole; INTERRUPTED: by
        Ctrl-C): not examined (HL206), never a pass. It stays claimed: not asked for again, not even
        for its status."""
        self.memory.left_out += why != INTERRUPTED
        return TargetStatus(url=url, not_examined=why)

    def document(
        self, url: str, *, depth: int, start: bool = False, from_start: bool = False, budget: str = "page"
    ) -> Iterator[Request]:
        """GET a page or an alternate (any type: a PDF carries hreflang in its Link header).

        ``start``: a URL the user gave (or where one redirected), whose redirects are followed on any
        host (CR001); ``from_start``: given with ``-a start``, so it may be a sitemap. ``budget``: how
        max_pages counts it (``admit``): "page" (its cluster is not known yet), "reserved" (a member
        of a cluster that fit), "open" (one request, no cluster expected)."""
        if self.claim(url):
            if budget == "page" and self.arguments.max_pages is not None:
                self.memory.queued.add(url)
            yield self._document_request(url, depth=depth, start=start, from_start=from_start, budget=budget)

    def _document_request(
        self,
        url: str,
        *,
        depth: int,
        start: bool = False,
        from_start: bool = False,
        budget: str = "page",
        priority: int = 0,
    ) -> Request:
        in_scope = url in self.scope and not self.arguments.list_mode
        meta: dict[str, Any] = {
            "qivrora_url": url, "qivrora_depth": depth, "qivrora_in_scope": in_scope or from_start,
            "qivrora_budget": budget,
        }
        if start or from_start:
            meta["qivrora_start"] = True
        if from_start:
            meta.update(SITEMAP_SIZED)  # a start URL may be a sitemap, recognised once it has arrived
        if self.arguments.render:
            meta["qivrora_render"] = True  # rendered if it answers 200 with HTML (rendering.handler)
        return Request(
            url,
            callback=self.parse_start if from_start else self.parse_document,
            errback=self.document_failed,
            meta=meta,
            priority=priority,
        )

    def _cluster(self, members: dict[str, int]) -> Iterator[Request | TargetStatus]:
        """The URLs of one cluster not asked for yet (URL: depth), examined together.

        Without max_pages each is simply fetched. With it, they are reserved at once where they fit in
        what is left; a cluster that does not fit is left out whole (HL206 says why), rather than
        spending the budget on part of it, except the largest one that alone exceeds max_pages, which
        is held until the crawl settles and then examined as far as the budget goes.
        """
        new = {url: depth for url, depth in members.items() if url not in self.memory.seen}
        limit = self.arguments.max_pages
        # Members queued as pages already (linked before): reserved with the others, or they would be
        # the part of the cluster the budget leaves out.
        queued = [url for url in members if url in self.memory.queued]
        if limit is None or len(new) + len(queued) < 2:
            for url, depth in new.items():
                yield from self.document(url, depth=depth)  # one URL is no cluster to keep whole
            return
        if len(new) + len(queued) <= self._left():
            self.memory.reserved += len(new) + len(queued)
            self.memory.queued.difference_update(queued)
            self.memory.promised.update(queued)
            for url, depth in new.items():
                yield from self.document(url, depth=depth, budget="reserved")
            return
        self.memory.seen.update(new)
        if len(new) > limit and len(new) > len(self.memory.held):
            new, self.memory.held = dict.fromkeys(self.memory.held, 0), list(new)
            self.memory.held_depth = max(members.values())
        self._limit_reached("max_pages")
        for url in new:
            yield self.left_out(url, "cluster")

    def sitemap(self, url: str, *, via: str, parent: str | None = None) -> Iterator[Request]:
        if self.claim(url):
            yield Request(
                url,
                callback=self.parse_sitemap,
                errback=self.sitemap_failed,
                meta={"qivrora_url": url, "qivrora_via": via, "qivrora_parent": parent, **SITEMAP_SIZED},
                priority=10,
            )

    def status(self, url: str, method: str = "HEAD") -> Request:
        """Only the status of a URL nobody fetched (the status pipeline asks, when the crawl settles)."""
        return Request(
            url,
            method=method,
            callback=self.parse_status,
            errback=self.status_failed,
            meta={"qivrora_url": url, "qivrora_headers_only": True, "qivrora_budget": "open"},
            priority=-10,
            # The GET where HEAD is refused asks again for a URL this crawl claimed: a duplicate
            # filter that keys on URLs alone (distributed crawls) must let it through.
            dont_filter=method != "HEAD",
        )

    def statuses(self, urls: Iterable[str]) -> Iterator[Request]:
        """A HEAD for each URL nobody fetched (claimed by the status pipeline); those past max_pages
        are left out as they leave the queue."""
        for url in urls:
            yield self.status(url)

    async def start(self) -> AsyncIterator[Any]:
        for url in self.arguments.urls:
            for request in self.document(url, depth=0, start=True):
                yield request
        for url in self.arguments.start:
            if url.startswith("file:"):
                # A sitemap on disk (checked by the arguments): its URLs are audited on the live site.
                for request in self.sitemap(url, via="start"):
                    yield request
                continue
            if url == f"{origin(url)}/robots.txt":
                # The robots middleware fetches it; its Sitemap: lines are queued when it is recorded.
                yield Request(url, callback=self.parse_robots_start, dont_filter=True)
                continue
            for request in self.document(url, depth=0, from_start=True):
                yield request

    def robots_recorded(self, robots: RobotsTxt) -> None:
        """Sitemaps named by the robots.txt of an in-scope host; a host that names none is probed for
        the common names when the crawl settles, unless one of its pages announces a sitemap."""
        if self.arguments.list_mode or robots.url not in self.scope:
            return
        if not robots.sitemaps:
            if robots.origin not in self.memory.unannounced:
                self.memory.unannounced.append(robots.origin)
            return
        self.memory.announced.add(robots.origin)
        for url in robots.sitemaps:
            for request in self.sitemap(url, via="robots"):
                self.crawler.engine.crawl(request)

    def crawl_settling(self) -> int:
        """Probe the common sitemap names, once each, on the in-scope hosts that announced none; release
        the largest cluster held back, to take what the rest of the crawl left of max_pages."""
        held, self.memory.held = self.memory.held, []
        for url in held:
            request = self._document_request(url, depth=self.memory.held_depth, budget="open", priority=LAST)
            self.crawler.engine.crawl(request)
        waiting, self.memory.waiting = self.memory.waiting, []
        self.memory.reading = 0  # the crawl has nothing left to do: no page is being read
        for url, depth in waiting:
            # Scheduled once already: the duplicate filter must let it through.
            self.crawler.engine.crawl(self._document_request(url, depth=depth).replace(dont_filter=True))
        queued = len(held) + len(waiting)
        for host in self.memory.unannounced:
            if host in self.memory.announced or host in self.memory.probed:
                continue
            self.memory.probed.add(host)
            for name in PROBED_SITEMAPS:
                for request in self.sitemap(f"{host}{name}", via="probe"):
                    self.crawler.engine.crawl(request)
                    queued += 1
        return queued

    def bytes_received(self, data: bytes, request: Request, spider: Spider) -> None:
        """Stop a sitemap (or a start URL, which may be one) past the protocol's 50 MB: what follows
        is never read (SM003 says so), and DOWNLOAD_MAXSIZE, which would drop the whole file instead
        and leave a download error (SM004), is off for these requests."""
        if "qivrora_received" not in request.meta:
            return
        received = request.meta["qivrora_received"] = request.meta["qivrora_received"] + len(data)
        if received > MAX_SITEMAP_BYTES:
            raise StopDownload(fail=False)

    def headers_received(self, headers: Any, body_length: int, request: Request, spider: Spider) -> None:
        """Stop downloading bodies the audit has no use for: a PDF is judged by its headers.

        Not a body short enough to be complete already (a HEAD's is empty): stopping closes the
        connection, which a whole response leaves in Twisted's pool; the next request on it would be
        lost and sent again, fetching that URL twice. Reading it keeps the connection. A chunked body
        has no length to tell: our pool (``download_handlers``) leaves such a closing connection out.
        """
        if isinstance(body_length, int) and 0 <= body_length <= WHOLE_IN_ONE_READ:
            return
        if request.meta.get("qivrora_headers_only"):
            raise StopDownload(fail=False)
        if request.callback not in (self.parse_document, self.parse_start):
            return
        content_type = (headers.get(b"Content-Type") or b"").decode("latin-1").lower()
        if content_type and not content_type.startswith(BODY_TYPES):
            raise StopDownload(fail=False)

    # --- responses -----------------------------------------------------------------------------

    def parse_robots_start(self, response: Response) -> None:
        return None

    def parse_status(self, response: Response) -> Iterator[Any]:
        request = response.request
        assert request is not None
        url = request.meta["qivrora_url"]
        if request.method == "HEAD" and response.status in HEAD_REFUSED:
            yield self.status(url, "GET")
            return
        location = response.headers.get(b"Location")
        redirect = None
        if location and 300 <= response.status < 400:
            redirect = resolve(location.decode("latin-1"), url)
        yield TargetStatus(url=url, method=request.method, status=response.status, location=redirect)

    def parse_audit(self, response: Response) -> Iterator[Any]:
        """The audit's items, through the crawl's last request (queued by the AuditExtension)."""
        for _, items in self.crawler.signals.send_catch_log(audit_items):
            if isinstance(items, list):
                yield from items

    def parse_start(self, response: Response) -> Iterable[Any]:
        """A start URL is a page, or a sitemap recognised by its content, whatever its name."""
        if response.status == 200 and sniff_sitemap(response.body):
            self._read(response.meta)
            self.memory.requests -= 1  # a sitemap is not counted against max_pages
            return self.parse_sitemap(response, via="start")
        return self.parse_document(response)

    def parse_document(self, response: Response) -> Iterator[Any]:
        depth: int = response.meta["qivrora_depth"]
        in_scope: bool = response.meta["qivrora_in_scope"]
        text = page_text(response, self.crawler.stats)  # the first 15 MB, as Google reads them
        announced: list[str] = []

        headers = header_values(response)
        page = build_page(
            url=response.meta["qivrora_url"],
            requested=response.url,
            status=response.status,
            headers=headers,
            text=text,
            in_scope=in_scope,
            depth=depth,
            fingerprint=self.fingerprints,
            sitemaps=announced,
        )
        rendered: RenderResult | None = response.meta.pop("qivrora_rendered", None)
        if rendered is not None and page.is_html:
            if rendered.html is None:
                page = failed_rendering(page, rendered.error or "unknown error")
            else:
                # The graph follows the page as rendered: its alternates and links are the ones followed.
                after = build_page(
                    url=page.url, requested=response.url, status=response.status, headers=headers,
                    text=rendered.html, in_scope=in_scope, depth=depth, fingerprint=False,
                )
                page = with_rendering(page, after)
        reading = self._read(response.meta)
        alternates = list(self._cluster({a.url: depth + 1 for a in page.annotations if a.url is not None}))
        if reading:
            self.memory.read_pages += 1
            self.memory.read_cost += 1 + sum(isinstance(r, Request) for r in alternates)
        yield from alternates
        if page.location and response.meta.get("qivrora_start"):
            yield from self._start_redirect(page.location, depth, from_start=in_scope and not self.arguments.list_mode)
        elif page.location and in_scope and page.location in self.scope:
            yield from self.document(page.location, depth=depth)
        if in_scope and page.status == 200:
            yield from self._announced_sitemaps(page.url, announced)
            yield from self._links(page, depth)
        if self.arguments.locale_probe and page.status == 200 and page.is_html:
            yield from self._locale_probe(page)
        yield page

    def _locale_probe(self, page: Page) -> Iterator[Request]:
        """The page once more, with the Accept-Language of another value of its cluster (HL801): the
        one URL requested twice in a crawl, counted against max_pages and in the stats."""
        value = probe_language(page)
        if value is None:
            return
        yield Request(
            page.url,
            headers={"Accept-Language": value},
            callback=self.parse_probe,
            errback=self.probe_failed,
            # Counted against max_pages as it leaves the queue; past it, dropped without a fact (``admit``).
            meta={"qivrora_url": page.url, "qivrora_probe": value, "qivrora_budget": "probe"},
            dont_filter=True,  # the same URL again, on purpose
        )

    def parse_probe(self, response: Response) -> Iterator[LocaleProbe]:
        self.crawler.stats.inc_value("qivrora/locale_probe/requests")
        headers = header_values(response)
        answer = build_page(
            url=response.meta["qivrora_url"], requested=response.url, status=response.status, headers=headers,
            text=page_text(response, self.crawler.stats), in_scope=False, depth=0, fingerprint=False,
        )
        yield probe_fact(answer, response.meta["qivrora_probe"], ",".join(headers("Vary")))

    def _start_redirect(self, location: str, depth: int, *, from_start: bool) -> Iterator[Any]:
        """Where a start redirects, on any host: the crawl starts there, and its host joins the scope
        (``http://example.com/`` -> ``https://www.example.com/``). A chain that ends on no 200 is CR001."""
        if from_start and location not in self.scope and location.startswith(("http://", "https://")):
            self.scope.add(location)
            self.memory.start_hosts.append(location)
        yield from self.document(location, depth=depth, start=True, from_start=from_start)

    def _announced_sitemaps(self, url: str, sitemaps: list[str]) -> Iterator[Request]:
        """The sitemaps a page of an in-scope host announces with ``<link rel="sitemap">``."""
        if not sitemaps or self.arguments.list_mode or url not in self.scope:
            return
        self.memory.announced.add(origin(url))
        for sitemap in sitemaps:
            yield from self.sitemap(sitemap, via="page")

    def _links(self, page: Page, depth: int) -> Iterator[Any]:
        max_depth = self.arguments.max_depth
        for url in page.links:
            if url in self.memory.seen or url not in self.scope or not followable(url):
                continue
            if max_depth is not None and depth >= max_depth:
                self._limit_reached("max_depth")
                return
            yield from self.document(url, depth=depth + 1)

    def parse_sitemap(self, response: Response, via: str | None = None) -> Iterator[Any]:
        via = via or response.meta.get("qivrora_via", "start")
        parent = response.meta.get("qivrora_parent")
        url = response.meta["qivrora_url"]
        location = (response.headers.get(b"Location") or b"").decode("latin-1")
        location = resolve(location, url) if location and 300 <= response.status < 400 else None
        if location:
            # Search engines follow a sitemap's redirect; so does the audit (and SM004 names it).
            yield from self.sitemap(location, via=via, parent=parent)
        for fact in read_sitemap(
            url=url, body=response.body, status=response.status, via=via, parent=parent, location=location
        ):
            if isinstance(fact, SitemapFile):
                for child in fact.children:
                    yield from self.sitemap(child, via="index", parent=fact.url)
            elif fact.url is not None:
                # A listed URL is audited like a page (its links followed only if in scope), with the
                # alternates the entry names: one cluster.
                members = {a.url: 1 for a in fact.annotations if a.url is not None}
                yield from self._cluster({fact.url: 0, **{u: d for u, d in members.items() if u != fact.url}})
            yield fact

    # --- failures --------------------------------------------------------------------------------

    def document_failed(self, failure: Failure) -> Iterator[Any]:
        self._read(failure.request.meta)  # type: ignore[attr-defined]
        if failure.check(RefusalRecorded):
            return  # robots.txt, the address guard or -a base said no, and recorded why
        request = failure.request  # type: ignore[attr-defined]
        if failure.check(Interrupted):
            yield self.left_out(request.meta["qivrora_url"], INTERRUPTED)
            return
        kind, detail = describe_failure(failure)
        yield Page(
            url=request.meta["qivrora_url"], requested=request.url, error=kind, error_detail=detail,
            in_scope=request.meta["qivrora_in_scope"], depth=request.meta["qivrora_depth"],
        )

    def status_failed(self, failure: Failure) -> Iterator[Any]:
        if failure.check(RefusalRecorded):
            return
        request = failure.request  # type: ignore[attr-defined]
        if failure.check(Interrupted):
            yield self.left_out(request.meta["qivrora_url"], INTERRUPTED)
            return
        error = describe_failure(failure)[0]
        yield TargetStatus(url=request.meta["qivrora_url"], method=request.method, error=error)

    def probe_failed(self, failure: Failure) -> Iterator[Any]:
        if failure.check(RefusalRecorded, Interrupted):
            return
        self.crawler.stats.inc_value("qivrora/locale_probe/requests")
        request = failure.request  # type: ignore[attr-defined]
        yield LocaleProbe(
            url=request.meta["qivrora_url"], accept_language=request.meta["qivrora_probe"],
            error=describe_failure(failure)[0],
        )

    def sitemap_failed(self, failure: Failure) -> Iterator[Any]:
        if failure.check(RefusalRecorded, Interrupted):
            return  # an interrupted crawl says it is partial; a sitemap it did not read is no defect
        request = failure.request  # type: ignore[attr-defined]
        yield SitemapFile(
            url=request.meta["qivrora_url"], via=request.meta.get("qivrora_via", "start"),
            parent=request.meta.get("qivrora_parent"), error=describe_failure(failure)[0],
        )
