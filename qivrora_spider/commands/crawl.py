"""`scrapy crawl`, with Qivrora's arguments and settings checked before any request.

A wrong argument stops the run with one line that names it and a non-zero exit, instead of a
traceback from deep inside the crawler. The exit status says how the run went (``outcome``): a run
that could not see (no usable start, an outage, Ctrl-C) says so in its last lines and its status,
and only a run that saw it all lets `QIVRORA_FAIL_ON` turn findings into the status.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object

from ..compat.scrapy import KeepsCrawler
from ..extensions.audit import AuditOptions
from ..facts import FACT_TYPES
from ..feeds.exporters import exported_items
from ..findings import at_or_above, fail_on_level, fail_on_segment
from ..outcome import (
    AUDITED_STAT, FINDINGS_FAILED, SEGMENT_COUNT_STAT, SEGMENTS_STAT, USAGE_ERROR, reasons, recorded,
)
from ..rendering import render_problem
from ..spiders.arguments import parse_arguments
from ..state.history import CrawlHistory

if TYPE_CHECKING:
    import argparse

    from scrapy.settings import BaseSettings


def unknown_segment(gated: str | None, segments: list[str]) -> str | None:
    """Why a gate on a segment cannot be judged: no segment of that name was given or learned. A gate
    that looks at nothing must not pass."""
    names = [segment.partition("=")[0] for segment in segments]
    if gated is None or gated in names:
        return None
    return f"QIVRORA_FAIL_ON names the segment {gated!r}, which is none of: {', '.join(names) or 'no segment'}"


def addon_settings(settings: BaseSettings) -> None:
    """Each add-on enabled that checks its own settings (``check_settings``) does so: ValueError names
    a wrong one before Scrapy builds the crawler, whose engine would fail on it with a traceback."""
    for path in build_component_list(settings["ADDONS"]):
        check = getattr(load_object(path), "check_settings", None)
        if check is not None:
            check(settings)


def fail_on(settings: object) -> str | None:
    return fail_on_level(settings.get("QIVRORA_FAIL_ON"))  # type: ignore[attr-defined]


class Command(KeepsCrawler, ScrapyCrawl):
    _fail_on: str | None = None
    _fail_on_segment: str | None = None

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        """Check everything before Scrapy starts: a wrong value gets one line, no banner, no request."""
        super().process_options(args, opts)
        assert self.settings is not None
        try:
            self._fail_on = fail_on(self.settings)
            self._fail_on_segment = fail_on_segment(self.settings.get("QIVRORA_FAIL_ON"))
            AuditOptions.from_settings(self.settings)
            CrawlHistory(self.settings)
            addon_settings(self.settings)
            if args and args[0] == "hreflang":
                arguments = parse_arguments(opts.spargs)
                problem = render_problem(self.settings) if arguments.render else None
                if problem:
                    raise ValueError(problem)
        except ValueError as exc:
            print(f"qivrora: {exc}", file=sys.stderr)
            sys.exit(USAGE_ERROR)
        self.settings.set("FEEDS", self._feeds_of_their_items(), priority="cmdline")

    def _feeds_of_their_items(self) -> dict[str, dict[str, object]]:
        """Each feed gets the items its exporter writes, and no other: the findings table its findings,
        so that Scrapy's "Stored csv feed (N items)" counts the rows the file holds."""
        assert self.settings is not None
        exporters = self.settings.getwithbase("FEED_EXPORTERS")
        feeds = {uri: dict(options) for uri, options in self.settings.getdict("FEEDS").items()}
        for options in feeds.values():
            exporter = exporters.get(options.get("format"))
            if exporter is not None and not options.get("item_classes") and not options.get("item_filter"):
                options["item_classes"] = list(exported_items(load_object(exporter)))
        return feeds

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        super().run(args, opts)
        if self.exitcode or self._crawler is None:
            return
        stats = self._crawler.stats.get_stats()
        status = recorded(stats)
        self._say_how_it_went(stats)
        if status is not None:
            self.exitcode = status
            return
        if self._fail_on is None:
            return
        problem = unknown_segment(self._fail_on_segment, stats.get(SEGMENTS_STAT) or [])
        if problem:
            print(f"qivrora: {problem}", file=sys.stderr)
            self.exitcode = USAGE_ERROR
            return
        counted = f"{SEGMENT_COUNT_STAT}/{self._fail_on_segment}" if self._fail_on_segment else "qivrora/findings"
        if any(stats.get(f"{counted}/{severity}", 0) for severity in at_or_above(self._fail_on)):
            self.exitcode = FINDINGS_FAILED

    def _say_how_it_went(self, stats: dict[str, object]) -> None:
        """The last lines on stderr: why the run is not whole, and where nothing was written."""
        for reason in reasons(stats):
            print(f"qivrora: {reason}", file=sys.stderr)
        self._say_where_nothing_was_written(stats)

    def _say_where_nothing_was_written(self, stats: dict[str, object]) -> None:
        """An audit whose findings go nowhere says so last, and how to keep them."""
        assert self.settings is not None
        count = stats.get(AUDITED_STAT)
        if count is None or self.settings.get("QIVRORA_REPORT"):
            return
        exporters = self.settings.getwithbase("FEED_EXPORTERS")
        for options in self.settings.getdict("FEEDS").values():
            exporter = exporters.get(options.get("format"))
            if exporter is not None and exported_items(load_object(exporter)) != FACT_TYPES:
                return
        print(f"qivrora: {count:,} findings, not written: add -o findings.csv", file=sys.stderr)

