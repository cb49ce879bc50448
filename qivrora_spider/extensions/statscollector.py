"""Scrapy's in-memory stats collector, without the attribute hook that costs every stats call.

Scrapy 2.19's ``StatsCollector.__getattribute__`` wraps the stats methods to warn when a caller still
passes the deprecated ``spider`` argument. It runs for *every* attribute lookup on the collector,
the collector's own ``self._stats`` included, and each first looks for a cached wrapper by raising
and catching an AttributeError: ``inc_value`` takes 2.7 µs instead of 0.2. Scrapy and the crawl call
the stats about twenty times a response and a few times an item (bench/RESULTS.md). The methods
are Scrapy's, unchanged; only that deprecation warning is not given.
"""

from __future__ import annotations

from scrapy.statscollectors import MemoryStatsCollector


class DirectStatsCollector(MemoryStatsCollector):
    __getattribute__ = object.__getattribute__
