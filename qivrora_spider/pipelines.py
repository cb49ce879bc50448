"""Statuses of the URLs the crawl referenced but did not GET, collected with HEAD once per URL.

Which URLs those are is only known when the crawl has nothing left to do: a redirect destination
may still be fetched as a page, a sitemap entry may still be reached by a link. So the pipeline
notes every URL the facts point at, and when the crawl settles it HEADs those nobody fetched
(falling back to GET where HEAD is refused), and follows redirect chains the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from scrapy import Request
from scrapy.exceptions import IgnoreRequest

from .facts import Page, SitemapEntry, TargetStatus
from .fetch_errors import describe_failure
from .page_facts import resolve
from .signals import crawl_settling

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure
    from typing_extensions import Self

    from .spiders.hreflang import HreflangSpider

#: Answers that mean "this server does not do HEAD", not "this URL is broken".
HEAD_REFUSED = (405, 501)


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
        """Queue a HEAD for every referenced URL nobody fetched; returns how many were queued."""
        queued = 0
        for url in sorted(self.pending):
            if self.spider.claim(url):
                self.crawler.engine.crawl(self._request(url, "HEAD"))
                queued += 1
        self.pending.clear()
        return queued

    def _request(self, url: str, method: str) -> Request:
        return Request(
            url,
            method=method,
            callback=self.parse_status,
            errback=self.status_failed,
            meta={"qivrora_url": url, "qivrora_headers_only": True},
            priority=-10,
        )

    def parse_status(self, response: Response) -> Iterator[Any]:
        request = response.request
        assert request is not None
        url = request.meta["qivrora_url"]
        if request.method == "HEAD" and response.status in HEAD_REFUSED:
            yield self._request(url, "GET")
            return
        location = response.headers.get(b"Location")
        yield TargetStatus(
            url=url,
            method=request.method,
            status=response.status,
            location=resolve(location.decode("latin-1"), url) if location and 300 <= response.status < 400 else None,
        )

    def status_failed(self, failure: Failure) -> Iterator[Any]:
        if failure.check(IgnoreRequest):
            return
        request = failure.request  # type: ignore[attr-defined]
        yield TargetStatus(url=request.meta["qivrora_url"], method=request.method, error=describe_failure(failure)[0])
