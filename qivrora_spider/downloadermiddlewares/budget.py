"""`-a max_pages`, spent as requests leave Scrapy's queue rather than as they are made.

The queue is breadth-first (FIFO with DEPTH_PRIORITY), so the budget goes to the pages nearest the
start, across the whole site, and to the alternates of the clusters the spider reserved, instead of
to whichever page happened to list ten thousand URLs first. The spider decides (``admit``); a
request past the budget is not sent, and the fact of it, not examined (HL206), is recorded here; a
page the spider keeps waiting is not sent yet (the spider asks for it again when the crawl settles).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy import Request
from scrapy.exceptions import NotConfigured

from .fetch_errors import RefusalRecorded

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class BudgetMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not hasattr(crawler.spider, "admit"):
            raise NotConfigured
        return cls(crawler)

    async def process_request(self, request: Request) -> None:
        spider = self.crawler.spider
        verdict = spider.admit(request)  # type: ignore[union-attr]
        if verdict == "go":
            return
        url = request.meta["qivrora_url"]
        if verdict == "wait":
            raise RefusalRecorded(f"waits for the clusters of the pages being read: {url}")
        if verdict == "skip":
            raise RefusalRecorded(f"past -a max_pages, not probed again: {url}")
        fact = spider.left_out(url)  # type: ignore[union-attr]
        await self.crawler.engine.scraper.start_itemproc_async(fact, response=None)
        raise RefusalRecorded(f"past -a max_pages: {url}")
