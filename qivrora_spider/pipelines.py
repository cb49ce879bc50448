"""Statuses of the URLs the crawl referenced but did not GET, collected with HEAD once per URL.

Which URLs those are is only known when the crawl has nothing left to do: a redirect destination
may still be fetched as a page, a sitemap entry may still be reached by a link. So the pipeline
notes every URL the facts point at, and when the crawl settles has the spider HEAD those nobody
fetched (falling back to GET where HEAD is refused); redirect chains are followed the same way.
These checks count against ``max_pages`` as pages do: those past it are left out, not examined.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from scrapy import signals

from .facts import Page, SitemapEntry, TargetStatus
from .signals import crawl_settling
from .state.jobdir import kept

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from .spiders.hreflang import HreflangSpider


def referenced(fact: Any) -> Iterator[str]:
    """The URLs a fact points at whose status the audit needs."""
    if isinstance(fact, (Page, SitemapEntry)):
        for annotation in fact.annotations:
            if annotation.url is not None:
                yield annotation.url
    if isinstance(fact, SitemapEntry) and fact.url is not None:
        yield fact.url
    if isinstance(fact, (Page, TargetStatus)) and fact.location:
        yield fact.location


class StatusPipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.pending: set[str] = set()
        crawler.signals.connect(self.crawl_settling, signal=crawl_settling)
        crawler.signals.connect(self.engine_started, signal=signals.engine_started)

    def engine_started(self) -> None:
        """With JOBDIR, go on with the URLs a paused crawl had noted."""
        self.pending = kept(self.spider, "qivrora/pending", self.pending)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_item(self, item: Any) -> Any:
        self.pending.update(referenced(item))
        return item

    @property
    def spider(self) -> HreflangSpider:
        return self.crawler.spider  # type: ignore[return-value]

    def crawl_settling(self) -> int:
        """Have the spider check every referenced URL nobody fetched (within max_pages); returns how
        many requests that queued."""
        unfetched = [url for url in sorted(self.pending) if self.spider.claim(url)]
        self.pending.clear()
        queued = 0
        for request in self.spider.statuses(unfetched):
            self.crawler.engine.crawl(request)
            queued += 1
        return queued
