"""HL3xx: canonical conflicts. hreflang and rel="canonical" must name the same URLs.

Search engines cluster only canonical URLs: an annotation that points to a URL which canonicalises
elsewhere, or a page whose annotations sit on a URL that is not canonical, drops out of the cluster.

Each defect is reported where it is fixed, once:

- a page that carries annotations but canonicalises elsewhere is HL302 at that page; its own
  self-reference is not also an HL301 (the fix is the same, at the same place), but every other page
  that annotates it gets an HL301, since each of those annotations must be changed too;
- a canonical that points to another language version of the cluster is HL303 at that page and
  nothing else: there the canonical is what is wrong, and "annotate the canonical URL instead"
  (HL301) would be wrong advice. Language versions are told apart by their full hreflang values,
  so `en-GB` canonicalising to `en-US` is HL303 too: the British page would vanish all the same;
- a page naming several distinct canonicals is HL304 only: search engines may ignore all of them,
  so no other check takes either canonical for granted.
"""

from __future__ import annotations

from typing import Iterator

from ...extract.hreflang_values import canonical_hreflang
from ...facts import Canonical
from ..core.context import SOURCE_NAMES, AuditContext, is_usable, per_audit, places
from ..core.registry import Hit, check


def _languages(ctx: AuditContext, url: str) -> dict[str, str]:
    """The language values (canonical -> as written) a page has in its cluster, x-default aside.

    What the page says of itself when it has a self-reference, else what the pages annotating it say.
    """
    found: dict[str, dict[str, str]] = {"self": {}, "others": {}}
    for annotator in ctx.graph.predecessors(url):
        for annotation in ctx.pair(annotator, url):
            value = canonical_hreflang(annotation.hreflang) if is_usable(annotation) else None
            if value is not None and value != "x-default":
                found["self" if annotator == url else "others"].setdefault(value, annotation.hreflang)
    return found["self"] or found["others"]


def _canonical_tag(ctx: AuditContext, url: str, target: str) -> Canonical:
    """The canonical declaration of `url` that names `target`, HTML before Link header."""
    page = ctx.pages[url]
    return min((c for c in page.canonicals if c.url == target), key=lambda c: c.source != "html")


@per_audit
def _cross_language(ctx: AuditContext) -> dict[str, tuple[str, dict[str, str], dict[str, str]]]:
    """Pages whose canonical is another language of their cluster: url -> (canonical, own, its)."""
    found = {}
    for url in ctx.pages:
        canonical = ctx.canonical_elsewhere(url)
        if canonical is None or url not in ctx.cluster_of:
            continue
        if ctx.cluster_of.get(canonical) != ctx.cluster_of[url]:
            continue
        own, its = _languages(ctx, url), _languages(ctx, canonical)
        if own and its and not own.keys() & its.keys():
            found[url] = (canonical, own, its)
    return found


def _values(languages: dict[str, str]) -> str:
    return ", ".join(f"`{written}`" for written in languages.values())


