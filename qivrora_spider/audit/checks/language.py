"""HL5xx: language signals. The page's own statement of its language should agree with its hreflang.

Only primary languages are compared (`<html lang="en-US">` on a page annotated `en-GB` is fine: the
regional targeting is hreflang's job, and many sites use one `lang` for all English regions). An
x-default self-reference declares no language, so it neither triggers nor settles HL501. Where
`<html lang>` is missing or no language tag (HL502), HL501 compares `Content-Language` instead, which
may list several languages; any one of them that matches is enough.
"""

from __future__ import annotations

import zlib
from collections import Counter, defaultdict
from typing import Iterator, NamedTuple

import pycountry

from ...extract.hreflang_values import canonical_hreflang, parse_language_tag, primary_language
from ...extract.text_language import KNOWN as KNOWN_LANGUAGES
from ...extract.text_language import (
    MIN_LETTERS,
    SCRIPTED_GROUPS,
    block_digests,
    block_evidence,
    group,
    grouped_evidence,
)
from ...extract.urls import variant_key
from ...facts import Annotation, Page
from ..core.context import SOURCE_ORDER, AuditContext, per_audit, where_read
from ..core.registry import Hit, check


def _self_languages(ctx: AuditContext, url: str) -> list[Annotation]:
    """The page's usable self-references that name a language (x-default names none), in SOURCE_ORDER.

    Where the page names only a variant of its URL (`http:` for `https:`, a trailing slash: HL110),
    that variant stands for the self-reference, so its language is still compared.
    """
    usable = ctx.usable_annotations(url)
    found = [a for a in usable if a.url == url and primary_language(a.hreflang) is not None]
    if not found:
        variant = variant_key(url)
        found = [a for a in usable if primary_language(a.hreflang) is not None and variant_key(a.url or "") == variant]
    if len(found) > 1:
        found.sort(key=lambda a: SOURCE_ORDER.get(a.source, len(SOURCE_ORDER)))
    return found


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
    failing="""
<html lang="en">
<head>
<link rel="alternate" hreflang="fr" href="https://example.com/fr/">
<!-- this is https://example.com/fr/ -->
""",
    fixed="""
<html lang="fr">
<head>
<link rel="alternate" hreflang="fr" href="https://example.com/fr/">
""",
    precedence="""
HL503 judges the language of the text itself; HL501 only the declarations.
""",
    since="0.1.0",
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
    failing="""
<html>
<head>
<link rel="alternate" hreflang="de" href="https://example.com/de/">
""",
    fixed="""
<html lang="de">
<head>
<link rel="alternate" hreflang="de" href="https://example.com/de/">
""",
    since="0.1.0",
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


#: HL503 judges only a text this much of which is in one language (or group), letters weighed: a
#: correctly translated page with long quotations stays above it for its own language, and a page
#: half translated stays below it for the other (bench/RESULTS.md, "HL503: block-level language").
CONFIDENT = 0.80
#: A block is template text (a tagline, a footer, "Edit this page") where it stands on at least this
#: share of the pages of one host and declared language, and on at least ``TEMPLATE_MIN_PAGES`` of
#: them (bench/RESULTS.md, "HL503: block-level language", gives the shares measured on real builds).
TEMPLATE_SHARE = 0.5
TEMPLATE_MIN_PAGES = 3
#: Pages of one host and declared language whose blocks are counted: beyond, a sample chosen by URL
#: (the same whatever order the facts come in) bounds the audit's memory on a large site.
TEMPLATE_SAMPLE = 2000
_SCRIPT_NAMES = {"Hans": "Simplified", "Hant": "Traditional", "Cyrl": "Cyrillic", "Latn": "Latin"}
#: Chinese regions whose script is implied where the tag names none (as CLDR's likely subtags have it).
_ZH_SCRIPT_OF_REGION = {"TW": "Hant", "HK": "Hant", "MO": "Hant", "CN": "Hans", "SG": "Hans", "MY": "Hans"}


def _script(tag: str) -> str | None:
    """The script a language tag names, or implies for Chinese (`zh-TW`: Traditional)."""
    subtags = tag.split("-")
    for subtag in subtags[1:]:
        if len(subtag) == 4 and subtag.isalpha():
            return subtag.title()
    if subtags[0].lower() == "zh":
        for subtag in subtags[1:]:
            if subtag.upper() in _ZH_SCRIPT_OF_REGION:
                return _ZH_SCRIPT_OF_REGION[subtag.upper()]
    return None


def language_name(tag: str) -> str:
    """`English`, `Chinese (Traditional)`, `Serbian (Cyrillic)`: a detected language for people."""
    primary = tag.split("-", 1)[0]
    found = pycountry.languages.get(alpha_2=primary)
    name = found.name if found is not None else f"`{primary}`"
    script = _script(tag)
    return f"{name} ({_SCRIPT_NAMES.get(script, script)})" if script else name


