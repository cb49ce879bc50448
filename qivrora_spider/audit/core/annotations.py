"""What a page says of others, read through the graph (usable annotations only): the annotations of a
pair, the value a page carries, the source that annotates it, the variants it names instead of itself.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterator

from ...extract.hreflang_values import canonical_hreflang
from ...facts import Annotation
from .cluster_graph import self_variants
from .context import SOURCE_ORDER, AuditContext, per_audit
from .written import X_DEFAULT, ignored_because


def annotations_for(ctx: AuditContext, url: str, targets: set[str] | str) -> list[Annotation]:
    """Usable annotations of `url` that name one of `targets`, in reading order."""
    wanted = {targets} if isinstance(targets, str) else targets
    return [a for a in ctx.usable_annotations(url) if a.url in wanted]


def written_value(ctx: AuditContext, url: str, target: str, canonical: str | None = None) -> str:
    """The value `url` gives `target` as written (the first one, or the first equal to `canonical`)."""
    for a in annotations_for(ctx, url, target):
        if canonical is None or canonical_hreflang(a.hreflang) == canonical:
            return a.hreflang
    return canonical or ""


def sources_of(annotations: list[Annotation]) -> list[str]:
    """The sources of `annotations`, each once, in SOURCE_ORDER (a script's <head> ranks as the HTML's)."""
    return sorted({a.source for a in annotations}, key=lambda s: (SOURCE_ORDER.get(s, len(SOURCE_ORDER)), s))


def page_source(ctx: AuditContext, url: str) -> str:
    """The one source that annotates `url`, or "" when several do (or none)."""
    sources = {a.source for a in ctx.usable_annotations(url)}
    return sources.pop() if len(sources) == 1 else ""


def own_value(ctx: AuditContext, url: str) -> str:
    """The value `url` should carry, as written: its self-reference, else what others call it,
    else its <html lang>; "…" when nothing says."""
    for a in annotations_for(ctx, url, url):
        return a.hreflang
    votes: Counter[str] = Counter()
    for source in ctx.graph.predecessors(url):
        for a in annotations_for(ctx, source, url):
            if canonical_hreflang(a.hreflang) != X_DEFAULT:
                votes[a.hreflang] += 1
    if votes:
        return min(votes.items(), key=lambda item: (-item[1], item[0]))[0]
    page = ctx.page(url)
    if page is not None and page.html_lang and canonical_hreflang(page.html_lang):
        return page.html_lang
    return "…"


def ignored_annotation_for(ctx: AuditContext, url: str, target: str) -> tuple[Annotation, str] | None:
    """An annotation of `url` for `target` that search engines ignore, with why."""
    for a in ctx.annotations.get(url, ()):
        if a.url == target:
            reason = ignored_because(a)
            if reason:
                return a, reason
    return None


def _annotated_pages(ctx: AuditContext) -> Iterator[str]:
    """Pages answering 200 whose usable annotations are in the graph."""
    for url in ctx.graph.nodes:
        if ctx.graph.out_degree(url) and ctx.status(url) == 200:
            yield url


@per_audit
def variant_self_references(ctx: AuditContext) -> dict[str, list[str]]:
    """Page -> the variants of its URL it names instead of itself: HL110's findings.

    HL4xx leave these pairs to HL110: a slashless or http:// self-reference typically redirects,
    and correcting the href is the one fix, so it is one finding, not also "alternate redirects".
    """
    return {
        url: variants
        for url in _annotated_pages(ctx)
        if url not in ctx.declared(url) and (variants := self_variants(ctx, url))
    }


@per_audit
def x_default_declarers(ctx: AuditContext) -> set[str]:
    """The URLs whose usable annotations declare an x-default (whether their annotations count or not)."""
    return {url for url, out in ctx.graph.succ.items() if any(X_DEFAULT in values for values in out.values())}
