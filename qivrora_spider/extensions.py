"""The closing extension: keep the facts compactly, audit when the crawl is done, hand out findings.

When the crawl runs dry it asks the other components (``crawl_settling``) whether they have work
left, e.g. statuses to collect; only when a round queues nothing does it run the audit. The
findings then travel as items through one last ``data:`` request, so feeds export them like any
item, sorted, after every fact.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from typing import TYPE_CHECKING, Any, Iterator

from scrapy import Request, Spider, signals
from scrapy.exceptions import DontCloseSpider

from .audit import AuditContext, audit, resolve_settings
from .fact_store import FactStore
from .facts import FACT_TYPES
from .findings import SEVERITY_RANK, Finding
from .signals import crawl_settling

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

logger = logging.getLogger(__name__)


def audit_settings(settings: Any) -> tuple[dict[str, str], set[str]]:
    """QIVRORA_SEVERITY (a dict, or JSON from -s) and QIVRORA_DISABLE, checked; ValueError if wrong."""
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


class AuditExtension:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.store = FactStore()
        self.findings: list[Finding] | None = None
        self.context: AuditContext | None = None
        self.severity, self.disabled = audit_settings(crawler.settings)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        extension = cls(crawler)
        crawler.signals.connect(extension.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(extension.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def item_scraped(self, item: Any) -> None:
        if isinstance(item, FACT_TYPES):
            self.store.add(item)

    def spider_idle(self, spider: Spider) -> None:
        if self.findings is not None:
            return  # audited and handed out: the crawl may close
        queued = sum(
            result
            for _, result in self.crawler.signals.send_catch_log(crawl_settling)
            if isinstance(result, int)
        )
        if queued:
            raise DontCloseSpider
        crawl_info = getattr(spider, "crawl_info", None)
        if crawl_info is not None:
            self.store.add(crawl_info)
        self.context = AuditContext(self.store)
        self.findings = audit(self.context, severity=self.severity, disable=self.disabled)
        self._count(self.findings)
        self.crawler.engine.crawl(
            Request("data:,", callback=self.hand_out, meta={"dont_obey_robotstxt": True}, dont_filter=True)
        )
        raise DontCloseSpider

    def hand_out(self, response: Response) -> Iterator[Any]:
        """Facts that only exist at the end (CrawlInfo), then the findings in their sorted order."""
        crawl_info = getattr(self.crawler.spider, "crawl_info", None)
        if crawl_info is not None:
            yield crawl_info
        yield from self.findings or ()

    def _count(self, findings: list[Finding]) -> None:
        stats = self.crawler.stats
        stats.set_value("qivrora/findings", len(findings))
        for severity in SEVERITY_RANK:
            stats.set_value(f"qivrora/findings/{severity}", 0)
        for finding in findings:
            stats.inc_value(f"qivrora/findings/{finding.severity}")
            stats.inc_value(f"qivrora/findings/{finding.check}")
        stats.set_value("qivrora/clusters", len({f.cluster for f in findings if f.cluster}))

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.findings is None:
            logger.error(
                "The crawl ended (%s) before the audit: no findings were produced. "
                "Facts exported so far can be audited with `scrapy hreflang-report`.",
                reason,
            )
            return
        logger.info(summary(self.findings))


def summary(findings: list[Finding], top: int = 5) -> str:
    """Counts per severity and per check, and the clusters with most errors, for the log."""
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
    return "\n".join(lines)
