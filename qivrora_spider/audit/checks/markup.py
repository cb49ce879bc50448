"""HL101 to HL107 and HL112: the annotations of one page as written, each source on its own.

These checks read what the author wrote, not what the graph keeps: an annotation outside <head>
or with a relative href is still markup that says `de` is two URLs, or repeats itself. The page
level of HL107 is here; its cluster level (pages that disagree on x-default) reads the graph.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable, Iterator

from ...extract.hreflang_values import canonical_hreflang
from ...extract.urls import HrefKind, InvalidURL, classify_href, href_problem, normalize_url
from ...facts import Annotation, IgnoredAnnotation
from ..core.annotations import x_default_declarers
from ..core.context import AuditContext
from ..core.registry import Hit, check
from ..core.statuses import is_lister, may_stand
from ..core.wording import code, name_list, suggested_element
from ..core.written import X_DEFAULT, SourceGroup, Written, resolve, source_groups


# --- how an annotation is named ------------------------------------------------------------------


def place(written: Written) -> str:
    """Where an annotation is written: "at line 12", "in the HTTP `Link` header", "in sitemap `…`"."""
    annotation = written.annotation
    line = f" (line {annotation.line})" if annotation.line else ""
    if annotation.source == "header":
        return "in the HTTP `Link` header"
    if annotation.source == "sitemap":
        return f"in sitemap {code(written.sitemap or 'unknown')}{line}"
    if annotation.source == "rendered":
        return "in the rendered HTML (a script writes it)"
    return f"at line {annotation.line}" if annotation.line else "in the HTML"


def element(annotation: Annotation) -> str:
    """The annotation as its source writes it, for messages."""
    if annotation.source == "header":
        return f'`Link: <{annotation.href}>; rel="alternate"; hreflang="{annotation.hreflang}"`'
    tag = "xhtml:link" if annotation.source == "sitemap" else "link"
    return f'`<{tag} rel="alternate" hreflang="{annotation.hreflang}" href="{annotation.href}">`'


def source_name(group: SourceGroup) -> str:
    if group.source == "header":
        return f"The HTTP `Link` header of {code(group.url)}"
    if group.source == "sitemap":
        files = group.sitemaps
        where = f" in {name_list(files)}" if files else ""
        return f"The sitemap entry for {code(group.url)}{where}"
    return f"The HTML of {code(group.url)}"


# --- how hrefs are written ----------------------------------------------------------------------


def _href_hits(ctx: AuditContext, kind: HrefKind) -> Iterator[tuple[SourceGroup, Written, str | None]]:
    for group in source_groups(ctx):
        for written in group.items:
            if classify_href(written.annotation.href) is kind:
                yield group, written, resolve(written.annotation, group.base)


@check(
    "HL101",
    "relative-href",
    "error",
    why="""
Search engines take hreflang URLs only as absolute URLs: a relative href such as `/es/` or
`../es/` is ignored, so the alternate silently drops out of the cluster and its return links and
self-references break too.
""",
    example="""
`<link rel="alternate" hreflang="es" href="/es/">` on `https://example.com/en/`.
""",
    fix="""
Write the full URL, scheme and host included: `href="https://example.com/es/"`.
""",
    failing="""
<link rel="alternate" hreflang="es" href="/es/">
""",
    fixed="""
<link rel="alternate" hreflang="es" href="https://example.com/es/">
""",
    precedence="""
The annotation is left out of the graph, as search engines leave it out, so its consequences (HL108,
HL201) are reported too.
""",
    since="0.1.0",
)
def relative_href(ctx: AuditContext) -> Iterator[Hit]:
    for group, written, resolved in _href_hits(ctx, HrefKind.RELATIVE):
        a = written.annotation
        fix = (
            f"write the absolute URL {code(resolved)}"
            if resolved
            else "write the absolute URL of the alternate"
        )
        yield Hit(
            group.url,
            f"The href {code(a.href)} of {code(a.hreflang)} {place(written)} is relative, and search engines "
            f"ignore relative hreflang URLs: {fix}.",
            target=resolved or a.href,
            hreflang=a.hreflang,
            source=group.source,
        )


@check(
    "HL102",
    "protocol-relative-href",
    "warning",
    why="""
