"""Answer requests under `-a base=URL` from `-a site=FOLDER`: audit a static build before deploying.

No network for the site itself: the folder answers as a static host would (``static_site``). URLs
outside the base (alternates on other hosts), and the targets on other hosts of `_redirects` 200
rules, are not fetched unless `-a live=1`; they are recorded as not examined, so the audit says so
(HL206) instead of guessing. The rule lines the folder cannot answer are said once, at the start.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, NoReturn

from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.responsetypes import responsetypes

from ..extract.urls import InvalidURL, normalize_url
from ..facts import LocaleRule, TargetStatus
from .fetch_errors import RefusalRecorded
from .static_site import StaticSite

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)


class StaticSiteMiddleware:
    def __init__(self, crawler: Crawler, site: StaticSite, live: bool) -> None:
        self.crawler = crawler
        self.site = site
        self.live = live
        for problem in site.problems:
            logger.warning("site: %s", problem)
        skipped = site.redirects.skipped
        if skipped:
            # Those on the visitor's language or country are recorded for each page they cover (HL801).
            logger.warning(
                "site: %d _redirects rule%s with a visitor condition (Country=, Language=, Role=, Cookie=) "
                "not applied, a folder has no visitor: %s",
                len(skipped), "s" if len(skipped) > 1 else "", "; ".join(f"{r.where} `{r.text}`" for r in skipped),
            )
        crawler.stats.set_value("qivrora/offline/rules_refused", len(site.problems))
        crawler.stats.set_value("qivrora/offline/rules_skipped", len(skipped))

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
        if request.meta.get("qivrora_proxied"):
            return None  # a 200 rule's target on another host, with -a live=1: that host answers
        if self.site.serves(url):
            answer = self.site.answer(url, request.method)
            if answer.proxy is not None:
                if self.live:
                    return request.replace(
                        url=answer.proxy, meta={**request.meta, "qivrora_proxied": True}, dont_filter=True
                    )
                await self._excluded(url)
            headers = dict(answer.headers)
            if request.method == "GET" and answer.status == 200 and "html" in headers.get("Content-Type", ""):
                await self._locale_rule(url)
            cls = responsetypes.from_args(headers=headers, url=request.url, body=answer.body)
            self.crawler.stats.inc_value("qivrora/offline/answered")
            return cls(url=request.url, status=answer.status, headers=headers, body=answer.body, request=request)
        if self.live:
            return None
        if request.meta.get("dont_obey_robotstxt"):
            raise IgnoreRequest(f"outside -a base: {url}")  # robots.txt of an excluded host: no fact
        await self._excluded(url)

    async def _locale_rule(self, url: str) -> None:
        """The rule that answers the visitors of a language or country otherwise than this page, as a
        fact: the audit judges it where the page is in a cluster (HL801), with no probe."""
        found = self.site.locale_rule(url)
        if found is None:
            return
        rule, target = found
        try:
            normalised: str | None = normalize_url(target, url)
        except InvalidURL:
            normalised = None  # the message quotes the line, which says where
        fact = LocaleRule(url, rule.where, rule.text, list(rule.conditions), rule.status, normalised)
        await self.crawler.engine.scraper.start_itemproc_async(fact, response=None)

    async def _excluded(self, url: str) -> NoReturn:
        """A URL whose answer comes from outside -a base: not examined without -a live=1 (HL206)."""
        await self.crawler.engine.scraper.start_itemproc_async(
            TargetStatus(url=url, not_examined="excluded"), response=None
        )
        raise RefusalRecorded(f"outside -a base (add -a live=1 to fetch it): {url}")
