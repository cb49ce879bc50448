"""HL207 and HL208: indexable pages that no cluster holds, on a site that has clusters.

A page no annotation names and that names none is outside every cluster. Where the same path under
another locale segment of the site (``core.segments``) is a cluster member, the page is most likely
that member's translation, which the cluster does not know (HL207, naming the value the page would
take and the cluster). The rest are HL208: fine for a page the site never translates (tags, search,
a legal page in one language), a gap for one that should be.
"""

from __future__ import annotations

from typing import Iterator

from ...extract.urls import normalised_origin
from ...facts import Page
from ..core.context import AuditContext, per_audit
from ..core.registry import Hit, check
from ..core.segments import locale_segments, member_values
from ..core.wording import code


def _outside_clusters(ctx: AuditContext, url: str, page: Page) -> bool:
    """An HTML page answering 200, indexable, its own canonical, that no annotation names and that names none."""
    if page.status != 200 or not page.is_html or page.noindex:
        return False
    if url in ctx.graph or ctx.annotations.get(url):
        return False
    canonicals = ctx.canonicals(url)
    return not canonicals or canonicals == {url}


@per_audit
def unclustered_pages(ctx: AuditContext) -> dict[str, tuple[str, str, str] | None]:
    """Each page outside every cluster on an origin where clusters exist -> (its value, the member it
    translates, that member's cluster) where HL207 applies, else None (HL208)."""
    candidates = [url for url, page in ctx.pages.items() if _outside_clusters(ctx, url, page)]
    if not candidates:
        return {}  # most sites annotate every page: no segments to learn for them
    with_clusters = {
        normalised_origin(url)
        for url, page in ctx.pages.items()
        if page.is_html and page.status == 200 and ctx.graph.out_degree(url)
    }
    outside = sorted(url for url in candidates if normalised_origin(url) in with_clusters)
    segments = locale_segments(ctx)
    taken: dict[str, set[str]] = {}  # cluster -> the values its members carry
    for url, value in member_values(ctx).items():
        taken.setdefault(ctx.cluster_of[url], set()).add(value)
    found: dict[str, tuple[str, str, str] | None] = {}
    for url in outside:
        found[url] = None
        segment, rest = segments.locate(url)
        if segment is None:
            continue
        for other in segments.segments:
            counterpart = other.url(rest)
            cluster = ctx.cluster_of.get(counterpart)
            if other.value != segment.value and cluster and segment.value not in taken[cluster]:
                found[url] = (segment.value, counterpart, cluster)
                break
    return found


@check(
    "HL207",
    "unannotated-translation",
    "warning",
    why="""
The page is the translation of a cluster member: the same path under another locale segment of the
site (`/de/preise/` beside `/en/preise/`, `de.example.com/x` beside `example.com/x`), and the cluster
has no member in the page's language. Yet no annotation names it, so search engines show the other
version to its readers. The segments are learned from the site's own clusters (the path prefix,
subdomain or host that goes with each value), not guessed from a list of codes; a page whose path
has no counterpart in a cluster is HL208.
""",
    example="""
`https://example.com/en/preise/` is in a cluster with `/fr/preise/`; `https://example.com/de/preise/`
answers 200, is linked, and carries no annotation, while `/de/` goes with `de` across the site.
""",
    fix="""
Add the page to its cluster as the value named (`de`): list it on every member, and list every member
on it, itself included. The fixes file (QIVRORA_FIXES) includes it.
""",
    failing="""
<!-- on https://example.com/en/preise/ -->
<link rel="alternate" hreflang="en" href="https://example.com/en/preise/">
<link rel="alternate" hreflang="fr" href="https://example.com/fr/preise/">
<!-- https://example.com/de/preise/ exists, is linked, and carries no annotation -->
""",
    fixed="""
<!-- on /en/preise/, /fr/preise/ and /de/preise/ alike -->
<link rel="alternate" hreflang="en" href="https://example.com/en/preise/">
<link rel="alternate" hreflang="fr" href="https://example.com/fr/preise/">
<link rel="alternate" hreflang="de" href="https://example.com/de/preise/">
""",
    precedence="""
A page that qualifies is HL207, not HL208. Pages the site never translates (no counterpart under
another locale segment) are HL208 at most.
""",
    since="0.2.0",
)
def unannotated_translation(ctx: AuditContext) -> Iterator[Hit]:
    for url, translation in unclustered_pages(ctx).items():
        if translation is None:
            continue
        value, member, cluster = translation
        yield Hit(
            url,
            f"{code(url)} carries no hreflang annotation and none names it, but it sits where the site puts "
            f"{code(value)} and translates {code(member)}, a member of cluster {cluster} with no {code(value)} "
            f"version: add it to that cluster as {code(value)}.",
            target=member,
            hreflang=value,
            cluster=cluster,
        )


@check(
    "HL208",
    "page-without-annotations",
    "notice",
    why="""
On a host where clusters exist, an indexable page that no annotation names and that names none is in
no cluster: search engines show it to every reader alike. That is right for a page the site never
translates (tags, search, a legal page in one language) and a gap for one it should; the report's
coverage table shows, per locale segment, how many crawled pages are in a cluster. A page whose
translation is already in a cluster is HL207.
""",
    example="""
`https://example.com/en/blog/launch/` answers 200 and is indexable, while the home page and the
product pages carry hreflang annotations; no version of the post exists in another language.
""",
    fix="""
Nothing, if the page exists in one language only. Otherwise publish its translations and annotate
them as a cluster.
""",
    failing="""
<!-- on https://example.com/en/news/, a host where clusters exist -->
<head><title>News</title></head>
""",
    fixed="""
<!-- on https://example.com/en/news/, if a translation exists -->
<link rel="alternate" hreflang="en" href="https://example.com/en/news/">
<link rel="alternate" hreflang="de" href="https://example.com/de/news/">
""",
    precedence="""
HL207 takes the page where a counterpart exists under another locale segment; HL208 is the rest.
""",
    since="0.2.0",
)
def page_without_annotations(ctx: AuditContext) -> Iterator[Hit]:
    for url, translation in unclustered_pages(ctx).items():
        if translation is None:
            yield Hit(
                url,
                f"{code(url)} is indexable but in no hreflang cluster, on a host whose other pages are: if "
                "it has versions in other languages, annotate them as a cluster; if not, nothing to do.",
            )
