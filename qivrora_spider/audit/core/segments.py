"""Locale segments: the part of a URL that goes with an hreflang value, learned from the site's clusters.

A site puts its languages somewhere: a path prefix (`/de/`), a subdomain (`de.example.com`) or a host
(`example.de`), with one language often at the root. Which, it says itself: its cluster members carry
their values. A segment is an origin and a first folder (`/de/`), or an origin's root (every path
whose first folder is no learned segment); a subdomain or host is the root of its origin. It is
learned where one value goes with at least 90 % of the cluster members in it, over at least three
clusters: a list of language codes would take `/it/` (IT department) for Italian and miss `/intl/`.

``learn_locale_segments`` is pure (members in, segments out) so that the report's coverage and other
readers learn the same segments as HL207 and HL208.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, NamedTuple

from ...extract.urls import normalised_origin
from .context import AuditContext, per_audit
from .written import X_DEFAULT

#: The share of a segment's members that must carry its value, and the clusters they must span.
SHARE = 0.9
CLUSTERS = 3


class Place(NamedTuple):
    """Where a URL sits: its origin, its first folder (None where its path has none), the path after it."""

    origin: str
    folder: str | None
    rest: str


def place_of(url: str) -> Place:
    """`https://ex.com/de/preise/?a=1` -> (`https://ex.com`, `de`, `preise/?a=1`)."""
    origin = normalised_origin(url)
    path = url[len(origin) + 1 :]
    folder, slash, rest = path.partition("/")
    if not slash or not folder or "?" in folder:
        return Place(origin, None, path)
    return Place(origin, folder, rest)


@dataclass(frozen=True, slots=True)
class Segment:
    origin: str
    folder: str | None  # None: the origin's root (a subdomain or host of its own, or the default language)
    value: str  # the hreflang value that goes with it, canonical

    @property
    def prefix(self) -> str:
        """The segment as a URL prefix: `https://ex.com/de/`, `https://de.ex.com/`."""
        return f"{self.origin}/{self.folder}/" if self.folder is not None else f"{self.origin}/"

    def url(self, rest: str) -> str:
        """The URL of `rest` under this segment."""
        return self.prefix + rest


class LocaleSegments:
    """The segments learned from a site, and in which one each URL sits."""

    def __init__(self, segments: Iterable[Segment]) -> None:
        self.segments = sorted(segments, key=lambda s: s.prefix)
        self._by_key = {(s.origin, s.folder): s for s in self.segments}

    def __bool__(self) -> bool:
        return bool(self.segments)

    def locate(self, url: str) -> tuple[Segment | None, str]:
        """The learned segment `url` sits in (None where its place is no learned segment) and the path
        after the segment: the part its translations share."""
        origin, folder, rest = place_of(url)
        if folder is not None and (found := self._by_key.get((origin, folder))) is not None:
            return found, rest
        path = f"{folder}/{rest}" if folder is not None else rest
        return self._by_key.get((origin, None)), path


def learn_locale_segments(members: Iterable[tuple[str, str, str]]) -> LocaleSegments:
    """Segments from cluster members given as (url, cluster, value): a folder or root whose members
    carry one value at least ``SHARE`` of the time, across at least ``CLUSTERS`` clusters."""
    listed = [(place_of(url), cluster, value) for url, cluster, value in members]
    folders = _learned(((place.origin, place.folder), cluster, value) for place, cluster, value in listed
                       if place.folder is not None)
    # The root of an origin holds the members whose first folder is not a learned segment.
    roots = _learned(
        ((place.origin, None), cluster, value)
        for place, cluster, value in listed
        if (place.origin, place.folder) not in folders
    )
    return LocaleSegments(Segment(origin, folder, value) for (origin, folder), value in {**folders, **roots}.items())


def _learned(
    members: Iterable[tuple[tuple[str, str | None], str, str]]
) -> dict[tuple[str, str | None], str]:
    values: dict[tuple[str, str | None], Counter[str]] = defaultdict(Counter)
    clusters: dict[tuple[str, str | None, str], set[str]] = defaultdict(set)
    for key, cluster, value in members:
        values[key][value] += 1
        clusters[(*key, value)].add(cluster)
    found = {}
    for key, counted in values.items():
        value, count = min(counted.items(), key=lambda item: (-item[1], item[0]))
        if count >= SHARE * sum(counted.values()) and len(clusters[(*key, value)]) >= CLUSTERS:
            found[key] = value
    return found


@per_audit
def member_values(ctx: AuditContext) -> dict[str, str]:
    """Each cluster member the site gives one value (x-default aside): URL -> that canonical value."""
    given: dict[str, set[str]] = defaultdict(set)
    for declared in ctx.graph.succ.values():
        for target, values in declared.items():
            given[target].update(values)
    found = {}
    for url, values in given.items():
        languages = values - {X_DEFAULT}
        if len(languages) == 1:
            found[url] = next(iter(languages))
    return found


@dataclass(frozen=True, slots=True)
class Coverage:
    """How many of a segment's crawled HTML pages answering 200 are cluster members."""

    segment: Segment | None  # None: pages in no learned segment
    pages: int
    in_cluster: int


def segment_coverage(ctx: AuditContext) -> list[Coverage]:
    """Per learned segment (then the pages in none), the crawled HTML pages and those in a cluster."""
    segments = locale_segments(ctx)
    counted: dict[Segment | None, list[int]] = {segment: [0, 0] for segment in segments.segments}
    for url, page in ctx.pages.items():
        if page.status != 200 or not page.is_html:
            continue
        segment = segments.locate(url)[0]
        tally = counted.setdefault(segment, [0, 0])
        tally[0] += 1
        tally[1] += url in ctx.cluster_of
    return [Coverage(segment, pages, in_cluster) for segment, (pages, in_cluster) in counted.items()]


@per_audit
def locale_segments(ctx: AuditContext) -> LocaleSegments:
    """The site's segments, learned from its clusters (``learn_locale_segments``)."""
    cluster_of = ctx.cluster_of
    return learn_locale_segments((url, cluster_of[url], value) for url, value in member_values(ctx).items())
