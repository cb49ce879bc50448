"""`qivrora audit URL -o findings.csv`: the everyday form of `crawl hreflang`, part for part.

Each part of the short form stands for one part of the full one, so both run the same crawl through
the same checks (`crawl`'s, and the spider's arguments in ``spiders/arguments.py``):

- ``URL [URL ...]`` is ``-a start=URL,URL``;
- ``--NAME VALUE`` is ``-a NAME=VALUE`` for every other spider argument (``--max-pages`` for
  ``max_pages``; ``--site public --base https://example.com/`` for a build folder);
- ``-o FILE`` is ``-O FILE``: the file holds this audit's findings (the full form's ``-o`` appends);
  with ``--append``, every ``-o`` appends;
- everything else (``-s NAME=VALUE``, ``-O FILE:FORMAT``, ``-a``, ``-L LEVEL``) is as in `crawl`.

Its log is quiet unless a level is asked for (``-L``, ``-s LOG_LEVEL``): Qivrora's own lines (the
progress line, what was written) and everyone's warnings, and the summary printed last, whatever the
level, where it is the last thing a user reads.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING

from ..outcome import SUMMARY_STAT
from ..spiders.arguments import KNOWN
from .crawl import Command as Crawl

if TYPE_CHECKING:
    import argparse

#: The spider the short form runs (HreflangSpider.name; `crawl` checks its arguments by that name).
SPIDER = "hreflang"
#: The loggers whose INFO lines a quiet log keeps: Qivrora's own, and Scrapy's "Stored csv feed (N
#: items) in: FILE", which says where the findings went and how many rows the file holds.
OWN_LOGGER = "qivrora_spider"
FEED_LOGGER = "scrapy.extensions.feedexport"


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


class _BelowWarning(logging.Filter):
    """Qivrora's INFO lines; its warnings reach the log through Scrapy's handler, as everyone's do."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < logging.WARNING


class Command(Crawl):
    _quiet_handler: logging.Handler | None = None

    def syntax(self) -> str:
        return "[URL ...] [--site FOLDER --base URL] [-o FILE] [--NAME VALUE ...] [crawl's options]"

    def short_desc(self) -> str:
        return "Audit a site: `crawl hreflang` in short"

    def long_desc(self) -> str:
        return (
            "Audit a site: the short form of `crawl hreflang`. URL [URL ...] is -a start=URL,URL; "
            "--NAME VALUE is -a NAME=VALUE for every other spider argument; -o FILE is -O FILE; "
            "the other options are crawl's."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        overwrite = "write the findings to FILE, replacing it (-O FILE)"
        parser.add_argument("-o", "--output", metavar="FILE", action="append", help=overwrite)
        parser.add_argument("--append", action="store_true", help="-o appends to FILE instead")
        for name in KNOWN:
            if name != "start":
                option, dest = _option(name), f"argument_{name}"
                parser.add_argument(option, dest=dest, metavar="VALUE", help=f"-a {name}=VALUE")

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        """Turn the short form into the full one, then check it as `crawl` does."""
        short = [f"start={','.join(args)}"] if args else []
        short += [
            f"{name}={getattr(opts, f'argument_{name}')}"
            for name in KNOWN
            if getattr(opts, f"argument_{name}", None) is not None
        ]
        opts.spargs = [*short, *opts.spargs]
        if opts.append:
            opts.output = [*(opts.output or []), *(opts.overwrite_output or [])] or None
            opts.overwrite_output = None
        else:
            opts.overwrite_output = [*(opts.overwrite_output or []), *(opts.output or [])] or None
            opts.output = None
        super().process_options([SPIDER], opts)
        assert self.settings is not None
        self.settings.set("QIVRORA_SUMMARY_LAST", True, priority="cmdline")
        if self.settings.getpriority("LOG_LEVEL") < self.settings.getpriority("QIVRORA_SUMMARY_LAST"):
            self._quiet_log()

    def _quiet_log(self) -> None:
        """Scrapy's lines only from warnings up (its start-up banner, settings, middlewares, "Crawled N
        pages", stats dump are for -L INFO or -v); Qivrora's own INFO lines through a handler of ours,
        installed now, before Scrapy's handler logs its banner."""
        assert self.settings is not None
        self.settings.set("LOG_LEVEL", "WARNING", priority="cmdline")
        self.settings.set("LOGSTATS_INTERVAL", 0, priority="cmdline")
        self.settings.set("STATS_DUMP", False, priority="cmdline")
        if not self.settings.getbool("LOG_ENABLED"):
            return
        filename = self.settings.get("LOG_FILE")
        # Opened at its first line, after Scrapy's handler has created (or emptied) the file.
        handler = logging.FileHandler(filename, "a", encoding="utf-8", delay=True) if filename else logging.StreamHandler()
        handler.setFormatter(logging.Formatter(self.settings.get("LOG_FORMAT"), self.settings.get("LOG_DATEFORMAT")))
        handler.setLevel(logging.INFO)
        handler.addFilter(_BelowWarning())
        own = logging.getLogger(OWN_LOGGER)
        own.addHandler(handler)
        own.setLevel(logging.INFO)
        self._quiet_handler = handler

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if self._quiet_handler is not None:
            # Only now: Scrapy's logging set-up (when the crawler process was made) resets the handlers
            # of its own loggers.
            logging.getLogger(FEED_LOGGER).addHandler(self._quiet_handler)
        super().run([SPIDER], opts)

    def _say_how_it_went(self, stats: dict[str, object]) -> None:
        summary = stats.get(SUMMARY_STAT)
        if summary:
            print(summary, file=sys.stderr)
        super()._say_how_it_went(stats)
