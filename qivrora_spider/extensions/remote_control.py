"""Scrapy's remote control, imported only where ``REMOTE_CONTROL_ENABLED`` turns it on.

Qivrora turns it off (settings: it runs any Python code sent with its token), but Scrapy lists it in
``EXTENSIONS_BASE`` and imports its module before the extension says "not configured", and that
module imports aiohttp: about 0.14 s of CPU at every crawl's start-up (bench/ceiling-notes.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured
from scrapy.utils.misc import build_from_crawler

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class LazyRemoteControl:
    """Stands in Scrapy's place in ``EXTENSIONS``; builds Scrapy's extension only when it is enabled."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Any:
        if not crawler.settings.getbool("REMOTE_CONTROL_ENABLED"):
            raise NotConfigured
        from scrapy.extensions.remote_control import RemoteControl

        return build_from_crawler(RemoteControl, crawler)
