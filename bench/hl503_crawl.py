"""HL503's cost in a crawl: one `scrapy crawl hreflang` in this process, with HL503 on or off, and
where its CPU goes.

"off" reads no main text (``extract_html(..., main_text=False)``: no blocks gathered, identified or
judged); "on" is the crawl as users run it. Run the two in turn (off, on, off, on, ...) against the
benchmark site (bench/generate_site.py served by bench/serve.py) and compare the medians. One line of
JSON on stderr at the end: the process's CPU seconds (user + sys) and peak RSS, the garbage
collector's runs and seconds per generation (``gc.callbacks``), and with ``--parts`` the CPU inside
``build_page``, ``extract_html`` and ``read_blocks`` (two clock reads a call: about 2 µs a page more).

    .venv/bin/python -m bench.hl503_crawl http://127.0.0.1:8080/en/p0/ --hl503 off --parts -O /tmp/f.csv
"""

from __future__ import annotations

import argparse
import atexit
import functools
import gc
import json
import resource
import sys
import time
from typing import Any, Callable

from scrapy.cmdline import execute

from qivrora_spider.extract import html_extract, page_facts
from qivrora_spider.spiders import hreflang

#: The crawl of bench/RESULTS.md, "HL503: block-level language": the speed flags, no crawl state.
FLAGS = [
    "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "CONCURRENT_REQUESTS=16",
    "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16", "-s", "QIVRORA_STATE=", "-s", "LOG_LEVEL=WARNING",
]


class Collections:
    """The garbage collector's runs and CPU seconds per generation."""

    def __init__(self) -> None:
        self.runs = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.runs[info["generation"]] += 1
            self.seconds[info["generation"]] += time.process_time() - self._started


def timed(parts: dict[str, list[float]], name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function`, its calls counted and their CPU seconds summed in ``parts[name]``."""
    total = parts.setdefault(name, [0, 0.0])

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            total[0] += 1
            total[1] += time.process_time() - started

    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("start")
    parser.add_argument("--hl503", choices=("on", "off"), required=True)
    parser.add_argument("--parts", action="store_true", help="time build_page, extract_html, read_blocks")
    args, scrapy_args = parser.parse_known_args()
    collections = Collections()
    gc.callbacks.append(collections)
    if args.hl503 == "off":
        page_facts.extract_html = functools.partial(html_extract.extract_html, main_text=False)
    parts: dict[str, list[float]] = {}
    if args.parts:
        page_facts.extract_html = timed(parts, "extract_html", page_facts.extract_html)
        page_facts.read_blocks = timed(parts, "read_blocks", page_facts.read_blocks)
        hreflang.build_page = timed(parts, "build_page", hreflang.build_page)

    def report() -> None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        line = {
            "hl503": args.hl503,
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mib": usage.ru_maxrss // 1024,
            "gc_runs": collections.runs,
            "gc_seconds": [round(seconds, 2) for seconds in collections.seconds],
            **{
                f"{name}_us": round(1e6 * seconds / max(calls, 1))
                for name, (calls, seconds) in parts.items()
            },
        }
        print(json.dumps(line), file=sys.stderr)

    atexit.register(report)
    execute(["scrapy", "crawl", "hreflang", "-a", f"start={args.start}", *FLAGS, *scrapy_args])


if __name__ == "__main__":
    main()
