"""hreflang values as written: which search engines accept, and the one fix to report (HL001-HL007)."""

from __future__ import annotations

import pycountry
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qivrora_spider.extract.hreflang_values import (
    ValueProblem,
    canonical_hreflang,
    check_hreflang,
    parse_language_tag,
    primary_language,
)

VALID = [
    "zh-Hant-TW",
    "zh-Hans",
    "sr-Latn",
    "x-default",
    "en",
    "en-GB",
    "en-IE",
    "pt-BR",
    "es-ES",
    "se",
    "kr",
    "uk",
]


@pytest.mark.parametrize("value", VALID)
def test_valid_canonical_values_pass(value: str) -> None:
    assert check_hreflang(value) is None
    assert canonical_hreflang(value) == value


@pytest.mark.parametrize(
    ("value", "check", "suggestion"),
    [
        # HL001 invalid-language
        pytest.param("fre", "HL001", "fr", id="iso639-2-bibliographic"),
        pytest.param("fra", "HL001", "fr", id="iso639-2-terminology"),
        pytest.param("eng", "HL001", "en", id="eng"),
        pytest.param("ger-DE", "HL001", "de-DE", id="ger-keeps-region"),
        pytest.param("jp", "HL001", "ja", id="slip-jp"),
        pytest.param("jp-JP", "HL001", "ja-JP", id="slip-keeps-region"),
        pytest.param("JP", "HL001", "ja", id="slip-upper-case"),
        pytest.param("gr", "HL001", "el", id="slip-gr"),
        pytest.param("xx", "HL001", None, id="unknown"),
        pytest.param("fil", "HL001", None, id="no-iso639-1-equivalent"),
        pytest.param("fre_FR", "HL001", "fr-FR", id="language-before-separator"),
        # HL002 invalid-region
        pytest.param("en-UK", "HL002", "en-GB", id="uk"),
        pytest.param("en-uk", "HL002", "en-GB", id="uk-lower"),
        pytest.param("es-419", "HL002", "es", id="un-m49"),
        pytest.param("en-EU", "HL002", "en", id="macro-region"),
        pytest.param("en-XX", "HL002", None, id="unknown-region"),
        pytest.param("en-USA", "HL002", "en-US", id="alpha-3-region"),
        pytest.param("iw-UK", "HL002", "he-GB", id="region-before-deprecation"),
        # HL003 region-only
        pytest.param("US", "HL003", None, id="us"),
        pytest.param("us", "HL003", None, id="us-lower-is-no-language"),
        pytest.param("CH", "HL003", None, id="ch-chamorro"),
        pytest.param("UK", "HL003", None, id="uk-ukrainian"),
        pytest.param("GB", "HL003", None, id="gb"),
        pytest.param("DE", "HL003", None, id="upper-case-country"),
        # HL004 bad-separator
        pytest.param("fr_FR", "HL004", "fr-FR", id="underscore"),
        pytest.param("en_us", "HL004", "en-US", id="underscore-and-case"),
        pytest.param("en GB", "HL004", "en-GB", id="space"),
        pytest.param("en.GB", "HL004", "en-GB", id="dot"),
        pytest.param("en\u2013GB", "HL004", "en-GB", id="en-dash"),
        pytest.param("x_default", "HL004", "x-default", id="x-default"),
        pytest.param("iw_IL", "HL004", "he-IL", id="separator-then-deprecated"),
        # HL005 malformed-value
        pytest.param("", "HL005", None, id="empty"),
        pytest.param("   ", "HL005", None, id="blank"),
        pytest.param(" en", "HL005", "en", id="leading-space"),
        pytest.param("en-GB\n", "HL005", "en-GB", id="trailing-newline"),
        pytest.param("US-en", "HL005", "en-US", id="region-first"),
        pytest.param("IN-hi", "HL005", "hi-IN", id="region-first-deprecated-language"),
        pytest.param("zh-Hanz", "HL005", None, id="unknown-script"),
        pytest.param("en-Latn-US-x-foo", "HL005", "en-Latn-US", id="private-use"),
        pytest.param("de-DE-1996", "HL005", "de-DE", id="variant"),
        pytest.param("en@GB", "HL005", None, id="foreign-character"),
        pytest.param("én", "HL005", None, id="non-ascii"),
        pytest.param("en--GB", "HL005", "en-GB", id="empty-subtag"),
        pytest.param("419", "HL005", None, id="no-language"),
        # HL006 non-canonical-case
        pytest.param("EN-us", "HL006", "en-US", id="language-and-region"),
        pytest.param("zh-hant", "HL006", "zh-Hant", id="script"),
        pytest.param("ZH-HANT-tw", "HL006", "zh-Hant-TW", id="all-three"),
        pytest.param("X-Default", "HL006", "x-default", id="x-default"),
        pytest.param("De", "HL006", "de", id="mixed-case-language"),
        pytest.param("CH-de", "HL006", "ch-DE", id="valid-either-way-is-taken-as-written"),
        # HL007 deprecated-language
        pytest.param("iw", "HL007", "he", id="iw"),
        pytest.param("iw-IL", "HL007", "he-IL", id="keeps-region"),
        pytest.param("IW-il", "HL007", "he-IL", id="wrong-case-is-still-deprecated"),
        pytest.param("in", "HL007", "id", id="in"),
        pytest.param("ji", "HL007", "yi", id="ji"),
        pytest.param("jw", "HL007", "jv", id="jw"),
        pytest.param("mo", "HL007", "ro", id="mo"),
        pytest.param("sh", "HL007", "sr-Latn", id="sh-gains-script"),
        pytest.param("sh-RS", "HL007", "sr-Latn-RS", id="sh-keeps-region"),
    ],
)
def test_check_hreflang(value: str, check: str, suggestion: str | None) -> None:
    problem = check_hreflang(value)
    assert problem is not None
    assert (problem.check, problem.suggestion) == (check, suggestion)
    # One sentence that names the value as written.
    assert not value or f"`{value}`" in problem.message
    assert problem.message.endswith(".")
    assert problem.message.count(". ") == 0


