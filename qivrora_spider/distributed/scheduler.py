"""scrapy-redis's scheduler, queue and duplicate filter, adapted to today's Scrapy and to a crawl that
several workers finish together.

scrapy-redis 0.9.1 predates Scrapy 2.13; what these subclasses change, and why:

- Built from the crawler; stats are counted, and a crawl under way is logged, without the
  ``spider`` argument and the ``Spider.log()`` Scrapy deprecated.
- The duplicate filter fingerprints with the crawler's request fingerprinter
  (``REQUEST_FINGERPRINTER_CLASS``), as Scrapy's own does, but leaves the method out: the spider
  fetches every URL once, and a HEAD for the status of a URL another worker fetched with GET would
  be the same URL fetched twice.
- Popping a request marks the worker busy in the same step (a Lua script), so that no worker takes
  the crawl for finished while another holds a request it has not turned into facts yet.
- Queuing a request asks the duplicate filter in the same step (a Lua script): one Redis round trip
  a request, not two, each of which blocks the reactor.
- The queue and the duplicate filter belong to the crawl, not to a worker: none is flushed when a
  worker closes, whatever ``SCHEDULER_PERSIST`` says. The crawl clears them once it is audited, and
  when a new crawl starts on its key (``shared``).
- Requests for URLs that are not on the network stay in their worker: the audit's ``data:`` request
  must reach the worker that audited, and a sitemap file on disk is on this machine only.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import TYPE_CHECKING

from redis.exceptions import RedisError
from scrapy import signals
from scrapy.exceptions import CloseSpider
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.queue import PriorityQueue
from scrapy_redis.scheduler import Scheduler

from .shared import SharedCrawl

if TYPE_CHECKING:
    from redis import Redis
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from scrapy.utils.request import RequestFingerprinterProtocol
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: The schemes whose requests all workers share.
NETWORK = ("http", "https")


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


class SharedQueue(PriorityQueue):
    """scrapy-redis's priority queue; a push asks the duplicate filter, and a pop marks this worker
    busy, in the same step."""

    def push_unseen(self, request: Request, fingerprint: str | None) -> bool:
        """Queue a request unless the duplicate filter has seen its fingerprint (None: queue it
        anyway); False if it had."""
        score = -request.priority  # scrapy-redis's: the lowest score is popped first
        return SharedCrawl.of(self.spider.crawler).push(fingerprint, score, self._encode_request(request))

    def pop(self, timeout: int = 0) -> Request | None:
        data = SharedCrawl.of(self.spider.crawler).pop()
        return None if data is None else self._decode_request(data)


class SharedScheduler(Scheduler):
    """scrapy-redis's scheduler on the crawl's queue; requests off the network stay in the worker."""

    def __init__(self, crawler: Crawler, dupefilter: SharedDupeFilter) -> None:
        self.shared = SharedCrawl.of(crawler)
        super().__init__(
            self.shared.server,
            persist=True,
            queue_key=self.shared.key("requests"),
            dupefilter=dupefilter,
        )
        self.stats = crawler.stats
        self.local: deque[Request] = deque()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        dupefilter = build_from_crawler(load_object(crawler.settings["DUPEFILTER_CLASS"]), crawler)
        scheduler = cls(crawler, dupefilter)
        crawler.signals.connect(scheduler.join, signal=signals.spider_opened)
        return scheduler

    def open(self, spider: Spider) -> None:
        self.spider = spider
        # scrapy-redis fills the spider's name into the key: crawl keys hold no %.
        self.queue = SharedQueue(self.server, spider, self.queue_key, self.serializer)

    def join(self) -> None:
        """Take part in the crawl once the spider is open and before it queues anything (the first
        worker of a crawl clears what an earlier one left). Not in ``open()``: a CloseSpider raised
        there would leave the scraper unopened, and its closing would fail."""
        try:
            self.shared.join()
        except RedisError as exc:
            logger.error("Redis cannot be reached (REDIS_URL): %s", exc)
            raise CloseSpider("redis_unreachable") from None
        if len(self.queue):
            logger.info("Joining a crawl under way: %d requests queued", len(self.queue))

    def close(self, reason: str) -> None:
        super().close(reason)
        self.shared.close(self.spider.crawl_info)  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return len(self.local) + len(self.queue)

    def has_pending_requests(self) -> bool:
        return len(self) > 0

    def enqueue_request(self, request: Request) -> bool:
        if urlparse_cached(request).scheme not in NETWORK:
            self.local.append(request)
            self.stats.inc_value("scheduler/enqueued/memory")
        else:
            fingerprint = None if request.dont_filter else self.df.request_fingerprint(request)
            if not self.queue.push_unseen(request, fingerprint):
                self.df.log(request, self.spider)
                return False
            self.stats.inc_value("scheduler/enqueued/redis")
        self.stats.inc_value("scheduler/enqueued")
        return True

    def next_request(self) -> Request | None:
        if self.local:
            request = self.local.popleft()
            self.stats.inc_value("scheduler/dequeued/memory")
        else:
            request = self.queue.pop()
            if request is None:
                return None
            self.stats.inc_value("scheduler/dequeued/redis")
        self.stats.inc_value("scheduler/dequeued")
        return request
