"""Python's ``html.parser``, tokenizing as an HTML5 tokenizer does, faster and in linear time.

Entry: ``HtmlTokenizer``
    Relies on: ``HTMLParser.goahead`` of Python 3.11 with ``convert_charrefs`` (forked here: plain tags
    are read with one regex match, every other construct by html.parser's own ``parse_starttag``,
    ``parse_endtag``, ``parse_comment``, ``parse_pi``, ``parse_html_declaration`` and
    ``parse_bogus_comment``), its ``rawdata``, ``cdata_elem``, ``interesting``, ``set_cdata_mode`` and
    ``clear_cdata_mode``, ``ParserBase.updatepos`` and ``getpos``, and the module's ``starttagopen``.
    Tested with: CPython 3.11.7.
    Test: tests/test_compat.py::test_html_parser_reading_loop_is_the_one_forked, and token by token
    tests/test_html_extract.py::test_tokens_are_html_parsers.
    Remove when: html.parser reads a plain tag at the speed of one regex match and ``close`` is linear
    (3.11's re-scans every unterminated construct to the end: CVE-2025-6069); then ``_Extractor``
    subclasses ``HTMLParser`` again.

Upstream, as it would be reported to CPython (the quadratic close is CVE-2025-6069; the per-tag cost is
a design, not a bug):

    parser = HTMLParser(); parser.feed("<a " * 30_000); parser.close()

    Expected: linear time. Actual on 3.11.7: quadratic (100 KB of ``<a `` takes about a minute).
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import unescape
from html.parser import HTMLParser, starttagopen

# The tags nearly every page is made of, in a form html.parser reads one way only: a tag name of
# letters, digits and hyphens; attributes separated by ASCII whitespace, with names of letters, digits
# and `-_:.`, and values quoted or bare (a bare value without quotes, `=`, `<`, `>` or backtick). For
# these `HtmlTokenizer.goahead` makes the tokens itself, one regex match a tag; html.parser reads
# anything else (comments, declarations, odd spacing, unusual names), so the tokens are the same.
_ATTRIBUTE = (
    r"[ \t\n\r\f]+([a-zA-Z_:][-a-zA-Z0-9_:.]*)"
    r"(?:[ \t\n\r\f]*(=)[ \t\n\r\f]*(?:\"([^\"]*)\"|'([^']*)'|([-\w.:/#?&;%+,!@$~()*]+)))?"
)
_PLAIN_TAG = re.compile(
    r"<(?:(?P<start>[a-zA-Z][-a-zA-Z0-9]*)(?P<attributes>(?:" + _ATTRIBUTE + r")*)[ \t\n\r\f]*(?P<closed>/?)>"
    r"|/(?P<end>[a-zA-Z][-a-zA-Z0-9]*)[ \t\n\r\f]*>)",
    re.ASCII,
)
_PLAIN_ATTRIBUTE = re.compile(_ATTRIBUTE, re.ASCII)
# What html.parser looks for after a trailing `&`: text cut inside a character reference waits.
_REFERENCE_END = re.compile(r"[\s;]")


def _plain_attributes(written: str) -> list[tuple[str, str | None]]:
    """The attributes of a plain tag (``_PLAIN_TAG``'s ``attributes``) as html.parser's
    ``parse_starttag`` makes them: names in lower case, values unquoted and unescaped."""
    attrs: list[tuple[str, str | None]] = []
    for attribute, equals, double, single, bare in _PLAIN_ATTRIBUTE.findall(written):
        value = (double or single or bare) if equals else None
        attrs.append((attribute.lower(), unescape(value) if value else value))
    return attrs


#: A site's templates write the same attributes on every page (classes, navigation links): the forms
#: up to this long are read once while they stay among the 8,192 most recent, a bounded memory.
_REMEMBERED_LENGTH = 200


@lru_cache(maxsize=8192)
def _remembered_attributes(written: str) -> tuple[tuple[str, str | None], ...]:
    return tuple(_plain_attributes(written))


class HtmlTokenizer(HTMLParser):
    """html.parser's tokens, read faster; subclasses handle them as an ``HTMLParser`` does."""

    def close(self) -> None:
        """End of input as an HTML5 tokenizer sees it, in linear time.

        3.11's html.parser re-scans every unterminated construct to the end of the input, which
        is quadratic (CVE-2025-6069: 100 KB of `<a ` takes a minute). What `feed` leaves over is
        raw text still open, plain text ending in `&`, or an unterminated tag, comment or
        declaration, which WHATWG drops (a lone `<` or `</` is text).
        """
        rest, self.rawdata = self.rawdata, ""
        if self.cdata_elem is not None:
            self.handle_data(rest)
        elif rest in ("<", "</") or not rest.startswith("<"):
            self.handle_data(unescape(rest))

    # -- positions --
    # html.parser counts the newlines of every token it passes, while
    # only annotations, ignored elements and the end of the head need a line: lines are counted when
    # one is asked for, up to where the parser is then, by html.parser's own updatepos.

    def reset(self) -> None:
        super().reset()
        self._at = self._counted = 0  # where the parser is in rawdata; where lineno was counted to

    def updatepos(self, i: int, j: int) -> int:
        self._at = j
        return j

    def getpos(self) -> tuple[int, int]:
        if self._at > self._counted:
            super().updatepos(self._counted, self._at)
            self._counted = self._at
        return super().getpos()

    # -- tokens, made faster --
    # html.parser spends most of a page's extraction in Python for every tag: a regex to find the
    # tag's end, another for its name, one per attribute, then the checks between them. Plain tags
    # (``_PLAIN_TAG``) are read here with one match each and handed to the same handlers with the
    # same arguments; everything else goes to html.parser's own methods, so the tokens, and so every
    # fact, are html.parser's (a Hypothesis test compares the two token by token). The loop is one
    # function because it runs for every token, where a call per tag shows in the profile.

    def goahead(self, end: bool) -> None:
        """html.parser's ``goahead`` (3.11, ``convert_charrefs``), plain tags read in one match."""
        rawdata = self.rawdata
        i, n = 0, len(rawdata)
        handle_data = self.handle_data
        plain_tag = _PLAIN_TAG.match
        cdata_content = self.CDATA_CONTENT_ELEMENTS
        while i < n:
            if self.cdata_elem is None:
                j = rawdata.find("<", i)
                if j < 0:
                    # Text that may end in the middle of a character reference waits for more.
                    amp = rawdata.rfind("&", max(i, n - 34))
                    if amp >= 0 and not _REFERENCE_END.search(rawdata, amp):
                        break
                    j = n
                if i < j:
                    self._at = i
                    text = rawdata[i:j]
                    handle_data(unescape(text) if "&" in text else text)
            else:
                match = self.interesting.search(rawdata, i)
                if match is None:
                    break
                j = match.start()
                if i < j:
                    self._at = i
                    handle_data(rawdata[i:j])
            i = self._at = j
            if i == n:
                break
            tag = plain_tag(rawdata, i)
            if tag is None:
                k = self._markup(i, end)
                if k < 0:
                    break
                i = self._at = k
                continue
            # What html.parser's parse_starttag or parse_endtag would do with this plain tag.
            name, attributes, self_closing, end_name = tag.group("start", "attributes", "closed", "end")
            if end_name is not None:
                self.handle_endtag(end_name.lower())
                if self.cdata_elem is not None:
                    self.clear_cdata_mode()
            else:
                self.lasttag = name = name.lower()
                # A list of its own for each tag, as html.parser gives: a handler may keep or change it.
                if not attributes:
                    attrs: list[tuple[str, str | None]] = []
                elif len(attributes) <= _REMEMBERED_LENGTH:
                    attrs = list(_remembered_attributes(attributes))
                else:
                    attrs = _plain_attributes(attributes)
                if self_closing:
                    self.handle_startendtag(name, attrs)
                else:
                    self.handle_starttag(name, attrs)
                    if name in cdata_content:
                        self.set_cdata_mode(name)
            i = self._at = tag.end()
        if end and i < n and self.cdata_elem is None:
            self._at = i
            handle_data(unescape(rawdata[i:n]))
            i = n
        # What was read leaves rawdata: count its lines first, then positions start again at 0.
        self._at = i
        self.getpos()
        self.rawdata = rawdata[i:]
        self._at = self._counted = 0

    def _markup(self, i: int, end: bool) -> int:
        """html.parser's reading of any other markup at `i` (its ``goahead`` at a `<`): where it
        ends, or -1 to wait for more input."""
        rawdata = self.rawdata
        startswith = rawdata.startswith
        if starttagopen.match(rawdata, i):
            k = self.parse_starttag(i)
        elif startswith("</", i):
            k = self.parse_endtag(i)
        elif startswith("<!--", i):
            k = self.parse_comment(i)
        elif startswith("<?", i):
            k = self.parse_pi(i)
        elif startswith("<!", i):
            k = self.parse_html_declaration(i)
        elif i + 1 < len(rawdata):
            self.handle_data("<")
            k = i + 1
        else:
            return -1
        if k < 0:
            if not end:
                return -1
            k = rawdata.find(">", i + 1)
            if k < 0:
                k = rawdata.find("<", i + 1)
                k = i + 1 if k < 0 else k
            else:
                k += 1
            text = rawdata[i:k]
            self.handle_data(text if self.cdata_elem is not None else unescape(text))
        return k

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        # 3.11's html.parser raises AssertionError on `<![foo[`; outside SVG and MathML an HTML5
        # tokenizer reads any `<![` as a bogus comment up to the next `>`.
        return self.parse_bogus_comment(i, report)
