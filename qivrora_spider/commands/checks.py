"""`qivrora checks`: every check, one line each: id, name, severity, status (``catalogue.listing``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from scrapy.commands import ScrapyCommand

from ..catalogue import listing

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCommand):
    requires_project = False
    default_settings = {"LOG_ENABLED": False}

    def short_desc(self) -> str:
        return "List every check: id, name, severity and status (qivrora explain ID tells more)"

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        sys.stdout.write(listing())
