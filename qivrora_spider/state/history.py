"""The crawl state as a crawl uses it: the previous crawl before the audit, the changes after it,
and the new run recorded when the crawl has finished.

The audit never reads the state itself: the previous crawl is handed to it like the facts. A state
that cannot be read or written costs the comparison, never the findings: it is logged and the crawl
goes on without it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.exporters import JsonLinesItemExporter
from scrapy.utils.misc import load_object

from ..feeds.exporters import write_items
from .changes import Changes, compare, membership, reach_of, record_of
from .store import CrawlRecord, StateError, StateStore, history_key

if TYPE_CHECKING:
    from ..audit.core.context import AuditContext
    from ..facts import CrawlInfo
    from ..findings import Finding

logger = logging.getLogger(__name__)

#: QIVRORA_RESOLVED is written in the findings table's format its name ends with.
RESOLVED_FORMATS = {".csv": "csv", ".jsonl": "jsonlines", ".jl": "jsonlines", ".json": "json"}


class CrawlHistory:
    def __init__(self, settings: Any) -> None:
        """Reads QIVRORA_STATE, QIVRORA_RESOLVED and QIVRORA_CLUSTER_CHANGES; ValueError if wrong."""
        state = setting_path(settings, "QIVRORA_STATE")
        self.store = StateStore(state) if state else None
        self.resolved_path = setting_path(settings, "QIVRORA_RESOLVED")
        self.clusters_path = setting_path(settings, "QIVRORA_CLUSTER_CHANGES")
        #: Only a crawl state compares crawls, and so only it can tell an outage.
        self.outage_share = settings.getfloat("QIVRORA_OUTAGE_SHARE") if self.store else 1.0
        if not 0 < self.outage_share <= 1:
            raise ValueError(f"QIVRORA_OUTAGE_SHARE: {self.outage_share} is not a share above 0 and at most 1")
        self.resolved_exporter: type | None = None
        if self.resolved_path is not None:
            format = RESOLVED_FORMATS.get(self.resolved_path.suffix.lower())
            if format is None:
                endings = ", ".join(RESOLVED_FORMATS)
                raise ValueError(f"QIVRORA_RESOLVED: {str(self.resolved_path)!r} should end with {endings}")
            self.resolved_exporter = load_object(settings.getdict("FEED_EXPORTERS")[format])
        if self.store is None and (self.resolved_path or self.clusters_path):
            raise ValueError(
                "QIVRORA_RESOLVED and QIVRORA_CLUSTER_CHANGES need a crawl state (QIVRORA_STATE)"
            )
        self.key: str | None = None
        self.previous: CrawlRecord | None = None
        self.changes: Changes | None = None

    def load_previous(self, crawl: CrawlInfo) -> CrawlRecord | None:
        """The previous crawl of this history, read before the audit (None: first crawl, or no state)."""
        if self.store is None:
            return None
        self.key = history_key(crawl.start_urls, crawl.scope)
        try:
            self.previous = self.store.previous(self.key)
        except StateError as exc:
            logger.error("Qivrora could not read the crawl state, so nothing is compared: %s", exc)
            self.store = None
        return self.previous

    def compare(self, context: AuditContext, findings: list[Finding], *, outage: bool = False) -> Changes | None:
        """Mark the findings new or persisting; resolved and unknown findings, changed clusters.

        ``outage``: the crawl saw nothing (no usable start), so every previous finding is unknown.
        """
        if self.store is None:
            return None
        self.changes = compare(
            self.previous, findings, membership(context), reach_of(context), self.outage_share, outage=outage
        )
        return self.changes

    def record(self, context: AuditContext, findings: list[Finding], crawl: CrawlInfo) -> None:
        """The finished crawl: the changes in the log and their files, the new run in one transaction."""
        if self.store is None or self.key is None or self.changes is None:
            return
        logger.info(self.changes.summary())
        try:
            if self.resolved_path is not None and self.resolved_exporter is not None:
                write_items(self.resolved_path, self.resolved_exporter, self.changes.resolved)
                logger.info("Qivrora wrote %s", self.resolved_path)
            if self.clusters_path is not None:
                write_items(
                    self.clusters_path, JsonLinesItemExporter, (c.to_dict() for c in self.changes.clusters)
                )
                logger.info("Qivrora wrote %s", self.clusters_path)
        except OSError as exc:
            logger.error("Qivrora could not write the changes since the previous crawl: %s", exc)
        finished = datetime.now(timezone.utc).isoformat(timespec="seconds")
        try:
            run = self.store.save(self.key, record_of(context, findings, crawl), finished)
        except StateError as exc:
            logger.error("Qivrora could not record this crawl in the crawl state: %s", exc)
            return
        logger.info("Qivrora recorded this crawl as run %d in %s", run, self.store.path.absolute())


def setting_path(settings: Any, name: str) -> Path | None:
    """The file a path setting names; None where it is empty (`-s QIVRORA_STATE=` keeps no state)."""
    value = str(settings.get(name) or "").strip()
    return Path(value) if value else None
