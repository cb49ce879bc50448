"""The audit: a pure function of the facts, ``audit(facts) -> findings``. No network, no Scrapy."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Mapping

from ..findings import Finding
from . import checks  # noqa: F401  (registers every check)
from .core.cluster_graph import cluster_graphs
from .core.context import AuditContext
from .core.fact_store import FactStore
from .core.registry import CHECKS, SEVERITIES, Check, Hit

__all__ = ["audit", "AuditContext", "CHECKS", "Check", "Finding", "resolve_settings"]


def resolve_settings(
    severity: Mapping[str, str] | None = None, disable: Iterable[str] | None = None
) -> tuple[dict[str, str], set[str]]:
    """Validate QIVRORA_SEVERITY / QIVRORA_DISABLE: an unknown id or severity is an error, not a no-op."""
    overrides = dict(severity or {})
    disabled = {item.strip().upper() for item in (disable or ()) if item.strip()}
    for check_id, level in overrides.items():
        if check_id not in CHECKS:
            raise ValueError(f"QIVRORA_SEVERITY names unknown check {check_id!r}")
        if level not in SEVERITIES:
            raise ValueError(f"QIVRORA_SEVERITY: {level!r} for {check_id} is not one of {', '.join(SEVERITIES)}")
    for check_id in disabled:
        if check_id not in CHECKS:
            raise ValueError(f"QIVRORA_DISABLE names unknown check {check_id!r}")
    return overrides, disabled


def audit(
    facts: AuditContext | FactStore | Iterable[Any],
    *,
    severity: Mapping[str, str] | None = None,
    disable: Iterable[str] | None = None,
    now: datetime | None = None,
) -> list[Finding]:
    """Every finding of every enabled check, sorted (severity, check, url, target, hreflang).

    Pass an ``AuditContext`` to keep the graph for the report after the audit.
    """
    overrides, disabled = resolve_settings(severity, disable)
    if isinstance(facts, AuditContext):
        context = facts
    else:
        if isinstance(facts, FactStore):
            store = facts
        else:
            store = FactStore()
            store.add_all(facts)
        context = AuditContext(store, now=now)
    found: dict[tuple[str, ...], Finding] = {}

    def add(check: Check, hits: Iterable[Hit], cluster: str | None = None) -> None:
        level = overrides.get(check.id, check.severity)
        for hit in hits:
            where = hit.cluster if hit.cluster is not None else cluster or context.cluster_of.get(hit.url, "")
            finding = Finding(
                check.id, check.name, level, hit.url, hit.target, hit.hreflang, hit.source, where, hit.message
            )
            # One row per defect: a check that meets the same defect twice reports it once.
            found.setdefault((check.id, hit.url, hit.target, hit.hreflang, hit.source, hit.message), finding)

    enabled = [check for check in sorted(CHECKS.values(), key=lambda c: c.id) if check.id not in disabled]
    for check in enabled:
        if not check.per_cluster:
            add(check, check.run(context))
    per_cluster = [check for check in enabled if check.per_cluster]
    if per_cluster:
        # Each cluster's graph is built once for all of them, and dropped before the next one.
        for graph in cluster_graphs(context):
            for check in per_cluster:
                add(check, check.run(context, graph), graph.cluster)
    return sorted(found.values(), key=Finding.sort_key)
