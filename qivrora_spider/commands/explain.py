"""`qivrora explain HL201`: a check's page of the docs, in the terminal (``catalogue.explain``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from ..catalogue import UnknownCheck, explain

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCommand):
    requires_project = False
    default_settings = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "CHECK"

    def short_desc(self) -> str:
        return "Explain a check (HL201 or missing-return-link): why it matters, an example, the fix"

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("name one check: qivrora explain HL201")
        try:
            sys.stdout.write(explain(args[0]))
        except UnknownCheck as unknown:
            print(f"qivrora: {unknown}", file=sys.stderr)
            self.exitcode = 2
