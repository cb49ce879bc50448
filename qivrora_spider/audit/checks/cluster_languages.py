"""HL209 and HL210: the languages a cluster gives its members, read across all its pages.

HL111 reads one page, HL202 one pair with its return link; these read every voice in the cluster.
Only the annotations that count are voices (``ClusterGraph.listers``: pages answering 200, may stand),
and a URL's own self-reference is one voice among them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterator

from ...extract.hreflang_values import primary_language, subtags
from ..core.annotations import written_value
from ..core.cluster_graph import ClusterGraph
from ..core.context import AuditContext
from ..core.registry import Hit, check
from ..core.statuses import may_stand
from ..core.wording import code, name_list
from ..core.written import X_DEFAULT


def _same_language(one: str, other: str) -> bool:
    """Do two values name one language for its readers? Regions aside; a script only where both say one
    (`zh` and `zh-Hant` agree, `zh-Hant` and `zh-Hans` do not)."""
    a, b = subtags(one), subtags(other)
    if a is None or b is None:
        return True  # x-default names no language
    return a[0] == b[0] and (a[1] is None or b[1] is None or a[1] == b[1])


def _hl202_pair(ctx: AuditContext, graph: ClusterGraph, page: str, url: str) -> bool:
    """Does HL202 name the disagreement between `page`'s value for `url` and `url`'s own? It does where
    `url` answered 200, may stand, names itself and links back to `page`, and `page` gives it one language."""
    fetched = ctx.page(url)
    return (
        fetched is not None
        and fetched.status == 200
        and may_stand(ctx, url)
        and graph.counted_edge(url, url)
        and graph.counted_edge(url, page)
        and len({primary_language(v) for v in graph.listers[page][url] - {X_DEFAULT}}) == 1
    )


@check(
    "HL209",
    "disputed-language",
    "error",
    why="""
Pages of a cluster must agree on the language of each URL. When one page calls `/x/` `fr` and
another calls it `es`, search engines cannot tell whose users the page serves and may drop it from
the cluster, or show it to the wrong readers. Regions of one language (`en-GB`, `en-US`) and
`x-default` are no dispute; scripts are (`zh-Hant`, `zh-Hans`). The URL's own self-reference counts
as one voice. Where the only disagreement is between a page and the URL's own self-reference with the
return link in place, HL202 names it; one page naming one URL with two languages is HL111.
""",
    example="""
`https://example.com/en/` lists `https://example.com/x/` as `fr`; `https://example.com/de/` lists it
as `es`.
""",
    fix="""
Decide which language the URL serves and write that value for it on every page of the cluster.
""",
    failing="""
<!-- on https://example.com/a/ -->
<link rel="alternate" hreflang="fr" href="https://example.com/x/">
<!-- on https://example.com/b/ -->
<link rel="alternate" hreflang="es" href="https://example.com/x/">
""",
    fixed="""
<!-- on every page that names https://example.com/x/ -->
<link rel="alternate" hreflang="fr" href="https://example.com/x/">
""",
    precedence="""
Not reported where HL202 already names the only disagreement (a pair with a return link); one
page naming one URL with two languages is HL111.
""",
    per_cluster=True,
    since="0.2.0",
)
def disputed_language(ctx: AuditContext, graph: ClusterGraph) -> Iterator[Hit]:
    # Nearly every URL is given one value set by all: the graph shares the sets, so an identity test
    # finds the few URLs that are given several, and only those are compared voice by voice.
    first: dict[str, frozenset[str]] = {}
    several = set()
    for declared in graph.listers.values():
        for url, values in declared.items():
            known = first.setdefault(url, values)
            if known is not values and known != values:
                several.add(url)
    for url in sorted(several):
        said = {
            page: languages
            for page, declared in graph.listers.items()
            if url in declared and (languages := declared[url] - {X_DEFAULT})
        }
        if len(said) < 2 or not may_stand(ctx, url):
            continue
        disputes = [
            (page, other)
            for page in said
            for other in said
            if page < other
            and any(not _same_language(a, b) for a in said[page] for b in said[other])
        ]
        if not disputes or all(
            url in pair and _hl202_pair(ctx, graph, pair[0] if pair[1] == url else pair[1], url)
            for pair in disputes
        ):
            continue
        by_value: dict[str, list[str]] = defaultdict(list)
        for page in sorted(said):
            for value in sorted(said[page]):
                by_value[value].append(page)
        listed = "; ".join(
            f"{code(written_value(ctx, pages[0], url, value))} by "
            + name_list([f"{code(p)}{' (itself)' if p == url else ''}" for p in pages], quoted=False)
            for value, pages in by_value.items()
        )
        yield Hit(
            url,
            f"Pages of its cluster give {code(url)} different languages: {listed}. Decide which language it "
            "serves and write that value for it on every page.",
        )


@check(
    "HL210",
    "regional-without-generic",
    "notice",
    why="""
A cluster that targets two or more regions of one language (`en-GB`, `en-US`) and annotates neither
the language alone (`en`) nor `x-default` matches no page to readers of that language elsewhere
(English in India, Ireland, Singapore): they get whatever the search engine picks. Any annotation
counts, whatever its target answers (a broken one is an HL4xx). It may stand beside HL109: one
`x-default` mends both.
""",
    example="""
A cluster annotates `en-GB`, `en-US` and `de`, with no `en` and no `x-default`.
""",
    fix="""
Annotate one version as the language alone too (`hreflang="en"` beside `en-GB` on the same URL is
fine), or add an `x-default`.
""",
    failing="""
<link rel="alternate" hreflang="en-GB" href="https://example.com/uk/">
<link rel="alternate" hreflang="en-US" href="https://example.com/us/">
""",
    fixed="""
<link rel="alternate" hreflang="en-GB" href="https://example.com/uk/">
<link rel="alternate" hreflang="en-US" href="https://example.com/us/">
<link rel="alternate" hreflang="en" href="https://example.com/us/">
""",
    precedence="""
It may stand beside HL109: one `x-default` mends both.
""",
    per_cluster=True,
    since="0.2.0",
)
def regional_without_generic(ctx: AuditContext, graph: ClusterGraph) -> Iterator[Hit]:
    values = frozenset().union(*{given for url in graph for given in ctx.declared(url).values()})
    if X_DEFAULT in values:
        return
    regions: dict[tuple[str, str | None], set[str]] = defaultdict(set)
    generic: set[tuple[str, str | None]] = set()
    for value in values:
        parts = subtags(value)
        if parts is None:
            continue
        language, script, region = parts
        if region is None:
            generic.add((language, script))
        else:
            regions[(language, script)].add(value)
    for (language, script), regional in sorted(regions.items(), key=lambda item: (item[0][0], item[0][1] or "")):
        if len(regional) < 2 or (language, None) in generic or (language, script) in generic:
            continue
        missing = f"{language}-{script}" if script else language
        first = min((url for url in graph if ctx.status(url) == 200), default=min(graph))
        yield Hit(
            first,
            f"The cluster annotates {name_list(sorted(regional))} but neither {code(missing)} nor `x-default`: "
            f"readers of {code(missing)} in other regions are matched to none; annotate one version as "
            f"{code(missing)} too, or add an `x-default`.",
            hreflang=missing,
        )
