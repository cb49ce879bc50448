"""Once the crawl is interrupted, send nothing more: what is left becomes "not examined".

Ctrl-C (or Scrapyd's cancel, SIGTERM) asks for the audit of what the crawl gathered so far
(``extensions.interrupt``). The requests still queued are not sent: each reaches its errback as
``Interrupted``, and the spider records its URL as not examined ("interrupted"), so the audit says
HL206 for it instead of judging a half-crawled site as complete. The audit's own ``data:`` request
still passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.exceptions import IgnoreRequest

from ..outcome import INTERRUPTED, STATUS_STAT

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from typing_extensions import Self


class Interrupted(IgnoreRequest):
    """A request not sent because the crawl was interrupted."""


class InterruptMiddleware:
    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        assert crawler.stats is not None
        return cls(crawler.stats)

    def process_request(self, request: Request) -> None:
        if self.stats.get_value(STATUS_STAT) == INTERRUPTED and not request.url.startswith("data:"):
            self.stats.inc_value("qivrora/interrupted/left_out")
            raise Interrupted("the crawl was interrupted")
