"""scrapy-redis's scheduler, queue and duplicate filter, adapted to today's Scrapy and to a crawl that
several workers finish together.

scrapy-redis 0.9.1 predates Scrapy 2.13; what these subclasses change, and why:

- Built from the crawler; stats are counted, and a crawl under way is logged, without the
  ``spider`` argument and the ``Spider.log()`` Scrapy deprecated.
- The duplicate filter fingerprints with the crawler's request fingerprinter
  (``REQUEST_FINGERPRINTER_CLASS``), as Scrapy's own does, but leaves the method out: the spider
  fetches every URL once, and a HEAD for the status of a URL another worker fetched with GET would
  be the same URL fetched twice.
- Requests go to Redis in exchanges (``SharedCrawl.exchange``, one Lua script): the requests this
  worker found since the last one (each queued unless the duplicate filter has seen it), its facts,
  the leases of the requests it has finished, and up to ``TAKEN_AT_MOST`` requests back, in one
  round trip every few responses instead of about three a response, each of which blocks the
  reactor. Taking requests marks the worker busy in the same step, so that no worker takes the crawl
  for finished while another holds a request it has not turned into facts yet.
- A request taken is held under a lease (``shared``) until the engine is done with it: downloaded,
  its callback run, its items through the pipelines and the requests it found handed to this
  scheduler. Only then does the next exchange acknowledge it, with those facts and requests.
- Requests are JSON (``codec``), not pickles: an entry that is not one of ours is refused with one
  line naming the key, and dropped.
- Each exchange also brings the URLs the other workers asked for since the last one, and the spider
  leaves them alone (``asked_elsewhere``) as it leaves its own: without them, each URL was sent to
  the shared filter by every worker that found a link to it, built as a request, passed through
  the spider middlewares, fingerprinted and serialised, for the filter to drop it.
- An idle worker asks again every ``QIVRORA_IDLE_POLL`` seconds, not on the engine's 5 s heartbeat:
  a worker that starts before the first requests are queued, or waits for the last ones, would
  otherwise idle for seconds.
- The queue and the duplicate filter belong to the crawl, not to a worker: none is flushed when a
  worker closes, whatever ``SCHEDULER_PERSIST`` says. The crawl clears them once it is audited, and
  when a new crawl starts on its key (``shared``).
- Requests for URLs that are not on the network stay in their worker: the audit's ``data:`` request
  must reach the worker that audited, and a sitemap file on disk is on this machine only.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import TYPE_CHECKING, Any, Callable

from redis.exceptions import RedisError
from scrapy import Request, signals
from scrapy.exceptions import CloseSpider
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.scheduler import Scheduler

from .codec import Refused, decode_request, encode_request
from .. import outcome
from ..compat.scrapy import requests_in_progress, set_idle_heartbeat
from ..compat.scrapy_redis import PriorityQueueWithCodec
from .shared import SharedCrawl

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred
    from redis import Redis
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from scrapy.utils.request import RequestFingerprinterProtocol
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: The schemes whose requests all workers share.
NETWORK = ("http", "https")
#: Requests a worker takes from the shared queue at once. The engine keeps up to
#: CONCURRENT_REQUESTS in the downloader already; a few more spare a round trip for each response,
#: and are few enough that no worker idles at the end while another holds a backlog.
TAKEN_AT_MOST = 8
#: Requests found that a worker keeps at most before an exchange, whether it needs requests or not.
FOUND_AT_MOST = 500


class SharedDupeFilter(RFPDupeFilter):
    """scrapy-redis's duplicate filter, keyed on the URL whatever the method."""

    def __init__(
        self,
        server: Redis,
        key: str,
        fingerprinter: RequestFingerprinterProtocol,
        stats: StatsCollector,
        debug: bool = False,
    ) -> None:
        super().__init__(server, key, debug)
        self.fingerprinter = fingerprinter
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        shared = SharedCrawl.of(crawler)
        return cls(
            shared.server,
            shared.key("dupefilter"),
            crawler.request_fingerprinter,
            crawler.stats,
            crawler.settings.getbool("DUPEFILTER_DEBUG"),
        )

    def request_fingerprint(self, request: Request) -> str:
        if request.method != "GET":
            request = request.replace(method="GET")
        return self.fingerprinter.fingerprint(request).hex()

    def log(self, request: Request, spider: Spider) -> None:
        super().log(request, spider)
        self.stats.inc_value("dupefilter/filtered")


