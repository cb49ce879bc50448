"""HL001 to HL007: every hreflang value as written, in every source, wherever it is written.

One finding per annotation with a bad value: an annotation outside <head> or with a bad href
still has its value judged, because the value is wrong wherever it is written and the fix of the
other defect would leave it wrong. The judgement itself is ``hreflang_values.check_hreflang``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterator

from ...extract.hreflang_values import check_hreflang
from ..core.context import AuditContext, per_audit
from ..core.registry import Hit, check
from ..core.wording import code
from ..core.written import resolve, source_groups


@per_audit
def _value_hits(ctx: AuditContext) -> dict[str, list[Hit]]:
    """Check id -> hits, computed once per audit for the seven checks."""
    found: dict[str, list[Hit]] = defaultdict(list)
    for group in source_groups(ctx):
        for written in group.items:
            a = written.annotation
            problem = check_hreflang(a.hreflang)
            if problem is None:
                continue
            message = problem.message
            if group.source == "sitemap":
                message = f"{message.rstrip('.')} (in sitemap {code(written.sitemap or 'unknown')})."
            found[problem.check].append(
                Hit(
                    group.url,
                    message,
                    target=resolve(a, group.base) or a.href,
                    hreflang=a.hreflang,
                    source=group.source,
                )
            )
    return found


@check(
    "HL001",
    "invalid-language",
    "error",
    why="""
The language of an hreflang value must be an ISO 639-1 code (two letters). Search engines ignore an
annotation whose language they do not know, so the alternate drops out of the cluster: users of
that language are not sent to it. Three-letter codes (`fre`, `eng`), invented codes and country
codes written as languages (`jp` for Japanese, `gr` for Greek) are the usual slips.
""",
    example="""
`hreflang="jp"` (Japanese is `ja`), `hreflang="eng"`, `hreflang="xx"`.
""",
    fix="""
Use the ISO 639-1 code: `ja`, `en`, `el`. Qivrora suggests it where the intent is clear.
""",
    failing="""
<link rel="alternate" hreflang="jp" href="https://example.com/ja/">
""",
    fixed="""
<link rel="alternate" hreflang="ja" href="https://example.com/ja/">
""",
    precedence="""
A value is judged wherever it is written, also in an annotation that HL101 to HL105 leave out of the
graph.
""",
    since="0.1.0",
)
def invalid_language(ctx: AuditContext) -> Iterator[Hit]:
    yield from _value_hits(ctx).get("HL001", ())


@check(
    "HL002",
    "invalid-region",
    "error",
    why="""
The optional region of an hreflang value must be an ISO 3166-1 alpha-2 country code. `UK` is not
one (the code is `GB`), and search engines do not accept UN M.49 regions (`es-419`) or groups
such as `EU`: the whole annotation is ignored.
""",
    example="""
`hreflang="en-UK"`, `hreflang="es-419"`, `hreflang="en-EU"`.
""",
    fix="""
Use the country code (`en-GB`), or leave the region out (`es`), or list one value per country.
""",
    failing="""
<link rel="alternate" hreflang="en-UK" href="https://example.com/uk/">
""",
    fixed="""
<link rel="alternate" hreflang="en-GB" href="https://example.com/uk/">
""",
    since="0.1.0",
)
def invalid_region(ctx: AuditContext) -> Iterator[Hit]:
    yield from _value_hits(ctx).get("HL002", ())


@check(
    "HL003",
    "region-only",
    "error",
    why="""
An hreflang value starts with a language; a country code alone is not a value. Search engines
either ignore it or read it as the language that happens to have that code: `CH` meant for
Switzerland reads as Chamorro (`ch`).
""",
    example="""
`hreflang="US"`, `hreflang="CH"`.
""",
    fix="""
Write the language and the country: `en-US`, `de-CH` (and `fr-CH`, `it-CH` for the other languages).
""",
    failing="""
<link rel="alternate" hreflang="CH" href="https://example.com/ch/">
""",
    fixed="""
