"""The minimal reproduction: a stopped download makes Scrapy + Twisted send the next request twice.

Plain Scrapy 2.19 (no Qivrora code but the test server, ``qivrora_spider.demo.site_server``, on
127.0.0.1): a spider requests N small PDFs and stops each at its headers (``StopDownload`` in
``headers_received``, as a crawler that judges a PDF by its headers does). The server counts what it
receives. Usage::

    .venv/bin/python bench/pool_race.py [--pdfs 300] [--chunked] [--pool twisted|qivrora]

What happens, for a PDF whose headers and body arrive in one read: Scrapy's ``_cb_bodyready`` calls
``loseConnection()`` on the response's transport from inside Twisted's ``allHeadersReceived``; Twisted
then parses the rest of that read, the whole body, finds the response finished and the connection
persistent, and puts it back in the pool (``HTTP11ClientProtocol._finishResponse_WAITING`` does not
look at ``transport.disconnecting``). ``loseConnection`` closes only once the write buffer is
flushed, so a request the crawl sends on that pooled connection before then is written, flushed, and
received by the server; the connection closes under its answer, and Twisted's pool, seeing a reused
connection lost before a response (``ResponseNeverReceived``), retries it on a new connection
(``_RetryingHTTP11ClientProtocol``, ``retryAutomatically``). Scrapy's stats count one request, its
RetryMiddleware never sees it, and the server got it twice.

``--pool qivrora`` runs the same crawl with ``qivrora_spider.download_handlers.HTTP11DownloadHandler``
(the workaround: the pool leaves closing connections out). Runs on the 2 cores, Twisted 26.10 (the
server's BrokenPipeError tracebacks on stderr are the answers written to the closed connections)::

    pool twisted: 20 to 50 of 300 PDFs received twice, Content-Length or chunked alike (6 runs);
                  Scrapy counts 300 requests and 0 retries
    pool qivrora: 300 requests received, each PDF once (5 runs)
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any, AsyncIterator

import scrapy
from scrapy import signals
from scrapy.crawler import CrawlerProcess
from scrapy.exceptions import StopDownload

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python bench/pool_race.py`
    sys.path.insert(0, str(ROOT))

from qivrora_spider.demo.site import PDF  # noqa: E402
from qivrora_spider.demo.site_server import Route, SiteServer  # noqa: E402

POOLS = {
    "twisted": "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler",
    "qivrora": "qivrora_spider.download_handlers.HTTP11DownloadHandler",
}


class StoppingSpider(scrapy.Spider):
    name = "stopping"
    urls: list[str] = []

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> StoppingSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.headers_received, signal=signals.headers_received)
        return spider

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in self.urls:
            yield scrapy.Request(url)

    def headers_received(self, headers: Any, body_length: Any, request: Any, spider: Any) -> None:
        raise StopDownload(fail=False)  # judged by its headers

    def parse(self, response: Any) -> None:
        return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pdfs", type=int, default=300)
    parser.add_argument("--chunked", action="store_true", help="serve the PDFs chunked (no Content-Length)")
    parser.add_argument("--pool", choices=sorted(POOLS), default="twisted")
    args = parser.parse_args(argv)
    paths = [f"/{number}.pdf" for number in range(args.pdfs)]
    routes = {path: Route(PDF, content_type="application/pdf", chunked=args.chunked) for path in paths}
    with SiteServer(routes) as site:
        StoppingSpider.urls = [site.url(path) for path in paths]
        process = CrawlerProcess({
            "LOG_LEVEL": "ERROR", "ROBOTSTXT_OBEY": False, "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
            "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
            "DOWNLOAD_HANDLERS": {"http": POOLS[args.pool]},
        })
        crawler = process.create_crawler(StoppingSpider)
        process.crawl(crawler)
        process.start()
        counts = Counter(site.log)
    stats = crawler.stats.get_stats()
    print(
        f"{args.pdfs} PDFs ({'chunked' if args.chunked else 'Content-Length'}), pool {args.pool}: "
        f"{len(site.log)} requests received, {sum(n > 1 for n in counts.values())} URLs twice or more; "
        f"Scrapy: {stats.get('downloader/request_count', 0)} requests, {stats.get('retry/count', 0)} retries"
    )


if __name__ == "__main__":
    main()
