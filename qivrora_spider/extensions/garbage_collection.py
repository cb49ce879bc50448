"""Keep Python's cyclic garbage collector off what a crawl holds for its whole life.

A crawl allocates a few hundred objects a response, and with CPython's default thresholds the
collector runs every 700, which shows in a crawl's profile (bench/RESULTS.md). Most of that is
waste: a gen-0 run costs the same however little it frees, and each full run walks the objects of
start-up (modules, functions, settings), which live as long as the process, and every entry of the
store's large containers.

So, from the spider's opening to its closing, the start-up heap is frozen (``gc.freeze()``: never
walked again, whatever it holds stays) and gen 0 is collected every ``QIVRORA_GC_THRESHOLD``
allocations. Reference counting still frees almost everything at once; cycles (Twisted's
failures, a request and its callback) wait a little longer. When the last crawl of the process
closes, the thresholds and the frozen objects go back to what they were, so a process that goes on
(a test run, a script with CrawlerProcess) keeps its usual collector.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from scrapy import signals

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

#: The collector's thresholds before the first open crawl of the process, and how many are open.
_thresholds_before: tuple[int, int, int] = gc.get_threshold()
_crawls_open = 0


class GarbageCollection:
    def __init__(self, threshold: int) -> None:
        self.threshold = threshold

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        extension = cls(crawler.settings.getint("QIVRORA_GC_THRESHOLD"))
        if extension.threshold > 0:
            crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
            crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_opened(self) -> None:
        global _thresholds_before, _crawls_open
        if _crawls_open == 0:
            _thresholds_before = gc.get_threshold()
            gc.freeze()
        _crawls_open += 1
        young, *older = gc.get_threshold()
        gc.set_threshold(max(young, self.threshold), *older)

    def spider_closed(self) -> None:
        global _crawls_open
        _crawls_open -= 1
        if _crawls_open == 0:
            gc.set_threshold(*_thresholds_before)
            gc.unfreeze()