def declared_language(ctx: AuditContext, url: str) -> tuple[str, Annotation | None] | None:
    """What the page declares itself (as written): its hreflang self-reference, else `<html lang>`.

    None for an x-default page (its self-reference names no language: a language picker says
    "choose one") and for a page that declares nothing usable.
    """
    selves = _self_languages(ctx, url)
    if selves:
        return selves[0].hreflang, selves[0]
    if any(a.url == url for a in ctx.usable_annotations(url)):
        return None  # it names itself only as x-default
    page = ctx.page(url)
    if page is not None and page.html_lang and parse_language_tag(page.html_lang) is not None:
        return page.html_lang.strip(), None
    return None


class TextReading(NamedTuple):
    """What a page's main text reads as once template text is left out (HL503, the report's matrix)."""

    #: Letters of the prose blocks that remain and were identified: the page's own prose (names, template
    #: and blocks outside the sample identified left out).
    letters: int
    #: Letters per language tag read (unidentified blocks under None), most first.
    languages: tuple[tuple[str | None, int], ...]

    def majority(self) -> tuple[str, int] | None:
        """The language whose group holds a confident majority of ``MIN_LETTERS`` letters or more."""
        groups: Counter[str] = Counter()
        for language, letters in self.languages:
            if language is not None:
                groups[group(language)] += letters
        if not groups:
            return None
        wanted, letters = groups.most_common(1)[0]
        if letters < MIN_LETTERS or letters < CONFIDENT * self.letters:
            return None
        # The tag read most within that group, so that a script (zh-Hant, sr-Cyrl) is compared.
        read = next(language for language, _ in self.languages if language and group(language) == wanted)
        return read, letters

    def described(self) -> str:
        """``84 % English, 9 % German``: the languages read, with a share of 1 % or more."""
        parts = [
            f"{round(100 * letters / self.letters)} % {language_name(language) if language else 'unclear'}"
            for language, letters in self.languages
            if 100 * letters >= self.letters
        ]
        return ", ".join(parts)


@per_audit
def page_groups(ctx: AuditContext) -> dict[str, tuple[str, str]]:
    """Page with text -> its group, the pages whose common blocks are template text: one host, one
    declared language. Worked out once a page: the template's two passes and each page's reading ask,
    and a declared language takes a look at the page's annotations. The groups are few, so each is one
    tuple however many pages share it."""
    groups: dict[tuple[str, str], tuple[str, str]] = {}
    found = {}
    for url, page in ctx.pages.items():
        if _has_text(page):
            declared = declared_language(ctx, url)
            key = (url.split("/", 3)[2], group(declared[0]) if declared else "")
            found[url] = groups.setdefault(key, key)
    return found


def _sampled(url: str, pages: int) -> bool:
    """Whether a page of a group of `pages` is in the sample whose blocks are counted: by its URL, so
    that the answer does not depend on the order the facts come in."""
    return pages <= TEMPLATE_SAMPLE or zlib.crc32(url.encode("utf-8", "surrogatepass")) < (
        TEMPLATE_SAMPLE / pages
    ) * 2**32


def _has_text(page: Page) -> bool:
    return page.status == 200 and page.is_html and isinstance(page.text_blocks, bytes) and bool(page.text_blocks)


@per_audit
def template_digests(ctx: AuditContext) -> dict[tuple[str, str], frozenset[int]]:
    """(host, declared language) -> the digests of its template blocks: those on at least
    ``TEMPLATE_SHARE`` of its pages, and on ``TEMPLATE_MIN_PAGES`` or more. Blocks are decoded only
    for the sample: memory stays that of the counts, whatever the site's size."""
    groups = page_groups(ctx)
    pages_in = Counter(groups.values())
    seen: dict[tuple[str, str], Counter[int]] = defaultdict(Counter)
    sampled: Counter[tuple[str, str]] = Counter()
    for url, key in groups.items():
        if _sampled(url, pages_in[key]):
            sampled[key] += 1
            seen[key].update(set(block_digests(ctx.pages[url].text_blocks)))
    return {
        key: frozenset(
            digest
            for digest, pages in counts.items()
            if pages >= TEMPLATE_MIN_PAGES and pages >= TEMPLATE_SHARE * sampled[key]
        )
        for key, counts in seen.items()
    }


def text_reading(ctx: AuditContext, url: str) -> TextReading | None:
    """What a page's main text reads as, with its template blocks and blocks of names left out; None
    for a page without text (not HTML, not 200, or facts of a version before block-level reading)."""
    page = ctx.page(url)
    if page is None or not _has_text(page):
        return None
    left_out = template_digests(ctx).get(page_groups(ctx)[url], frozenset())
    languages: Counter[str | None] = Counter()
    for digest, language, letters in block_evidence(page.text_blocks):
        if digest not in left_out:
            languages[language or None] += letters
    ranked = sorted(languages.items(), key=lambda item: (-item[1], item[0] or "~"))
    return TextReading(sum(languages.values()), tuple(ranked))