A protocol-relative href (`//example.com/es/`) takes the scheme of the page that carries it, so the
same markup names `http://` on one copy of the page and `https://` on another, and a sitemap or
a page reached over http sends search engines to a URL that redirects. It is resolved and kept in
the cluster, but it is fragile.
""",
    example="""
`<link rel="alternate" hreflang="es" href="//example.com/es/">`.
""",
    fix="""
Write the scheme: `href="https://example.com/es/"`.
""",
    failing="""
<link rel="alternate" hreflang="es" href="//example.com/es/">
""",
    fixed="""
<link rel="alternate" hreflang="es" href="https://example.com/es/">
""",
    precedence="""
Unlike HL101, the href is resolved against the page and the annotation is kept in the graph.
""",
    since="0.1.0",
)
def protocol_relative_href(ctx: AuditContext) -> Iterator[Hit]:
    for group, written, resolved in _href_hits(ctx, HrefKind.PROTOCOL_RELATIVE):
        a = written.annotation
        yield Hit(
            group.url,
            f"The href {code(a.href)} of {code(a.hreflang)} {place(written)} is protocol-relative, so its "
            "scheme depends on how the page was reached: "
            f"write {code(resolved or 'https:' + a.href.strip())}.",
            target=resolved or a.href,
            hreflang=a.hreflang,
            source=group.source,
        )


@check(
    "HL103",
    "invalid-href",
    "error",
    why="""
An href that is empty, not an http(s) URL, contains whitespace or cannot be parsed names no page:
search engines drop the annotation, and the alternate is missing from the cluster.
""",
    example="""
`<link rel="alternate" hreflang="de" href="">`, `href="javascript:void(0)"`,
`href="https://example.com/de/ index.html"`.
""",
    fix="""
Write the absolute http(s) URL of the alternate, percent-encoding spaces and other special characters.
""",
    failing="""
<link rel="alternate" hreflang="de" href="https://example.com/de/ index.html">
""",
    fixed="""
<link rel="alternate" hreflang="de" href="https://example.com/de/index.html">
""",
    precedence="""
The annotation is left out of the graph, so its consequences (HL108, HL201) are reported too.
""",
    since="0.1.0",
)
def invalid_href(ctx: AuditContext) -> Iterator[Hit]:
    for group, written, _ in _href_hits(ctx, HrefKind.INVALID):
        a = written.annotation
        reason = href_problem(a.href) or "it cannot be read as a URL"
        href = f"href {code(a.href)}" if a.href.strip() else "empty href"
        yield Hit(
            group.url,
            f"The {href} of {code(a.hreflang)} {place(written)} names no page ({reason}), so "
            "search engines drop the annotation: write the absolute http(s) URL of the alternate.",
            target=a.href,
            hreflang=a.hreflang,
            source=group.source,
        )


# --- elements search engines ignore -------------------------------------------------------------

_MISSPELT = re.compile(r"misspelt attribute `([^`]+)`")
_INERT = ("inside <template>", "inside <noscript>")


def _ignored(ctx: AuditContext) -> Iterator[tuple[str, str | None, IgnoredAnnotation, str | None]]:
    """(page or sitemap file, base for hrefs, element, sitemap file)."""
    for url, page in ctx.pages.items():
        for ignored in page.ignored:
            yield url, url, ignored, ignored.sitemap
    for entry in ctx.store.entries:
        for ignored in entry.ignored:
            yield entry.url or entry.sitemap, entry.url, ignored, ignored.sitemap or entry.sitemap


def _render(ignored: IgnoredAnnotation) -> str:
    def short(value: str) -> str:
        return value if len(value) <= 80 else value[:77] + "..."

    attrs = "".join(f' {name}="{short(value)}"' for name, value in ignored.attrs.items())
    if ignored.source == "header":
        return f"`Link:{attrs}`"
    return f"`<{ignored.tag}{attrs}>`"


#: Elements that carry annotations; hreflang on any other element (an `<a>`) is only a hint.
_LINK_TAGS = frozenset({"link", "xhtml:link", "Link"})


def _annotated_targets(ctx: AuditContext, url: str) -> set[str]:
    return {a.url for a in ctx.usable_annotations(url) if a.url is not None}


@check(
    "HL104",
    "incomplete-annotation",
    "error",
    why="""
