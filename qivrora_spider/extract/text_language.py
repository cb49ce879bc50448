"""Which language a page's main text is written in: CLD2, the detector inside Chromium, via pycld2.

Chosen on measured numbers (bench/RESULTS.md, "Language identification"): of eleven identifiers it
alone made no wrong call on 200 letters or more once closely related languages are grouped, and fit
the crawl's budget (about 66 µs and 7 MiB for 2,000 letters). Its model is compiled into the package:
nothing is downloaded. CLD2 is no longer developed; pycld2 is (0.42, 2025).

Identification is pure and bounded: the main text is cut at ``MAIN_TEXT_LIMIT`` characters before it
gets here, and a text with fewer than ``MIN_LETTERS`` letters is counted, not identified.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pycld2

#: Fewer letters than this are too few to judge (HL503, CHECKS-NEXT.md).
MIN_LETTERS = 200

#: CLD2's codes where hreflang writes another ISO 639-1 code (or, for Chinese, names the script).
_CLD2_CODES = {"iw": "he", "jw": "jv", "zh": "zh-Hans", "sr-ME": "sr"}

#: Languages no identifier tells apart reliably (CLD2 names Bosnian right in a minority of texts, and is
#: confident when wrong; bench/RESULTS.md): they are one language for HL503. Each maps to its group's name.
SAME_LANGUAGE = {
    **dict.fromkeys(("hr", "sr", "bs", "sh"), "hbs"),
    **dict.fromkeys(("ms", "id"), "ms"),
    **dict.fromkeys(("no", "nb", "nn"), "no"),
}

#: The languages CLD2 can answer: a page declaring another is not judged (CLD2 would name a neighbour).
KNOWN = frozenset(SAME_LANGUAGE.get(code, code) for _, code in pycld2.LANGUAGES if "-" not in code) | {
    "zh",
    "he",
    "jv",
}

# Serbian and its neighbours are written in Cyrillic or Latin letters: the letters tell which, with
# certainty, where a model would guess. Where neither has nine letters in ten, no script is named.
_BY_SCRIPT = frozenset(("sr", "bs", "hr", "sh"))
_CYRILLIC = re.compile(r"[\u0400-\u052f]")
_CLEAR_SCRIPT = 0.9
# CLD2 rejects control characters (but tab, LF, FF, CR) and noncharacters as invalid UTF-8
# (pycld2 issue #53); lone surrogates cannot be encoded at all.
_UNREADABLE = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(17))
    + "]+"
)


@dataclass(frozen=True, slots=True)
class Identified:
    """What the main text reads as."""

    #: A language tag: the ISO 639-1 language, with its script where the script was told apart
    #: (``zh-Hans``, ``zh-Hant``, ``sr-Cyrl``, ``sr-Latn``); None where the text has too few letters,
    #: CLD2 found no language or says its answer is not reliable.
    language: str | None
    #: The share of the text in that language (its group of ``SAME_LANGUAGE`` summed), 0 to 1.
    confidence: float
    #: Letters in the text that was identified (or counted, when too few).
    letters: int


def group(language: str) -> str:
    """The primary language as HL503 compares it: ``hbs`` for Croatian, Serbian and Bosnian, ..."""
    primary = language.split("-", 1)[0].lower()
    return SAME_LANGUAGE.get(primary, primary)


#: The Latin-1 characters that are not letters (``str.isalpha``), as bytes to delete.
_LATIN_1_NON_LETTERS = bytes(code for code in range(256) if not chr(code).isalpha())


def letters_in(text: str) -> int:
    """How many characters of `text` are letters (``str.isalpha``).

    Most main texts are Latin-1 (Western European languages): their non-letters are deleted in C and
    the rest counted at once. Others are counted one by one, still in C.
    """
    try:
        return len(text.encode("latin-1").translate(None, _LATIN_1_NON_LETTERS))
    except UnicodeEncodeError:
        return sum(map(str.isalpha, text))


def identify(text: str) -> Identified:
    """The language of `text` (a page's main text), or only its letter count when it has too few."""
    letters = letters_in(text)
    if letters < MIN_LETTERS:
        return Identified(None, 0.0, letters)
    try:
        reliable, _, details = pycld2.detect(text, isPlainText=True)
    except (pycld2.error, UnicodeEncodeError):
        # Rare, and cleaning every text first would double the cost.
        try:
            reliable, _, details = pycld2.detect(_UNREADABLE.sub(" ", text), isPlainText=True)
        except (pycld2.error, UnicodeEncodeError):
            return Identified(None, 0.0, letters)
    code = details[0][1]
    if not reliable or code in ("un", "xxx"):  # CLD2's own verdict that it is unsure
        return Identified(None, 0.0, letters)
    language = _CLD2_CODES.get(code, code)
    wanted = group(language)
    share = sum(percent for _, other, percent, _ in details if group(_CLD2_CODES.get(other, other)) == wanted)
    if language in _BY_SCRIPT:
        cyrillic = len(_CYRILLIC.findall(text)) / letters
        if cyrillic >= _CLEAR_SCRIPT:
            language += "-Cyrl"
        elif cyrillic <= 1 - _CLEAR_SCRIPT:
            language += "-Latn"
    return Identified(language, min(share, 100) / 100, letters)
