"""The locale probe (``-a locale_probe=1``, HL801): which Accept-Language to send a page, and what of
its second answer is kept to compare with the first.

Googlebot sends no Accept-Language and neither does the crawl; a page that answers a visitor who
asks for another language of its cluster differently shows search engines one version only.
"""

from __future__ import annotations

from ..facts import LocaleProbe, Page
from .hreflang_values import canonical_hreflang, parse_language_tag, primary_language
from .text_language import dominant_language

X_DEFAULT = "x-default"


def probe_language(page: Page) -> str | None:
    """The value to send as Accept-Language: the first, by sorted value, of the other languages the
    page's annotations name; None where it names none, or is itself an `x-default` (HL408's)."""
    own: set[str | None] = set()
    others: set[str] = set()
    for annotation in page.annotations:
        value = canonical_hreflang(annotation.hreflang)
        if value is None or annotation.url is None:
            continue
        if annotation.url == page.url:
            if value == X_DEFAULT:
                return None
            own.add(primary_language(value))
        elif value != X_DEFAULT:
            others.add(value)
    if not own and page.html_lang:
        own.add(parse_language_tag(page.html_lang))
    candidates = sorted(value for value in others if primary_language(value) not in own)
    return candidates[0] if candidates else None


def probe_fact(answer: Page, accept_language: str, vary: str) -> LocaleProbe:
    """What the probe's answer (read as a page) is compared on; `vary`: its Vary header."""
    return LocaleProbe(
        url=answer.url,
        accept_language=accept_language,
        status=answer.status,
        location=answer.location,
        annotations=[a for a in answer.annotations if a.source in ("html", "header")],
        canonicals=answer.canonicals,
        main_text_language=dominant_language(answer.text_blocks),
        vary="accept-language" in {part.strip().lower() for part in vary.split(",")},
    )
