"""Turn what a URL answered (status, headers, body) into a ``Page`` fact. Pure: no Scrapy.

Extraction reads values as written; here they are resolved against the page (or its <base>) and
normalised, so that the audit compares URLs, and keeps the raw value beside for messages.
"""

from __future__ import annotations

import sys
from typing import Callable, Iterable

from ..facts import PAGE_STATUS, Annotation, Canonical, IgnoredAnnotation, Page
from .html_extract import extract_html
from .linkheader import parse_link_headers
from .text_language import read_blocks
from .urls import InvalidURL, normalize_url

HeaderLookup = Callable[[str], list[str]]

HTML_TYPES = ("text/html", "application/xhtml+xml")
#: Link targets that are never documents a search engine indexes on their own.
SKIPPED_EXTENSIONS = frozenset(
    "css js mjs map json png jpg jpeg gif webp avif svg ico bmp tif tiff woff woff2 ttf otf eot "
    "mp3 mp4 m4a webm ogg wav avi mov".split()
)


def resolve(href: str, base: str | None = None) -> str | None:
    """The normalised URL, or None where `href` is not one (no base: it must be absolute)."""
    try:
        return normalize_url(href, base)
    except InvalidURL:
        return None


def written(value: str, url: str | None) -> str:
    """``value`` as written, as the string of ``url`` where the two are equal.

    Most hrefs are written normalised, and a crawl keeps every one beside its URL: sharing the
    (interned) URL string stores each URL once instead of once per annotation.
    """
    return url if url is not None and value == url else value


def is_html(content_type: str | None, body_start: str) -> bool:
    if content_type:
        return content_type.split(";", 1)[0].strip().lower() in HTML_TYPES
    head = body_start[:512].lstrip().lower()
    return head.startswith(("<!doctype html", "<html")) or "<head" in head


def noindex_in_header(values: Iterable[str]) -> bool:
    """X-Robots-Tag: `noindex`/`none`, for all robots or for Googlebot (`googlebot: noindex`)."""
    for value in values:
        for part in value.split(","):
            part = part.strip().lower()
            if ":" in part:
                agent, _, part = part.partition(":")
                if agent.strip() not in ("googlebot", "*", "all", "robots"):
                    continue
            if part.strip() in ("noindex", "none"):
                return True
    return False


def header_annotations(url: str, values: list[str]) -> tuple[list[Annotation], list[IgnoredAnnotation], list[Canonical]]:
    annotations: list[Annotation] = []
    ignored: list[IgnoredAnnotation] = []
    canonicals: list[Canonical] = []
    for link in parse_link_headers(values):
        hreflang = link.params.get("hreflang")
        if "canonical" in link.rel:
            canonicals.append(Canonical("header", link.target, resolve(link.target, url)))
        if hreflang is None:
            continue
        if "alternate" in link.rel:
            target = resolve(link.target, url)
            annotations.append(
                Annotation("header", sys.intern(hreflang), written(link.target, target), target)
            )
        else:
            rel = " ".join(link.rel)
            reason = f'rel="{rel}" is not rel="alternate"' if rel else 'missing rel="alternate"'
            attrs = {"href": link.target, **link.params}
            ignored.append(IgnoredAnnotation("header", "Link", reason, attrs))
    return annotations, ignored, canonicals


def build_page(
    *,
    url: str,
    requested: str,
    status: int,
    headers: HeaderLookup,
    text: str | None,
    in_scope: bool,
    depth: int,
    fingerprint: bool = True,
    sitemaps: list[str] | None = None,
) -> Page:
    """The facts of one response; `text` is the decoded body, None where it was not downloaded.

    Only a response answering 200 is read further than its status line and Location.

    ``fingerprint``: whether to compute the page's content fingerprint, which only the crawl state
    uses; without it ``Page.fingerprint`` stays None.

    ``sitemaps``: where given, the sitemap URLs the page's head announces (``<link rel="sitemap">``)
    are appended to it, for the crawl to fetch; they are no fact of the page, which the audit needs not.
    """
    content_type = (headers("Content-Type") or [None])[0]
    location = (headers("Location") or [None])[0]
    page = Page(
        url=url,
        requested=written(requested, url),
        status=status,
        location=resolve(location, url) if location and 300 <= status < 400 else None,
        content_type=content_type,
        in_scope=in_scope,
        depth=depth,
    )
    if status != PAGE_STATUS:
        return page  # not a page: its status is the fact (``facts.response_only``)
    page.annotations, page.ignored, page.canonicals = header_annotations(url, headers("Link"))
    language = headers("Content-Language")
    page.content_language = language[0] if language else None
    if noindex_in_header(headers("X-Robots-Tag")):
        page.noindex = "header"
    if text is None or not is_html(content_type, text):
        return page
    page.is_html = True
    html = extract_html(text, fingerprint=fingerprint)
    base = resolve(html.base_href, url) if html.base_href else None
    base = base or url
    for a in html.annotations:
        target = resolve(a.href, base)
        page.annotations.append(
            Annotation(
                "html",
                # A site writes a handful of hreflang values, on every page.
                sys.intern(a.hreflang),
                written(a.href, target),
                target,
                line=a.line,
                in_head=a.in_head,
                head_closed_by=a.head_closed_by,
                head_closed_line=a.head_closed_line,
            )
        )
    page.ignored += [IgnoredAnnotation("html", i.tag, i.reason, dict(i.attrs), i.line) for i in html.ignored]
    for c in html.canonicals:
        target = resolve(c.href, base)
        page.canonicals.append(Canonical("html", written(c.href, target), target, c.in_head))
    page.html_lang = html.html_lang
    if page.content_language is None:
        page.content_language = html.content_language
    if page.noindex is None and html.noindex:
        page.noindex = "meta"
    page.fingerprint = html.fingerprint
    # Only the blocks' digests, languages and letters are kept, never the text (memory grows with the graph).
    page.text_blocks = read_blocks(html.main_text)
    page.links = [link for link in dict.fromkeys(resolve(h, base) for h in html.links) if link is not None]
    if sitemaps is not None:
        sitemaps += [url for url in dict.fromkeys(resolve(h, base) for h in html.sitemaps) if url is not None]
    if html.nofollow_links:
        nofollow = set(html.nofollow_links)
        followed = {resolve(h, base) for h in html.links if h not in nofollow}
        page.nofollow_links = [link for link in page.links if link not in followed]
    return page


def followable(url: str) -> bool:
    """Documents worth a GET: anything but images, scripts, style sheets and media."""
    path = url.split("?", 1)[0].rsplit("/", 1)[-1]
    return path.rpartition(".")[2].lower() not in SKIPPED_EXTENSIONS if "." in path else True
