"""robots.txt once per origin across all workers.

The first worker that needs an origin's robots.txt fetches it, records it as a fact and queues the
sitemaps it names, as a single crawl does; it then shares the rules it read, and the other workers
obey those instead of fetching the file again. Should it be counted out before it shares them,
another worker fetches the file. A robots.txt received as the redirect target of another origin's
(http:// to https://) is kept in Redis for its own origin, whichever worker needs it first.
"""

from __future__ import annotations

import pickle

from protego import Protego
from scrapy.http import Headers, Response
from scrapy.utils.asyncio import sleep

from ..downloadermiddlewares.robots import RobotsMiddleware
from .shared import SharedCrawl

#: Seconds between two looks for rules another worker is fetching.
POLL = 0.1


class SharedRobotsMiddleware(RobotsMiddleware):
    """Fetches an origin's robots.txt for all workers, or waits for the worker that does."""

    async def _fetch(self, where: str) -> tuple[Protego | None, int | None]:
        shared = SharedCrawl.of(self.crawler)
        while True:
            rules = shared.robots(where)
            if isinstance(rules, bytes):
                # Written by a worker of this crawl, like the pickled requests of the queue.
                return pickle.loads(rules)  # type: ignore[no-any-return]
            if rules:
                parser, status = await super()._fetch(where)
                shared.share_robots(where, pickle.dumps((parser, status)))
                return parser, status
            await sleep(POLL)

    def _keep_received(self, url: str, response: Response) -> None:
        answer = (response.status, dict(response.headers), response.body)
        SharedCrawl.of(self.crawler).keep_robots_response(url, pickle.dumps(answer))

    def _take_received(self, url: str) -> Response | None:
        data = SharedCrawl.of(self.crawler).take_robots_response(url)
        if data is None:
            return None
        status, headers, body = pickle.loads(data)  # written by a worker of this crawl
        return Response(url, status=status, headers=Headers(headers), body=body)
