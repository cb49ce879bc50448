"""The connection pool of our HTTP/1.1 download handler never hands out a connection being closed.

Scrapy stops a download by closing its connection; when the response had already arrived whole, Twisted
had put that connection back in its pool, and a request sent on it before it closed reached the server,
lost its answer and was sent again: one URL fetched twice (qivrora_spider/compat/twisted.py). A real
server on 127.0.0.1 counts what it receives.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from http.server import BaseHTTPRequestHandler

import pytest_twisted
from scrapy.utils.test import get_crawler
from twisted.internet import reactor
from twisted.internet.defer import Deferred
from twisted.web.client import Agent, HTTPConnectionPool

from qivrora_spider.demo.site_server import Route, SiteServer, html_page
from qivrora_spider.compat.twisted import ReusableOnlyPool
from qivrora_spider.download_handlers import HTTP11DownloadHandler
from qivrora_spider.settings import DOWNLOAD_HANDLERS

from .conftest import crawl
from .fixture_sites import PDF

FAST = {
    "AUTOTHROTTLE_ENABLED": False, "DOWNLOAD_DELAY": 0, "QIVRORA_STATE": "",
    "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
}


async def next_request_after_a_stopped_download(site: SiteServer, pool: HTTPConnectionPool) -> int:
    """GET /small.pdf and close its connection at its headers, as Scrapy does on StopDownload; GET
    /next in the very next turn of the event loop, as the crawl's next request to the host may."""
    agent = Agent(reactor, pool=pool)
    answered: Deferred[int] = Deferred()

    def fetch_next() -> None:
        requested = agent.request(b"GET", site.url("/next").encode())
        requested.addCallback(lambda response: response.code).chainDeferred(answered)

    def stop(response: object) -> None:
        # scrapy/core/downloader/handlers/http11.py, _cb_bodyready, when headers_received stops it:
        response._transport.stopProducing()  # type: ignore[attr-defined]
        response._transport.loseConnection()  # type: ignore[attr-defined]
        asyncio.get_running_loop().call_soon(fetch_next)

    await agent.request(b"GET", site.url("/small.pdf").encode()).addCallback(stop)
    try:
        return await answered
    finally:
        await pool.closeCachedConnections()


class OneWriteSiteServer(SiteServer):
    """Headers and body in one send, as nginx sends a small file: the client reads the response whole
    in one read. (The test server writes them apart, and a loaded machine may read them apart.)"""

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        class Handler(super()._handler_class()):  # type: ignore[misc]
            wbufsize = -1  # buffered; http.server flushes after each request

        return Handler


def race_site() -> SiteServer:
    return OneWriteSiteServer({
        "/small.pdf": Route(PDF, content_type="application/pdf"),
        "/next": Route(html_page(body="next")),
    })


@pytest_twisted.ensureDeferred
async def test_twisted_pool_sends_the_next_request_twice_over_a_connection_closed_under_a_whole_response():
    """The reproduction, with Twisted's own pool. Should this fail, Twisted no longer reuses a closing
    connection, and ReusableOnlyPool may go."""
    with race_site() as site:
        assert await next_request_after_a_stopped_download(site, HTTPConnectionPool(reactor)) == 200
        assert site.requests()["/next"] == 2, "received on the closing connection, and again on a new one"


@pytest_twisted.ensureDeferred
async def test_our_pool_sends_the_next_request_once_on_a_new_connection():
    with race_site() as site:
        assert await next_request_after_a_stopped_download(site, ReusableOnlyPool(reactor)) == 200
        assert site.requests() == Counter({"/small.pdf": 1, "/next": 1})


@pytest_twisted.ensureDeferred
async def test_a_crawl_of_small_chunked_pdfs_fetches_each_once():
    """The spider stops a PDF at its headers; a chunked one has no length to tell that it arrived whole
    already. Before ReusableOnlyPool, a fifth of 300 such PDFs were fetched twice."""
    with SiteServer() as site:
        pdfs = [f"/docs/{number}.pdf" for number in range(80)]
        site.routes.update({path: Route(PDF, content_type="application/pdf", chunked=True) for path in pdfs})
        site.routes["/"] = Route(html_page(body=" ".join(f'<a href="{path}">doc</a>' for path in pdfs)))
        site.routes["/robots.txt"] = Route("User-agent: *\n", content_type="text/plain")
        result = await crawl(FAST, start=site.url("/"))
        requested = site.requests()
        assert {path: requested[path] for path in pdfs} == dict.fromkeys(pdfs, 1)
        assert set(requested.values()) == {1}, requested
        assert result.stats.get("retry/count") is None


def test_both_schemes_and_the_rendering_handler_use_the_pool():
    assert DOWNLOAD_HANDLERS == {
        "http": "qivrora_spider.download_handlers.HTTP11DownloadHandler",
        "https": "qivrora_spider.download_handlers.HTTP11DownloadHandler",
    }
    from qivrora_spider.rendering.handler import RenderingDownloadHandler

    settings = {"CONCURRENT_REQUESTS_PER_DOMAIN": 3}
    for handler_class in (HTTP11DownloadHandler, RenderingDownloadHandler):
        handler = handler_class(get_crawler(settings_dict=settings))
        assert isinstance(handler._pool, ReusableOnlyPool), handler_class
        assert handler._pool.maxPersistentPerHost == 3, "set up as Scrapy sets up its own"