@pytest.mark.parametrize(
    ("value", "message"),
    [
        pytest.param(
            "en-UK",
            "Use `en-GB`: `UK` in `en-UK` is not an ISO 3166-1 alpha-2 region code (the code is `GB`).",
            id="uk",
        ),
        pytest.param("fre", "Use `fr`: `fre` is an ISO 639-2 code, and hreflang takes ISO 639-1.", id="fre"),
        pytest.param("jp", "Use `ja`: `jp` is not an ISO 639-1 language code (Japanese is `ja`).", id="jp"),
        pytest.param(
            "CH",
            "`CH` is a country code, not a language, and search engines read it as Chamorro (`ch`); "
            "write `<language>-CH`.",
            id="ch",
        ),
        pytest.param(
            "US",
            "`US` is a country code, not a language, and search engines ignore it; write `<language>-US`.",
            id="us",
        ),
        pytest.param(
            "UK",
            "`UK` is a country code, not a language, and search engines read it as Ukrainian (`uk`); "
            "write `<language>-GB`.",
            id="uk-alone",
        ),
        pytest.param(
            "fr_FR", "Use `fr-FR`: `fr_FR` separates subtags with `_` instead of `-`.", id="underscore"
        ),
        pytest.param("iw", "Use `he`: `iw` is a deprecated ISO 639-1 code, replaced by `he`.", id="iw"),
        pytest.param("US-en", "Use `en-US`: `US-en` puts the region before the language.", id="region-first"),
        pytest.param(
            "EN-us",
            "Use `en-US`: `EN-us` is valid and search engines accept it, but it is not in canonical case.",
            id="case",
        ),
    ],
)
def test_messages(value: str, message: str) -> None:
    problem = check_hreflang(value)
    assert problem is not None and problem.message == message


def test_un_m49_message_offers_both_fixes() -> None:
    problem = check_hreflang("es-419")
    assert problem is not None
    assert "numeric UN M.49 region" in problem.message
    assert "`es-<COUNTRY>` value per country" in problem.message
    assert problem.message.startswith("Use `es`")


