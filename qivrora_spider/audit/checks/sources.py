"""HL601: sources that disagree. Search engines merge a page's HTML, HTTP `Link` header and sitemap
annotations; when they disagree, which URL a value means depends on which source a search engine read.

Only usable annotations are compared (what a search engine takes into the cluster; the others are
reported by HL0xx and HL1xx), values in canonical form (`EN-us` is `en-US`), URLs normalised. All the
sitemap entries of one page count as one source.

One row per page and disagreeing source: the first source present, in the order HTML, HTTP header,
sitemap, is the reference, and each other source that differs from it is one row with `source` set to
that source. `hreflang` and `target` are the first difference (by value), and the message lists the
differences.
"""

from __future__ import annotations

from typing import Iterator

from ...extract.hreflang_values import canonical_hreflang
from ...facts import Annotation
from ..core.annotation_index import url_mark
from ..core.context import SOURCE_ORDER, AuditContext, page_part, places
from ..core.registry import Hit, check

#: How many differences a message spells out before it counts the rest.
MAX_LISTED = 3

# canonical value -> target URL -> the value as written
Mapping = dict[str, dict[str, str]]


def _by_source(usable: list[Annotation]) -> dict[str, tuple[list[Annotation], Mapping]]:
    """source -> (its usable annotations, for a message's ``places``; the same by value), SOURCE_ORDER."""
    found: dict[str, list[Annotation]] = {}
    for annotation in usable:
        found.setdefault(page_part(annotation.source), []).append(annotation)
    by_source = {}
    for source in sorted(found, key=lambda s: SOURCE_ORDER.get(s, len(SOURCE_ORDER))):
        mapping: Mapping = {}
        for annotation in found[source]:
            value = canonical_hreflang(annotation.hreflang)
            assert value is not None and annotation.url is not None  # usable
            mapping.setdefault(value, {}).setdefault(annotation.url, annotation.hreflang)
        by_source[source] = (found[source], mapping)
    return by_source


@url_mark
def _sources_disagree(listed: list[Annotation], usable: list[Annotation]) -> bool:
    """Whether two of a URL's sources map its values to different URLs: the URLs HL601 reads (asked
    as the annotations come, not of every URL at the audit)."""
    if len({page_part(a.source) for a in listed}) < 2:
        return False
    sources = _by_source(usable)
    if len(sources) < 2:
        return False
    (_, (_, reference)), *others = sources.items()
    return any(mapping != reference for _, (_, mapping) in others)


def _differences(
    reference: Mapping, other: Mapping, ref_place: str, other_place: str
) -> list[tuple[str, str, str]]:
    """(value as written, target URL, description) for each value on which two sources disagree."""
    found = []
    for value in sorted(reference.keys() | other.keys()):
        mine, theirs = reference.get(value, {}), other.get(value, {})
        if mine.keys() == theirs.keys():
            continue
        if mine and theirs:
            written = next(iter(theirs.values()))
            said = f"`{written}` is {' and '.join(theirs)} in {other_place}"
            said += f" but {' and '.join(mine)} in {ref_place}"
            found.append((written, next(iter(theirs)), said))
        else:
            only, place = (theirs, other_place) if theirs else (mine, ref_place)
            written = next(iter(only.values()))
            found.append(
                (written, next(iter(only)), f"`{written}` ({' and '.join(only)}) is only in {place}")
            )
    return found


@check(
    "HL601",
    "sources-conflict",
    "error",
    why="""
Search engines merge the hreflang annotations of a page's HTML `<head>`, its HTTP `Link` header and the
sitemap. When two of them map a value to different URLs, or one lists alternates the other omits, the
cluster depends on which source was read last, and return links confirmed in one source are missing in
the other. Identical annotations repeated in several sources, and annotations kept in one source only,
are fine. Values are compared in canonical form and annotations search engines ignore are left out;
one finding per page and disagreeing source, the first source (HTML, then header) being the reference.
""",
    example="""
The HTML of `https://example.com/en/` says `hreflang="de" href="https://example.com/de/"`, while the
sitemap entry of the same page says `hreflang="de" href="https://example.com/de-de/"`.
""",
    fix="""
Generate every source from one list of alternates, so that all of them say the same; or keep the
annotations in one source only (the sitemap is the easiest to maintain on a large site).
""",
    failing="""
<!-- the HTML of https://example.com/en/ -->
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<!-- its sitemap entry -->
<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de-de/"/>
""",
    fixed="""
<!-- the HTML of https://example.com/en/ and its sitemap entry agree -->
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/>
""",
    precedence="""
Only usable annotations are compared: a source whose annotations are all unusable (HL101, HL103,
HL104, HL105) counts as absent.
""",
    since="0.1.0",
)
def sources_conflict(ctx: AuditContext) -> Iterator[Hit]:
    disagreeing = ctx.marked(_sources_disagree)
    for url, found in ctx.annotations.items():
        if url not in disagreeing or len({page_part(a.source) for a in found}) < 2:
            continue
        sources = _by_source(ctx.usable_annotations(url))
        if len(sources) < 2:
            continue
        (_, (ref_annotations, reference)), *others = sources.items()
        for source, (read, mapping) in others:
            if mapping == reference:  # the same values to the same URLs: no difference (most pages)
                continue
            ref_place, place = places(ref_annotations), places(read)
            found = _differences(reference, mapping, ref_place, place)
            if not found:
                continue
            listed = "; ".join(said for _, _, said in found[:MAX_LISTED])
            if len(found) > MAX_LISTED:
                listed += f"; and {len(found) - MAX_LISTED} more"
            written, target, _ = found[0]
            yield Hit(
                url,
                f"The annotations of this page in {place} differ from those in {ref_place} ({listed}): make "
                f"every source list the same alternates, or annotate the page in one source only.",
                target=target,
                hreflang=written,
                source=source,
            )