Search engines read an annotation only from an element with exactly `rel="alternate"`, `hreflang`
and `href` (a `<link>` in <head>, an `<xhtml:link>` in a sitemap, or an HTTP `Link` header). A
misspelt attribute (`hreflag`, `href-lang`), `rel="alternative"`, a missing href, hreflang on an
`<a>`, or a `<link>` inside `<template>`/`<noscript>` looks like an annotation to people but is
ignored, so the alternate is missing from the cluster.
""",
    example="""
`<link rel="alternative" hreflang="de" href="https://example.com/de/">`;
`<a href="https://example.com/de/" hreflang="de">Deutsch</a>` as the only annotation of that page.
An `<a hreflang>` (a language switcher) whose target the page also annotates properly is harmless
and not reported.
""",
    fix="""
Write `<link rel="alternate" hreflang="de" href="https://example.com/de/">` in <head> (or the
equivalent `<xhtml:link>` in the sitemap entry).
""",
    failing="""
<link rel="alternative" hreflang="de" href="https://example.com/de/">
""",
    fixed="""
<link rel="alternate" hreflang="de" href="https://example.com/de/">
""",
    precedence="""
An `<a hreflang>` is reported only where the page does not annotate that target properly in any
source. The annotation is left out of the graph, so its consequences (HL108, HL201) are reported
too.
""",
    since="0.1.0",
)
def incomplete_annotation(ctx: AuditContext) -> Iterator[Hit]:
    for url, base, ignored, sitemap in _ignored(ctx):
        attrs = ignored.attrs
        misspelt = _MISSPELT.search(ignored.reason)
        value = attrs.get("hreflang")
        if value is None and misspelt:
            value = attrs.get(misspelt.group(1))
        href = attrs.get("href")
        target = ""
        if href is not None:
            try:
                target = normalize_url(href, base)
            except InvalidURL:
                target = href
        if ignored.tag not in _LINK_TAGS and target in _annotated_targets(ctx, url):
            continue  # a language switcher's <a hreflang> beside a real annotation: harmless
        line = f" at line {ignored.line}" if ignored.line else ""
        if ignored.source == "sitemap":
            line = f" in sitemap {code(sitemap or 'unknown')}{line}"
        elif ignored.source == "header":
            line = " in the HTTP `Link` header"
        wanted = suggested_element(ignored.source, value or "…", target or href or "…")
        if ignored.reason.startswith(_INERT):
            fix = f"move it out, adding {wanted}"
        else:
            fix = f"write it as a complete annotation, adding {wanted}"
        yield Hit(
            url,
            f"Search engines ignore {_render(ignored)}{line} ({ignored.reason}): {fix}.",
            target=target,
            hreflang=value or "",
            source=ignored.source,
        )


def _closer(by: str) -> str:
    if by == "#text":
        return "stray text"
    if by.startswith("<"):
        return code(by)
    return code(f"<{by}>")


@check(
    "HL105",
    "outside-head",
    "error",
    why="""
Search engines read hreflang `<link>` elements only in <head>, and they build <head> as an HTML5
parser does: the first element that does not belong there (an `<img>`, a `<div>`, stray text, an
unknown tag injected by a tag manager) ends <head> early, and every annotation after it is in
<body> and is ignored, although the source code shows it "in the head".
""",
    example="""
`<head><title>Shop</title><img src="pixel.gif"><link rel="alternate" hreflang="de" ...></head>`:
the `<img>` at line 5 ends <head>, so the annotation at line 6 is ignored.
""",
    fix="""
Move the annotations above the element that ends <head> early, or move that element into <body>.
""",
    failing="""
<head>
  <title>Shop</title>
  <img src="pixel.gif">
  <link rel="alternate" hreflang="de" href="https://example.com/de/">
</head>
""",
    fixed="""
<head>
  <title>Shop</title>
  <link rel="alternate" hreflang="de" href="https://example.com/de/">
</head>
<body>
  <img src="pixel.gif">
""",
    precedence="""
