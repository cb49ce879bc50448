"""Scrapy's log formatter, without the DEBUG lines of every response and item that no handler keeps.

Scrapy logs "Crawled (200)" for each response and "Scraped from" for each item at DEBUG, and the
logging module builds a full record for each (the caller's frame, the time, the thread and process
names) before the handler drops it for its level: two or three lines a page, about 2 % of the
samples of a crawl at the default LOG_LEVEL of INFO (bench/ceiling-notes.md). Where a handler
keeps DEBUG (``-s LOG_LEVEL=DEBUG``, or logging configured by whoever embeds the crawl), the lines
are Scrapy's, unchanged.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy.logformatter import LogFormatter

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.http import Response
    from scrapy.logformatter import LogFormatterResult
    from twisted.python.failure import Failure


def keeps_debug(name: str) -> bool:
    """Whether a DEBUG record of logger `name` reaches a handler that keeps it, as logging decides.

    Asked on every line rather than once: Scrapy installs its root handler after the formatter is
    built, and an embedding program may configure logging at any time.
    """
    logger: logging.Logger | None = logging.getLogger(name)
    if not logger.isEnabledFor(logging.DEBUG):  # type: ignore[union-attr]
        return False
    while logger is not None:
        if any(handler.level <= logging.DEBUG for handler in logger.handlers):
            return True
        logger = logger.parent if logger.propagate else None
    return False  # logging's last resort handler shows WARNING and above


class QuietLogFormatter(LogFormatter):
    def crawled(self, request: Request, response: Response, spider: Spider) -> LogFormatterResult | None:
        return super().crawled(request, response, spider) if keeps_debug("scrapy.core.engine") else None

    def scraped(
        self, item: Any, response: Response | Failure | None, spider: Spider
    ) -> LogFormatterResult | None:
        return super().scraped(item, response, spider) if keeps_debug("scrapy.core.scraper") else None
