"""robots.txt once per origin across all workers.

The first worker that needs an origin's robots.txt fetches it, records it as a fact and queues the
sitemaps it names, as a single crawl does; it then shares the rules it read, and the other workers
obey those instead of fetching the file again. The rules are shared only once that fact and those
sitemaps are stored (``SharedCrawl.store``): should the worker die before, another one fetches the
file. Should it be counted out before it shares them, another worker fetches the file too. A
robots.txt received as the redirect target of another origin's (http:// to https://) is kept in
Redis for its own origin, whichever worker needs it first.

What Redis holds is JSON (``codec``): the status and the text obeyed, parsed again by Protego here.
An entry that is not one of ours is refused with one line naming the key, and the file fetched.
"""

from __future__ import annotations

import logging

from protego import Protego
from scrapy.http import Response
from scrapy.utils.asyncio import sleep

from ..downloadermiddlewares.robots import RobotsMiddleware
from .codec import Refused, decode_response, decode_rules, encode_response, encode_rules
from .shared import SharedCrawl

logger = logging.getLogger(__name__)

#: Seconds between two looks for rules another worker is fetching.
POLL = 0.1


class SharedRobotsMiddleware(RobotsMiddleware):
    """Fetches an origin's robots.txt for all workers, or waits for the worker that does."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: The text obeyed of each origin this worker fetched, to share.
        self._texts: dict[str, str] = {}

    async def _fetch(self, where: str) -> tuple[Protego | None, int | None]:
        shared = SharedCrawl.of(self.crawler)
        while True:
            rules = shared.robots(where)
            if isinstance(rules, bytes):
                try:
                    return decode_rules(rules)
                except Refused as exc:
                    logger.error("Refused the entry %r of %s: %s; this worker fetches the file", where, shared.key("robots"), exc)
                    rules = True
            if rules:
                parser, status = await super()._fetch(where)
                shared.store()  # its fact and the sitemaps it names first: then the rules
                shared.share_robots(where, encode_rules(status, self._texts.pop(where, None)))
                return parser, status
            await sleep(POLL)

    def _parse_rules(self, where: str, text: str) -> Protego:
        self._texts[where] = text
        return super()._parse_rules(where, text)

    def _keep_received(self, url: str, response: Response) -> None:
        SharedCrawl.of(self.crawler).keep_robots_response(url, encode_response(response))

    def _take_received(self, url: str) -> Response | None:
        shared = SharedCrawl.of(self.crawler)
        data = shared.take_robots_response(url)
        if data is None:
            return None
        try:
            return decode_response(url, data)
        except Refused as exc:
            logger.error("Refused the entry %r of %s: %s; this worker fetches it", url, shared.key("robots-received"), exc)
            return None
