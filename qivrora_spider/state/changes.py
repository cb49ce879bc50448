"""What changed since the previous crawl of a site: findings new, persisting or resolved, and clusters.

Pure functions of two crawls, the previous one as the state kept it (``state.CrawlRecord``) and the
one just audited. A finding is the same defect across crawls when its check, URL, target, hreflang
value and source are the same: the message may mention dates or line numbers, and the cluster id
changes when a cluster loses its smallest URL, so neither takes part.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..extract.sitemap_parse import parse_w3c_datetime
from ..findings import CHANGES, Finding
from .store import CrawlRecord, Membership, Observation

if TYPE_CHECKING:
    from ..audit.core.context import AuditContext
    from ..facts import CrawlInfo

#: How many resolved findings and changed clusters the log lists (the files list all of them).
LOG_LINES = 20


def identity(finding: Finding) -> tuple[str, str, str, str, str]:
    return (finding.check, finding.url, finding.target, finding.hreflang, finding.source)


def membership(context: AuditContext) -> Membership:
    """Each cluster's members and the hreflang values the cluster gives each (from its incoming edges)."""
    graph = context.graph
    return {
        cluster: {
            url: sorted({value for source in graph.predecessors(url) for value in graph.declared(source)[url]})
            for url in members
        }
        for cluster, members in context.clusters.items()
    }


def latest_lastmod(context: AuditContext, url: str) -> str | None:
    """The latest valid `<lastmod>` any sitemap gives `url`, as written."""
    dated = [
        (parsed, entry.lastmod)
        for entry in context.entries_by_url.get(url, ())
        if entry.lastmod is not None and (parsed := parse_w3c_datetime(entry.lastmod)) is not None
    ]
    return max(dated)[1] if dated else None


def record_of(context: AuditContext, findings: list[Finding], crawl: CrawlInfo) -> CrawlRecord:
    """The crawl just audited, as the state keeps it: a content fingerprint for each page answering 200."""
    pages: dict[str, Observation] = {}
    for url, page in context.pages.items():
        if page.status is None:
            continue  # never answered: nothing seen
        fingerprint = page.fingerprint if page.status == 200 else None
        pages[url] = Observation(fingerprint, latest_lastmod(context, url) if fingerprint else None)
    return CrawlRecord(
        started=crawl.started,
        start_urls=list(crawl.start_urls),
        pages=pages,
        findings=list(findings),
        clusters=membership(context),
    )


@dataclass(frozen=True, slots=True)
class ClusterChange:
    """A cluster that appeared, disappeared, or whose members or their hreflang values changed."""

    cluster: str  # its id now (the id it had, when gone)
    change: str  # "new", "gone" or "changed"
    previous: str = ""  # its id at the previous crawl, when it had another one
    added: dict[str, list[str]] = field(default_factory=dict)  # member -> its hreflang values
    removed: dict[str, list[str]] = field(default_factory=dict)
    relabelled: dict[str, tuple[list[str], list[str]]] = field(
        default_factory=dict
    )  # member -> (before, now)

    def describe(self) -> str:
        def members(found: dict[str, list[str]]) -> str:
            return ", ".join(f"{url} [{' '.join(langs) or '-'}]" for url, langs in found.items())

        if self.change == "new":
            return f"cluster {self.cluster} is new: {members(self.added)}"
        if self.change == "gone":
            return f"cluster {self.cluster} is gone: it had {members(self.removed)}"
        parts = [f"added {members(self.added)}"] if self.added else []
        parts += [f"removed {members(self.removed)}"] if self.removed else []
        parts += [
            f"{url} is now [{' '.join(now) or '-'}], was [{' '.join(before) or '-'}]"
            for url, (before, now) in self.relabelled.items()
        ]
        was = f" (was {self.previous})" if self.previous else ""
        return f"cluster {self.cluster}{was} changed: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def cluster_changes(before: Membership, now: Membership) -> list[ClusterChange]:
    """Clusters are matched by id, else by the most members shared (an id follows the smallest URL)."""
    cluster_before = {url: cluster for cluster, members in before.items() for url in members}
    matched: dict[str, str] = {cluster: cluster for cluster in now if cluster in before}
    taken = set(matched.values())
    for cluster, members in sorted(now.items()):
        if cluster in matched:
            continue
        shared: dict[str, int] = {}
        for url in members:
            was = cluster_before.get(url)
            if was is not None and was not in now and was not in taken:
                shared[was] = shared.get(was, 0) + 1
        if shared:
            matched[cluster] = min(shared, key=lambda old: (-shared[old], old))
            taken.add(matched[cluster])
    found: list[ClusterChange] = []
    for cluster, members in sorted(now.items()):
        old_id = matched.get(cluster)
        if old_id is None:
            found.append(ClusterChange(cluster, "new", added=dict(members)))
            continue
        old = before[old_id]
        change = ClusterChange(
            cluster,
            "changed",
            previous=old_id if old_id != cluster else "",
            added={url: langs for url, langs in members.items() if url not in old},
            removed={url: langs for url, langs in old.items() if url not in members},
            relabelled={
                url: (old[url], langs) for url, langs in members.items() if url in old and old[url] != langs
            },
        )
        if change.added or change.removed or change.relabelled:
            found.append(change)
    gone = set(before) - taken
    found += [ClusterChange(cluster, "gone", removed=dict(before[cluster])) for cluster in sorted(gone)]
    return found


