"""HL108 to HL111: one page's annotations, all sources together, as search engines merge them.

These checks read the graph (usable annotations only). Where a page names a variant of its own URL
(`http://` for `https://`, a trailing slash, another case) instead of itself, HL110 says so and
HL108 stays silent; the cluster graph reads that variant as the page's self-loop
(``cluster_graph.effective_declared``), so one wrong href is one finding, not a cascade.
"""

from __future__ import annotations

from typing import Iterator

from ...extract.hreflang_values import canonical_hreflang, primary_language
from ..core.annotations import (
    annotations_for,
    ignored_annotation_for,
    own_value,
    sources_of,
    variant_self_references,
    x_default_declarers,
)
from ..core.cluster_graph import ClusterGraph
from ..core.context import AuditContext
from ..core.registry import Hit, check
from ..core.statuses import is_lister
from ..core.wording import code, name_list, suggested_element
from ..core.written import X_DEFAULT


@check(
    "HL108",
    "missing-self-reference",
    "error",
    why="""
Each page of a cluster must list itself among its alternates, with its own language. Search
engines use the self-reference to confirm which language the page serves; without it, the page's
annotations may be ignored. An annotation that names the page but that search engines ignore
(outside <head>, relative href, invalid value) does not count. Where the page names a variant of
its own URL instead (http for https, a trailing slash), HL110 reports that and HL108 does not.
""",
    example="""
`https://example.com/en/` lists `de` and `fr` but no `<link rel="alternate" hreflang="en"
href="https://example.com/en/">`.
""",
    fix="""
Add the page itself, with its own language, to its annotations in every source that annotates it.
""",
    failing="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<link rel="alternate" hreflang="fr" href="https://example.com/fr/">
""",
    fixed="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<link rel="alternate" hreflang="fr" href="https://example.com/fr/">
""",
    precedence="""
A self-reference to a variant of the page's URL is HL110, not HL108.
""",
    since="0.1.0",
    per_cluster=True,
)
def missing_self_reference(ctx: AuditContext, graph: ClusterGraph) -> Iterator[Hit]:
    # A page answering 200 that annotates others but has no self-loop (a variant of its own URL is
    # read as one: HL110's).
    for url in graph:
        if not graph.succ[url] or graph.has_edge(url, url) or ctx.status(url) != 200:
            continue
        usable = ctx.usable_annotations(url)
        sources = sources_of(usable)
        value = own_value(ctx, url)
        adds = " and ".join(suggested_element(source, value, url) for source in sources)
        ignored = ignored_annotation_for(ctx, url, url)
        alternates = len(ctx.declared(url))
        if ignored is not None:
            annotation, reason = ignored
            message = (
                f"{code(url)} names itself only in an annotation that search engines ignore "
                f"because {reason}: "
                f"fix it, so that its {alternates} alternates include the page itself."
            )
            hreflang = annotation.hreflang
        else:
            message = f"{code(url)} lists {alternates} alternates but not itself: add {adds}."
            hreflang = ""
        yield Hit(url, message, hreflang=hreflang, source=sources[0] if len(sources) == 1 else "")


@check(
    "HL109",
    "missing-x-default",
    "notice",
    why="""
`x-default` tells search engines which page to show users whose language no alternate serves, for
example a language picker or the main-language page. Without it, they choose one themselves.
""",
    example="""
A cluster of `https://example.com/en/`, `https://example.com/de/` and `https://example.com/fr/`
in which no page declares `x-default`.
""",
    fix="""
Add `<link rel="alternate" hreflang="x-default" href="...">` with the same URL to every page of the
cluster. Reported once per cluster, on its first URL (sorted).
""",
    failing="""
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
""",
    fixed="""
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<link rel="alternate" hreflang="x-default" href="https://example.com/en/">
""",
    since="0.1.0",
)
def missing_x_default(ctx: AuditContext) -> Iterator[Hit]:
    with_default = {ctx.cluster_of[source] for source in x_default_declarers(ctx) if is_lister(ctx, source)}
    for cluster, members in ctx.clusters.items():
        if cluster in with_default:
            continue
        if not any(ctx.graph.out_degree(m) and is_lister(ctx, m) for m in members):
            continue
        yield Hit(
            members[0],
            f"No page of the cluster of {len(members)} URL{'s' if len(members) > 1 else ''} "
            f"({name_list(members, 3)}) declares `x-default`: add the same "
            '`<link rel="alternate" hreflang="x-default" href="...">` to every member, naming the page for '
            "users whose language no alternate serves.",
            cluster=cluster,
        )