@check(
    "HL301",
    "alternate-not-canonical",
    "error",
    why="""
Search engines build hreflang clusters from canonical URLs only. An annotation that points to a URL
whose `rel="canonical"` names another URL is dropped, so that language version loses its place in the
cluster; parameterised alternates (`?sort=desc`, tracking parameters) are the usual cause. Reported
on each page that annotates such a URL; that URL's own self-reference is HL302, and a canonical that
points to another language of the cluster is HL303 at the page that declares it.
""",
    example="""
`https://example.com/en/` lists
`<link rel="alternate" hreflang="de" href="https://example.com/de/?sort=desc">`, and that page declares
`<link rel="canonical" href="https://example.com/de/">`.
""",
    fix="""
Point the annotation at the canonical URL (`https://example.com/de/`). If the alternate is the real
language version, make its canonical point to itself instead.
""",
    failing="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="de" href="https://example.com/de/?sort=desc">
<!-- on https://example.com/de/?sort=desc -->
<link rel="canonical" href="https://example.com/de/">
""",
    fixed="""
<link rel="alternate" hreflang="de" href="https://example.com/de/">
""",
    precedence="""
A page's own self-reference while it canonicalises elsewhere is HL302, not also HL301.
""",
    since="0.1.0",
)
def alternate_not_canonical(ctx: AuditContext) -> Iterator[Hit]:
    cross = _cross_language(ctx)
    elsewhere = ctx.canonicalised
    for url, target, found in ctx.pairs_naming(elsewhere):
        # A page's own self-reference is HL302; a cross-language canonical is HL303 at the target.
        if url == target or target in cross:
            continue
        canonical = elsewhere[target]
        first = found[0]
        if any(a.url == canonical for a in ctx.annotations[url]):
            fix = f"remove it: this page already annotates {canonical}"
        else:
            fix = (
                f"annotate {canonical} instead, or make {target} canonical to itself "
                f"if it is the `{first.hreflang}` page"
            )
        yield Hit(
            url,
            f"The `{first.hreflang}` alternate {target} (in {places(found)}) names {canonical} as its "
            f"canonical, so search engines drop the annotation: {fix}.",
            target=target,
            hreflang=first.hreflang,
            source=first.source,
        )


@check(
    "HL302",
    "page-not-canonical",
    "error",
    why="""
Search engines read hreflang annotations only on canonical pages. A page that carries annotations but
declares another URL as canonical has its annotations ignored, and the URL it points to is the one that
gets indexed, without them.
""",
    example="""
`https://example.com/fr/?ref=nav` carries the cluster's `<link rel="alternate" hreflang=...>` tags and
`<link rel="canonical" href="https://example.com/fr/">`.
""",
    fix="""
Make the canonical point to the page itself if it is a language version; otherwise put the annotations
on the canonical URL, and have the other pages annotate the canonical URL.
""",
    failing="""
<!-- on https://example.com/fr/?ref=nav -->
<link rel="canonical" href="https://example.com/fr/">
<link rel="alternate" hreflang="fr" href="https://example.com/fr/?ref=nav">
""",
    fixed="""
<!-- the annotations go on https://example.com/fr/ itself -->
<link rel="canonical" href="https://example.com/fr/">
<link rel="alternate" hreflang="fr" href="https://example.com/fr/">
""",
    precedence="""
Where the canonical points to another language version of the cluster, HL303 is reported instead.
""",
    since="0.1.0",
)
def page_not_canonical(ctx: AuditContext) -> Iterator[Hit]:
    cross = _cross_language(ctx)
    for url in ctx.annotations:
        canonical = ctx.canonical_elsewhere(url)
        if canonical is None or url in cross:  # HL303 names the defect better
            continue
        tag = _canonical_tag(ctx, url, canonical)
        yield Hit(
            url,
            f"This page carries hreflang annotations (in {places(ctx.annotations[url])}) but its "
            f"canonical in {SOURCE_NAMES[tag.source]} points to {canonical}, so search engines ignore them: "
            f"make the canonical point to the page itself, or move the annotations to {canonical}.",
            target=canonical,
            source=tag.source,
        )


@check(
    "HL303",
    "cross-language-canonical",
    "error",
    why="""
A canonical tells search engines that two URLs are the same content. Pointing a language version's
canonical at another language (or regional) version of its cluster makes search engines index only that
other version, so this one is never shown to the users it was written for: the classic "all languages
canonicalise to the English page" mistake.
""",
    example="""
`https://example.com/de/` is annotated `hreflang="de"` and declares
`<link rel="canonical" href="https://example.com/en/">`, the page annotated `hreflang="en"`.
""",
    fix="""
Make each language version's canonical point to itself; hreflang, not the canonical, relates the
language versions to one another.
""",
    failing="""
<!-- on https://example.com/de/ -->
<link rel="canonical" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<link rel="alternate" hreflang="en" href="https://example.com/en/">
""",
    fixed="""
<!-- on https://example.com/de/ -->
<link rel="canonical" href="https://example.com/de/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<link rel="alternate" hreflang="en" href="https://example.com/en/">
""",
    precedence="""
Reported instead of HL302 at a page whose canonical points to another language version of its
cluster.
""",
    since="0.1.0",
)
def cross_language_canonical(ctx: AuditContext) -> Iterator[Hit]:
    for url, (canonical, own, its) in sorted(_cross_language(ctx).items()):
        tag = _canonical_tag(ctx, url, canonical)
        yield Hit(
            url,
            f"This {_values(own)} page's canonical in {SOURCE_NAMES[tag.source]} points to {canonical}, the "
            f"{_values(its)} page of its cluster, so search engines index only that one: make the canonical "
            f"point to the page itself.",
            target=canonical,
            hreflang=next(iter(own.values())),
            source=tag.source,
        )


@check(
    "HL304",
    "conflicting-canonicals",
    "warning",
    why="""
A page that declares more than one distinct `rel="canonical"` (several in the HTML, or the HTML and the
HTTP `Link` header disagreeing) gives search engines contradictory signals; they may ignore all of them
and pick a canonical themselves, which can drop the page from its hreflang cluster.
""",
    example="""
`https://example.com/es/` has `<link rel="canonical" href="https://example.com/es/">` in its HTML and
`Link: <https://example.com/es>; rel="canonical"` in its response headers.
""",
    fix="""
Declare one canonical, in one place, pointing to the page itself.
""",
    failing="""
HTTP/1.1 200 OK
Link: <https://example.com/es>; rel="canonical"

<link rel="canonical" href="https://example.com/es/">
""",
    fixed="""
HTTP/1.1 200 OK

<link rel="canonical" href="https://example.com/es/">
""",
    since="0.1.0",
)
def conflicting_canonicals(ctx: AuditContext) -> Iterator[Hit]:
    for url in ctx.cluster_of:
        page = ctx.page(url)
        if page is None or page.status != 200:
            continue
        listed: dict[str, Canonical] = {}  # the first declaration of each canonical, HTML first
        for declared in sorted(page.canonicals, key=lambda c: c.source != "html"):
            listed.setdefault(declared.url or declared.href, declared)
        if len(listed) < 2:
            continue
        named = ", ".join(f"`{c.href}` in {SOURCE_NAMES[c.source]}" for c in listed.values())
        first = next(iter(listed.values()))
        stray = next((c for c in listed.values() if c.url != url), first)
        yield Hit(
            url,
            f"This page declares {len(listed)} different canonicals ({named}), so search engines may ignore "
            f"them all: keep one canonical, pointing to the page itself.",
            target=stray.url or "",
            source=first.source,
        )