@dataclass(slots=True)
class Changes:
    """The crawl just audited against the previous one of its history (None: this is the first)."""

    previous: str | None  # when the previous crawl started
    counts: dict[str, int] = field(default_factory=dict)  # "new", "persisting", "resolved" -> how many
    resolved: list[Finding] = field(default_factory=list)  # change="resolved", sorted like findings
    clusters: list[ClusterChange] = field(default_factory=list)

    def summary(self) -> str:
        """For the log: counts, then the first resolved findings and changed clusters."""
        if self.previous is None:
            return "Qivrora changes: the first crawl of this site in the state; every finding is new."
        counts = ", ".join(f"{self.counts.get(kind, 0)} {kind}" for kind in CHANGES)
        lines = [
            f"Qivrora changes since the crawl of {self.previous}: {counts}; "
            f"{len(self.clusters)} cluster{'s' if len(self.clusters) != 1 else ''} changed"
        ]
        lines += [
            f"  resolved  {f.check} {f.name}  {f.url}{' -> ' + f.target if f.target else ''}"
            for f in self.resolved[:LOG_LINES]
        ]
        lines += [f"  {change.describe()}" for change in self.clusters[:LOG_LINES]]
        left = max(len(self.resolved) - LOG_LINES, 0) + max(len(self.clusters) - LOG_LINES, 0)
        if left:
            lines.append(
                f"  ... and {left} more (QIVRORA_RESOLVED and QIVRORA_CLUSTER_CHANGES list them all)"
            )
        return "\n".join(lines)


def compare(previous: CrawlRecord | None, findings: list[Finding], clusters: Membership) -> Changes:
    """Mark each finding `new` or `persisting` (in place), and list what the previous crawl had and this
    one has not: resolved findings and changed clusters."""
    before = {identity(f): f for f in reversed(previous.findings)} if previous else {}
    for finding in findings:
        finding.change = "persisting" if identity(finding) in before else "new"
    changes = Changes(previous.started if previous else None)
    if previous is not None:
        now = {identity(f) for f in findings}
        changes.resolved = sorted(
            (dataclasses.replace(f, change="resolved") for key, f in before.items() if key not in now),
            key=Finding.sort_key,
        )
        changes.clusters = cluster_changes(previous.clusters, clusters)
    marks = Counter(f.change for f in findings)
    changes.counts = {kind: marks[kind] for kind in CHANGES} | {"resolved": len(changes.resolved)}
    return changes
