"""Obey robots.txt and record it: whether a host has one, what it answered, its Sitemap: lines.

Scrapy's RobotsTxtMiddleware obeys robots.txt but keeps no fact of it (and parses a 404 page as
rules). This one fetches each origin's robots.txt once, with Protego, records a ``RobotsTxt`` fact,
announces it (the spider queues the sitemaps it names), and records every URL it refuses as a
``TargetStatus`` so the audit can say "blocked by robots.txt" (HL405, SM012) instead of nothing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from protego import Protego
from scrapy import Request
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from ..extract.urls import InvalidURL, normalize_url, origin
from ..facts import RobotsTxt, TargetStatus
from ..signals import robots_recorded
from .fetch_errors import RefusalRecorded, describe_failure
from .interrupt import Interrupted

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: Google follows at most five redirects for robots.txt.
MAX_ROBOTS_REDIRECTS = 5
#: Google reads the first 500 KiB of a robots.txt.
MAX_ROBOTS_BYTES = 500 * 1024


class RobotsMiddleware:
    DOWNLOAD_PRIORITY = 1000

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.user_agent: str = crawler.settings["USER_AGENT"]
        self._known: dict[str, tuple[Protego | None, int | None]] = {}
        self._waiting: dict[str, list[Deferred[tuple[Protego | None, int | None]]]] = {}
        #: Another origin's robots.txt, received as the redirect target of one fetched before it (http://
        #: to https://, apex to www): its origin reads it from here when it needs it, rather than
        #: fetching the same URL again. Kept until then, as its fact would be recorded then.
        self._received: dict[str, Response] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    async def process_request(self, request: Request) -> Response | None:
        if request.meta.get("dont_obey_robotstxt") or not request.url.startswith(("http://", "https://")):
            return None
        where = origin(request.url)
        parser, status = await self._robots(where)
        if request.url == f"{where}/robots.txt":
            # The robots.txt itself was asked for (start=robots.txt): it was fetched once already,
            # and recorded; only its status is kept (responses are not).
            if status is None:
                raise RefusalRecorded(f"robots.txt of {where} could not be fetched")
            return Response(request.url, status=status, request=request)
        if parser is not None and not parser.can_fetch(request.url, self.user_agent):
            self.crawler.stats.inc_value("qivrora/robots/forbidden")
            await self._record(TargetStatus(url=request.url, not_examined="robots"))
            raise RefusalRecorded(f"Forbidden by robots.txt: {request.url}")
        return None

    async def _robots(self, where: str) -> tuple[Protego | None, int | None]:
        if where in self._known:
            return self._known[where]
        if where in self._waiting:
            # Every waiter gets a Deferred of its own: a Deferred's result is consumed by its awaiter.
            waiter: Deferred[tuple[Protego | None, int | None]] = Deferred()
            self._waiting[where].append(waiter)
            return await maybe_deferred_to_future(waiter)
        self._waiting[where] = []
        try:
            self._known[where] = result = await self._fetch(where)
        except Interrupted as exc:
            # Nothing is fetched any more: its waiters are left out like it, and no fact is recorded.
            for waiter in self._waiting.pop(where):
                waiter.errback(exc)
            raise
        for waiter in self._waiting.pop(where):
            waiter.callback(result)
        return result

    async def _fetch(self, where: str) -> tuple[Protego | None, int | None]:
        url = f"{where}/robots.txt"
        fact = RobotsTxt(origin=where, url=url)
        parser: Protego | None = None
        response: Response | None = None
        try:
            for _ in range(MAX_ROBOTS_REDIRECTS + 1):
                response = self._take_received(url)
                if response is None:
                    meta = {"dont_obey_robotstxt": True}
                    request = Request(url, priority=self.DOWNLOAD_PRIORITY, meta=meta)
                    response = await self.crawler.engine.download_async(request)
                    hop = origin(url)
                    unknown = hop not in self._known and hop not in self._waiting
                    if hop != where and url == f"{hop}/robots.txt" and unknown:
                        self._keep_received(url, response)
                location = response.headers.get(b"Location")
                if not (300 <= response.status < 400 and location):
                    break
                url = normalize_url(location.decode("latin-1"), url)
            fact.status = response.status
        except Interrupted:
            raise
        except InvalidURL as exc:
            fact.error = f"redirect to an invalid URL: {exc}"
        except Exception as exc:  # a dead host answers nothing; its robots.txt is a fact all the same
            fact.error = describe_failure(exc)[0]
        if response is not None and response.status == 200:
            if len(response.body) > MAX_ROBOTS_BYTES:
                logger.warning(
                    "robots.txt of %s is %s bytes: only its first %s bytes are obeyed, as Google reads them",
                    where, f"{len(response.body):,}", f"{MAX_ROBOTS_BYTES:,}",
                )
            parser = self._parse_rules(where, response.body[:MAX_ROBOTS_BYTES].decode("utf-8", "replace"))
            fact.exists = True
            fact.sitemaps = _sitemaps(parser, url)
        elif response is not None and response.status >= 500:
            logger.warning(
                "robots.txt of %s answered %s: crawling as if it allowed everything "
                "(search engines treat it as disallowing everything until it recovers)",
                where,
                response.status,
            )
        self.crawler.stats.inc_value("qivrora/robots/fetched")
        await self._record(fact)
        await self.crawler.signals.send_catch_log_async(robots_recorded, robots=fact)
        return parser, fact.status

    def _parse_rules(self, where: str, text: str) -> Protego:
        """The rules of `where`'s robots.txt, from the text obeyed."""
        return Protego.parse(text)

    def _keep_received(self, url: str, response: Response) -> None:
        """Keep another origin's robots.txt, received on the way to this one's."""
        self._received[url] = response

    def _take_received(self, url: str) -> Response | None:
        """A robots.txt received already (``_keep_received``), or None: it is fetched."""
        return self._received.pop(url, None)

    async def _record(self, fact: object) -> None:
        await self.crawler.engine.scraper.start_itemproc_async(fact, response=None)


def _sitemaps(parser: Protego, base: str) -> list[str]:
    found: list[str] = []
    for raw in parser.sitemaps:
        try:
            found.append(normalize_url(raw, base))
        except InvalidURL:
            logger.warning("robots.txt %s names an invalid sitemap URL %r", base, raw)
    return list(dict.fromkeys(found))
