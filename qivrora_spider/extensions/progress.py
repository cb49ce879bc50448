"""Progress in the log every few seconds, so a long crawl shows it is alive, how far it got, and what
it waits on.

Findings are counted once, at the end (the summary): most checks need the whole graph, and a count of
the few that do not would read as the crawl's result. A crawl held back by the per-host delay says
so, and how to lift it on one's own server; a crawl where nothing new arrived says what it waits for
(requests in flight against the timeout, retries, timeouts so far).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from twisted.internet import task

from ..compat.scrapy import DownloadWaits, download_waits
from ..facts import Page, SitemapEntry, TargetStatus

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)


class ProgressLog:
    def __init__(self, crawler: Crawler, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.pages = self.alternates = self.annotations = 0
        #: What the previous line counted: the same again means nothing new arrived meanwhile.
        self._last_counts: tuple[int, int] | None = None
        self.rendered = self.render_failed = 0  # -a render=1: pages through the browser, and HL703s
        self._task: task.LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        interval = crawler.settings.getfloat("QIVRORA_PROGRESS_INTERVAL")
        if interval <= 0:
            raise NotConfigured
        progress = cls(crawler, interval)
        crawler.signals.connect(progress.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(progress.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(progress.spider_closed, signal=signals.spider_closed)
        return progress

    def item_scraped(self, item: Any) -> None:
        if isinstance(item, Page):
            self.rendered += item.rendered or item.render_error is not None
            self.render_failed += item.render_error is not None
            if item.in_scope:
                self.pages += 1
            else:
                self.alternates += 1
        elif isinstance(item, TargetStatus) and item.not_examined is None:
            self.alternates += 1  # a URL left out (robots, limits, internal address) was not checked
        if isinstance(item, (Page, SitemapEntry)):
            self.annotations += len(item.annotations)

    def spider_opened(self) -> None:
        self._task = task.LoopingCall(self.log)
        self._task.start(self.interval, now=False)

    def log(self) -> None:
        # What is queued, not what this process enqueued less what it dequeued: with a shared queue
        # (distributed crawls) workers dequeue each other's requests. Requests the downloader holds
        # for the per-host delay are queued too.
        downloads = download_waits(self.crawler.engine)
        queued = len(self.crawler.engine.scheduler) + downloads.delayed  # type: ignore[arg-type]
        rendering = getattr(getattr(self.crawler.spider, "arguments", None), "render", False)
        rendered = f", {self.rendered} rendered ({self.render_failed} could not be)" if rendering else ""
        counts = (self.pages, self.alternates)
        stalled = counts == self._last_counts
        self._last_counts = counts
        stats = self.crawler.stats.get_stats()
        timeout = self.crawler.settings.getfloat("DOWNLOAD_TIMEOUT")
        logger.info(
            "Progress: %d pages, %d alternates and other URLs checked%s, %d queued, %d annotations read%s",
            self.pages, self.alternates, rendered, queued, self.annotations,
            "".join(waiting(downloads, queued, stalled, self.interval, stats, timeout)),
        )

    def spider_closed(self) -> None:
        if self._task is not None and self._task.running:
            self._task.stop()


def waiting(
    downloads: DownloadWaits, queued: int, stalled: bool, interval: float, stats: dict[str, Any], timeout: float
) -> list[str]:
    """What the crawl waits on, as clauses of the progress line: the per-host delay while requests are
    queued, and, when nothing new arrived since the last line, the requests awaiting an answer,
    retries and timeouts."""
    clauses = []
    if downloads.delays and queued:
        host, delay = max(downloads.delays.items(), key=lambda slot: slot[1])
        others = f" (and {len(downloads.delays) - 1} other hosts)" if len(downloads.delays) > 1 else ""
        clauses.append(f"; waiting: {delay:.2g} s between requests to {host}{others}; --fast for your own server")
    if stalled and downloads.transferring:
        timeouts = sum(
            count for key, count in stats.items()
            if key.startswith("downloader/exception_type_count/") and "Timeout" in key
        )
        clauses.append(
            f"; nothing new for {interval:g} s: {downloads.transferring} requests awaiting an answer "
            f"(timeout {timeout:g} s), {stats.get('retry/count', 0)} retried and {timeouts} timed out so far"
        )
    return clauses
