"""The annotations as written: each page's annotations grouped by the source that writes them, and why
search engines would ignore one.

HL0xx and HL1xx judge what the author wrote, not what the graph keeps; the graph checks name what
search engines ignore when they explain a missing link.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterator

from ...extract.hreflang_values import canonical_hreflang, check_hreflang
from ...extract.urls import HrefKind, InvalidURL, classify_href, normalize_url
from ...facts import Annotation
from .annotation_index import url_mark
from .context import AuditContext
from .wording import code


X_DEFAULT = "x-default"


@dataclass(frozen=True, slots=True)
class Written:
    """An annotation as written, with the sitemap file that holds it (sitemap annotations)."""

    annotation: Annotation
    sitemap: str | None = None


@dataclass(frozen=True, slots=True)
class SourceGroup:
    """The annotations one source gives one page: what HL101 to HL107 and HL112 judge."""

    url: str  # the page (a sitemap entry's loc), or the sitemap file when the loc is unusable
    source: str
    items: tuple[Written, ...]
    base: str | None  # what a relative href resolves against

    @property
    def sitemaps(self) -> list[str]:
        return sorted({w.sitemap for w in self.items if w.sitemap})


def written_in(annotation: Annotation) -> str:
    """The source whose annotations are judged together: what a script writes (``rendered``) joins
    the served <head>, since a rendered page has one head, whoever wrote its links."""
    return "html" if annotation.source == "rendered" else annotation.source


@url_mark
def _may_be_faulty(listed: list[Annotation], usable: list[Annotation]) -> bool:
    """Whether a URL's annotations as written may be at fault: all but those that are absolute,
    normalised hrefs in <head> with valid values written in canonical case, each value and URL once per
    source.

    On a large site nearly every page is that plain; the checks of this module and of values.py
    judge the others only, instead of each walking every annotation again.
    """
    return any(
        a.href != a.url or not a.in_head or check_hreflang(a.hreflang) is not None for a in listed
    ) or len(listed) != min(
        len({(written_in(a), a.hreflang) for a in listed}), len({(written_in(a), a.url) for a in listed})
    )


def source_groups(ctx: AuditContext, *, per_entry: bool = False) -> Iterator[SourceGroup]:
    """Every (page, source) with annotations that may be at fault; with `per_entry`, one group per
    sitemap `<url>`."""
    faulty = ctx.marked(_may_be_faulty)
    for url in sorted(faulty & ctx.pages.keys()):
        by_source: dict[str, list[Written]] = defaultdict(list)
        for annotation in ctx.pages[url].annotations:
            by_source[written_in(annotation)].append(Written(annotation, annotation.sitemap))
        for source, items in sorted(by_source.items()):
            if source == "html" and all(w.annotation.source == "rendered" for w in items):
                source = "rendered"
            yield SourceGroup(url, source, tuple(items), url)
    entries_by_url = ctx.entries_by_url
    for url in sorted(faulty & entries_by_url.keys()):
        entries = [entry for entry in entries_by_url[url] if entry.annotations]
        chunks = [[entry] for entry in entries] if per_entry else [entries] if entries else []
        for chunk in chunks:
            items = tuple(
                Written(a, a.sitemap or entry.sitemap) for entry in chunk for a in entry.annotations
            )
            yield SourceGroup(url, "sitemap", items, url)
    for entry in ctx.store.entries:
        # A <loc> that is no URL: the annotations still stand as written, fixed in the sitemap.
        if entry.url is None and entry.annotations:
            items = tuple(Written(a, a.sitemap or entry.sitemap) for a in entry.annotations)
            yield SourceGroup(entry.sitemap, "sitemap", items, None)


def resolve(annotation: Annotation, base: str | None) -> str | None:
    """The annotation's URL, or its href resolved against the page; None when it names no URL."""
    if annotation.url is not None:
        return annotation.url
    try:
        return normalize_url(annotation.href, base)
    except InvalidURL:
        return None


def ignored_because(annotation: Annotation) -> str | None:
    """Why search engines leave this annotation out of the graph, or None if they take it."""
    kind = classify_href(annotation.href)
    if kind is HrefKind.RELATIVE:
        return f"its href {code(annotation.href)} is relative (HL101)"
    if kind is HrefKind.INVALID or annotation.url is None:
        return f"its href {code(annotation.href)} is not a usable URL (HL103)"
    if not annotation.in_head:
        return "it is outside <head> (HL105)"
    if canonical_hreflang(annotation.hreflang) is None:
        problem = check_hreflang(annotation.hreflang)
        check_id = f" ({problem.check})" if problem else ""
        return f"its value {code(annotation.hreflang)} is not a valid hreflang value{check_id}"
    return None