class Mismatch(NamedTuple):
    """A page whose main text is in another language than it declares (HL503)."""

    declared: str  # as written
    read: str  # what the text reads as
    annotation: Annotation | None  # the self-reference that declares it; None: `<html lang>` does
    reading: TextReading


def content_mismatch(ctx: AuditContext, page: Page) -> Mismatch | None:
    """The mismatch where a page's main text is confidently in another language, or script, than
    it declares; None otherwise or where it cannot be judged."""
    reading = text_reading(ctx, page.url)
    majority = reading.majority() if reading is not None else None
    if majority is None:
        return None
    declared = declared_language(ctx, page.url)
    if declared is None:
        return None
    read = majority[0]
    written, annotation = declared
    wanted = group(written)
    if wanted not in KNOWN_LANGUAGES:
        return None  # CLD2 cannot answer that language: it would name a neighbour
    if wanted != group(read):
        return Mismatch(written, read, annotation, reading)  # type: ignore[arg-type]
    script, read_script = _script(written), _script(read)
    if script and read_script and script != read_script:
        return Mismatch(written, read, annotation, reading)  # type: ignore[arg-type]
    return None


def _may_mismatch(total: int, groups: dict[str, int], declared: str) -> bool:
    """Whether a page whose evidence weighs `groups` (``grouped_evidence``) can be HL503: one group holds
    a confident majority, and it is another than the `declared` one, or one whose scripts can differ.
    Only such pages are read block by block (``content_mismatch``)."""
    for name, letters in groups.items():
        if letters >= MIN_LETTERS and letters >= CONFIDENT * total:
            return name != declared or name in SCRIPTED_GROUPS
    return False


@per_audit
def content_mismatches(ctx: AuditContext) -> dict[str, Mismatch]:
    """Page -> its mismatch, for every HL503 page; the report and the fixes read it too."""
    templates = template_digests(ctx)
    pages = ctx.pages
    found = {}
    for url, key in page_groups(ctx).items():
        if not key[1]:
            continue  # the page declares no language
        total, groups = grouped_evidence(pages[url].text_blocks, templates.get(key, frozenset()))
        if _may_mismatch(total, groups, key[1]) and (mismatch := content_mismatch(ctx, pages[url])) is not None:
            found[url] = mismatch
    return found


@check(
    "HL503",
    "content-language-mismatch",
    "warning",
    why="""
Search engines identify a page's language from its visible text, not from its annotations. A page
whose hreflang (or `<html lang>`) says `fr` but whose main text is English is usually a page nobody
translated: documentation generators and CMSs publish the default language under the translated URL
and translate only the menus around it. French users are sent to an English page, and the "French"
page competes with the English one. The main text is that of `<main>`, `<article>` or `[role=main]`,
else of `<body>`, without navigation, sidebars, code, and header and footer outside the content. It is
identified block by block (paragraphs, list items, cells, headings) with CLD2, Chromium's language
detector, and the blocks that at least half of the pages of the host and declared language repeat
(taglines, footers, "Edit this page", menus) are left out: a translated frame does not hide an
untranslated body. Judged where one language holds at least 80 % of the remaining letters, and 200
letters or more: a page of names, or half translated, is not judged. Croatian, Serbian and Bosnian count as one language, as do
Malay and Indonesian, and Norwegian Bokmål and Nynorsk: no detector tells them apart reliably.
Scripts are compared where the page names one (`zh-Hant`, `sr-Latn`, or `zh-TW`).
""",
    example="""
`https://example.com/fr/setup/` has `<html lang="fr">`, a French menu and the annotation
`hreflang="fr"`, but its `<main>` holds the English text of `https://example.com/en/setup/`.
""",
    fix="""
Translate the page, or leave it out of the cluster (no annotations, or a noindex) until it is
translated. If the text is right, correct the declared language.
""",
    failing="""
<html lang="fr">
<head>
<link rel="alternate" hreflang="fr" href="https://example.com/fr/setup/">
</head>
<body><main><p>Install the app and sign in with your account…</p></main></body>
""",
    fixed="""
<html lang="fr">
<head>
<link rel="alternate" hreflang="fr" href="https://example.com/fr/setup/">
</head>
<body><main><p>Installez l’application et connectez-vous à votre compte…</p></main></body>
""",
    precedence="""
Judged only on enough letters of prose and a confident identification. HL501 compares the
declarations alone.
""",
    since="0.2.0",
)
def content_language_mismatch(ctx: AuditContext) -> Iterator[Hit]:
    for url, (written, _, annotation, reading) in sorted(content_mismatches(ctx).items()):
        said = f"declares itself `{written}`" if annotation else f'says `<html lang="{written}">`'
        yield Hit(
            url,
            f"Its text reads {reading.described()} ({reading.letters:,} letters, template text left out), "
            f"but this page {said}: translate it, or leave it out of the cluster until it is translated.",
            hreflang=written if annotation else "",
            source=annotation.source if annotation else "html",
        )
