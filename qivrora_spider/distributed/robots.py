"""robots.txt once per origin across all workers.

The first worker that needs an origin's robots.txt fetches it, records it as a fact and queues the
sitemaps it names, as a single crawl does; it then shares the rules it read, and the other workers
obey those instead of fetching the file again. Should it be counted out before it shares them,
another worker fetches the file.
"""

from __future__ import annotations

import pickle

from protego import Protego
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
