"""Segments: named parts of a site (a market, a language), so that each team reads and gates its own.

A segment is ``NAME=PATTERN`` (``--segment de=/de/``, ``QIVRORA_SEGMENTS``). A pattern is:

- ``/de/``: the URLs whose path starts so;
- ``de.``: the URLs whose host starts so; ``.de``: whose host ends so (a country's domain);
- with a ``*``: a glob on the whole URL (``https://shop.example/de-*``); anything else: text the URL holds.

Without segments given, the locale segments are learned from the clusters: for each hreflang value,
the one of those three patterns (its language or region as a first folder, a first host label or a
top-level domain) under which at least half of its pages sit, and at least ``LEARNED_PAGES`` of them.
A finding is in the first segment its URL matches; a sitemap's finding, in the segment of the URL it
lists.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Iterable
from urllib.parse import urlsplit

from ...findings import Finding
from .context import AuditContext

#: Pages of a value that must sit under a pattern for it to be learned.
LEARNED_PAGES = 2


@dataclass(frozen=True, slots=True)
class Segment:
    name: str
    pattern: str

    def matches(self, url: str) -> bool:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if "*" in self.pattern:
            return fnmatchcase(url, self.pattern)
        if self.pattern.startswith("/"):
            return parts.path.startswith(self.pattern)
        if self.pattern.endswith("."):
            return host.startswith(self.pattern.lower())
        if self.pattern.startswith("."):
            return host.endswith(self.pattern.lower())
        return self.pattern in url

    def __str__(self) -> str:
        return f"{self.name}={self.pattern}"


def parse_segments(raw: Iterable[str]) -> tuple[Segment, ...]:
    """``NAME=PATTERN`` each; ValueError, naming the wrong one, where one is not."""
    segments = []
    for item in raw:
        name, equals, pattern = str(item).strip().partition("=")
        if not equals or not name.strip() or not pattern.strip() or ":" in name:
            raise ValueError(f"QIVRORA_SEGMENTS: {str(item).strip()!r} is not NAME=PATTERN (de=/de/)")
        segments.append(Segment(name.strip(), pattern.strip()))
    names = [segment.name for segment in segments]
    if len(set(names)) != len(names):
        raise ValueError(f"QIVRORA_SEGMENTS: {max(names, key=names.count)!r} is named twice")
    return tuple(segments)


def segment_of(segments: Iterable[Segment], finding: Finding) -> str | None:
    """The name of the first segment the finding's page (a sitemap finding: its listed URL) is in."""
    url = finding.target if finding.check.startswith("SM") and finding.target else finding.url
    return next((segment.name for segment in segments if segment.matches(url)), None)


def count_by_segment(findings: list[Finding], segments: Iterable[Segment]) -> dict[str | None, Counter[str]]:
    """Findings per segment (None: in none) and severity, the segments in their order."""
    segments = tuple(segments)
    counted: dict[str | None, Counter[str]] = {segment.name: Counter() for segment in segments}
    for finding in findings:
        counted.setdefault(segment_of(segments, finding), Counter())[finding.severity] += 1
    return counted


def _candidates(url: str, value: str) -> list[str]:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    codes = {value.lower(), *value.lower().split("-")}
    folder = parts.path.split("/")[1].lower() if parts.path.count("/") >= 2 else ""
    found = [f"/{parts.path.split('/')[1]}/"] if folder in codes else []
    labels = host.split(".")
    if len(labels) > 2 and labels[0] in codes:
        found.append(f"{labels[0]}.")
    if len(labels) > 1 and labels[-1] in codes:
        found.append(f".{labels[-1]}")
    return found


def learn_segments(members: Iterable[tuple[str, str]]) -> tuple[Segment, ...]:
    """Locale segments from cluster members given as (url, the value the site gives it), named by value."""
    pages: Counter[str] = Counter()
    under: dict[str, Counter[str]] = defaultdict(Counter)
    for url, value in members:
        if value == "x-default":
            continue
        pages[value] += 1
        under[value].update(_candidates(url, value))
    learned = []
    for value in sorted(under):
        pattern, count = min(under[value].items(), key=lambda item: (-item[1], item[0]), default=("", 0))
        if count >= LEARNED_PAGES and 2 * count >= pages[value]:
            learned.append(Segment(value, pattern))
    return tuple(learned)


def site_segments(ctx: AuditContext, given: tuple[Segment, ...]) -> tuple[Segment, ...]:
    """The segments given, or else those learned from the site's clusters (each member's own value)."""
    if given:
        return given
    graph = ctx.graph
    return learn_segments(
        (url, value) for url in sorted(ctx.cluster_of) for value in sorted(graph.declared(url).get(url, ()))
    )
