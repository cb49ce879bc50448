"""Facts kept for the audit: compact, merged, de-duplicated.

The same store serves the crawl (facts arrive one by one) and ``hreflang-report`` (facts of one or
many exported crawls, possibly overlapping): a URL is one record whichever way it arrives. Outgoing
links are folded into one set for the whole crawl instead of a list per page.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Iterable, TypeVar

from ...facts import (
    CrawlInfo,
    LocaleProbe,
    LocaleRule,
    Page,
    RobotsTxt,
    SitemapEntry,
    SitemapFile,
    TargetStatus,
    response_only,
    without_links,
)
from .annotation_index import AnnotationIndex


_Answered = TypeVar("_Answered", SitemapFile, LocaleProbe)


def _keep_answered(kept: dict[str, _Answered], fact: _Answered) -> None:
    """The first fact of a URL stays, unless it has no status and this one has (the same URL in several
    exported crawls: the one that got an answer is kept)."""
    known = kept.get(fact.url)
    if known is None or (known.status is None and fact.status is not None):
        kept[fact.url] = fact


class FactStore:
    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.statuses: dict[str, TargetStatus] = {}
        self.robots: dict[str, RobotsTxt] = {}
        self.sitemaps: dict[str, SitemapFile] = {}
        self.entries: list[SitemapEntry] = []
        self.linked: set[str] = set()
        #: Of ``linked``, the URLs only `rel="nofollow"` anchors name (few: kept apart, not a second set
        #: of every link).
        self.nofollow_only: set[str] = set()
        self.crawls: list[CrawlInfo] = []
        self.probes: dict[str, LocaleProbe] = {}
        self.locale_rules: dict[str, LocaleRule] = {}
        self._entry_keys: set[tuple[str, str, int | None, int]] = set()
        self._index = AnnotationIndex()

    def add(self, fact: Any) -> None:
        if isinstance(fact, Page):
            self._add_page(fact)
        elif isinstance(fact, TargetStatus):
            self._add_status(fact)
        elif isinstance(fact, SitemapEntry):
            # The same entry read twice (overlapping exports) is one; a URL listed twice is two.
            key = (fact.sitemap, fact.loc, fact.line, fact.position)
            if key not in self._entry_keys:
                self._entry_keys.add(key)
                self.entries.append(fact)
                self._index_entry(self._index, fact)
        elif isinstance(fact, SitemapFile):
            _keep_answered(self.sitemaps, fact)
        elif isinstance(fact, RobotsTxt):
            self.robots.setdefault(fact.origin, fact)
        elif isinstance(fact, LocaleProbe):
            _keep_answered(self.probes, fact)
        elif isinstance(fact, LocaleRule):
            self.locale_rules.setdefault(fact.url, fact)
        elif isinstance(fact, CrawlInfo):
            if fact not in self.crawls:  # one crawl's facts read twice, or a worker's own as stored
                self.crawls.append(fact)
        else:
            raise TypeError(f"not a fact: {type(fact).__name__}")

    def add_all(self, facts: Iterable[Any]) -> None:
        for fact in facts:
            self.add(fact)

    def _add_page(self, page: Page) -> None:
        page = response_only(page)
        if page.links:
            self._add_links(page)
            # Other consumers (feeds) see the same item: keep a copy without its links.
            page = without_links(page)
        known = self.pages.get(page.url)
        # A response beats a failure to get one; otherwise the first record stands.
        if known is None or (known.status is None and page.status is not None):
            self.pages[page.url] = page
            self._index.add_page(page.url, page.annotations)
        self.statuses.pop(page.url, None)

    def _add_links(self, page: Page) -> None:
        # Interned here, not where facts are read back (``read_facts``): one string a URL, shared
        # with the pages', whichever way the facts arrive.
        links = list(map(sys.intern, page.links))
        if page.nofollow_links or self.nofollow_only:
            nofollow = set(map(sys.intern, page.nofollow_links))
            self.nofollow_only.difference_update(link for link in links if link not in nofollow)
            self.nofollow_only.update(link for link in nofollow if link not in self.linked)
        self.linked.update(links)

    def _add_status(self, status: TargetStatus) -> None:
        if status.url in self.pages:
            return
        known = self.statuses.get(status.url)
        if known is None or (known.method is None and status.method is not None):
            if known is not None and known.not_examined and not status.not_examined:
                status.not_examined = known.not_examined
            self.statuses[status.url] = status
        elif status.not_examined and not known.not_examined:
            known.not_examined = status.not_examined

    def drop_entries(self, keep: Callable[[SitemapEntry], bool]) -> None:
        """Keep only the entries `keep` accepts (those whose sitemap's facts are stored, say)."""
        kept = [entry for entry in self.entries if keep(entry)]
        if len(kept) != len(self.entries):
            self.entries = kept
            self._index.stale = True

    def index(self) -> AnnotationIndex:
        """The annotations indexed as they came (``annotation_index``); built again from the facts
        where one was taken back."""
        if self._index.stale:
            self._index = AnnotationIndex()
            for page in self.pages.values():
                self._index.add_page(page.url, page.annotations)
            for entry in self.entries:
                self._index_entry(self._index, entry)
        self._index.settle()
        return self._index

    def _index_entry(self, index: AnnotationIndex, entry: SitemapEntry) -> None:
        if entry.url is not None:
            page = self.pages.get(entry.url)
            index.add_entry(entry.url, entry.annotations, page.annotations if page is not None else None)

    def release_index(self) -> None:
        """The audit has taken what the index holds: drop it (built again if facts come after)."""
        self._index = AnnotationIndex()
        self._index.stale = True

    @property
    def limits_reached(self) -> list[str]:
        return sorted({limit for crawl in self.crawls for limit in crawl.limits_reached})

    def __len__(self) -> int:
        return len(self.pages) + len(self.statuses) + len(self.sitemaps) + len(self.entries)
