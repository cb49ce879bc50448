"""HL201 to HL206: the cluster graph, all sources merged as search engines merge them.

Each defect is reported once, by the check that names it best:

* a target that redirects, fails, is blocked by robots.txt, is noindex or canonicalises elsewhere
  is HL3xx/HL4xx business (``statuses.may_stand``), so it yields no HL201, HL204 or HL205 as well;
  a page that lists another through a URL that redirects to it is HL401's, not HL201's; the
  annotations of a page that answers anything but 200, is noindex or canonicalises elsewhere do
  not count here (search engines ignore them);
* a page that names a variant of its own URL is HL110; that variant is read as its
  self-reference here (``cluster_graph.effective_declared``);
* only targets whose own annotations are known (fetched with GET, answered 200) are judged for
  return links; the others are HL206 (not examined) or HL4xx (answered something else);
* a page that does not list one that lists it is HL201 for that pair, not HL204 as well.

Each check asks its question of one cluster's networkx graph (``cluster_graph``): "a counted edge
u -> v with no counted edge v -> u" (HL201), "two nodes claimed for one value" (HL205), ...
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterator

from ...extract.hreflang_values import canonical_hreflang, primary_language
from ...extract.urls import InvalidURL, normalised_origin, variant_key
from ..core.annotations import annotations_for, ignored_annotation_for, own_value, page_source, written_value
from ..core.cluster_graph import ClusterGraph
from ..core.context import AuditContext, per_audit
from ..core.registry import Hit, check
from ..core.statuses import may_stand
from ..core.wording import code, name_list, suggested_element
from ..core.written import X_DEFAULT

_LIMITS = {
    "max_pages": "the crawl reached its request limit (`-a max_pages`) before examining it",
    "cluster": (
        "its cluster did not fit in what the crawl's request limit (`-a max_pages`) had left, so the crawl "
        "left the cluster out whole rather than examine part of it"
    ),
    "max_depth": "it lies beyond the crawl's depth limit (`-a max_depth`)",
    "excluded": "its host or path is excluded from the crawl",
    "interrupted": "the crawl was interrupted before examining it",
    "private": (
        "it points at an internal address (loopback, private network, link-local), which the crawl does not "
        "fetch (QIVRORA_ALLOW_PRIVATE) and search engines cannot reach"
    ),
}


def _known_ok(ctx: AuditContext, url: str) -> bool:
    """Fetched with GET, answered 200, may stand as an alternate: its return links are known."""
    return url in _known_ok_pages(ctx)


@per_audit
def _known_ok_pages(ctx: AuditContext) -> set[str]:
    return {url for url, page in ctx.pages.items() if page.status == 200 and may_stand(ctx, url)}


def _stands_for(ctx: AuditContext, other: str, url: str) -> bool:
    """Is `other` a wrong URL meant for `url`: one that redirects to it, or a variant of it that
    cannot stand? Those links are HL401 to HL406's findings, which name `url` as the fix."""
    if other == url:
        return False
    chain = ctx.redirect_chain(other)
    if len(chain) > 1 and chain[-1] == url:
        return True
    return variant_key(other) == variant_key(url) and not may_stand(ctx, other)


def _first_source(ctx: AuditContext, url: str, target: str) -> str:
    found = annotations_for(ctx, url, target)
    return found[0].source if found else ""


def _examined_pairs(ctx: AuditContext, graph: ClusterGraph) -> Iterator[tuple[str, str]]:
    """Counted edges (url, target) whose target answered 200 and was examined: where a return link
    can be judged at all."""
    for url, declared in graph.listers.items():
        for target in sorted(declared):
            if target != url and _known_ok(ctx, target):
                yield url, target


