"""`qivrora audit URL -o findings.csv`: the everyday form of `crawl hreflang`, part for part.

Each part of the short form stands for one part of the full one, so both run the same crawl through
the same checks (`crawl`'s, and the spider's arguments in ``spiders/arguments.py``):

- ``URL [URL ...]`` is ``-a start=URL,URL``;
- ``--NAME VALUE`` is ``-a NAME=VALUE`` for every other spider argument (``--max-pages`` for
  ``max_pages``; ``--site public --base https://example.com/`` for a build folder);
- ``-o FILE`` is ``-O FILE``: the file holds this audit's findings (the full form's ``-o`` appends);
- everything else (``-s NAME=VALUE``, ``-O FILE:FORMAT``, ``-a``, ``-L LEVEL``) is as in `crawl`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..spiders.arguments import KNOWN
from .crawl import Command as Crawl

if TYPE_CHECKING:
    import argparse

#: The spider the short form runs (HreflangSpider.name; `crawl` checks its arguments by that name).
SPIDER = "hreflang"


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


class Command(Crawl):
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
        opts.overwrite_output = [*(opts.overwrite_output or []), *(opts.output or [])] or None
        opts.output = None
        super().process_options([SPIDER], opts)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        super().run([SPIDER], opts)
