"""The one Jinja2 environment of the report and the fixes: autoescaping always on.

Everything the crawl read (URLs, hreflang values as written, messages quoting them) is untrusted,
so HTML, SVG and XML are only ever produced by templates, and every printed value passes
``printable`` and then the autoescaper.
"""

from __future__ import annotations

import re
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

#: C0 and C1 controls (but tab, newline, carriage return) and lone surrogates: a browser shows
#: nothing or U+FFFD for them, XML forbids them, and a lone surrogate cannot be encoded as UTF-8.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")

#: Longest crawled value shown in full; a 10 KB hreflang value must not take over the page.
CLIP = 300


def _escape_code(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value: Any) -> Any:
    """Show control characters as ``\\x01``-style escapes, so the reader sees that they are there."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return _UNPRINTABLE.sub(_escape_code, value)
    return value


def clip(text: str, limit: int = CLIP) -> str:
    """The start of a long value, saying how long it really is."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def prose(text: str) -> list[tuple[bool, str]]:
    """Split a message or a check's documentation at its backticks: (is_code, text) pieces.

    The template prints each piece escaped, inside ``<code>`` where it is code, so messages keep
    their formatting without any text becoming markup. An unpaired backtick stays literal.
    """
    parts = text.split("`")
    if len(parts) % 2 == 0:
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    return [(index % 2 == 1, part) for index, part in enumerate(parts) if part]


def is_http_url(value: str) -> bool:
    """Only http(s) URLs become links: never ``javascript:``, ``data:`` or anything else crawled."""
    return value[:8].lower().startswith(("http://", "https://"))


ENV = Environment(
    loader=PackageLoader("qivrora_spider.report"),
    autoescape=True,
    finalize=printable,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
ENV.filters["clip"] = clip
ENV.filters["prose"] = prose
ENV.tests["http_url"] = is_http_url
