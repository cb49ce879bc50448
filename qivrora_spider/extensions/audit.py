"""The closing extension: keep the facts compactly, audit when the crawl is done, hand out findings.

When the crawl runs dry it asks the other components (``crawl_settling``) whether they have work
left, e.g. statuses to collect; only when a round queues nothing does it run the audit, with the
previous crawl of the site from the crawl state (``history``). The findings then travel as items
through one last ``data:`` request, so feeds export them like any item, sorted, after every fact.
With JOBDIR the facts are kept there as they arrive (``jobdir``), so a paused crawl keeps them.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy import Request, Spider, signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.job import job_dir

from ..audit import AuditContext, audit_beside, resolve_settings
from ..audit.core.fact_store import FactStore
from ..audit.processes import usable_cores
from ..audit.core.starts import Verdict, unusable_starts, verdict
from ..audit.core.url_segments import Segment, count_by_segment, parse_segments, site_segments
from ..catalogue import docs_url
from ..facts import FACT_TYPES
from ..findings import SEVERITY_RANK, Finding
from ..outcome import (
    INTERRUPTED, NO_START_STAT, NOT_AUDITED, SEGMENT_COUNT_STAT, SEGMENTS_STAT, SUMMARY_STAT, record, recorded,
)
from ..signals import audit_items, crawl_settling
from ..state.history import CrawlHistory
from ..state.jobdir import FactLog

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from ..state.changes import Changes

logger = logging.getLogger(__name__)


def audit_settings(settings: Any) -> tuple[dict[str, str], set[str]]:
    """QIVRORA_SEVERITY (a dict, or JSON from -s) and QIVRORA_DISABLE, checked; ValueError if wrong.
    QIVRORA_DOCS_URL is checked here too, so that a wrong one stops the run before any request."""
    docs_url(settings.get("QIVRORA_DOCS_URL"))
    value = settings.get("QIVRORA_SEVERITY")
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError:
            raise ValueError(f"QIVRORA_SEVERITY: {value!r} is not JSON like '{{\"HL109\": \"warning\"}}'") from None
    if not isinstance(value, dict):
        raise ValueError("QIVRORA_SEVERITY must map check ids to severities")
    severity = {str(k).upper(): str(v).lower() for k, v in value.items()}
    return resolve_settings(severity, settings.getlist("QIVRORA_DISABLE"))


def audit_processes(settings: Any) -> int:
    """QIVRORA_AUDIT_PROCESSES, checked (ValueError if wrong), capped by the cores this process may use."""
    try:
        wanted = int(settings.get("QIVRORA_AUDIT_PROCESSES"))
    except (TypeError, ValueError):
        wanted = 0
    if wanted < 1:
        raise ValueError(
            f"QIVRORA_AUDIT_PROCESSES: {settings.get('QIVRORA_AUDIT_PROCESSES')!r} is not a whole number of at least 1"
        )
    return min(wanted, usable_cores())


def segment_settings(settings: Any) -> tuple[Segment, ...]:
    """QIVRORA_SEGMENTS (``NAME=PATTERN`` each), checked; ValueError if wrong."""
    return parse_segments(settings.getlist("QIVRORA_SEGMENTS"))


@dataclass(frozen=True)
class AuditOptions:
    """What the settings ask of an audit, checked once (ValueError names a wrong one): by the crawl
    command before the crawl starts, by the crawl's audit, and by ``hreflang-report``."""

    severity: dict[str, str]
    disabled: set[str]
    processes: int
    given_segments: tuple[Segment, ...]

    @classmethod
    def from_settings(cls, settings: Any) -> AuditOptions:
        severity, disabled = audit_settings(settings)
        return cls(severity, disabled, audit_processes(settings), segment_settings(settings))

    def audit(self, context: AuditContext) -> tuple[list[Finding], tuple[Segment, ...]]:
        """The findings, and the segments the summary counts by (given, or learned beside the audit)."""
        given = self.given_segments
        findings, (segments,) = audit_beside(
            context, (lambda context: site_segments(context, given),),
            severity=self.severity, disable=self.disabled, processes=self.processes,
        )
        return findings, segments


