"""Progress in the log every few seconds, so a long crawl shows it is alive and how far it got.

The graph checks can only run at the end, but the checks of single annotations (values, hrefs,
placement) can be counted as facts arrive: the line shows those as "defects so far".
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from twisted.internet import task

from ..audit.core.context import is_usable
from ..extract.hreflang_values import check_hreflang
from ..facts import Page, SitemapEntry, TargetStatus

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)


class ProgressLog:
    def __init__(self, crawler: Crawler, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.pages = self.alternates = self.annotations = self.defects = 0
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
            self.defects += len(item.ignored) + sum(
                1 for a in item.annotations if check_hreflang(a.hreflang) is not None or not is_usable(a)
            )

    def spider_opened(self) -> None:
        self._task = task.LoopingCall(self.log)
        self._task.start(self.interval, now=False)

    def log(self) -> None:
        # What is queued, not what this process enqueued less what it dequeued: with a shared queue
        # (distributed crawls) workers dequeue each other's requests.
        queued = len(self.crawler.engine.scheduler)  # type: ignore[arg-type]
        rendering = getattr(getattr(self.crawler.spider, "arguments", None), "render", False)
        rendered = f", {self.rendered} rendered ({self.render_failed} could not be)" if rendering else ""
        logger.info(
            "Progress: %d pages, %d alternates and other URLs checked%s, %d queued, "
            "%d annotations read, %d defects so far (graph checks run at the end)",
            self.pages, self.alternates, rendered, queued, self.annotations, self.defects,
        )

    def spider_closed(self) -> None:
        if self._task is not None and self._task.running:
            self._task.stop()
