"""Segments: named parts of a site (a market, a language), so that each team reads and gates its own.

A segment is ``NAME=PATTERN`` (``--segment de=/de/``, ``QIVRORA_SEGMENTS``). A pattern is:

- ``/de/``: the URLs whose path starts so;
- ``de.``: the URLs whose host starts so; ``.de``: whose host ends so (a country's domain);
- with a ``*``: a glob on the whole URL (``https://shop.example/de-*``); anything else: text the URL holds.

Without segments given, they are the site's locale segments, learned from its clusters by the one
learner HL207, HL208 and the report's coverage table use (``core.segments``), each named by its value:
``/de/`` (``/`` for the root) where no other host of the crawl has such URLs, else a glob on the
segment's URLs (``https://de.example.com/*``). A finding is in the first segment its URL matches; a sitemap's
finding, in the segment of the URL it lists.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Iterable
from urllib.parse import urlsplit

from ...findings import Finding
from .context import AuditContext
from .segments import LocaleSegments, locale_segments, place_of

#: What a glob reads as other than itself, in a learned segment's URL (an IPv6 host's brackets).
_GLOB_SPECIAL = re.compile(r"([*?[])")


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


def learned_segments(learned: LocaleSegments, urls: Iterable[str]) -> tuple[Segment, ...]:
    """The learned locale segments as ``NAME=PATTERN``, named by their value (``de#2`` for a value's
    second segment). A segment reads as a path (``/de/``, ``/`` for a root) where that names the same
    crawled `urls`, no other host having them, else as a glob on its URLs. Folders come before the
    roots that hold them (the first segment a URL matches counts); a folder of its root's value is
    left to the root."""
    hosts_of: dict[str | None, set[str]] = defaultdict(set)  # first folder (None: any path) -> origins
    for url in urls:
        place = place_of(url)
        hosts_of[None].add(place.origin)
        if place.folder is not None:
            hosts_of[place.folder].add(place.origin)
    roots = {segment.origin: segment.value for segment in learned.segments if segment.folder is None}
    kept = [s for s in learned.segments if s.folder is None or roots.get(s.origin) != s.value]
    seen: Counter[str] = Counter()
    named = []
    for segment in sorted(kept, key=lambda s: (s.folder is None, s.value, s.prefix)):
        seen[segment.value] += 1
        name = segment.value if seen[segment.value] == 1 else f"{segment.value}#{seen[segment.value]}"
        if hosts_of[segment.folder] <= {segment.origin}:
            pattern = f"/{segment.folder}/" if segment.folder is not None else "/"
        else:
            pattern = _GLOB_SPECIAL.sub(r"[\1]", segment.prefix) + "*"
        named.append(Segment(name, pattern))
    return tuple(named)


def site_segments(ctx: AuditContext, given: tuple[Segment, ...]) -> tuple[Segment, ...]:
    """The segments given, or else the locale segments learned from the site's clusters."""
    return given or learned_segments(locale_segments(ctx), ctx.pages)
