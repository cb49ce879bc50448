"""`scrapy hreflang-report FACTS.jsonl [...] -O findings.csv`: the audit, offline.

(Scrapy names a command after its module, hence the hyphen in this file's name.)

Runs the same ``audit()`` the crawl runs, over facts exported by one or many crawls (`-o
facts.jsonl:facts`), merged and de-duplicated, and writes the same feeds, and the same report and
fixes where ``QIVRORA_REPORT`` and ``QIVRORA_FIXES`` say.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.conf import feed_process_params_from_cli
from scrapy.utils.misc import load_object

from ..audit import AuditContext
from ..audit.core.fact_store import FactStore
from ..audit.core.url_segments import segment_of
from ..catalogue import docs_url
from ..extensions.audit import AuditOptions, summary
from ..fact_lines import read_facts
from ..feeds.exporters import JUnitExporter, write_items
from ..findings import at_or_above, fail_on_segment
from ..audit.core.starts import verdict
from ..outcome import FINDINGS_FAILED, NOT_AUDITED, USAGE_ERROR, RunOutcome
from .crawl import fail_on, unknown_segment

if TYPE_CHECKING:
    import argparse

    from ..findings import Finding


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False

    def syntax(self) -> str:
        return "FACTS.jsonl [FACTS.jsonl ...] | --redis URL [--key KEY] [-o FILE | -O FILE]"

    def short_desc(self) -> str:
        return "Audit facts exported by one or many crawls, without crawling"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("-o", "--output", metavar="FILE", action="append", help="append findings to FILE")
        parser.add_argument(
            "-O", "--overwrite-output", metavar="FILE", action="append", help="write findings to FILE"
        )
        parser.add_argument("--redis", metavar="URL", help="audit the facts a distributed crawl keeps in this Redis")
        parser.add_argument("--key", help="with --redis: the crawl key (QIVRORA_CRAWL_KEY), if Redis holds several")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if not args and not opts.redis:
            raise UsageError("name at least one facts file, or --redis URL")
        assert self.settings is not None
        try:
            level = fail_on(self.settings)
            gated = fail_on_segment(self.settings.get("QIVRORA_FAIL_ON"))
            options = AuditOptions.from_settings(self.settings)
            store = FactStore()
            for name in args:
                with open(name, encoding="utf-8") as lines:
                    store.add_all(read_facts(lines, name))
            if opts.redis:
                from ..distributed.shared import facts_from_redis  # needs the redis client only here

                store.add_all(facts_from_redis(opts.redis, opts.key))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            detail = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else str(exc)
            print(f"qivrora: {detail}", file=sys.stderr)
            self.exitcode = USAGE_ERROR
            return
        context = AuditContext(store)
        findings, segments = options.audit(context)
        run = verdict(context)
        findings = run.handed_out(findings)
        outcome = RunOutcome(run.audited, list(run.lines), [str(segment) for segment in segments])
        feeds = feed_process_params_from_cli(self.settings, opts.output or [], overwrite_output=opts.overwrite_output)
        for uri, options in feeds.items():
            self._write(uri, options, findings, outcome)
        print(summary(findings, segments), file=sys.stderr)
        for line in run.lines:
            print(f"qivrora: {line}", file=sys.stderr)
        # Imported here, not at the top: Scrapy imports every command on start-up, `scrapy crawl` too,
        # and a crawl that writes no report would pay for its templates (jinja2).
        from ..report import write_outputs

        try:
            report, fixes = self.settings.get("QIVRORA_REPORT"), self.settings.get("QIVRORA_FIXES")
            docs = docs_url(self.settings.get("QIVRORA_DOCS_URL"))
            write_outputs(
                context, findings, report=report, fixes=fixes, audited=run.audited, notes=run.lines,
                segments=segments, docs_url=docs,
            )
        except OSError as exc:
            print(f"qivrora: cannot write the report or the fixes: {exc}", file=sys.stderr)
            self.exitcode = USAGE_ERROR
            return
        problem = unknown_segment(gated, outcome.segments)
        if problem:
            print(f"qivrora: {problem}", file=sys.stderr)
            self.exitcode = USAGE_ERROR
        elif not run.audited:
            self.exitcode = NOT_AUDITED
        elif level is not None and any(
            f.severity in at_or_above(level) and (gated is None or segment_of(segments, f) == gated) for f in findings
        ):
            self.exitcode = FINDINGS_FAILED

    def _write(self, uri: str, options: dict[str, object], findings: list[Finding], outcome: RunOutcome) -> None:
        assert self.settings is not None
        exporter_class = load_object(self.settings.getdict("FEED_EXPORTERS")[options["format"]])
        if issubclass(exporter_class, JUnitExporter):
            # A crawl's feeds build it from the crawler; here the settings and the facts are all it reads.
            exporter_class = partial(exporter_class, settings=self.settings, outcome=lambda: outcome)
        write_items(Path(uri.removeprefix("file://")), exporter_class, findings, append=not options.get("overwrite"))
