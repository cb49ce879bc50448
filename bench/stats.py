"""A stats collector that leaves the crawl's final stats in a JSON file for bench/run.py.

Plugged in with ``-s STATS_CLASS=bench.stats.JsonFileStatsCollector -s BENCH_STATS_FILE=PATH``, so
the benchmark reads response and item counts of ``scrapy crawl hreflang`` without touching the
project's extensions, pipelines or log level.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scrapy.statscollectors import MemoryStatsCollector


class JsonFileStatsCollector(MemoryStatsCollector):
    def _persist_stats(self, stats: dict[str, Any]) -> None:
        super()._persist_stats(stats)
        path = self._crawler.settings.get("BENCH_STATS_FILE")
        if path:
            Path(path).write_text(json.dumps(stats, default=str, indent=1, sort_keys=True), encoding="utf-8")
