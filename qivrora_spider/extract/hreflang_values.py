"""Validation of one hreflang value as written (checks HL001 to HL007).

Search engines accept ``x-default`` or an ISO 639-1 language, optionally
followed by an ISO 15924 script and an ISO 3166-1 alpha-2 region; anything
else is ignored, so the annotation silently drops out of the language graph.
The code tables are built once at import: validation runs for every
annotation of every page and must stay a handful of set look-ups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import pycountry

__all__ = [
    "ValueProblem",
    "canonical_hreflang",
    "check_hreflang",
    "parse_language_tag",
    "primary_language",
    "subtags",
]


@dataclass(frozen=True)
class ValueProblem:
    """The one most useful problem of an hreflang value, ready for a finding."""

    check: str  # "HL001" .. "HL007"
    message: str  # one sentence naming the value as written and saying the fix
    suggestion: str | None  # the corrected value when one is known


# Withdrawn ISO 639-1 codes; `sh` meant Serbo-Croatian, written in Latin script.
_DEPRECATED = {"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro", "sh": "sr-Latn"}
_NAMES = {
    # "Modern Greek (1453-)" reads better in a message as "Modern Greek".
    language.alpha_2: language.name.split(" (")[0]
    for language in pycountry.languages
    if hasattr(language, "alpha_2")
}
_LANGUAGE_NAMES = {**{old: _NAMES[new[:2]] for old, new in _DEPRECATED.items()}, **_NAMES}
_LANGUAGES = frozenset(_NAMES) - _DEPRECATED.keys()
_ACCEPTED_LANGUAGES = _LANGUAGES | _DEPRECATED.keys()  # search engines still read deprecated codes
# Slips people make by writing the country code; only codes that are no language
# themselves (so not `se`, Northern Sami, nor `kr`, Kanuri).
_SLIPS = {"jp": "ja", "gr": "el", "cn": "zh", "dk": "da", "ua": "uk", "cz": "cs", "vn": "vi"}
_ISO639_2 = {
    code: language.alpha_2
    for language in pycountry.languages
    if hasattr(language, "alpha_2")
    for code in (language.alpha_3, getattr(language, "bibliographic", None))
    if code
}
_SCRIPTS = frozenset(script.alpha_4.lower() for script in pycountry.scripts)
_REGIONS = frozenset(country.alpha_2 for country in pycountry.countries)
_ALPHA3_REGIONS = {country.alpha_3: country.alpha_2 for country in pycountry.countries}
_REGION_SLIPS = {"UK": "GB"}
# Reserved ISO 3166-1 codes for groups of countries, which hreflang cannot target.
_GROUPINGS = frozenset({"EU", "EZ", "UN"})

# Separators people use instead of "-": underscore, dot, whitespace, typographic dashes.
_OTHER_SEPARATORS = r"_.\s\u2010-\u2015\u2212"
_SEPARATOR = re.compile(rf"[\-{_OTHER_SEPARATORS}]")
_WRONG_SEPARATOR = re.compile(rf"[{_OTHER_SEPARATORS}]")
_FOREIGN = re.compile(rf"[^A-Za-z0-9\-{_OTHER_SEPARATORS}]")

_FORM = "write it as `ll`, `ll-RR`, `ll-Ssss` or `ll-Ssss-RR`, such as `en-GB`"
_ACCEPTED_CHECKS = ("HL006", "HL007")  # values search engines accept as they are


@lru_cache(maxsize=4096)
def check_hreflang(value: str) -> ValueProblem | None:
    """Return the problem of an hreflang value as written, or None if valid and canonical.

    Problems of the written form (whitespace, characters, separators) come
    first, then the subtags; each suggestion fixes everything that is known.
    """
    stripped = value.strip()
    if not stripped:
        reason = (
            f"The hreflang value `{value}` is only whitespace" if value else "The hreflang value is empty"
        )
        return _problem("HL005", reason, None, "write a language code such as `en`, or `x-default`")
    if stripped != value:
        return _problem("HL005", f"`{value}` has whitespace around it", _corrected(stripped), "remove it")
    foreign = _FOREIGN.search(value)
    if foreign:
        reason = (
            f"`{value}` contains `{foreign.group()}`, but hreflang takes only ASCII letters, digits and `-`"
        )
        return _problem("HL005", reason, None, _FORM)
    subtags = _SEPARATOR.split(value)
    if "" in subtags:
        fix = _corrected("-".join(subtag for subtag in subtags if subtag))
        return _problem("HL005", f"`{value}` has an empty subtag", fix, _FORM)
    problem = _diagnose(subtags, value)
    wrong = _WRONG_SEPARATOR.search(value)
    # A wrong separator is HL004 only when it is the last thing wrong; otherwise the
    # subtag problem is the more fundamental one, and its suggestion fixes the separator too.
    if wrong and (problem is None or problem.check in _ACCEPTED_CHECKS):
        written = "a space" if wrong.group().isspace() else f"`{wrong.group()}`"
        fix = problem.suggestion if problem else "-".join(subtags)
        return _problem("HL004", f"`{value}` separates subtags with {written} instead of `-`", fix)
    return problem


def _diagnose(subtags: list[str], written: str) -> ValueProblem | None:
    """Judge well-formed subtags; ``written`` is the value as written, for messages."""
    joined = "-".join(subtags)
    if joined.lower() == "x-default":
        return None if joined == "x-default" else _case_problem(written, "x-default")
    if not subtags[0].isalpha():
        return _problem("HL005", f"`{written}` does not start with a language code", None, _FORM)
    if len(subtags) == 1 and len(subtags[0]) == 2:
        problem = _region_only(subtags[0])
        if problem:
            return problem
    if len(subtags) == 2 and _region_first(*subtags):
        fix = _corrected(f"{subtags[1]}-{subtags[0]}")
        return _problem("HL005", f"`{written}` puts the region before the language", fix, _FORM)

    language, *rest = subtags
    script = rest.pop(0) if rest and len(rest[0]) == 4 and rest[0].isalpha() else None
    region = rest.pop(0) if rest and len(rest[0]) in (2, 3) else None
    if rest:
        prefix = "-".join(subtag for subtag in (language, script, region) if subtag)
        reason = f"`{written}` has subtags beyond `language-Script-REGION` (`{'-'.join(rest)}`)"
        return _problem("HL005", reason, _corrected(prefix), _FORM)

    fix = _suggest(language, script, region)
    problem = (
        _language_problem(language, written, fix)
        or _script_problem(script, written)
        or _region_problem(language, region, written, fix)
    )
    if problem:
        return problem
    if language.lower() in _DEPRECATED:
        new = _DEPRECATED[language.lower()]
        reason = f"{_where(language, written)} is a deprecated ISO 639-1 code, replaced by `{new}`"
        return _problem("HL007", reason, fix)
    canonical = _canonical_case(joined)
    return None if canonical == joined else _case_problem(written, canonical)


def _region_only(code: str) -> ValueProblem | None:
    """HL003 for a bare country code: upper-case as a country, or no language at all."""
    lower, upper = code.lower(), code.upper()
    if lower in _SLIPS or not _is_region(code):
        return None
    is_language = lower in _ACCEPTED_LANGUAGES
    if not code.isupper() and is_language:
        return None
    read_as = (
        f"search engines read it as {_LANGUAGE_NAMES[lower]} (`{lower}`)"
        if is_language
        else "search engines ignore it"
    )
    advice = f"write `<language>-{_REGION_SLIPS.get(upper, upper)}`"
    return _problem("HL003", f"`{code}` is a country code, not a language, and {read_as}", None, advice)


def _region_first(first: str, second: str) -> bool:
    """Whether ``US-en`` style: a country then a language, invalid unless swapped.

    A pair valid either way round (`CH-de`, Chamorro in Germany) is taken as
    written: it is valid, so guessing otherwise would report a valid value.
    """
    return (
        _is_region(first)
        and second.lower() in _ACCEPTED_LANGUAGES
        and not (first.lower() in _ACCEPTED_LANGUAGES and _is_region(second))
    )


def _is_region(code: str) -> bool:
    """A country code, or a slip for one (`UK`)."""
    return code.upper() in _REGIONS or code.upper() in _REGION_SLIPS


def _language_problem(language: str, written: str, fix: str | None) -> ValueProblem | None:
    lower = language.lower()
    if lower in _ACCEPTED_LANGUAGES:
        return None
    where = _where(language, written)
    if lower in _SLIPS:
        code = _SLIPS[lower]
        reason = f"{where} is not an ISO 639-1 language code ({_LANGUAGE_NAMES[code]} is `{code}`)"
    elif lower in _ISO639_2:
        reason = f"{where} is an ISO 639-2 code, and hreflang takes ISO 639-1"
    else:
        reason = f"{where} is not an ISO 639-1 language code"
    return _problem("HL001", reason, fix, "use a two-letter code such as `en`, `de` or `ja`")


def _script_problem(script: str | None, written: str) -> ValueProblem | None:
    if script is None or script.lower() in _SCRIPTS:
        return None
    # No guessed fix: a near miss such as `Hanz` is as close to `Hans` as to `Hant`.
    reason = (
        f"{_where(script, written)} is not an ISO 15924 script code (like `Hans`, `Hant`, `Latn`, `Cyrl`)"
    )
    return _problem("HL005", reason, None, "correct it or leave the script out")


def _region_problem(language: str, region: str | None, written: str, fix: str | None) -> ValueProblem | None:
    if region is None or region.upper() in _REGIONS:
        return None
    upper = region.upper()
    where = _where(region, written)
    per_country = f"(or list one `{language.lower()}-<COUNTRY>` value per country)"
    if upper in _REGION_SLIPS:
        reason = f"{where} is not an ISO 3166-1 alpha-2 region code (the code is `{_REGION_SLIPS[upper]}`)"
    elif upper in _ALPHA3_REGIONS:
        reason = f"{where} is an ISO 3166-1 alpha-3 code, and hreflang takes alpha-2"
    elif _is_un_m49(region):
        reason = f"{where} is a numeric UN M.49 region, which hreflang does not accept {per_country}"
    elif upper in _GROUPINGS:
        reason = f"{where} is a group of countries, not an ISO 3166-1 alpha-2 country code {per_country}"
    else:
        reason = f"{where} is not an ISO 3166-1 alpha-2 region code"
    return _problem("HL002", reason, fix, "use a country code such as `GB` or `US`, or leave the region out")


def _suggest(language: str, script: str | None, region: str | None) -> str | None:
    """The value with every known fix applied, in canonical case; None if a part has no fix."""
    lower = language.lower()
    replacement = _DEPRECATED.get(lower) or _SLIPS.get(lower) or _ISO639_2.get(lower)
    fixed = lower if lower in _LANGUAGES else replacement
    if fixed is None:
        return None
    fixed, _, fixed_script = fixed.partition("-")
    if script:
        if script.lower() not in _SCRIPTS:
            return None
        fixed_script = script.title()
    fixed_region = _fix_region(region) if region else ""
    if fixed_region is None:
        return None
    return "-".join(part for part in (fixed, fixed_script, fixed_region) if part)


def _fix_region(region: str) -> str | None:
    """The ISO 3166-1 alpha-2 code meant, "" when the region is better left out, or None."""
    upper = region.upper()
    if upper in _REGIONS:
        return upper
    # A group of countries has no one-country fix: the language alone serves them all.
    if _is_un_m49(region) or upper in _GROUPINGS:
        return ""
    return _REGION_SLIPS.get(upper) or _ALPHA3_REGIONS.get(upper)


def _corrected(value: str) -> str | None:
    """What ``value`` should be: itself when valid and canonical, else its suggestion."""
    problem = check_hreflang(value)
    return value if problem is None else problem.suggestion


def _canonical_case(value: str) -> str:
    """``ll``, ``ll-RR``, ``ll-Ssss``, ``ll-Ssss-RR`` casing of a valid value."""
    language, *rest = value.split("-")
    return "-".join([language.lower(), *(part.title() if len(part) == 4 else part.upper() for part in rest)])


def _case_problem(written: str, canonical: str) -> ValueProblem:
    reason = f"`{written}` is valid and search engines accept it, but it is not in canonical case"
    return _problem("HL006", reason, canonical)


def _is_un_m49(region: str) -> bool:
    return len(region) == 3 and region.isdigit()


def _where(subtag: str, written: str) -> str:
    """Name a subtag, and the value it sits in when that says more."""
    return f"`{subtag}`" if subtag == written else f"`{subtag}` in `{written}`"


def _problem(check: str, reason: str, fix: str | None, advice: str = "") -> ValueProblem:
    """One sentence: the fix first when known, else the reason and what to do."""
    message = f"Use `{fix}`: {reason}." if fix else f"{reason}; {advice}."
    return ValueProblem(check, message, fix)


def canonical_hreflang(value: str) -> str | None:
    """The value in canonical case if search engines accept it (deprecated codes kept), else None.

    The audit compares annotations by this, so `EN-us` and `en-US` are one language.
    """
    problem = check_hreflang(value)
    if problem is None:
        return value
    if problem.check == "HL006":
        return problem.suggestion
    if problem.check == "HL007":
        return _canonical_case(value)
    return None


@lru_cache(maxsize=4096)
def primary_language(value: str) -> str | None:
    """The language of an accepted hreflang value (`zh-Hant-TW` -> `zh`); None for x-default.

    Deprecated codes give their replacement (`iw` -> `he`), so `iw` and `he`
    count as one language for HL111 and HL501.
    """
    canonical = canonical_hreflang(value)
    if canonical is None or canonical == "x-default":
        return None
    return _current_language(canonical.partition("-")[0])


@lru_cache(maxsize=4096)
def subtags(value: str) -> tuple[str, str | None, str | None] | None:
    """(language, script, region) of an accepted hreflang value (`zh-Hant-TW` -> `zh`, `Hant`, `TW`);
    None for x-default. Whether two values name one language (HL209) or one is the generic of others
    (HL210) turns on the script as well: `zh-Hant` and `zh-Hans` are read by different people."""
    language = primary_language(value)
    if language is None:
        return None
    script = region = None
    for part in canonical_hreflang(value).split("-")[1:]:  # type: ignore[union-attr]
        if len(part) == 4:
            script = part
        else:
            region = part
    return language, script, region


@lru_cache(maxsize=4096)
def parse_language_tag(value: str) -> str | None:
    """The ISO 639-1 language of an html ``lang`` or Content-Language tag, judged leniently.

    Any BCP 47 tag whose primary language is ISO 639-1 is fine there (variants,
    extensions, `_` separators), since HL501 and HL502 only compare languages.
    """
    return _current_language(re.split(r"[-_]", value.strip(), maxsplit=1)[0])


def _current_language(code: str) -> str | None:
    lower = code.lower()
    if lower in _LANGUAGES:
        return lower
    return _DEPRECATED[lower].partition("-")[0] if lower in _DEPRECATED else None