The annotation is left out of the graph, so its consequences (HL108, HL201) are reported too.
""",
    since="0.1.0",
)
def outside_head(ctx: AuditContext) -> Iterator[Hit]:
    for group in source_groups(ctx):
        if group.source != "html":
            continue
        for written in group.items:
            a = written.annotation
            if a.in_head:
                continue
            at = f" at line {a.line}" if a.line else ""
            by = a.head_closed_by
            if by is None or by == "body":
                message = (
                    f"{element(a)}{at} is inside <body>, where search engines ignore hreflang: "
                    "move it into <head>."
                )
            else:
                closed_at = f" at line {a.head_closed_line}" if a.head_closed_line else ""
                message = (
                    f"{element(a)}{at} is outside <head>: "
                    f"{_closer(by)}{closed_at} ended the <head> early, so "
                    "search engines ignore the annotation; move the `<link>` into <head> before it."
                )
            yield Hit(
                group.url,
                message,
                target=resolve(a, group.base) or a.href,
                hreflang=a.hreflang,
                source=group.source,
            )


# --- one value, several URLs; one URL, the same value twice ---------------------------------------


def _urls_by_value(group: SourceGroup) -> dict[str, tuple[str, list[str]]]:
    """Canonical value -> (first spelling, distinct URLs in reading order), valid values only."""
    found: dict[str, tuple[str, list[str]]] = {}
    for written in group.items:
        a = written.annotation
        value = canonical_hreflang(a.hreflang)
        url = resolve(a, group.base)
        if value is None or url is None:
            continue
        _, urls = found.setdefault(value, (a.hreflang, []))
        if url not in urls:
            urls.append(url)
    return found


@check(
    "HL106",
    "duplicate-language",
    "error",
    why="""
One hreflang value names one URL. When a page maps the same value to two URLs, search engines
cannot tell which one serves that language, and may pick either or drop both.
""",
    example="""
`https://example.com/en/` lists `de` twice: `https://example.com/de/` and `https://example.com/de-at/`.
""",
    fix="""
Keep the one URL that serves the language; give the other its own value (`de-AT`) or remove it.
""",
    failing="""
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<link rel="alternate" hreflang="de" href="https://example.com/de-at/">
""",
    fixed="""
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<link rel="alternate" hreflang="de-AT" href="https://example.com/de-at/">
""",
    precedence="""
One value to one URL written twice is HL112; one URL with two languages is HL111.
""",
    since="0.1.0",
)
def duplicate_language(ctx: AuditContext) -> Iterator[Hit]:
    for group in source_groups(ctx):
        for value, (spelling, urls) in _urls_by_value(group).items():
            if value == X_DEFAULT or len(urls) < 2:
                continue
            yield Hit(
                group.url,
                f"{source_name(group)} maps {code(spelling)} to {len(urls)} URLs, {name_list(urls)}: "
                f"keep the one that serves {code(spelling)} and give the others "
                "their own value or remove them.",
                target=urls[1],
                hreflang=spelling,
                source=group.source,
            )


def _x_default_claims(ctx: AuditContext, members: list[str]) -> dict[str, set[str]]:
    """Page -> the URLs it declares x-default (that may stand as alternates), graph view."""
    claims: dict[str, set[str]] = {}
    declarers = x_default_declarers(ctx)
    for url in members:
        if url not in declarers or not (is_lister(ctx, url) and may_stand(ctx, url)):
            continue
        targets = {
            target
            for target, values in ctx.declared(url).items()
            if X_DEFAULT in values and may_stand(ctx, target)
        }
        if targets:
            claims[url] = targets
    return claims


def _x_default_spelling(ctx: AuditContext, urls: Iterable[str]) -> str:
    for url in urls:
        for a in ctx.usable_annotations(url):
            if canonical_hreflang(a.hreflang) == X_DEFAULT:
                return a.hreflang
    return X_DEFAULT


@check(
    "HL107",
    "multiple-x-default",
    "error",
    why="""
`x-default` names the one page for users whose language no alternate serves (often a language
picker or the main-language page). A page that declares two x-default URLs, or pages of one
cluster that declare different ones, leave search engines to guess which, and the fallback users
see can change from query to query.
""",
    example="""
`https://example.com/en/` declares `x-default` as both `https://example.com/` and
`https://example.com/en/`; or `/en/` says `x-default` is `/`, while `/de/` says it is `/en/`.
""",
    fix="""
Choose one x-default URL and declare that same URL on every page of the cluster. A page that
declares several is reported once per page and source; pages that disagree are reported once per
cluster, on the first page (sorted) that declares an x-default.
""",
    failing="""
