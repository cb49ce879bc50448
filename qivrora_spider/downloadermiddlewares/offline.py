"""Answer requests under `-a base=URL` from `-a site=FOLDER`: audit a static build before deploying.

No network for the site itself: the folder answers as a static host would (``static_site``). URLs
outside the base (alternates on other hosts) are not fetched unless `-a live=1`; they are recorded
as not examined, so the audit says so (HL206) instead of guessing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.responsetypes import responsetypes

from ..facts import TargetStatus
from .fetch_errors import RefusalRecorded
from .static_site import StaticSite

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class StaticSiteMiddleware:
    def __init__(self, crawler: Crawler, site: StaticSite, live: bool) -> None:
        self.crawler = crawler
        self.site = site
        self.live = live

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        arguments = getattr(crawler.spider, "arguments", None)
        if arguments is None or arguments.site is None:
            raise NotConfigured
        return cls(crawler, StaticSite(arguments.site, arguments.base, pretty_urls=arguments.pretty_urls), arguments.live)

    async def process_request(self, request: Request) -> Response | None:
        if not request.url.startswith(("http://", "https://")):
            return None
        url = request.meta.get("qivrora_url", request.url)
        if self.site.serves(url):
            answer = self.site.answer(url, request.method)
            headers = dict(answer.headers)
            cls = responsetypes.from_args(headers=headers, url=request.url, body=answer.body)
            self.crawler.stats.inc_value("qivrora/offline/answered")
            return cls(url=request.url, status=answer.status, headers=headers, body=answer.body, request=request)
        if self.live:
            return None
        if request.meta.get("dont_obey_robotstxt"):
            raise IgnoreRequest(f"outside -a base: {url}")  # robots.txt of an excluded host: no fact
        await self.crawler.engine.scraper.start_itemproc_async(
            TargetStatus(url=url, not_examined="excluded"), response=None
        )
        raise RefusalRecorded(f"outside -a base (add -a live=1 to fetch it): {url}")