@check(
    "HL201",
    "missing-return-link",
    "error",
    why="""
hreflang annotations must be confirmed from both sides: if page A lists page B, page B must list
page A (in any source: HTML, HTTP header or sitemap). Search engines ignore an annotation that is
not returned, so A is not shown to B's users, and the other way round. Reported only for targets
fetched and answering 200; a target that redirects, fails, is blocked, is noindex or canonicalises
elsewhere is reported by HL4xx/HL301, one that could not be examined by HL206, and a return link
that goes through a redirect to A by HL401.
""",
    example="""
`https://example.com/en/` lists `https://example.com/de/` as `de`, but `https://example.com/de/`
has no annotation for `https://example.com/en/`.
""",
    fix="""
Add the missing annotation to the target: every page of a cluster lists every page of the cluster,
itself included.
""",
    failing="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<!-- on https://example.com/de/ -->
<link rel="alternate" hreflang="de" href="https://example.com/de/">
""",
    fixed="""
<!-- on https://example.com/de/ -->
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
""",
    precedence="""
Judged only where both pages answer 200, are indexable and their own canonical; otherwise HL3xx or
HL4xx names the defect, and a target not examined is HL206. HL202 shows once the return link exists.
""",
    since="0.1.0",
    per_cluster=True,
)
def missing_return_link(ctx: AuditContext, graph: ClusterGraph) -> Iterator[Hit]:
    for url, target in _examined_pairs(ctx, graph):
        if graph.counted_edge(target, url):
            continue
        back = graph.counted(target)
        if any(_stands_for(ctx, t, url) for t in back):
            continue  # it links back through a redirect or a broken variant: HL4xx says so
        key = variant_key(url)
        variants = [t for t in back if t != target and variant_key(t) == key]
        value = written_value(ctx, url, target)
        fetched = ctx.page(target)
        # A PDF or other non-HTML document can only carry annotations in its Link header.
        usual = "html" if fetched is None or fetched.is_html else "header"
        wanted = suggested_element(page_source(ctx, target) or usual, own_value(ctx, url), url)
        ignored = ignored_annotation_for(ctx, target, url)
        if ignored is not None:
            why = f"search engines ignore its link back because {ignored[1]}: fix that annotation."
        elif variants:
            why = f"it links back to {name_list(variants)} instead: add {wanted}."
        elif not graph.succ[target]:
            why = (
                "it carries no hreflang annotations: add the cluster's annotations to it, "
                f"including {wanted}."
            )
        else:
            why = f"add {wanted}."
        yield Hit(
            url,
            f"{code(url)} lists {code(target)} as {code(value)}, "
            f"but {code(target)} does not link back: {why}",
            target=target,
            hreflang=value,
            source=_first_source(ctx, url, target),
        )


@check(
    "HL202",
    "inconsistent-return-language",
    "error",
    why="""
The pages of a pair must agree on the language of each: when `/en/` calls `/br/` `pt-BR` but `/br/`
calls itself `pt-PT`, search engines cannot tell which users to send there and may drop the pair.
Compared are the values (other than `x-default`) the page gives the target and the target's
self-reference, once the return link exists (without it, HL201 applies).
""",
    example="""
`https://example.com/en/` lists `https://example.com/br/` as `pt-BR`; `https://example.com/br/` lists
itself as `pt-PT` and links back to `/en/`.
""",
    fix="""
Decide which language the target serves and write the same value on every page of the cluster.
""",
    failing="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="pt-BR" href="https://example.com/br/">
<!-- on https://example.com/br/ -->
<link rel="alternate" hreflang="pt-PT" href="https://example.com/br/">
<link rel="alternate" hreflang="en" href="https://example.com/en/">
""",
    fixed="""
<!-- on https://example.com/br/ -->
<link rel="alternate" hreflang="pt-BR" href="https://example.com/br/">
<link rel="alternate" hreflang="en" href="https://example.com/en/">
""",
    precedence="""
Judged only where the return link exists, so it shows once HL201 is fixed.
""",
    since="0.1.0",
    per_cluster=True,
)
def inconsistent_return_language(ctx: AuditContext, graph: ClusterGraph) -> Iterator[Hit]:
    for url, target in _examined_pairs(ctx, graph):
        if not (graph.counted_edge(target, url) and graph.counted_edge(target, target)):
            continue
        given = graph.listers[url][target] - {X_DEFAULT}
        claimed = graph.listers[target][target] - {X_DEFAULT}
        if not given or not claimed or given == claimed:
            continue
        if len({primary_language(value) for value in given}) > 1:
            continue  # one URL, several languages: HL111 says so
        givens = list(
            dict.fromkeys(
                a.hreflang
                for a in annotations_for(ctx, url, target)
                if canonical_hreflang(a.hreflang) in given
            )
        )
        self_targets = {
            t for t in ctx.declared(target) if t == target or variant_key(t) == variant_key(target)
        }
        claims = list(
            dict.fromkeys(
                a.hreflang
                for a in annotations_for(ctx, target, self_targets)
                if canonical_hreflang(a.hreflang) in claimed
            )
        )
        yield Hit(
            url,
            f"{code(url)} calls {code(target)} {name_list(givens)}, but {code(target)} calls itself "
            f"{name_list(claims)}: use the same value on both pages.",
            target=target,
            hreflang=givens[0],
            source=_first_source(ctx, url, target),
        )


def _origin(url: str) -> str | None:
    try:
        return normalised_origin(url)
    except InvalidURL:
        return None


