"""Twisted: a connection pool that never hands out a connection being closed, and response header
lines as long as a browser reads.

Entry: ``ReusableOnlyPool``
    Relies on: ``twisted.web.client.HTTPConnectionPool``'s private ``_putConnection``,
    ``_connections`` and ``_timeouts`` (and ``closing`` reads ``transport.disconnecting`` and
    ``_aborting``).
    Tested with: Twisted 26.10.0.
    Test: tests/test_compat.py::test_twisted_pool_private_api_is_there; the race itself, in
    tests/test_download_handlers.py::test_twisted_pool_sends_the_next_request_twice_over_a_connection_closed_under_a_whole_response
    (a test name longer than a line).
    Remove when: that reproduction fails on Twisted's own pool (Twisted no longer pools a connection
    whose transport is disconnecting).

Entry: ``allow_long_header_lines``
    Relies on: ``twisted.web._newclient.HTTPClientParser``, a ``LineReceiver`` whose class attribute
    ``MAX_LENGTH`` (16 KiB) bounds each response header line; a longer one drops the connection.
    Tested with: Twisted 26.10.0.
    Test: tests/test_compat.py::test_twisted_http_client_parser_bounds_header_lines_by_max_length.
    Remove when: Twisted's HTTP client takes the limit as an argument (Scrapy could then pass it).

    Why: a `Link` header carrying the hreflang alternates of a site in 150 languages is longer than
    16 KiB, and the audit would report a server that drops the connection (HL404) where a browser
    reads the page. Chrome accepts 256 KiB of response headers, so a line is read up to that; a
    longer one still ends the connection, as it does in a browser. The limit is a class attribute,
    so raising it applies to the whole process (a crawl is one process under ``qivrora``,
    ``scrapy crawl`` and Scrapyd alike); it is only ever raised, never lowered.

Upstream bug of ``ReusableOnlyPool``, as it would be reported to Twisted:

    Title: HTTPConnectionPool puts back, and hands out, a connection that is being closed.

    A response that arrives whole in one read, on a connection the client has asked to close with
    ``transport.loseConnection()`` from inside the response's delivery (Scrapy does this to stop a
    download at its headers, ``StopDownload``), is finished by ``HTTP11ClientProtocol`` right after:
    it finds the connection quiescent and calls ``pool._putConnection`` without looking at
    ``transport.disconnecting``. A request sent from the pool in the same turn of the event loop is
    written into the closing transport's buffer, flushed, received and answered by the server, and
    only then is the connection closed. The pool, seeing a reused connection lost before any
    response (``ResponseNeverReceived``), retries the request on a new connection
    (``retryAutomatically``): the server receives it twice.

    Steps (Twisted alone, a server that writes headers and a small body in one send):

        pool = HTTPConnectionPool(reactor)
        agent = Agent(reactor, pool=pool)
        def stop(response):
            response._transport.stopProducing()
            response._transport.loseConnection()
            reactor.callLater(0, agent.request, b"GET", b"http://127.0.0.1:PORT/next")
        agent.request(b"GET", b"http://127.0.0.1:PORT/small.pdf").addCallback(stop)

    Expected: the server receives GET /next once. Actual: twice (20 to 50 of 300 such requests in a
    Scrapy crawl of small PDFs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable

from twisted.web import _newclient
from twisted.web.client import HTTPConnectionPool

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred
    from twisted.internet.interfaces import IStreamClientEndpoint
    from twisted.web._newclient import HTTP11ClientProtocol

#: Longest response header line read, in bytes: Chrome's limit for all of a response's headers.
MAX_HEADER_LINE = 256 * 1024


def allow_long_header_lines(limit: int = MAX_HEADER_LINE) -> None:
    """Read response header lines up to `limit` bytes in this process (``allow_long_header_lines``
    above: a `Link` header listing many alternates is longer than Twisted's 16 KiB)."""
    parser = _newclient.HTTPClientParser
    if parser.MAX_LENGTH < limit:
        parser.MAX_LENGTH = limit


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
    """Twisted's pool, minus the closing connections. Every other behaviour is Twisted's (the automatic
    retry stays: over a connection the server closed while idle, the request was never read)."""

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
