"""Turn a fetched sitemap into facts: one ``SitemapEntry`` per <url>, then one ``SitemapFile``. Pure.

An <xhtml:link> that is a usable hreflang alternate becomes an ``Annotation``; a broken one (no
rel, no hreflang, an app deep link) an ``IgnoredAnnotation`` (HL104); a legitimate other link
(rel="amphtml") is left out on purpose, never mixed into the hreflang set.
"""

from __future__ import annotations

import sys
from typing import Iterator

from ..facts import Annotation, IgnoredAnnotation, SitemapEntry, SitemapFile
from .page_facts import resolve, written
from .sitemap_parse import ParsedAlternate, ParsedUrl, SitemapReader


def _alternates(alternates: list[ParsedAlternate], loc_url: str, sitemap: str) -> tuple[list[Annotation], list[IgnoredAnnotation]]:
    annotations: list[Annotation] = []
    ignored: list[IgnoredAnnotation] = []
    for link in alternates:
        if link.problem is None:
            assert link.hreflang is not None and link.href is not None
            target = resolve(link.href, loc_url)
            annotations.append(
                Annotation(
                    "sitemap", sys.intern(link.hreflang), written(link.href, target), target,
                    line=link.line, sitemap=sitemap,
                )
            )
        elif link.incomplete:
            attrs = {k: v for k, v in (("rel", link.rel), ("hreflang", link.hreflang), ("href", link.href)) if v is not None}
            ignored.append(IgnoredAnnotation("sitemap", "xhtml:link", link.problem, attrs, link.line, sitemap))
    return annotations, ignored


def read_sitemap(
    *, url: str, body: bytes, status: int, via: str, parent: str | None = None, location: str | None = None
) -> Iterator[SitemapEntry | SitemapFile]:
    """Entries as they are parsed (memory stays flat), the file's own fact last."""
    sitemap = SitemapFile(url=url, via=via, parent=parent, status=status)
    if status != 200:
        if location:
            sitemap.errors.append(f"redirects ({status}) to {location}: list the final URL instead")
        else:
            sitemap.errors.append(f"answered HTTP {status}, not 200")
        yield sitemap
        return
    reader = SitemapReader(body)
    position = 0
    for item in reader.entries():
        if isinstance(item, ParsedUrl):
            position += 1
            loc_url = resolve(item.loc)
            if loc_url is None:
                sitemap.errors.append(f"line {item.line}: <loc> {item.loc!r} is not an absolute http(s) URL")
            annotations, ignored = _alternates(item.alternates, loc_url or url, url)
            yield SitemapEntry(
                sitemap=url, loc=written(item.loc, loc_url), url=loc_url, lastmod=item.lastmod,
                line=item.line, annotations=annotations, ignored=ignored, position=position,
            )
        else:
            child = resolve(item.loc)
            if child is None:
                sitemap.errors.append(f"line {item.line}: <loc> {item.loc!r} of a child sitemap is not a URL")
            elif child == url:
                sitemap.errors.append(f"line {item.line}: the sitemap index lists itself, and indexes cannot nest")
            elif child not in sitemap.children:
                sitemap.children.append(child)
    result = reader.result
    sitemap.sitemap_kind = result.kind
    sitemap.gzip = result.gzip
    sitemap.size = result.size
    sitemap.truncated = result.truncated
    sitemap.url_count = result.url_count
    sitemap.errors.extend(result.errors)
    yield sitemap
