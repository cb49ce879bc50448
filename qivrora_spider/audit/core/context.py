"""What every check reads: the facts indexed by URL, and the hreflang graph built from them.

The graph follows the rules of DESIGN.md: the annotations of a page are the union of its sources,
and what search engines ignore (outside <head>, relative or invalid href, invalid value) is not in
the graph, so its consequences show as missing return links and missing self-references.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from datetime import datetime, timezone
from functools import cached_property, wraps
from typing import TYPE_CHECKING, Any, Callable, Container, Iterable, Iterator, TypeVar

from ...facts import Annotation, Page, SitemapEntry, TargetStatus
from .annotation_index import UrlMark, is_usable
from .fact_store import FactStore
from .site_index import Declared, HreflangGraph

if TYPE_CHECKING:
    # The previous crawl is an input of the audit, read from the state by the crawl, never here.
    from ...state.store import CrawlRecord

#: Longest redirect chain followed when explaining where an alternate ends up.
MAX_CHAIN = 20

#: The order in which a finding about an annotation read in several places names its source.
SOURCE_ORDER = {"html": 0, "rendered": 0, "header": 1, "sitemap": 2}

#: How a message names the page sources of annotations and canonicals.
SOURCE_NAMES = {"html": "the HTML", "rendered": "the rendered HTML", "header": "the HTTP Link header"}

T = TypeVar("T")
Marked = dict[UrlMark, set[str]]


def _source_rank(annotation: Annotation) -> int:
    return SOURCE_ORDER.get(annotation.source, len(SOURCE_ORDER))


def page_part(source: str) -> str:
    """The part of a page a source stands for: a "rendered" annotation stands in its HTML <head>, as
    the browser built it, so comparing sources (HL601) takes it for the HTML's."""
    return "html" if source == "rendered" else source


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


def per_audit(build: Callable[[AuditContext], T]) -> Callable[[AuditContext], T]:
    """Derive a value from the facts once per audit, however many checks ask for it."""

    @wraps(build)
    def derived(ctx: AuditContext) -> T:
        try:
            return ctx._derived[build]  # type: ignore[no-any-return]
        except KeyError:
            value = ctx._derived[build] = build(ctx)
            return value

    return derived


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
        self._derived: dict[Callable[..., Any], Any] = {}

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
    def _index(self) -> tuple[dict[str, list[Annotation]], dict[str, list[Annotation]], HreflangGraph, Marked]:
        """The store's index (built as the facts came) put in the order of the facts: the annotated
        pages, then the URLs only sitemap entries annotate. The store lets it go: the context holds
        what it held, in that order, and no second copy of either map stays."""
        index = self.store.index()
        self.store.release_index()
        found, index.annotations = index.annotations, {}
        annotations = {url: found[url] for url, page in self.pages.items() if page.annotations}
        for url in self.entries_by_url:
            if url not in annotations and (listed := found.get(url)) is not None:
                annotations[url] = listed
        del found  # before the graph is put in order: one map of every URL at a time
        graph = HreflangGraph.of(annotations, index.declared, index.grown)
        return annotations, index.partly_usable, graph, index.marked

    @property
    def annotations(self) -> dict[str, list[Annotation]]:
        """Every annotation of every annotated URL, all sources, in reading order."""
        return self._index[0]

    @property
    def _partly_usable(self) -> dict[str, list[Annotation]]:
        """The usable annotations of the URLs that have some that are not (an empty list where none
        is). Most pages have only usable annotations: they are read from ``annotations`` itself, and a
        million-page site does not hold a second map of every URL."""
        return self._index[1]

    def marked(self, earns: UrlMark) -> set[str]:
        """The annotated URLs that earned a mark of ``annotation_index.url_mark``."""
        return self._index[3][earns]

    def usable_annotations(self, url: str) -> list[Annotation]:
        partly = self._partly_usable.get(url)
        return partly if partly is not None else self.annotations.get(url, [])

    def pair(self, url: str, target: str) -> list[Annotation]:
        """Every annotation of `url` naming `target`, in SOURCE_ORDER then reading order.

        Unlike the graph this keeps the annotations search engines ignore, as long as the target URL is
        known (the crawl fetches those targets too): a target that does not serve (HL3xx, HL4xx) is a
        defect of its own, which fixing the value or the placement of the annotation would not cure.
        """
        found = [a for a in self.annotations.get(url, ()) if a.url == target]
        found.sort(key=_source_rank)
        return found

    def pairs_naming(self, targets: Container[str]) -> Iterator[tuple[str, str, list[Annotation]]]:
        """(url, target, ``pair(url, target)``) for every pair whose target is one of `targets`."""
        for url, listed in self.annotations.items():
            named = dict.fromkeys(a.url for a in listed if a.url in targets)
            for target in named:
                yield url, target, self.pair(url, target)  # type: ignore[arg-type]

    # --- the graph ---------------------------------------------------------------------------

    @property
    def graph(self) -> HreflangGraph:
        """Nodes are URLs; an edge u -> v holds the canonical hreflang values u gives v."""
        return self._index[2]

    @cached_property
    def clusters(self) -> dict[str, list[str]]:
        """Cluster id -> sorted member URLs (weakly connected components of the graph)."""
        found: dict[str, list[str]] = {}
        for component in self.graph.weakly_connected_components():
            found[cluster_id(component)] = sorted(component)
        return dict(sorted(found.items()))

    @cached_property
    def cluster_of(self) -> dict[str, str]:
        return {url: cid for cid, members in self.clusters.items() for url in members}

    def declared(self, url: str) -> Declared:
        """What `url` says of others: target URL -> canonical hreflang values."""
        return self.graph.declared(url)

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
        return self.canonicalised.get(url)

    @cached_property
    def canonicalised(self) -> dict[str, str]:
        """Page -> ``canonical_elsewhere(page)``, for the pages that have one."""
        found = {}
        for url, page in self.pages.items():
            if page.status != 200 or not page.canonicals:
                continue
            canonical = page.canonicals[0].url
            if canonical is None or canonical == url:
                continue
            if len(page.canonicals) == 1 or len(self.canonical_names(url)) == 1:
                found[url] = canonical
        return found