@check(
    "HL110",
    "self-reference-variant",
    "warning",
    why="""
A self-reference must name the page's own URL exactly. One that names a variant (`http://` on an
`https://` page, a missing or extra trailing slash, another letter case) points search engines at
another URL, which typically redirects or is a duplicate, so the page is not confirmed as its own
language. Qivrora reports this instead of HL108 (missing-self-reference), and instead of HL401 to
HL406 where the variant redirects or fails, with the variant as `target`, because the fix is to
correct that href, not to add an annotation or repair the variant.
""",
    example="""
`https://example.com/en/` carries `<link rel="alternate" hreflang="en" href="http://example.com/en">`.
""",
    fix="""
Write the page's own URL, exactly as it is served: `href="https://example.com/en/"`.
""",
    failing="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="en" href="http://example.com/en">
""",
    fixed="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="en" href="https://example.com/en/">
""",
    precedence="""
Reported instead of HL401 to HL406 for the self-reference it names.
""",
    since="0.1.0",
)
def self_reference_variant(ctx: AuditContext) -> Iterator[Hit]:
    for url, variants in variant_self_references(ctx).items():
        found = annotations_for(ctx, url, set(variants))
        first = found[0]
        sources = sources_of(found)
        where = f" (in {' and '.join(sources)})" if len(sources) > 1 else ""
        yield Hit(
            url,
            f"{code(url)} refers to itself as {name_list(sorted({a.url for a in found if a.url}))}"
            f" ({code(first.hreflang)}){where} instead of its own URL: change the href to {code(url)}.",
            target=first.url or variants[0],
            hreflang=first.hreflang,
            source=first.source,
        )


@check(
    "HL111",
    "url-multiple-languages",
    "warning",
    why="""
One URL serves one language. When a page annotates one URL with two different languages (`en` and
`de` for `/home/`), search engines cannot tell which is meant, and the other language's users have
no page. Several regions of one language (`en-GB` and `en-IE`) or a language and `x-default` on
one URL are fine and not reported.
""",
    example="""
`https://example.com/en/` lists `https://example.com/` as both `en` and `de`.
""",
    fix="""
Annotate the URL with the one language it serves, and point the other value to the page in that language.
""",
    failing="""
<link rel="alternate" hreflang="en" href="https://example.com/">
<link rel="alternate" hreflang="de" href="https://example.com/">
""",
    fixed="""
<link rel="alternate" hreflang="en" href="https://example.com/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
""",
    precedence="""
Regions of one language, or `x-default`, on one URL are fine.
""",
    since="0.1.0",
)
def url_multiple_languages(ctx: AuditContext) -> Iterator[Hit]:
    for url in ctx.graph.nodes:
        if not is_lister(ctx, url):
            continue
        for target, values in ctx.declared(url).items():
            if len(values) < 2:
                continue
            languages = {primary_language(value) for value in values} - {None}
            if len(languages) < 2:
                continue
            found = [
                a for a in annotations_for(ctx, url, target) if canonical_hreflang(a.hreflang) != X_DEFAULT
            ]
            spellings = list(dict.fromkeys(a.hreflang for a in found))
            first_language = primary_language(found[0].hreflang)
            other = next(a for a in found if primary_language(a.hreflang) != first_language)
            yield Hit(
                url,
                f"{code(url)} annotates {code(target)} with {len(languages)} languages, "
                f"{name_list(spellings)}: one URL serves one language, so keep the value it serves "
                "and point the others to their own pages.",
                target=target,
                hreflang=other.hreflang,
                source=other.source,
            )
