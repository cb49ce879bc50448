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
    from ..facts import CrawlInfo, Page, SitemapFile, TargetStatus

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
    counts: dict[str, int] = field(default_factory=dict)  # each of CHANGES -> how many
    resolved: list[Finding] = field(default_factory=list)  # change="resolved", sorted like findings
    #: change="unknown": the previous crawl's findings on pages this crawl could not fetch, kept.
    unknown: list[Finding] = field(default_factory=list)
    #: Pages with content at an earlier crawl that this crawl could not fetch.
    unreached: int = 0
    #: Most of the site could not be fetched (``outage_share``): the crawl is no baseline.
    outage: bool = False
    clusters: list[ClusterChange] = field(default_factory=list)

    def unknown_line(self) -> str:
        """`412 findings unknown: 1,080 pages could not be fetched`, or "" when none is."""
        if not self.unknown and not self.unreached:
            return ""
        count = len(self.unknown)
        return (
            f"{count:,} finding{'s' if count != 1 else ''} unknown: {self.unreached:,} "
            f"page{'s' if self.unreached != 1 else ''} could not be fetched"
        )

    def summary(self) -> str:
        """For the log: counts, then the first resolved findings and changed clusters."""
        if self.previous is None:
            return "Qivrora changes: the first crawl of this site in the state; every finding is new."
        counts = ", ".join(f"{self.counts.get(kind, 0)} {kind}" for kind in CHANGES)
        lines = [
            f"Qivrora changes since the crawl of {self.previous}: {counts}; "
            f"{len(self.clusters)} cluster{'s' if len(self.clusters) != 1 else ''} changed"
        ]
        if self.unknown_line():
            lines.append(f"  {self.unknown_line()}")
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


#: What a URL left out for these reasons says is known: robots.txt forbids it, or it is internal.
_KNOWN_LEFT_OUT = ("robots", "private")


@dataclass(frozen=True, slots=True)
class Reach:
    """What this crawl could not see: the URLs it failed to fetch (no answer, a 5xx, left out by a
    limit or an interruption), and whether anything else it never reached may lie behind them."""

    failed: frozenset[str]
    seen: frozenset[str]
    incomplete: bool

    def unsure_of(self, url: str) -> bool:
        """Whether this crawl cannot tell what `url` is now."""
        if not url:
            return False
        return url in self.failed or (self.incomplete and url not in self.seen)


def _failed(record: Page | TargetStatus | SitemapFile) -> bool:
    """No answer, a server error, or left out unexamined (a limit, an interruption)."""
    left_out = getattr(record, "not_examined", None)
    return bool(record.error) or (record.status or 0) >= 500 or (left_out or "robots") not in _KNOWN_LEFT_OUT


def reach_of(context: AuditContext) -> Reach:
    """What the crawl just audited could not see."""
    store = context.store
    records = (*store.pages.items(), *store.statuses.items(), *store.sitemaps.items())
    failed = frozenset(url for url, record in records if _failed(record))
    seen = frozenset(url for url, _ in records)
    return Reach(failed, seen, bool(failed or store.limits_reached))


def compare(
    previous: CrawlRecord | None,
    findings: list[Finding],
    clusters: Membership,
    reach: Reach | None = None,
    outage_share: float = 1.0,
    *,
    outage: bool = False,
) -> Changes:
    """Mark each finding `new` or `persisting` (in place), and list what the previous crawl had and this
    one has not: resolved findings, unknown ones and changed clusters.

    A previous finding this crawl did not make is resolved only where the crawl could see: on a page
    it failed to fetch (or never reached, behind such a page or a limit) it is unknown, and kept for
    the next crawl. Where the pages with content at earlier crawls that this crawl failed to fetch are
    `outage_share` or more of those it asked for, the crawl is an outage: nothing it did not make is
    resolved, and it is no baseline for the next one; ``outage`` says so from the start (no start of
    the crawl could be used).
    """
    before = {identity(f): f for f in reversed(previous.findings)} if previous else {}
    for finding in findings:
        finding.change = "persisting" if identity(finding) in before else "new"
    changes = Changes(previous.started if previous else None)
    if previous is not None:
        reach = reach or Reach(frozenset(), frozenset(), False)
        had_content = previous.pages.keys()
        # No start could be used (``outage``): none of the pages with content could be fetched.
        unreached = len(had_content) if outage else sum(1 for url in reach.failed if url in had_content)
        asked = sum(1 for url in reach.seen if url in had_content)
        changes.unreached = unreached
        changes.outage = outage or (bool(asked) and unreached / asked >= outage_share)
        now = {identity(f) for f in findings}
        for key, finding in before.items():
            if key in now:
                continue
            unsure = changes.outage or reach.unsure_of(finding.url) or reach.unsure_of(finding.target)
            kept = dataclasses.replace(finding, change="unknown" if unsure else "resolved")
            (changes.unknown if unsure else changes.resolved).append(kept)
        changes.resolved.sort(key=Finding.sort_key)
        changes.unknown.sort(key=Finding.sort_key)
        # What an outage could not see of the clusters is unknown too, not gone.
        changes.clusters = [] if changes.outage else cluster_changes(previous.clusters, clusters)
    marks = Counter(f.change for f in findings)
    changes.counts = {kind: marks[kind] for kind in CHANGES} | {
        "resolved": len(changes.resolved),
        "unknown": len(changes.unknown),
    }
    return changes
