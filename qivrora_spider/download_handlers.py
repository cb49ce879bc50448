"""Scrapy's HTTP/1.1 download handler, with a connection pool that never hands out a closing connection.

Scrapy stops a download (``StopDownload``, raised in ``headers_received`` or ``bytes_received``) by
closing the connection: ``loseConnection()``, which closes it only once its write buffer is flushed.
When the whole response had already arrived in the same read (a small body: the spider keeps reading
those if their length is known, but a chunked one has none), Twisted's ``HTTP11ClientProtocol``
finishes that response right after, finds the connection quiescent, and puts it back in the pool
although it is closing. If the crawl's next request to that host takes it before the close (the same
turn of the event loop), the request is written into the buffer, flushed, and only then is the
connection closed: the server receives and answers the request, the client never reads the answer, and
Twisted's pool, seeing a reused connection lost before any response (``ResponseNeverReceived``),
sends the request again on a new connection (``retryAutomatically``). The server gets the URL twice,
and nothing in Scrapy's log or stats says so. ``bench/pool_race.py`` shows it with Twisted and Scrapy
alone, against a real server.

The pool here leaves a closing connection out: it is not put back, and one that started closing while
cached is dropped before one is handed out. Every other behaviour is Twisted's (and the automatic retry
stays: over a connection the server closed while idle, the request was never read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler as ScrapyHTTP11DownloadHandler
from twisted.web.client import HTTPConnectionPool

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from twisted.internet.defer import Deferred
    from twisted.internet.interfaces import IStreamClientEndpoint
    from twisted.web._newclient import HTTP11ClientProtocol


def closing(connection: Any) -> bool:
    """Whether a pooled connection's transport is gone, or being closed or aborted."""
    transport = getattr(connection, "transport", None)
    return (
        transport is None
        or not getattr(transport, "connected", True)
        or bool(getattr(transport, "disconnecting", False))
        or bool(getattr(transport, "_aborting", False))
    )


class ReusableOnlyPool(HTTPConnectionPool):
    """Twisted's pool, minus the closing connections."""

    def _putConnection(self, key: Hashable, connection: HTTP11ClientProtocol) -> None:
        if closing(connection):
            return  # closing already (a download stopped): nothing more may be sent on it
        super()._putConnection(key, connection)  # type: ignore[no-untyped-call]

    def getConnection(self, key: Hashable, endpoint: IStreamClientEndpoint) -> Deferred[HTTP11ClientProtocol]:
        cached = self._connections.get(key)
        for connection in [c for c in cached or () if closing(c)]:
            cached.remove(connection)
            self._timeouts.pop(connection).cancel()
        return super().getConnection(key, endpoint)


def replace_pool(handler: ScrapyHTTP11DownloadHandler) -> None:
    """Give a handler built on Scrapy's HTTP/1.1 handler (scrapy-playwright's too) the pool above, set up
    as Scrapy set up its own (``CONCURRENT_REQUESTS_PER_DOMAIN`` connections kept per host, its lenient
    protocol factory). Called from ``__init__``, before any connection is opened."""
    from twisted.internet import reactor

    old = handler._pool
    pool = ReusableOnlyPool(reactor, persistent=old.persistent)
    pool.maxPersistentPerHost = old.maxPersistentPerHost
    pool.cachedConnectionTimeout = old.cachedConnectionTimeout
    pool.retryAutomatically = old.retryAutomatically
    pool._factory = old._factory
    handler._pool = pool


class HTTP11DownloadHandler(ScrapyHTTP11DownloadHandler):
    """``DOWNLOAD_HANDLERS`` for http and https (the settings): Scrapy's, with ``ReusableOnlyPool``."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        replace_pool(self)