@check(
    "HL203",
    "unlinked-alternate",
    "warning",
    why="""
hreflang tells search engines which page to show; it does not make a page found or valued. An
alternate that no page links to with `<a href>` is an orphan: crawled late or not at all, and
unreachable for users who land on the wrong language. Judged only on hosts whose pages the crawl
followed links on, and only when the crawl recorded links at all.
""",
    example="""
`https://example.com/de/` is listed as `de` by `https://example.com/en/` and answers 200, but no
crawled page links to it: the language switcher lists only `en` and `fr`.
""",
    fix="""
Link the alternate from its siblings, e.g. in a language switcher, with `<a href>`.
""",
    failing="""
<!-- the language switcher of https://example.com/en/ -->
<a href="https://example.com/fr/">Français</a>
""",
    fixed="""
<a href="https://example.com/fr/">Français</a>
<a href="https://example.com/de/">Deutsch</a>
""",
    since="0.1.0",
    per_cluster=True,
)
def unlinked_alternate(ctx: AuditContext, graph: ClusterGraph) -> Iterator[Hit]:
    linked = ctx.store.linked
    explored = _explored_origins(ctx)
    if not explored:
        return
    targets = {target for declared in graph.listers.values() for target in declared if target not in linked}
    for target in sorted(targets):
        if ctx.status(target) != 200 or _origin(target) not in explored:
            continue
        others = sorted(graph.listed_by(target) - {target})
        lister = others[0] if others else target
        value = written_value(ctx, lister, target)
        by = f" (as {code(value)} by {code(lister)})" if others else ""
        yield Hit(
            target,
            f"{code(target)} is an hreflang alternate{by} that answers 200, but no crawled page links to it "
            "with `<a href>`: link it from its alternates, e.g. in the language switcher.",
            target=others[0] if others else "",
            hreflang=value if others else "",
        )


@per_audit
def _explored_origins(ctx: AuditContext) -> set[str | None]:
    """Origins whose pages the crawl followed links on and found links to: HL203 judges only there."""
    linked = ctx.store.linked
    if not linked:
        return set()
    crawled = {_origin(page.url) for page in ctx.pages.values() if page.in_scope and page.status is not None}
    explored = set()
    for url in linked:
        if (found := _origin(url)) in crawled:
            explored.add(found)
            if len(explored) == len(crawled):
                break
    return explored


@check(
    "HL204",
    "incomplete-cluster",
    "warning",
    why="""
Every page of a cluster should list the same set of alternates. A page that omits members other
pages list leaves those members out of the cluster for its users. A member that lists the page but
is not listed back is reported as HL201 for that pair, not here; members that redirect, fail or
are not examined are not counted as omitted.
""",
    example="""
`/en/` and `/de/` list `en`, `de`, `fr` and `it`; `/fr/` lists `en`, `de` and `fr` only, and
`/it/` (added last) lists only `it` and `en`.
""",
    fix="""
Generate the annotations of every page from one list of the cluster's members.
""",
    failing="""
<!-- on /en/ -->
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<link rel="alternate" hreflang="fr" href="https://example.com/fr/">
<!-- on /fr/ -->
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="fr" href="https://example.com/fr/">
""",
    fixed="""
<!-- on /fr/, as on every member -->
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<link rel="alternate" hreflang="fr" href="https://example.com/fr/">
""",
    since="0.1.0",
    per_cluster=True,
)
def incomplete_cluster(ctx: AuditContext, graph: ClusterGraph) -> Iterator[Hit]:
    lists = {url: graph.listed_by(url) for url in graph}
    for page, own in graph.listers.items():
        # A page without annotations is HL201's ("carries no hreflang annotations"), once per page
        # that lists it; it lists no set of alternates to compare.
        if not _known_ok(ctx, page):
            continue
        omitted = sorted(
            target
            for target, by in lists.items()
            if target != page
            and target not in own
            and by - {target, page}
            and not graph.counted_edge(target, page)  # HL201 (target, page) says it
            and ctx.status(target) == 200
            and may_stand(ctx, target)
        )
        if not omitted:
            continue
        first = omitted[0]
        lister = min(lists[first] - {first, page})
        value = written_value(ctx, lister, first)
        named = [
            f"{code(url)} ({code(written_value(ctx, min(lists[url] - {url, page}), url))})"
            for url in omitted
        ]
        yield Hit(
            page,
            f"{code(page)} lists {len(own)} alternates but omits {len(omitted)} that other pages of its "
            f"cluster list: {name_list(named, quoted=False)}; "
            f"add {'it' if len(omitted) == 1 else 'them'}.",
            target=first,
            hreflang=value,
            source=page_source(ctx, page),
        )


