"""What every check reads: the facts indexed by URL, and the hreflang graph built from them.

The graph follows the rules of DESIGN.md: the annotations of a page are the union of its sources,
and what search engines ignore (outside <head>, relative or invalid href, invalid value) is not in
the graph, so its consequences show as missing return links and missing self-references.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from datetime import datetime, timezone
from functools import cached_property
from typing import Iterable, Iterator

import networkx as nx

from ..fact_store import FactStore
from ..facts import Annotation, Page, SitemapEntry, TargetStatus
from ..hreflang_values import canonical_hreflang
from ..state import CrawlRecord
from ..urls import HrefKind, classify_href

#: Longest redirect chain followed when explaining where an alternate ends up.
MAX_CHAIN = 20

#: The order in which a finding about an annotation read in several places names its source.
SOURCE_ORDER = {"html": 0, "header": 1, "sitemap": 2}

#: How a message names the page sources of annotations and canonicals.
SOURCE_NAMES = {"html": "the HTML", "header": "the HTTP Link header"}


def where_read(annotation: Annotation) -> str:
    """Where an annotation was read, for a message: the HTML, the HTTP Link header, or which sitemap."""
    if annotation.source == "sitemap":
        return f"sitemap {annotation.sitemap}" if annotation.sitemap else "a sitemap"
    return SOURCE_NAMES.get(annotation.source, annotation.source)


def places(annotations: Iterable[Annotation]) -> str:
    """Every place some annotations were read, for a message: "the HTML and sitemap https://..."."""
    return " and ".join(dict.fromkeys(where_read(a) for a in annotations))


def cluster_id(members: Iterator[str] | set[str]) -> str:
    """Stable across crawls while the cluster keeps its smallest URL."""
    return "c-" + hashlib.blake2b(min(members).encode(), digest_size=5).hexdigest()


def is_usable(annotation: Annotation) -> bool:
    """Would a search engine take this annotation into the cluster?"""
    if annotation.url is None or not annotation.in_head:
        return False
    if classify_href(annotation.href) not in (HrefKind.ABSOLUTE, HrefKind.PROTOCOL_RELATIVE):
        return False
    return canonical_hreflang(annotation.hreflang) is not None


class AuditContext:
    """``previous``: the previous crawl of the site (SM010, SM011), an input like the facts: the state
    is read before the audit, never by a check."""

    def __init__(
        self, store: FactStore, now: datetime | None = None, previous: CrawlRecord | None = None
    ) -> None:
        self.store = store
        self.pages = store.pages
        self.statuses = store.statuses
        self.now = now or self._crawl_time()
        self.previous = previous

    def _crawl_time(self) -> datetime:
        for crawl in self.store.crawls:
            try:
                return datetime.fromisoformat(crawl.started)
            except ValueError:
                continue
        return datetime.now(timezone.utc)

    # --- annotations -------------------------------------------------------------------------

    @cached_property
    def entries_by_url(self) -> dict[str, list[SitemapEntry]]:
        index: dict[str, list[SitemapEntry]] = defaultdict(list)
        for entry in self.store.entries:
            if entry.url is not None:
                index[entry.url].append(entry)
        return dict(index)

    @cached_property
    def annotations(self) -> dict[str, list[Annotation]]:
        """Every annotation of every annotated URL, all sources, in reading order."""
        index: dict[str, list[Annotation]] = defaultdict(list)
        for page in self.pages.values():
            if page.annotations:
                index[page.url].extend(page.annotations)
        for url, entries in self.entries_by_url.items():
            for entry in entries:
                index[url].extend(entry.annotations)
        return {url: found for url, found in index.items() if found}

    def usable_annotations(self, url: str) -> list[Annotation]:
        return [a for a in self.annotations.get(url, ()) if is_usable(a)]

    # --- the graph ---------------------------------------------------------------------------

    @cached_property
    def graph(self) -> nx.DiGraph:
        """Nodes are URLs; an edge u -> v holds ``langs``: canonical hreflang value -> sources."""
        graph = nx.DiGraph()
        for url, found in self.annotations.items():
            for annotation in found:
                if not is_usable(annotation):
                    continue
                assert annotation.url is not None
                value = canonical_hreflang(annotation.hreflang)
                if graph.has_edge(url, annotation.url):
                    langs = graph[url][annotation.url]["langs"]
                else:
                    langs = {}
                    graph.add_edge(url, annotation.url, langs=langs)
                langs.setdefault(value, set()).add(annotation.source)
        return graph

    @cached_property
    def clusters(self) -> dict[str, list[str]]:
        """Cluster id -> sorted member URLs (weakly connected components of the graph)."""
        found: dict[str, list[str]] = {}
        for component in nx.weakly_connected_components(self.graph):
            found[cluster_id(component)] = sorted(component)
        return dict(sorted(found.items()))

    @cached_property
    def cluster_of(self) -> dict[str, str]:
        return {url: cid for cid, members in self.clusters.items() for url in members}

    def declared(self, url: str) -> dict[str, set[str]]:
        """What `url` says of others: target URL -> canonical hreflang values."""
        if url not in self.graph:
            return {}
        return {target: set(data["langs"]) for target, data in self.graph[url].items()}

    # --- what fetching told -------------------------------------------------------------------

    def page(self, url: str) -> Page | None:
        return self.pages.get(url)

    def fetched(self, url: str) -> Page | TargetStatus | None:
        return self.pages.get(url) or self.statuses.get(url)

    def status(self, url: str) -> int | None:
        record = self.fetched(url)
        return record.status if record is not None else None

    def examined(self, url: str) -> bool:
        """Fetched with GET and answered: its own annotations are known."""
        page = self.pages.get(url)
        return page is not None and page.status is not None

    def redirect_chain(self, url: str) -> list[str]:
        """`url` and every Location after it, until a non-redirect, an unknown URL or a loop."""
        chain = [url]
        record = self.fetched(url)
        while record is not None and record.location and len(chain) <= MAX_CHAIN:
            if record.location in chain:
                chain.append(record.location)
                break
            chain.append(record.location)
            record = self.fetched(record.location)
        return chain

    def canonicals(self, url: str) -> set[str]:
        page = self.pages.get(url)
        if page is None:
            return set()
        return {c.url for c in page.canonicals if c.url is not None}

    def canonical_names(self, url: str) -> set[str]:
        """Every distinct canonical a page declares: its URL, or the href as written where unresolvable."""
        page = self.pages.get(url)
        return {c.url or c.href for c in page.canonicals} if page is not None else set()

    def canonical_elsewhere(self, url: str) -> str | None:
        """The other URL a page answering 200 names as its one canonical.

        None when the page is self-canonical or names no canonical, and also when it names several
        distinct ones (an unresolvable href counts as one): search engines may then ignore them all,
        which HL304 reports, so no check builds on either of them.
        """
        page = self.pages.get(url)
        if page is None or page.status != 200:
            return None
        if len(self.canonical_names(url)) != 1:
            return None
        canonical = page.canonicals[0].url
        return canonical if canonical is not None and canonical != url else None

    @cached_property
    def pairs(self) -> dict[tuple[str, str], list[Annotation]]:
        """(url, target) -> every annotation of `url` naming `target`, in SOURCE_ORDER then reading order.

        Unlike the graph this keeps the annotations search engines ignore, as long as the target URL is
        known (the crawl fetches those targets too): a target that does not serve (HL3xx, HL4xx) is a
        defect of its own, which fixing the value or the placement of the annotation would not cure.
        """
        found: dict[tuple[str, str], list[Annotation]] = defaultdict(list)
        for url, annotated in self.annotations.items():
            for annotation in annotated:
                if annotation.url is not None:
                    found[(url, annotation.url)].append(annotation)
        for listed in found.values():
            listed.sort(key=lambda a: SOURCE_ORDER.get(a.source, len(SOURCE_ORDER)))
        return dict(sorted(found.items()))