<link rel="alternate" hreflang="x-default" href="https://example.com/">
<link rel="alternate" hreflang="x-default" href="https://example.com/en/">
""",
    fixed="""
<link rel="alternate" hreflang="x-default" href="https://example.com/">
""",
    precedence="""
A URL that cannot stand as an alternate (HL3xx, HL4xx) takes no part in the cluster's count: that
URL is the defect.
""",
    since="0.1.0",
)
def multiple_x_default(ctx: AuditContext) -> Iterator[Hit]:
    # One page (one source) that declares several x-default URLs.
    for group in source_groups(ctx):
        spelling, urls = _urls_by_value(group).get(X_DEFAULT, (X_DEFAULT, []))
        if len(urls) >= 2:
            yield Hit(
                group.url,
                f"{source_name(group)} declares {code(spelling)} for {len(urls)} URLs, {name_list(urls)}: "
                "keep one x-default, the page for users whose language no alternate serves.",
                target=urls[1],
                hreflang=spelling,
                source=group.source,
            )
    # Pages of one cluster that disagree. Where every declaring page includes one common URL, the
    # extra URLs are the page-level defect above, not a disagreement.
    for cluster, members in ctx.clusters.items():
        claims = _x_default_claims(ctx, members)
        if len(claims) < 2 or set.intersection(*claims.values()):
            continue
        urls = sorted(set.union(*claims.values()))
        first = min(claims)
        # Another x-default than the first page's; where that page declares every one of them
        # (its page-level HL107), its second.
        target = min(set(urls) - claims[first], default=urls[1])
        by_url = {url: sorted(page for page, targets in claims.items() if url in targets) for url in urls}
        said = "; ".join(f"{code(url)} by {name_list(by_url[url], 3)}" for url in urls[:5])
        more = f" and {len(urls) - 5} more" if len(urls) > 5 else ""
        yield Hit(
            first,
            f"Pages of one cluster declare {len(urls)} different x-default URLs ({said}{more}): "
            "choose one and declare it on every page.",
            target=target,
            hreflang=_x_default_spelling(ctx, sorted(claims)),
            cluster=cluster,
        )


@check(
    "HL112",
    "duplicate-annotation",
    "notice",
    why="""
Repeating an annotation (the same value, in any case, for the same URL) in one source is harmless
to search engines, but it is a sign of templates that add annotations twice, and it makes the
markup harder to keep right: the next edit changes one copy and not the other.
""",
    example="""
`<link rel="alternate" hreflang="en-US" href="https://example.com/en-us/">` and
`<link rel="alternate" hreflang="EN-us" href="https://example.com/en-us/">` in one <head>.
""",
    fix="""
Remove the repeat. The same annotation in the HTML and in the sitemap is not a repeat.
""",
    failing="""
<link rel="alternate" hreflang="en-US" href="https://example.com/en-us/">
<link rel="alternate" hreflang="EN-us" href="https://example.com/en-us/">
""",
    fixed="""
<link rel="alternate" hreflang="en-US" href="https://example.com/en-us/">
""",
    precedence="""
The same annotation in two sources (HTML and sitemap) is not a repeat. One value for two URLs is
HL106.
""",
    since="0.1.0",
)
def duplicate_annotation(ctx: AuditContext) -> Iterator[Hit]:
    for group in source_groups(ctx, per_entry=True):
        repeats: dict[tuple[str, str], list[Written]] = defaultdict(list)
        for written in group.items:
            a = written.annotation
            if not a.hreflang.strip():
                continue
            repeats[(a.hreflang.strip().lower(), resolve(a, group.base) or a.href)].append(written)
        for (_, target), found in repeats.items():
            if len(found) < 2:
                continue
            spellings = list(dict.fromkeys(w.annotation.hreflang for w in found))
            lines = [str(w.annotation.line) for w in found if w.annotation.line]
            at = f" (lines {', '.join(lines)})" if len(lines) == len(found) and group.source == "html" else ""
            as_written = f" as {name_list(spellings)}" if len(spellings) > 1 else ""
            yield Hit(
                group.url,
                f"{source_name(group)} repeats {code(spellings[0])} for {code(target)} {len(found)} times"
                f"{as_written}{at}: remove the repeat.",
                target=target,
                hreflang=found[1].annotation.hreflang,
                source=group.source,
            )
