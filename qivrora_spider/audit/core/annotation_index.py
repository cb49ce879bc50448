"""The audit's index of annotations, kept as the facts arrive rather than built when the crawl is done.

Every check reads the annotations of each URL (its page's, then its sitemap entries'), which of them
search engines take (``is_usable``), and the hreflang graph those make. Derived in one go after the
crawl, they were serial work at its end, before any check could start. The store (``FactStore``)
hands each page and entry to this index as it keeps it, and the audit only puts the result in the
order of the facts (``AuditContext``). What the index holds for a URL depends on that URL's facts
alone, so it is the same whatever order they come in: entries read before their page (sitemaps are
read first) wait for it, and go after its annotations. A page that comes for a URL already indexed
(a response replacing a failure, or a page after the index was read, both rare) makes the index
stale, as do entries dropped; the store then builds it again from its facts.
"""

from __future__ import annotations

from typing import Callable

from ...extract.hreflang_values import canonical_hreflang
from ...extract.urls import HrefKind, classify_href
from ...facts import Annotation

#: The href kinds search engines take (HL102 warns about the second, which still works).
_TAKEN = (HrefKind.ABSOLUTE, HrefKind.PROTOCOL_RELATIVE)

#: What a URL says of others: target URL -> the canonical hreflang values it gives the target.
Declarations = dict[str, frozenset[str]]

_NO_VALUES: frozenset[str] = frozenset()


def usable_value(annotation: Annotation) -> str | None:
    """The canonical value of an annotation a search engine would take into the cluster; None if it
    would not take it."""
    url = annotation.url
    if url is None or not annotation.in_head:
        return None
    # An href written as the normalised URL is absolute; classifying it would only cost time.
    if annotation.href != url and classify_href(annotation.href) not in _TAKEN:
        return None
    return canonical_hreflang(annotation.hreflang)


def is_usable(annotation: Annotation) -> bool:
    """Would a search engine take this annotation into the cluster?"""
    return usable_value(annotation) is not None


#: What a URL's annotations (all of them, then the usable ones) earn it: a question a check would
#: otherwise ask of every annotated URL at the audit. The index asks it as each URL's annotations
#: come, and the check reads only the URLs that earned its mark (``AuditContext.marked``).
UrlMark = Callable[[list[Annotation], list[Annotation]], bool]
URL_MARKS: list[UrlMark] = []


def url_mark(earns: UrlMark) -> UrlMark:
    """Register a mark the index keeps for every annotated URL."""
    URL_MARKS.append(earns)
    return earns


class AnnotationIndex:
    """Per annotated URL: its annotations (the page's, then its entries' in reading order), the usable
    ones where some are not, and what the usable ones declare."""

    def __init__(self) -> None:
        #: URL -> its annotations; the page's own list where only the page annotates it.
        self.annotations: dict[str, list[Annotation]] = {}
        #: The usable annotations of the URLs that have some that are not (an empty list where none is).
        self.partly_usable: dict[str, list[Annotation]] = {}
        #: URL -> target -> canonical values, for the URLs with usable annotations; targets in the order
        #: their first usable annotation comes.
        self.declared: dict[str, Declarations] = {}
        #: Each set of values once (a site has few): ``values | {value}`` -> the shared frozenset.
        self.grown: dict[tuple[frozenset[str], str], frozenset[str]] = {}
        #: Each of ``URL_MARKS`` -> the URLs that earned it.
        self.marked: dict[UrlMark, set[str]] = {earns: set() for earns in URL_MARKS}
        #: URLs whose entries came before their page: declared once it comes, or when the audit starts.
        self._waiting: set[str] = set()
        #: Set where a fact was taken back (a page replaced, entries dropped): ``FactStore.index`` builds
        #: the index again.
        self.stale = False

    def add_page(self, url: str, annotations: list[Annotation]) -> None:
        """A page the store keeps: the first of its URL, or one that replaces another."""
        if url in self._waiting:  # its entries came first, and wait for it: its annotations go first
            listed = self.annotations[url]
            self._waiting.discard(url)
        elif url in self.annotations:
            # Indexed already: a page replaced, or entries declared before it came (the index was
            # read before the crawl was done). Built again from the facts when it is next read.
            self.stale = True
            return
        else:
            listed = None
        if annotations:
            self.annotations[url] = annotations if listed is None else annotations + listed
            self._declare(url, annotations)
        if listed:
            self._declare(url, listed)
        if annotations or listed:
            self._mark(url)

    def add_entry(self, url: str, annotations: list[Annotation], own: list[Annotation] | None) -> None:
        """`own`: the annotations of the URL's page if it is stored (None before it comes); the index
        never extends that list."""
        if not annotations:
            return
        known = self.annotations.get(url)
        if known is None:
            self.annotations[url] = list(annotations)
        elif known is own:
            self.annotations[url] = own + annotations
        else:
            known.extend(annotations)
        if own is None:
            self._waiting.add(url)
        else:
            self._declare(url, annotations)
            self._mark(url)

    def settle(self) -> None:
        """Declare what the entries of URLs whose page never came declare."""
        for url in self._waiting:
            self._declare(url, self.annotations[url])
            self._mark(url)
        self._waiting.clear()

    def _mark(self, url: str) -> None:
        """Ask each mark of `url`'s annotations as they stand."""
        listed = self.annotations[url]
        usable = self.partly_usable.get(url, listed)
        for earns, marked in self.marked.items():
            if earns(listed, usable):
                marked.add(url)
            else:
                marked.discard(url)

    def _declare(self, url: str, added: list[Annotation]) -> None:
        """Take in `added`, annotations of `url` (its page's, then its entries' in their order)."""
        usable = [(a.url, value) for a in added if (value := usable_value(a)) is not None]
        if len(usable) != len(added) or url in self.partly_usable:
            self.partly_usable[url] = [a for a in self.annotations[url] if is_usable(a)]
        if not usable:
            return
        out = self.declared.get(url)
        if out is None:
            out = self.declared[url] = {}
        grown = self.grown
        for target, value in usable:
            key = (out.get(target, _NO_VALUES), value)  # type: ignore[arg-type]
            values = grown.get(key)
            if values is None:
                values = grown[key] = key[0] | {value}
            out[target] = values  # type: ignore[index]
