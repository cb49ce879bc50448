"""The audit: a pure function of the facts, ``audit(facts) -> findings``. No network, no Scrapy."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..findings import Finding
from . import checks  # noqa: F401  (registers every check)
from .core.cluster_graph import cluster_graphs
from .core.context import AuditContext
from .core.fact_store import FactStore
from .core.registry import CHECKS, SEVERITIES, Check, Hit
from . import processes as shared_processes

__all__ = ["audit", "audit_beside", "AuditContext", "CHECKS", "Check", "Finding", "resolve_settings"]


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
    processes: int = 1,
) -> list[Finding]:
    """Every finding of every enabled check, sorted (severity, check, url, target, hreflang).

    Pass an ``AuditContext`` to keep the graph for the report after the audit. ``processes`` above 1
    shares the checks out between this process and forked ones (``audit.processes``): the same
    findings, sooner where cores are idle; below ``MIN_SHARED_FACTS`` facts the audit stays in this
    process.
    """
    return audit_beside(facts, (), severity=severity, disable=disable, now=now, processes=processes)[0]


def audit_beside(
    facts: AuditContext | FactStore | Iterable[Any],
    beside: Sequence[Callable[[AuditContext], Any]],
    *,
    severity: Mapping[str, str] | None = None,
    disable: Iterable[str] | None = None,
    now: datetime | None = None,
    processes: int = 1,
) -> tuple[list[Finding], list[Any]]:
    """``audit()``, and what each of `beside` derives from the same facts (the segments of the
    summary, say), computed as parts of the audit: by the processes that share it, not after it."""
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
    enabled = [check for check in sorted(CHECKS.values(), key=lambda c: c.id) if check.id not in disabled]
    parts = AuditParts(context, enabled, overrides, processes, beside)
    if processes > 1 and len(parts) > 1 and len(context.store) >= shared_processes.MIN_SHARED_FACTS:
        context.cluster_of  # what most parts read, built once before the processes part, not in each
        done = shared_processes.run_shared(len(parts), parts.run, processes)
    else:
        done = [parts.run(part) for part in range(len(parts))]
    return parts.merged(done[len(beside):]), done[:len(beside)]


class AuditParts:
    """The audit cut into parts that any process can run: what is derived beside it (``beside``,
    first: the processes that take them have the checks left to balance them), the site checks of
    each family (a module: its checks share what they derive from the facts, ``per_audit``), then
    the cluster checks over consecutive runs of clusters. A part's findings depend on the facts
    alone, and each check's findings come from one part, or from the runs in cluster order: merged
    in part order, they are the findings of one process."""

    #: Runs of clusters for each process: the last parts are small, so that the processes finish
    #: together rather than one waiting on another's last big part.
    CLUSTER_PARTS_PER_PROCESS = 8

    def __init__(
        self,
        context: AuditContext,
        enabled: list[Check],
        overrides: Mapping[str, str],
        processes: int = 1,
        beside: Sequence[Callable[[AuditContext], Any]] = (),
    ) -> None:
        self.context = context
        self.beside = beside
        self.overrides = overrides
        families: dict[str, list[Check]] = {}
        for check in enabled:
            if not check.per_cluster:
                families.setdefault(check.family, []).append(check)
        self.site = list(families.values())
        self.per_cluster = [check for check in enabled if check.per_cluster]
        self.runs: list[list[tuple[str, list[str]]]] = []
        if self.per_cluster:
            clusters = list(context.clusters.items())
            size = max(1, -(-len(clusters) // (self.CLUSTER_PARTS_PER_PROCESS * max(1, processes))))
            self.runs = [clusters[start:start + size] for start in range(0, len(clusters), size)]

    def __len__(self) -> int:
        return len(self.beside) + len(self.site) + len(self.runs)

    def run(self, part: int) -> Any:
        """What one part derives, or its findings in the order its checks yield them (duplicates
        included)."""
        if part < len(self.beside):
            return self.beside[part](self.context)
        part -= len(self.beside)
        found: list[Finding] = []
        if part < len(self.site):
            for check in self.site[part]:
                self._add(found, check, check.run(self.context))  # type: ignore[call-arg]
            return found
        # Each cluster's graph is built once for all the cluster checks, and dropped before the next one.
        for graph in cluster_graphs(self.context, self.runs[part - len(self.site)]):
            for check in self.per_cluster:
                self._add(found, check, check.run(self.context, graph), graph.cluster)  # type: ignore[call-arg]
        return found

    def _add(self, found: list[Finding], check: Check, hits: Iterable[Hit], cluster: str | None = None) -> None:
        level = self.overrides.get(check.id, check.severity)
        for hit in hits:
            where = hit.cluster if hit.cluster is not None else cluster or self.context.cluster_of.get(hit.url, "")
            found.append(Finding(
                check.id, check.name, level, hit.url, hit.target, hit.hreflang, hit.source, where, hit.message
            ))

    @staticmethod
    def merged(parts: Iterable[list[Finding]]) -> list[Finding]:
        """The parts' findings, sorted; one row per defect: a check that meets the same defect twice
        reports it once (the first time, in part order)."""
        found: dict[tuple[str, ...], Finding] = {}
        for findings in parts:
            for finding in findings:
                key = (finding.check, finding.url, finding.target, finding.hreflang, finding.source, finding.message)
                found.setdefault(key, finding)
        return sorted(found.values(), key=Finding.sort_key)