@check(
    "HL205",
    "language-collision",
    "error",
    why="""
Within one cluster each hreflang value names one URL. When two URLs are claimed for the same value
(by one page or by different pages), search engines pick one, or none, and users of that language
may land on the wrong page. A single page that maps one value to two URLs is HL106; this check
reports pages that disagree. `x-default` is HL107's business.
""",
    example="""
`/en/` and `/de/` call `https://example.com/de/` `de`, while `https://example.com/at/` calls itself
`de` (meant: `de-AT`).
""",
    fix="""
Give each URL its own value (`de-AT`, `de-CH`), or point every page to the one URL that serves the language.
""",
    failing="""
<!-- on /en/ -->
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<!-- on /at/ -->
<link rel="alternate" hreflang="de" href="https://example.com/at/">
""",
    fixed="""
<!-- on /at/, and for /at/ on every member -->
<link rel="alternate" hreflang="de-AT" href="https://example.com/at/">
""",
    precedence="""
A URL that cannot stand as an alternate (HL3xx, HL4xx) takes no part in it: that URL is the defect,
not the collision it causes.
""",
    since="0.1.0",
    per_cluster=True,
)
def language_collision(ctx: AuditContext, graph: ClusterGraph) -> Iterator[Hit]:
    claims: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for member, declared in graph.listers.items():
        for target, values in declared.items():
            if not may_stand(ctx, target):
                continue
            for value in values - {X_DEFAULT}:
                claims[value][member].add(target)
    for value in sorted(claims):
        by_page = claims[value]
        urls = sorted(set().union(*by_page.values()))
        # Where every page that uses the value includes one common URL, the extra URLs come
        # from pages that map the value to several: HL106's defect, not a disagreement.
        if len(urls) < 2 or set.intersection(*by_page.values()):
            continue
        said = []
        for url in urls:
            count = sum(1 for targets in by_page.values() if url in targets)
            said.append(f"{code(url)} (by {count} page{'s' if count > 1 else ''})")
        spelling = next(
            (
                a.hreflang
                for page in sorted(by_page)
                for a in annotations_for(ctx, page, by_page[page])
                if canonical_hreflang(a.hreflang) == value
            ),
            value,
        )
        yield Hit(
            urls[0],
            f"{len(urls)} URLs of one cluster claim {code(spelling)}: {name_list(said, quoted=False)}; "
            "give each URL its own value or point every page to the one that serves the language.",
            target=urls[1],
            hreflang=spelling,
        )


def _not_examined_reason(ctx: AuditContext, url: str) -> str | None:
    """Why `url`'s own annotations are unknown, or None when another check names the problem."""
    record = ctx.fetched(url)
    limits = ctx.store.limits_reached
    if record is None:
        if limits:
            return f"the crawl never reached it ({' and '.join(f'`{limit}`' for limit in limits)} reached)"
        return "the crawl has no record of it (the facts may come from an incomplete crawl)"
    if ctx.examined(url):
        return None
    not_examined = getattr(record, "not_examined", None)
    if not_examined == "robots":
        return None  # HL405
    if not_examined:
        return _LIMITS.get(not_examined, f"it was not examined ({not_examined})")
    if record.error or (record.status is not None and record.status != 200):
        return None  # HL4xx
    if record.status == 200:
        method = getattr(record, "method", None) or "HEAD"
        return f"only its status was checked ({method}), its annotations were not read"
    return "the crawl did not fetch it"


@check(
    "HL206",
    "alternate-not-examined",
    "notice",
    why="""
Unknown is not a pass: a target the crawl could not fetch (request or depth limit, excluded host) may
or may not link back, and Qivrora says so instead of staying silent. A target disallowed by
robots.txt is reported by HL405, one that answered an error by HL4xx. Reported once per target, on
the first page (sorted) that lists it.
""",
    example="""
With `-a max_pages=100`, `https://example.com/fr/` is listed by `https://example.com/en/` but
was not fetched before the crawl stopped.
""",
    fix="""
Raise the crawl's limits or include the host, and crawl again; then the return links are checked.
""",
    failing="""
$ qivrora audit https://example.com/ --max-pages 100
# https://example.com/fr/ is annotated but was not fetched
""",
    fixed="""
$ qivrora audit https://example.com/ --max-pages 5000
""",
    precedence="""
Reported where HL201 cannot be judged: a return link that could not be seen is never a pass.
""",
    since="0.1.0",
    per_cluster=True,
)
def alternate_not_examined(ctx: AuditContext, graph: ClusterGraph) -> Iterator[Hit]:
    targets = {target for declared in graph.listers.values() for target in declared if not ctx.examined(target)}
    for target in sorted(targets):
        reason = _not_examined_reason(ctx, target)
        by = sorted(graph.listed_by(target) - {target})
        if reason is None or not by:
            continue
        first = by[0]
        value = written_value(ctx, first, target)
        more = f" and {len(by) - 1} other page{'s' if len(by) > 2 else ''}" if len(by) > 1 else ""
        yield Hit(
            first,
            f"{code(target)}, listed as {code(value)} by {code(first)}{more}, could not be examined: "
            f"{reason}, so whether it links back is unknown; crawl it to check.",
            target=target,
            hreflang=value,
            source=_first_source(ctx, first, target),
        )
