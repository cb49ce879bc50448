"""`scrapy crawl`, with Qivrora's arguments and settings checked before any request.

A wrong argument stops the run with one line that names it and a non-zero exit, instead of a
traceback from deep inside the crawler; `QIVRORA_FAIL_ON` turns findings into an exit status.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from scrapy.commands.crawl import Command as ScrapyCrawl

from ..compat.scrapy import KeepsCrawler
from ..extensions.audit import audit_settings
from ..findings import at_or_above, fail_on_level
from ..outcome import FINDINGS_FAILED, USAGE_ERROR, recorded
from ..rendering import render_problem
from ..spiders.arguments import parse_arguments
from ..state.history import CrawlHistory

if TYPE_CHECKING:
    import argparse


def fail_on(settings: object) -> str | None:
    return fail_on_level(settings.get("QIVRORA_FAIL_ON"))  # type: ignore[attr-defined]


class Command(KeepsCrawler, ScrapyCrawl):
    _fail_on: str | None = None

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        """Check everything before Scrapy starts: a wrong value gets one line, no banner, no request."""
        super().process_options(args, opts)
        assert self.settings is not None
        try:
            self._fail_on = fail_on(self.settings)
            audit_settings(self.settings)
            CrawlHistory(self.settings)
            if args and args[0] == "hreflang":
                arguments = parse_arguments(opts.spargs)
                problem = render_problem(self.settings) if arguments.render else None
                if problem:
                    raise ValueError(problem)
        except ValueError as exc:
            print(f"qivrora: {exc}", file=sys.stderr)
            sys.exit(USAGE_ERROR)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        super().run(args, opts)
        if self.exitcode or self._crawler is None:
            return
        stats = self._crawler.stats.get_stats()
        status = recorded(stats)
        if status is not None:
            self.exitcode = status
            return
        if self._fail_on is None:
            return
        if any(stats.get(f"qivrora/findings/{severity}", 0) for severity in at_or_above(self._fail_on)):
            self.exitcode = FINDINGS_FAILED