<link rel="alternate" hreflang="de-CH" href="https://example.com/ch/">
""",
    since="0.1.0",
)
def region_only(ctx: AuditContext) -> Iterator[Hit]:
    yield from _value_hits(ctx).get("HL003", ())


@check(
    "HL004",
    "bad-separator",
    "error",
    why="""
Subtags of an hreflang value are separated by `-`. A value written the way locales are in code
(`fr_FR`) or with another separator is not a valid value, and search engines ignore the annotation.
""",
    example="""
`hreflang="fr_FR"`, `hreflang="pt.BR"`.
""",
    fix="""
Use a hyphen: `fr-FR`, `pt-BR`.
""",
    failing="""
<link rel="alternate" hreflang="fr_FR" href="https://example.com/fr/">
""",
    fixed="""
<link rel="alternate" hreflang="fr-FR" href="https://example.com/fr/">
""",
    precedence="""
A value that a swap of separators makes valid is HL004; any other malformed value is HL005.
""",
    since="0.1.0",
)
def bad_separator(ctx: AuditContext) -> Iterator[Hit]:
    yield from _value_hits(ctx).get("HL004", ())


@check(
    "HL005",
    "malformed-value",
    "error",
    why="""
A value that is empty, padded with whitespace, has the region before the language, an unknown
script, too many subtags or characters other than ASCII letters, digits and `-` is no hreflang
value: search engines ignore the annotation.
""",
    example="""
`hreflang=""`, `hreflang="US-en"`, `hreflang="zh-Hanz"`, `hreflang="en-GB-oxendict"`.
""",
    fix="""
Write `ll`, `ll-RR`, `ll-Ssss` or `ll-Ssss-RR` (language, optional script, optional region), or `x-default`.
""",
    failing="""
<link rel="alternate" hreflang="US-en" href="https://example.com/us/">
""",
    fixed="""
<link rel="alternate" hreflang="en-US" href="https://example.com/us/">
""",
    precedence="""
Where replacing the separator makes the value valid, HL004 is reported instead.
""",
    since="0.1.0",
)
def malformed_value(ctx: AuditContext) -> Iterator[Hit]:
    yield from _value_hits(ctx).get("HL005", ())


@check(
    "HL006",
    "non-canonical-case",
    "notice",
    why="""
hreflang values are case-insensitive and search engines accept `EN-us`, but the conventional form
(`en-US`, `zh-Hant-TW`) is what tools, people and diffs compare: one spelling per value keeps the
annotations of all pages identical and easy to check.
""",
    example="""
`hreflang="EN-us"`, `hreflang="zh-hant"`.
""",
    fix="""
Write the language lower-case, the script title-case and the region upper-case: `en-US`, `zh-Hant`.
""",
    failing="""
<link rel="alternate" hreflang="EN-us" href="https://example.com/us/">
""",
    fixed="""
<link rel="alternate" hreflang="en-US" href="https://example.com/us/">
""",
    since="0.1.0",
)
def non_canonical_case(ctx: AuditContext) -> Iterator[Hit]:
    yield from _value_hits(ctx).get("HL006", ())


@check(
    "HL007",
    "deprecated-language",
    "warning",
    why="""
ISO 639-1 withdrew `iw`, `in`, `ji`, `jw`, `mo` and `sh`. Search engines still understand some of
them, but not reliably, and a cluster that mixes `iw` and `he` describes one language two ways.
""",
    example="""
`hreflang="iw"` for Hebrew, `hreflang="in"` for Indonesian.
""",
    fix="""
Use the current code: `he`, `id`, `yi`, `jv`, `ro`, `sr-Latn`.
""",
    failing="""
<link rel="alternate" hreflang="iw" href="https://example.com/he/">
""",
    fixed="""
<link rel="alternate" hreflang="he" href="https://example.com/he/">
""",
    since="0.1.0",
)
def deprecated_language(ctx: AuditContext) -> Iterator[Hit]:
    yield from _value_hits(ctx).get("HL007", ())