class AuditExtension:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.store = FactStore()
        self.findings: list[Finding] | None = None
        self.context: AuditContext | None = None
        self.verdict = Verdict()
        self.options = AuditOptions.from_settings(crawler.settings)
        #: The segments the summary, the report and JUnit count by: given, or learned from the clusters.
        self.segments: tuple[Segment, ...] = ()
        self.history = CrawlHistory(crawler.settings)
        #: Since the previous crawl (None without a crawl state): resolved findings, changed clusters.
        self.changes: Changes | None = None
        jobdir = job_dir(crawler.settings)
        self.fact_log = FactLog(jobdir) if jobdir else None
        if self.fact_log is not None:
            self.store.add_all(self.fact_log.load())
            if len(self.store):
                logger.info("Resuming the crawl in %s with %d facts gathered before", jobdir, len(self.store))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        extension = cls(crawler)
        crawler.signals.connect(extension.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(extension.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(extension.hand_out, signal=audit_items)
        return extension

    def item_scraped(self, item: Any) -> None:
        if isinstance(item, FACT_TYPES):
            if self.fact_log is not None:
                self.fact_log.append(item)
            self.store.add(item)

    def spider_idle(self, spider: Spider) -> None:
        if self.findings is not None:
            return  # audited and handed out: the crawl may close
        if self.settle():
            raise DontCloseSpider
        self.run_audit(spider)
        raise DontCloseSpider

    def settle(self) -> int:
        """One ``crawl_settling`` round: how many requests the components queued."""
        return sum(
            result
            for _, result in self.crawler.signals.send_catch_log(crawl_settling)
            if isinstance(result, int)
        )

    def run_audit(self, spider: Spider) -> None:
        """Audit the facts in the store, write the report and the fixes, and queue the request that
        hands the findings out."""
        crawl_info = getattr(spider, "crawl_info", None)
        if crawl_info is not None:
            self.store.add(crawl_info)
        logger.info("Auditing %d URLs and sitemap entries", len(self.store))
        previous = self.history.load_previous(crawl_info) if crawl_info is not None else None
        started = time.perf_counter()
        self.context = AuditContext(self.store, previous=previous)
        findings, self.segments = self.options.audit(self.context)
        seconds = time.perf_counter() - started
        logger.info("Audit done in %.1f s: %d findings to hand out", seconds, len(findings))
        self.findings = self._judge_run(self.context, findings)
        self._count(self.findings)
        self._write_outputs(self.context, self.findings)
        self.crawler.engine.crawl(
            Request(
                "data:,",
                callback=spider.parse_audit,  # type: ignore[attr-defined]
                meta={"dont_obey_robotstxt": True},
                dont_filter=True,
            )
        )

    def _judge_run(self, context: AuditContext, findings: list[Finding]) -> list[Finding]:
        """What the run saw: a run whose starts all failed is no audit, and hands out their CR001 rows
        alone; one whose pages mostly failed is an outage. Either exits with status 3 and is not the
        crawl state's new baseline; what the previous crawl found where this one could not see is
        unknown, not resolved."""
        stats = self.crawler.stats
        self.verdict = verdict(context)
        for start, problem in unusable_starts(context).items():
            logger.error("Start %s could not be used: %s (CR001)", start, problem)
        if not self.verdict.audited:
            for line in self.verdict.lines:
                record(stats, NOT_AUDITED, line)
            stats.set_value(NO_START_STAT, True)
            logger.error(self.verdict.lines[0])
            # The previous crawl's findings stay, unknown: an unreachable site is not a fixed one.
            findings = self.verdict.handed_out(findings)
            self.changes = self.history.compare(context, findings, outage=True)
            if self.changes is not None and self.changes.unknown_line():
                logger.warning("Qivrora changes: %s", self.changes.unknown_line())
            return sorted([*findings, *(self.changes.unknown if self.changes else [])], key=Finding.sort_key)
        if self.verdict.partial:
            logger.warning(" ".join(self.verdict.lines))
        self.changes = self.history.compare(context, findings)
        if self.changes is None:
            return findings
        if self.changes.unknown_line():
            logger.warning("Qivrora changes: %s", self.changes.unknown_line())
        if self.changes.outage:
            reason = (
                f"outage: {self.changes.unreached:,} pages with content at earlier crawls could not be "
                "fetched; the crawl state keeps the previous crawl as its baseline"
            )
            record(stats, NOT_AUDITED, reason)
            logger.error("Qivrora: %s", reason)
        return sorted([*findings, *self.changes.unknown], key=Finding.sort_key)

    def hand_out(self) -> list[Any]:
        """Facts that only exist at the end (CrawlInfo), then the findings in their sorted order.

        Nothing before the audit: a request queued by a crawl paused right after its audit reaches
        the resumed crawl, which audits again.
        """
        if self.findings is None:
            return []
        crawl_info = getattr(self.crawler.spider, "crawl_info", None)
        return [*([crawl_info] if crawl_info is not None else []), *self.findings]

    def _write_outputs(self, context: AuditContext, findings: list[Finding]) -> None:
        """QIVRORA_REPORT and QIVRORA_FIXES; a file that cannot be written must not cost the feeds."""
        report, fixes = self.crawler.settings.get("QIVRORA_REPORT"), self.crawler.settings.get("QIVRORA_FIXES")
        if not (report or fixes):
            return
        # Imported only when asked: its templates (jinja2) cost every crawl about 0.1 s of start-up.
        from ..report import write_outputs

        notes = [*self.verdict.lines, *([self.changes.unknown_line()] if self.changes else [])]
        try:
            for path in write_outputs(
                context, findings, report=report, fixes=fixes, audited=self.verdict.audited, notes=notes,
                segments=self.segments, docs_url=docs_url(self.crawler.settings.get("QIVRORA_DOCS_URL")),
            ):
                logger.info("Qivrora wrote %s", path)
        except OSError as exc:
            logger.error("Qivrora could not write the report or the fixes: %s", exc)

    def _count(self, findings: list[Finding]) -> None:
        stats = self.crawler.stats
        stats.set_value("qivrora/findings", len(findings))
        # Counted, then set once each: not two stats calls per finding while the hand-out waits.
        severities = Counter(finding.severity for finding in findings)
        for severity in SEVERITY_RANK:
            stats.set_value(f"qivrora/findings/{severity}", severities[severity])
        for check, count in Counter(finding.check for finding in findings).items():
            stats.set_value(f"qivrora/findings/{check}", count)
        stats.set_value("qivrora/clusters", len({f.cluster for f in findings if f.cluster}))
        stats.set_value(SEGMENTS_STAT, [str(segment) for segment in self.segments])
        for name, severities in count_by_segment(findings, self.segments).items():
            for severity, count in severities.items():
                if name is not None:
                    stats.set_value(f"{SEGMENT_COUNT_STAT}/{name}/{severity}", count)

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.fact_log is not None:
            self.fact_log.close()
        stats = self.crawler.stats
        if self.findings is None and self.fact_log is not None and reason == "shutdown":
            record(stats, INTERRUPTED, "the crawl was paused before the audit: run it again with the same JOBDIR")
            logger.info("The crawl was paused before the audit: run it again with the same JOBDIR to go on.")
            return
        if self.findings is None:
            status = INTERRUPTED if reason == "shutdown" else NOT_AUDITED
            record(stats, status, f"the crawl ended ({reason}) before the audit: nothing was written")
            logger.error(
                "The crawl ended (%s) before the audit: no findings were produced, and no output "
                "replaces the previous one.",
                reason,
            )
            return
        stats.set_value(SUMMARY_STAT, summary(self.findings, self.segments))
        if not self.crawler.settings.getbool("QIVRORA_SUMMARY_LAST"):
            logger.info(stats.get_value(SUMMARY_STAT))
        if reason == "finished" and self.context is not None and recorded(stats.get_stats()) is None:
            self.history.record(self.context, self.findings, spider.crawl_info)  # type: ignore[attr-defined]


def summary(findings: list[Finding], segments: tuple[Segment, ...] = (), top: int = 5) -> str:
    """Counts per severity and per check, the clusters with most errors, and the findings per segment."""
    if not findings:
        return "Qivrora audit: no findings."
    severities = Counter(f.severity for f in findings)
    checks = Counter(f"{f.check} {f.name}" for f in findings)
    clusters = Counter(f.cluster for f in findings if f.cluster and f.severity == "error")
    lines = [
        "Qivrora audit: "
        + ", ".join(f"{severities[s]} {s}{'s' if severities[s] != 1 else ''}" for s in SEVERITY_RANK if severities[s])
    ]
    lines += [f"  {count:6d}  {name}" for name, count in sorted(checks.items())]
    if clusters:
        lines.append("Clusters with most errors:")
        lines += [f"  {count:6d}  {cluster}" for cluster, count in clusters.most_common(top)]
    if segments:
        lines.append("By segment:")
        for name, severities in count_by_segment(findings, segments).items():
            counts = ", ".join(f"{severities[s]} {s}{'s' if severities[s] != 1 else ''}" for s in SEVERITY_RANK if severities[s])
            lines.append(f"  {name or '(in none)':12}  {counts or 'no findings'}")
    return "\n".join(lines)
