"""`qivrora version`: Qivrora's version, which bug reports and the User-Agent carry.

Scrapy's own ``version`` names Scrapy's; this one names Qivrora's, and with ``-v`` adds Scrapy's
report (Scrapy, lxml, Twisted, Python, platform).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.commands.version import Command as ScrapyVersion

from .. import __version__

if TYPE_CHECKING:
    import argparse


class Command(ScrapyVersion):
    def short_desc(self) -> str:
        return "Print Qivrora's version (-v: also Scrapy's and its libraries')"

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        print(f"Qivrora {__version__}")
        if opts.verbose:
            super().run(args, opts)