def test_unknown_script_names_the_real_ones() -> None:
    problem = check_hreflang("zh-Hanz")
    assert problem is not None
    assert "`Hanz` in `zh-Hanz` is not an ISO 15924 script code" in problem.message
    assert "`Hans`" in problem.message and "`Hant`" in problem.message


@pytest.mark.parametrize(
    ("value", "canonical"),
    [
        pytest.param("en-GB", "en-GB", id="valid"),
        pytest.param("EN-gb", "en-GB", id="non-canonical-case"),
        pytest.param("X-DEFAULT", "x-default", id="x-default"),
        pytest.param("iw", "iw", id="deprecated-kept"),
        pytest.param("IW-il", "iw-IL", id="deprecated-in-canonical-case"),
        pytest.param("en-UK", None, id="invalid-region"),
        pytest.param("fr_FR", None, id="bad-separator"),
        pytest.param("US", None, id="region-only"),
        pytest.param(" en", None, id="whitespace"),
    ],
)
def test_canonical_hreflang(value: str, canonical: str | None) -> None:
    assert canonical_hreflang(value) == canonical


@pytest.mark.parametrize(
    ("value", "language"),
    [
        pytest.param("en-GB", "en", id="region"),
        pytest.param("zh-Hant-TW", "zh", id="script-and-region"),
        pytest.param("EN-us", "en", id="case"),
        pytest.param("iw-IL", "he", id="deprecated-gives-replacement"),
        pytest.param("sh", "sr", id="sh"),
        pytest.param("x-default", None, id="x-default"),
        pytest.param("en-UK", None, id="invalid"),
    ],
)
def test_primary_language(value: str, language: str | None) -> None:
    assert primary_language(value) == language


@pytest.mark.parametrize(
    ("tag", "language"),
    [
        pytest.param("en-US", "en", id="region"),
        pytest.param("en_US", "en", id="underscore"),
        pytest.param("de-DE-1996", "de", id="variant"),
        pytest.param("zh-Hant", "zh", id="script"),
        pytest.param(" FR ", "fr", id="case-and-space"),
        pytest.param("iw", "he", id="deprecated"),
        pytest.param("eng", None, id="three-letter"),
        pytest.param("x-default", None, id="x-default"),
        pytest.param("", None, id="empty"),
    ],
)
def test_parse_language_tag(tag: str, language: str | None) -> None:
    assert parse_language_tag(tag) == language


@given(st.text())
def test_any_text_gets_an_answer(value: str) -> None:
    problem = check_hreflang(value)
    assert problem is None or isinstance(problem, ValueProblem)
    if problem is not None:
        assert problem.check in {f"HL00{n}" for n in range(1, 8)}
        # A suggestion is a finished fix, never the next finding.
        assert problem.suggestion is None or check_hreflang(problem.suggestion) is None, problem


LANGUAGES = sorted(language.alpha_2 for language in pycountry.languages if hasattr(language, "alpha_2"))
SCRIPTS = sorted(script.alpha_4 for script in pycountry.scripts)
REGIONS = sorted(country.alpha_2 for country in pycountry.countries)


def _any_case(code: str) -> st.SearchStrategy[str]:
    return st.lists(st.booleans(), min_size=len(code), max_size=len(code)).map(
        lambda flips: "".join(c.upper() if flip else c.lower() for c, flip in zip(code, flips, strict=True))
    )


@st.composite
def real_tags(draw: st.DrawFn) -> str:
    parts = [draw(st.sampled_from(LANGUAGES).flatmap(_any_case))]
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(SCRIPTS).flatmap(_any_case)))
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(REGIONS).flatmap(_any_case)))
    return "-".join(parts)


@given(real_tags())
def test_tags_of_real_codes_are_accepted(tag: str) -> None:
    problem = check_hreflang(tag)
    # A lone upper-case country code is the one real-code spelling read as a region (HL003).
    if problem is not None and problem.check == "HL003":
        assert "-" not in tag and tag.isupper()
        return
    assert problem is None or problem.check in ("HL006", "HL007"), problem
    assert canonical_hreflang(tag) is not None
