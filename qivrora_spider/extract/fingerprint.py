"""A page's fingerprint: a hash of its text and content attributes without what changes on every render
(build ids, dates, clock times, CSRF fields), so that SM010 and SM011 see a change of content only.
"""

from __future__ import annotations

import re
from hashlib import blake2b

from .main_text import WHITESPACE

#: Attribute values that are content; ids, classes, nonces and integrity hashes are not.
CONTENT_ATTRS = frozenset({"href", "src", "alt", "title", "content"})
_SECRET_NAMES = ("csrf", "xsrf", "token", "nonce")
# Parts of a render that change without the content changing: build ids and hashes (16+ hex
# digits), ISO 8601 dates and times, clock times with seconds, Unix timestamps in s or ms. Each
# pattern starts with a character class, which lets the regex engine skip ahead in C: one
# alternation led by a lookbehind costs four times as much.
_VOLATILE = (
    re.compile(r"[0-9A-Fa-f](?<![0-9A-Za-z].)[0-9A-Fa-f]{15,}(?![0-9A-Za-z])"),
    re.compile(
        r"""\d(?:
            \d{3}-\d\d-\d\d(?:[T\ ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?
          | \d?:\d\d:\d\d(?:[.,]\d+)?
          | (?<![0-9A-Za-z]\d)(?:\d{12}|\d{9})(?![0-9A-Za-z])
        )""",
        re.ASCII | re.VERBOSE,
    ),
)
# Whether each pattern can match at all, asked of the text's UTF-8 bytes mapped in C (bytes.translate):
# a pattern's search tries nearly every position of a page, and most pages hold no build id, date or
# clock time. A match of the first needs 16 hex digits in a row; of the second, the shape of a date
# (`dddd-dd-dd`), a clock time (`d:dd:dd`) or a timestamp (10 digits). Bytes of other characters are
# never ASCII, so they map to the blank.
_HEX_MASK = bytes(ord("x") if byte in b"0123456789abcdefABCDEF" else ord(" ") for byte in range(256))
_HEX_RUN = b"x" * 16
_DIGIT_MASK = bytes(
    ord("d") if byte in b"0123456789" else byte if byte in b"-:" else ord(" ") for byte in range(256)
)
_DIGIT_SHAPES = (b"dddd-dd-dd", b"d:dd:dd", b"d" * 10)


def is_secret_field(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    """Hidden inputs and CSRF-like meta/input fields change on every render."""
    for name, value in attrs:
        if not value:
            continue
        if name == "name" and any(secret in value.lower() for secret in _SECRET_NAMES):
            return True
        if name == "type" and tag == "input" and value.lower() == "hidden":
            return True
    return False


_WINDOW = 256 * 1024


def without_volatile(text: str) -> str:
    """`text` without what _VOLATILE matches, each pattern applied in turn where it can match."""
    encoded = text.encode("utf-8", "surrogatepass")
    if _HEX_RUN in encoded.translate(_HEX_MASK):
        text = _VOLATILE[0].sub("", text)
        encoded = text.encode("utf-8", "surrogatepass")
    digits = encoded.translate(_DIGIT_MASK)
    if any(shape in digits for shape in _DIGIT_SHAPES):
        text = _VOLATILE[1].sub("", text)
    return text


def text_fingerprint(parts: list[str]) -> str:
    text = without_volatile(" ".join(parts))
    # The hash of `" ".join(text.split())`, computed window by window: splitting a 15 MB page at
    # once makes a list of every word, ten times the page's size. A space owed at a window's end is
    # written before the next word, so a run of whitespace across windows is one space, as in the
    # one-shot form.
    digest = blake2b(digest_size=16)
    owed = started = False
    for start in range(0, len(text), _WINDOW):
        window = text[start : start + _WINDOW]
        words = folded_words(window)
        if window[0].isspace():
            owed = True
        trailing = window[-1].isspace()
        if words:
            if owed and started:
                digest.update(b" ")
            digest.update(words)
            started, owed = True, trailing
        else:
            owed = owed or trailing
    return digest.hexdigest()


#: Each ASCII character ``str.split`` splits on (space, \t\n\v\f\r and the separators \x1c to \x1f)
#: as the space; every other byte as itself.
_ASCII_WHITESPACE_AS_SPACE = bytes(
    ord(" ") if chr(byte) in WHITESPACE and byte < 0x80 else byte for byte in range(256)
)
_ASCII = bytes(range(0x80))
#: The UTF-8 of the whitespace characters ``str.split`` splits on beyond ASCII (U+0085, U+00A0,
#: U+2000 to U+200A, ...).
_NON_ASCII_WHITESPACE = re.compile(
    b"|".join(re.escape(character.encode()) for character in WHITESPACE if not character.isascii())
)
_SPACES = re.compile(b"  +")


def folded_words(text: str) -> bytes:
    """The UTF-8 of ``" ".join(text.split())``, folded as bytes in C rather than split into a string
    a word. UTF-8 writes every character beyond ASCII as bytes above 0x7F, so an ASCII byte is always
    that character, and the bytes left once ASCII's are deleted are whole characters: where none of
    them is whitespace, mapping ASCII's whitespace to spaces and runs of spaces to one folds alike."""
    encoded = text.encode("utf-8", "surrogatepass")
    if not text.isascii() and _NON_ASCII_WHITESPACE.search(encoded.translate(None, _ASCII)):
        return " ".join(text.split()).encode("utf-8", "surrogatepass")
    return _SPACES.sub(b" ", encoded.translate(_ASCII_WHITESPACE_AS_SPACE)).strip(b" ")


class TextParts:
    """The text pieces of a page for its fingerprint, folded into chunks as they come: a 15 MB page
    has a million pieces, ~60 bytes of overhead each. `parts()` joins to the same text."""

    __slots__ = ("_chunks", "_pending")

    def __init__(self) -> None:
        self._chunks: list[str] = []
        self._pending: list[str] = []

    def append(self, piece: str) -> None:
        pending = self._pending
        pending.append(piece)
        if len(pending) >= 4096:
            self._chunks.append(" ".join(pending))
            pending.clear()

    def parts(self) -> list[str]:
        return [*self._chunks, *self._pending]
