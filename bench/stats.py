"""Stats collectors that leave the crawl's final stats in a JSON file for the benchmarks.

Plugged in with ``-s STATS_CLASS=... -s BENCH_STATS_FILE=PATH``, so a benchmark reads the response and
item counts of a crawl without touching the project's extensions, pipelines or log level. Each crawler
keeps the collector it runs with otherwise, so that the file costs it nothing it would not pay: the
bare spiders Scrapy's own (``SCRAPY_STATS_FLAGS``), ``scrapy crawl hreflang`` Qivrora's
(``QIVRORA_STATS_FLAGS``, the STATS_CLASS of its settings).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scrapy.statscollectors import MemoryStatsCollector

from qivrora_spider.compat.scrapy import DirectStatsCollector


class _WritesJsonFile(MemoryStatsCollector):
    def _persist_stats(self, stats: dict[str, Any]) -> None:
        super()._persist_stats(stats)
        path = self._crawler.settings.get("BENCH_STATS_FILE")
        if path:
            Path(path).write_text(json.dumps(stats, default=str, indent=1, sort_keys=True), encoding="utf-8")


class JsonFileStatsCollector(_WritesJsonFile):
    """Scrapy's in-memory collector: the bare spiders'."""


class QivroraJsonFileStatsCollector(_WritesJsonFile, DirectStatsCollector):
    """Qivrora's collector (its settings' STATS_CLASS): ``scrapy crawl hreflang``'s."""


SCRAPY_STATS_FLAGS = ("-s", "STATS_CLASS=bench.stats.JsonFileStatsCollector")
QIVRORA_STATS_FLAGS = ("-s", "STATS_CLASS=bench.stats.QivroraJsonFileStatsCollector")


def stats_flags(path: Path, *, qivrora: bool) -> tuple[str, ...]:
    """The `-s` flags that leave a crawl's stats in `path`: hreflang's collector, or Scrapy's."""
    return (*(QIVRORA_STATS_FLAGS if qivrora else SCRAPY_STATS_FLAGS), "-s", f"BENCH_STATS_FILE={path}")
