"""Scrapy's HTTP/1.1 download handler, with a connection pool that never hands out a closing connection.

Without it, a download Scrapy stops (``StopDownload``) after its response arrived whole leaves a closing
connection in Twisted's pool, and the next request to the host is received twice by the server
(``compat/twisted.py`` has the reproduction).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .compat.scrapy import callers_by_frame, replace_pool

with callers_by_frame():
    from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler as ScrapyHTTP11DownloadHandler

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class HTTP11DownloadHandler(ScrapyHTTP11DownloadHandler):
    """``DOWNLOAD_HANDLERS`` for http and https (the settings): Scrapy's, with ``ReusableOnlyPool``."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        replace_pool(self)
