"""HL5xx: language signals. The page's own statement of its language should agree with its hreflang.

Only primary languages are compared (`<html lang="en-US">` on a page annotated `en-GB` is fine: the
regional targeting is hreflang's job, and many sites use one `lang` for all English regions). An
x-default self-reference declares no language, so it neither triggers nor settles HL501. Where
`<html lang>` is missing or no language tag (HL502), HL501 compares `Content-Language` instead, which
may list several languages; any one of them that matches is enough.
"""

from __future__ import annotations

from typing import Iterator

from ..facts import Annotation, Page
from ..extract.hreflang_values import canonical_hreflang, parse_language_tag, primary_language
from ..extract.urls import variant_key
from .context import SOURCE_ORDER, AuditContext, where_read
from .registry import Hit, check


def _self_languages(ctx: AuditContext, url: str) -> list[Annotation]:
    """The page's usable self-references that name a language (x-default names none), in SOURCE_ORDER.

    Where the page names only a variant of its URL (`http:` for `https:`, a trailing slash: HL110),
    that variant stands for the self-reference, so its language is still compared.
    """
    named = [a for a in ctx.usable_annotations(url) if primary_language(a.hreflang) is not None]
    found = [a for a in named if a.url == url] or [
        a for a in named if variant_key(a.url or "") == variant_key(url)
    ]
    return sorted(found, key=lambda a: SOURCE_ORDER.get(a.source, len(SOURCE_ORDER)))


def _stated_language(page: Page) -> tuple[str, set[str]] | None:
    """What the page says its language is: `<html lang>`, else Content-Language (may list several)."""
    if page.html_lang:
        language = parse_language_tag(page.html_lang)
        if language is not None:
            return f'`<html lang="{page.html_lang}">`', {language}
    if page.content_language:
        parts = page.content_language.split(",")
        languages = {language for part in parts if (language := parse_language_tag(part)) is not None}
        if languages:
            return f"Content-Language `{page.content_language}`", languages
    return None


@check(
    "HL501",
    "html-lang-mismatch",
    "warning",
    why="""
`<html lang>` (or, without it, the `Content-Language` header) is the page's own statement of its
language. When it names another language than the page's hreflang self-reference, search engines get
contradictory signals (Bing relies on `lang` and `Content-Language` rather than hreflang), screen readers
pronounce the text in the wrong language, and it usually means a template or an annotation points to the
wrong page. Regions are not compared: `en-US` against `en-GB` is fine.
""",
    example="""
`https://example.com/fr/` lists itself as `hreflang="fr"` but its template says `<html lang="en">`.
""",
    fix="""
Set `<html lang>` to the language of the content (here `fr`), or, if the page really is in that
language, correct the hreflang annotations that call it otherwise.
""",
)
def html_lang_mismatch(ctx: AuditContext) -> Iterator[Hit]:
    for url, page in ctx.pages.items():
        if page.status != 200:
            continue
        stated = _stated_language(page)
        if stated is None:
            continue
        described, languages = stated
        own = {primary_language(value) for value in ctx.declared(url).get(url, ())}
        if languages & own:
            continue  # the page's own self-reference agrees, read from the graph without a scan
        selves = _self_languages(ctx, url)
        if not selves or languages & {primary_language(a.hreflang) for a in selves}:
            continue
        first = selves[0]
        yield Hit(
            url,
            f"{described} says the page is in `{'`, `'.join(sorted(languages))}`, but its hreflang "
            f"self-reference (in {where_read(first)}) calls it `{first.hreflang}`: write "
            f'`<html lang="{canonical_hreflang(first.hreflang)}">` if the page is in that language, '
            f"else correct the annotations that call it `{first.hreflang}`.",
            hreflang=first.hreflang,
            source=first.source,
        )


@check(
    "HL502",
    "html-lang-missing",
    "notice",
    why="""
A page of a language cluster should state its language in `<html lang>`: search engines that do not
use hreflang (Bing) read it, browsers use it to offer translation and choose fonts and hyphenation,
and screen readers to pick a voice. Without it, or with a value that is no language tag, the page's
language is left to guesswork.
""",
    example="""
`https://example.com/de/` is the `de` member of a cluster and starts with `<html>`, or with
`<html lang="german">`.
""",
    fix="""
Write the page's language as a BCP 47 tag on the root element: `<html lang="de">`, or `de-AT` for a
regional version.
""",
)
def html_lang_missing(ctx: AuditContext) -> Iterator[Hit]:
    for url in ctx.cluster_of:
        page = ctx.page(url)
        if page is None or page.status != 200 or not page.is_html:
            continue
        if page.html_lang and parse_language_tag(page.html_lang) is not None:
            continue
        selves = _self_languages(ctx, url)
        if selves:
            value = canonical_hreflang(selves[0].hreflang)
            fix = f'write `<html lang="{value}">`, as its hreflang self-reference says'
        else:
            fix = 'write the language of its content, e.g. `<html lang="en">`'
        if page.html_lang is None or not page.html_lang.strip():
            problem = "This page of a language cluster does not state its language in `<html lang>`"
        else:
            problem = f'`<html lang="{page.html_lang}">` is not a language tag'
        yield Hit(url, f"{problem}: {fix}.", source="html")
