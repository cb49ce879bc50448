"""A bare Scrapy spider that only follows same-host ``<a href>`` links: the yardstick for Qivrora's crawl.

It runs with Scrapy's default settings (no project: no robots.txt, no sitemaps, no items) plus the
benchmark's speed overrides, so it measures what Scrapy itself costs per page. Two knobs:

``--links linkextractor``  Scrapy's ``LinkExtractor`` (what ``CrawlSpider`` uses), or
``--links xpath``          a narrow ``//a/@href`` and ``urljoin``.
``--dedupe dupefilter``    a ``Request`` for every link, duplicates dropped by Scrapy's scheduler, or
``--dedupe seen``          the spider's own set of URLs asked for: no ``Request`` for a seen link.

bench/run.py runs "plain" (linkextractor + dupefilter: how a Scrapy crawler is usually written) and
"ceiling" (xpath + seen: the least work any Scrapy spider can do to follow these links). Run it from
the repository root (``bench.stats`` must be importable)::

    .venv/bin/python -m bench.bare_spider http://127.0.0.1:8080/en/p0/ --links xpath --dedupe seen \\
        -s BENCH_STATS_FILE=/tmp/stats.json
"""

from __future__ import annotations

import argparse
from typing import Any, Iterator
from urllib.parse import urlsplit

from scrapy import Request, Spider
from scrapy.crawler import CrawlerProcess
from scrapy.http import Response
from scrapy.linkextractors import LinkExtractor

#: The benchmark's speed overrides, the same as given to `scrapy crawl hreflang`.
FAST_SETTINGS = {
    "AUTOTHROTTLE_ENABLED": False,
    "DOWNLOAD_DELAY": 0,
    "CONCURRENT_REQUESTS": 16,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
    "STATS_CLASS": "bench.stats.JsonFileStatsCollector",
}


class BareSpider(Spider):
    name = "bare"

    def __init__(self, start: str, links: str = "xpath", dedupe: str = "seen", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = [start]
        self.netloc = urlsplit(start).netloc
        self.extractor = LinkExtractor() if links == "linkextractor" else None
        self.seen: set[str] | None = {start} if dedupe == "seen" else None

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Request]:
        if self.extractor is not None:
            urls = [link.url for link in self.extractor.extract_links(response)]
        else:
            urls = [response.urljoin(href) for href in response.xpath("//a/@href").getall()]
        seen = self.seen
        for url in urls:
            if urlsplit(url).netloc != self.netloc:
                continue
            if seen is not None:
                if url in seen:
                    continue
                seen.add(url)
            yield Request(url, callback=self.parse)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("start", help="the first page")
    parser.add_argument("--links", choices=("linkextractor", "xpath"), default="xpath")
    parser.add_argument("--dedupe", choices=("dupefilter", "seen"), default="seen")
    parser.add_argument("-s", dest="settings", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    settings = dict(FAST_SETTINGS)
    for item in args.settings:
        name, _, value = item.partition("=")
        settings[name] = value
    process = CrawlerProcess(settings)
    process.crawl(BareSpider, start=args.start, links=args.links, dedupe=args.dedupe)
    process.start()


if __name__ == "__main__":
    main()