class SharedQueue(PriorityQueueWithCodec):
    """scrapy-redis's priority queue, its entries JSON (``codec``) rather than pickles."""

    def encoded(self, request: Request) -> bytes:
        return encode_request(request, self.spider)

    def decoded(self, entry: bytes) -> Request:
        return decode_request(entry, self.spider)


class SharedScheduler(Scheduler):
    """scrapy-redis's scheduler on the crawl's queue, exchanging requests in batches; requests off the
    network stay in the worker."""

    def __init__(self, crawler: Crawler, dupefilter: SharedDupeFilter) -> None:
        self.shared = SharedCrawl.of(crawler)
        super().__init__(
            self.shared.server,
            persist=True,
            queue_key=self.shared.key("requests"),
            dupefilter=dupefilter,
        )
        self.crawler = crawler
        self.stats = crawler.stats
        self.local: deque[Request] = deque()
        #: Requests found and not yet exchanged, and requests taken and not yet handed to the engine.
        self.found: list[Request] = []
        self.taken: deque[tuple[int, Request]] = deque()
        #: The leases of the requests handed to the engine and not acknowledged yet.
        self.leases: dict[Request, int] = {}
        #: Why Redis was given up on (``redis_lost``), or None.
        self.lost: str | None = None
        #: The closing this scheduler asked for (``_close_spider``), once it has.
        self.closing: Deferred[None] | None = None
        #: Leases of entries refused (not requests of this crawl): acknowledged, so dropped, next time.
        self.refused: list[int] = []
        self.shared.frontier = self

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        dupefilter = build_from_crawler(load_object(crawler.settings["DUPEFILTER_CLASS"]), crawler)
        scheduler = cls(crawler, dupefilter)
        crawler.signals.connect(scheduler.join, signal=signals.spider_opened)
        # The engine asks an idle spider again on this heartbeat; it starts after the scheduler is
        # built. Busy, the engine needs no heartbeat: every response wakes it.
        set_idle_heartbeat(crawler.engine, crawler.settings.getfloat("QIVRORA_IDLE_POLL"))  # type: ignore[arg-type]
        return scheduler

    def open(self, spider: Spider) -> None:
        self.spider = spider
        #: The spider's hook for the URLs other workers asked for (``HreflangSpider.asked_elsewhere``).
        self.asked_elsewhere: Callable[[list[str]], None] | None = getattr(spider, "asked_elsewhere", None)
        # scrapy-redis fills the spider's name into the key: crawl keys hold no %.
        self.queue = SharedQueue(self.server, spider, self.queue_key, self.serializer)

    def join(self) -> None:
        """Take part in the crawl once the spider is open and before it queues anything (the first
        worker of a crawl clears what an earlier one left). Not in ``open()``: a CloseSpider raised
        there would leave the scraper unopened, and its closing would fail."""
        try:
            joined = self.shared.join()
        except RedisError as exc:
            logger.error("Redis cannot be reached (REDIS_URL): %s", exc)
            raise CloseSpider("redis_unreachable") from None
        if not joined:  # its crawl was audited while it started: it ends as a worker that did not audit
            self._close_spider("finished")
            return
        if len(self.queue):
            logger.info("Joining a crawl under way: %d requests queued", len(self.queue))

    def close(self, reason: str) -> None:
        super().close(reason)
        self.shared.close(self.spider.crawl_info)  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return len(self.local) + len(self.found) + len(self.taken) + len(self.queue)

    def has_pending_requests(self) -> bool:
        return bool(self.local or self.found or self.taken) or len(self.queue) > 0

    def enqueue_request(self, request: Request) -> bool:
        """True: a request on the network is queued, or dropped as seen, at the next exchange."""
        if urlparse_cached(request).scheme not in NETWORK:
            self.local.append(request)
            self.stats.inc_value("scheduler/enqueued/memory")
            self.stats.inc_value("scheduler/enqueued")
            return True
        self.found.append(request)
        if len(self.found) >= FOUND_AT_MOST:
            self.exchange(0)
        return True

    def next_request(self) -> Request | None:
        if self.shared.too_late:
            return None  # closing without taking part (join())
        if self.local:
            self.stats.inc_value("scheduler/dequeued/memory")
            request = self.local.popleft()
        else:
            if not self.taken:
                self.exchange(TAKEN_AT_MOST)
            if not self.taken:
                return None
            self.stats.inc_value("scheduler/dequeued/redis")
            lease, request = self.taken.popleft()
            self.leases[request] = lease
        self.stats.inc_value("scheduler/dequeued")
        return request

    def redis_lost(self, exc: RedisError) -> None:
        """Redis did not answer for QIVRORA_REDIS_PATIENCE seconds: this worker stops, once, with one
        line; the run could not audit (exit status 3). What it held goes back once it is counted out,
        should Redis come back and another worker go on."""
        if self.lost is not None:
            return
        self.lost = str(exc)
        patience = self.crawler.settings.getfloat("QIVRORA_REDIS_PATIENCE")
        reason = f"Redis did not answer for {patience:g} s (QIVRORA_REDIS_PATIENCE): {exc}"
        logger.error("%s; this worker stops", reason)
        outcome.record(self.stats, outcome.NOT_AUDITED, reason)
        self._close_spider("redis_unreachable")

    def _close_spider(self, reason: str) -> None:
        """Close the spider from outside a callback; kept, so that the closing is not collected
        midway, and logged should it fail."""
        self.closing = deferred_from_coro(self.crawler.engine.close_spider_async(reason=reason))  # type: ignore[union-attr]
        self.closing.addErrback(lambda failure: logger.error("Closing the spider failed: %s", failure.value))

    def flush(self) -> int:
        self.exchange(0)
        return len(self.leases) + len(self.taken)

    def finished(self) -> list[int]:
        """The leases of the requests the engine is done with: no longer in progress (the engine holds a
        request from its download until its callback's output is handled), so their facts and the
        requests they found are with this worker."""
        working = requests_in_progress(self.crawler.engine)
        return [lease for request, lease in self.leases.items() if request not in working]

    def exchange(self, take: int) -> None:
        """Queue the requests found (those the duplicate filter has seen are dropped), acknowledge the
        requests finished, and take up to `take`, in one round trip."""
        if self.lost is not None or self.shared.too_late:
            return
        refused, self.refused = self.refused, []
        acknowledged = [*self.finished(), *refused]
        found, self.found = self.found, []
        queued = [
            (
                "" if request.dont_filter else self.df.request_fingerprint(request),
                -request.priority,  # scrapy-redis's score: the lowest is taken first
                self.queue.encoded(request),
                "" if request.dont_filter else request.meta.get("qivrora_url", ""),
            )
            for request in found
        ]
        try:
            taken, seen, asked = self.shared.exchange(queued, take, acknowledged=acknowledged)
        except RedisError as exc:
            self.found = found + self.found  # kept, should the worker go on
            self.refused = refused + self.refused
            self.redis_lost(exc)
            return
        if acknowledged:
            done = set(acknowledged)
            self.leases = {request: lease for request, lease in self.leases.items() if lease not in done}
        if asked and self.asked_elsewhere is not None:
            self.asked_elsewhere(asked)
        for place in seen:
            self.df.log(found[place], self.spider)
        enqueued = len(found) - len(seen)
        self.stats.inc_value("scheduler/enqueued/redis", enqueued)
        self.stats.inc_value("scheduler/enqueued", enqueued)
        for lease, entry in taken:
            try:
                self.taken.append((lease, self.queue.decoded(entry)))
            except Refused as exc:
                logger.error("Refused an entry of %s (lease %d): %s; it is dropped", self.shared.key("requests"), lease, exc)
                self.stats.inc_value("qivrora/distributed/refused")
                self.refused.append(lease)
