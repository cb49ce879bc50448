"""The check catalogue, generated from the code: each check registers its id, name, severity and docs.

A check is a generator function that yields ``Hit``s; the registry turns a hit into a ``Finding``
with the check's id, name and (configured) severity, so no check repeats them. A site check reads
the whole audit context; a cluster check (``per_cluster=True``) asks its question of one cluster's
networkx graph at a time (``cluster_graph``), so that the audit builds each cluster's graph once for
all of them and memory is bounded by the largest cluster, not by the site.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:
    from .cluster_graph import ClusterGraph
    from .context import AuditContext

SEVERITIES = ("error", "warning", "notice")


@dataclass(frozen=True, slots=True)
class Hit:
    """What a check found; the registry adds id, name, severity and (by default) the cluster."""

    url: str
    message: str
    target: str = ""
    hreflang: str = ""
    source: str = ""
    cluster: str | None = None  # None: the cluster of `url`, if it has one


SiteCheck = Callable[["AuditContext"], Iterable[Hit]]
ClusterCheck = Callable[["AuditContext", "ClusterGraph"], Iterable[Hit]]
CheckFunction = SiteCheck | ClusterCheck


@dataclass(frozen=True, slots=True)
class Check:
    """A check and its documentation: the docs site, `qivrora explain` and the report all read it."""

    id: str
    name: str
    severity: str
    family: str
    why: str
    example: str
    fix: str
    run: CheckFunction
    # The version the check ships in, written out: it is a preview in that minor release and stable from
    # the next (catalogue.status). No default: the running version would move it along at every release.
    since: str
    per_cluster: bool = False
    failing: str = ""  # markup (HTML, sitemap XML, robots.txt, a command) that the check reports
    fixed: str = ""  # the same markup, fixed
    precedence: str = ""  # how it stands with the neighbouring checks that see the same defect


CHECKS: dict[str, Check] = {}


def check(
    id: str,
    name: str,
    severity: str,
    *,
    why: str,
    example: str,
    fix: str,
    per_cluster: bool = False,
    failing: str = "",
    fixed: str = "",
    precedence: str = "",
    since: str,
) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check; its family is the module it lives in (``values``, ``graph``, ...).

    ``per_cluster``: the function takes ``(ctx, graph)``, one cluster's graph, and is called once per
    cluster; its hits belong to that cluster unless they say otherwise.
    """
    if severity not in SEVERITIES:
        raise ValueError(f"{id}: unknown severity {severity!r}")

    def register(function: CheckFunction) -> CheckFunction:
        if id in CHECKS:
            raise ValueError(f"check {id} registered twice")
        family = function.__module__.rsplit(".", 1)[-1]
        CHECKS[id] = Check(
            id,
            name,
            severity,
            family,
            why.strip(),
            example.strip(),
            fix.strip(),
            function,
            since,
            per_cluster,
            failing.strip("\n"),
            fixed.strip("\n"),
            precedence.strip(),
        )
        return function

    return register
