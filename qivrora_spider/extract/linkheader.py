"""HTTP `Link` header parsing (RFC 8288): the only place a PDF or other non-HTML document can carry
hreflang annotations and a canonical.

A hand-written scanner after RFC 8288 Appendix B, in linear time whatever the input: headers come
from any server, and a regex over `<...>`, quoted strings and parameters backtracks on bad ones.
Where the appendix gives up on the rest of a field, this parser skips to the next link instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class LinkValue:
    """One link of a `Link` header, as written: target not resolved, hreflang not normalised."""

    target: str
    #: Relation types, lower-cased; from the first `rel` parameter only (RFC 8288 section 3.3).
    rel: tuple[str, ...]
    #: Parameter names lower-cased, values unquoted; the first of repeated parameters wins.
    params: Mapping[str, str]


def parse_link_headers(values: Iterable[str]) -> list[LinkValue]:
    """Every well-formed link of every `Link` header value, in order; malformed ones are skipped."""
    links: list[LinkValue] = []
    for value in values:
        _parse_field(value, links)
    return links


# Whitespace includes CR and LF so that obsolete line folding does not break a header.
_WHITESPACE = " \t\r\n"
_SPACE = re.compile(r"[ \t\r\n]*")
_SPACE_OR_COMMA = re.compile(r"[ \t\r\n,]*")  # empty list elements are allowed (RFC 9110 5.6.1)
_PARAM_NAME = re.compile(r"[^ \t\r\n=;,]*")
_TOKEN_VALUE = re.compile(r"[^;,]*")
_UNTIL_COMMA_OR_QUOTE = re.compile(r'[^,"]*')
_QUOTED_RUN = re.compile(r'[^"\\]*')


def _run_end(run: re.Pattern[str], value: str, i: int) -> int:
    """Where the run of characters that `run` matches from `i` ends; it may be empty."""
    match = run.match(value, i)
    assert match is not None  # every pattern above is a starred character class
    return match.end()


def _parse_field(value: str, links: list[LinkValue]) -> None:
    end = len(value)
    close = -1  # the next ">", found once and reused: a search per "<" would be quadratic
    i = _run_end(_SPACE_OR_COMMA, value, 0)
    while i < end:
        if value[i] != "<":
            i = _next_element(value, i)
        else:
            if close <= i:
                close = value.find(">", i + 1)
                if close < 0:
                    return  # no target can be complete
            reopened = value.find("<", i + 1, close)
            if reopened >= 0:
                i = reopened  # this target lacks its ">": the next link starts here
                continue
            target = value[i + 1 : close]
            params, i = _parse_params(value, close + 1)
            rel = tuple(params.get("rel", "").lower().split())
            links.append(LinkValue(target, rel, MappingProxyType(params)))
            i = _next_element(value, i)
        i = _run_end(_SPACE_OR_COMMA, value, i)


def _parse_params(value: str, i: int) -> tuple[dict[str, str], int]:
    """Parameters from `i` up to the end of this link (RFC 8288 B.3)."""
    params: dict[str, str] = {}
    end = len(value)
    while True:
        i = _run_end(_SPACE, value, i)
        if i >= end or value[i] != ";":
            return params, i
        i = _run_end(_SPACE, value, i + 1)
        name_end = _run_end(_PARAM_NAME, value, i)
        name = value[i:name_end].lower()
        i = _run_end(_SPACE, value, name_end)
        param = ""
        if i < end and value[i] == "=":
            i = _run_end(_SPACE, value, i + 1)
            if i < end and value[i] == '"':
                param, i = _quoted_string(value, i)
            else:
                value_end = _run_end(_TOKEN_VALUE, value, i)
                param = value[i:value_end].rstrip(_WHITESPACE)
                i = value_end
        if name and name not in params:
            params[name] = param


def _quoted_string(value: str, i: int) -> tuple[str, int]:
    """The unescaped content of the quoted string at `i`, and where it ends (RFC 8288 B.4)."""
    parts: list[str] = []
    end = len(value)
    i += 1
    while i < end:
        run_end = _run_end(_QUOTED_RUN, value, i)
        parts.append(value[i:run_end])
        if run_end >= end:
            break
        if value[run_end] == '"':
            return "".join(parts), run_end + 1
        parts.append(value[run_end + 1 : run_end + 2])  # a backslash escapes the next character
        i = run_end + 2
    return "".join(parts), end  # unterminated: the value runs to the end


def _next_element(value: str, i: int) -> int:
    """Past the next comma outside quotes: what is left of a link cannot be read."""
    end = len(value)
    while i < end:
        i = _run_end(_UNTIL_COMMA_OR_QUOTE, value, i)
        if i >= end:
            break
        if value[i] == ",":
            return i + 1
        i = _quoted_string(value, i)[1]
    return end
