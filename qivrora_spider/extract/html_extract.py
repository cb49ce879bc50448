"""The facts hreflang checks need from one HTML page, read in a single pass.

`html.parser` tokenizes (pure Python, never gives up on garbage, gives line numbers); whether an
element ends up in `<head>` is decided by re-implementing the part of the WHATWG tree-construction
algorithm that governs it, because search engines ignore annotations outside `<head>` (HL105) and
an HTML5 parser closes the head early on the first element that does not belong there. The same
pass gathers the page's main text, whose language HL503 compares with the declared one
(``MainText``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from hashlib import blake2b
from html import unescape
from html.parser import HTMLParser, starttagopen


@dataclass(slots=True)
class HtmlAnnotation:
    """`<link rel="alternate" hreflang href>`, values as written (checked by HL0xx, HL1xx)."""

    hreflang: str
    href: str
    line: int
    in_head: bool
    #: What ended the head before this link (`img`, `body`, `#text`, `</br>`), for the HL105 message.
    head_closed_by: str | None = None
    head_closed_line: int | None = None


@dataclass(slots=True)
class IgnoredElement:
    """An hreflang-like element that search engines ignore (HL104), with why."""

    tag: str
    attrs: dict[str, str]
    line: int
    in_head: bool
    reason: str


@dataclass(slots=True)
class HtmlCanonical:
    """`<link rel="canonical">`; search engines honour it only in `<head>` (HL3xx)."""

    href: str
    in_head: bool


@dataclass(slots=True)
class HtmlFacts:
    """What the checks need from one HTML page; values as written, resolved by the caller."""

    annotations: list[HtmlAnnotation]
    ignored: list[IgnoredElement]
    canonicals: list[HtmlCanonical]
    html_lang: str | None
    content_language: str | None
    noindex: bool
    #: The robots meta that made the page noindex (else the first one), for messages.
    meta_robots: str | None
    links: list[str]
    base_href: str | None
    #: ``<link rel="sitemap">`` hrefs of the head, as written: sitemaps the page announces (Astro).
    sitemaps: list[str]
    #: None where not asked for: only the crawl state compares fingerprints (SM010, SM011).
    fingerprint: str | None
    #: The page's own content, at most ``MAIN_TEXT_LIMIT`` characters (``MainText``); "" where not asked.
    main_text: str = ""


def extract_html(text: str, *, fingerprint: bool = True, main_text: bool = True) -> HtmlFacts:
    """Read the facts of a decoded HTML document; any text gives a result, never an exception.

    Without ``fingerprint`` the text is neither collected nor hashed: where nothing compares
    fingerprints, that work (two regex passes and a hash over the whole text) buys nothing.
    Without ``main_text`` the main text is not gathered.
    """
    parser = _Extractor(fingerprint=fingerprint, main_text=main_text)
    # A browser's decoder drops the byte order mark; left in, it is stray text that closes the head.
    parser.feed(text[1:] if text.startswith("\ufeff") else text)
    parser.close()
    return parser.facts()


def _one_typo_away(word: str, alphabet: str) -> frozenset[str]:
    """Every string one deletion, insertion, substitution or transposition away from `word`."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = {a + b[1:] for a, b in splits if b}
    edits |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    edits |= {a + c + b[1:] for a, b in splits if b for c in alphabet}
    edits |= {a + c + b for a, b in splits for c in alphabet}
    return frozenset(edits - {word})


# Search engines match the attribute name exactly, people do not type it exactly: `hreflag`,
# `href-lang`, `href_lang`, `hreflang-`, `hrflang`, `herflang`, `hreflangs`... (HL104). `lang` on a
# rel="alternate" link is handled apart, because feeds legitimately carry `lang` with `type`.
_HREFLANG_TYPOS = _one_typo_away("hreflang", "abcdefghijklmnopqrstuvwxyz-_:")
_HREFLANG_NAMES = _HREFLANG_TYPOS | {"hreflang"}

# Insertion modes, merged where they treat every token alike for our purpose ("initial" and
# "before html" act as "before head"). "in head noscript" never happens: we parse with scripting
# enabled, as browsers and Google's renderer do, so `<noscript>` is a raw text element. Modes past
# "in body" cannot reopen the head; `<frameset>` counts as body (the parser then drops the links).
_BEFORE_HEAD, _IN_HEAD, _AFTER_HEAD, _IN_BODY = range(4)
# Start tags "after head" puts back into the head element.
_REOPEN_HEAD = frozenset(
    {"base", "basefont", "bgsound", "link", "meta", "noframes", "script", "style", "template", "title"}
)
_HEAD_CONTENT = _REOPEN_HEAD | {"noscript"}
_ENDS_HEAD_AS_END_TAG = frozenset({"body", "html", "br"})
# Content is text, not markup (raw text and RCDATA elements, noscript with scripting on); 3.11's
# html.parser only knows script and style, so `<title>a <img> b</title>` would close the head.
_RAW_TEXT = frozenset(
    {"script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext"}
)
# The content of <noscript> is read again as a parser with scripting off would; there it is markup.
_RAW_TEXT_SCRIPTING_OFF = _RAW_TEXT - {"noscript"}
_HTML_WHITESPACE = " \t\n\r\f"  # not str.strip()'s set: \v or U+00A0 are text that closes the head

_INSIDE_TEMPLATE = "inside <template>, whose content is inert"
_INSIDE_NOSCRIPT = "inside <noscript>, which search engines that run scripts read as text"

_TOKEN_SEPARATOR = re.compile(r"[ \t\n\r\f]+")

# The tags nearly every page is made of, in a form html.parser reads one way only: a tag name of
# letters, digits and hyphens; attributes separated by ASCII whitespace, with names of letters, digits
# and `-_:.`, and values quoted or bare (a bare value without quotes, `=`, `<`, `>` or backtick). For
# these `_Extractor.goahead` makes the tokens itself, one regex match a tag; html.parser reads
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
_ROBOTS_SEPARATOR = re.compile(r"[\s,]+")
_NOINDEX = frozenset({"noindex", "none"})
_NOT_DOCUMENTS = ("javascript:", "mailto:", "tel:", "data:")

# Attribute values that are content; ids, classes, nonces and integrity hashes are not.
_CONTENT_ATTRS = frozenset({"href", "src", "alt", "title", "content"})
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


def _tokens(value: str) -> list[str]:
    """rel is a set of space-separated tokens, compared ASCII case-insensitively."""
    return _TOKEN_SEPARATOR.split(value.lower())


def _attr_map(attrs: list[tuple[str, str | None]]) -> dict[str, str]:
    """Attributes as an HTML5 parser keeps them: the first of duplicates wins, bare ones are empty."""
    result: dict[str, str] = {}
    for name, value in attrs:
        if name not in result:
            result[name] = "" if value is None else value
    return result


def _first(attrs: list[tuple[str, str | None]], wanted: str) -> str | None:
    """The value of an attribute as an HTML5 parser keeps it (see _attr_map), None if absent."""
    for name, value in attrs:
        if name == wanted:
            return "" if value is None else value
    return None


def _is_secret_field(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    """Hidden inputs and CSRF-like meta/input fields change on every render."""
    for name, value in attrs:
        if not value:
            continue
        if name == "name" and any(secret in value.lower() for secret in _SECRET_NAMES):
            return True
        if name == "type" and tag == "input" and value.lower() == "hidden":
            return True
    return False


def _link_defect(rel: list[str], attrs: dict[str, str], typo: str | None) -> str | None:
    """Why search engines ignore this hreflang-like `<link>`, or None if they read it."""
    if "hreflang" not in attrs:
        return f"misspelt attribute `{typo}`"
    if "alternate" not in rel:
        near = next((token for token in rel if token.startswith("altern")), None)
        return f'rel="{near}" is not rel="alternate"' if near else 'missing rel="alternate"'
    if "href" not in attrs:
        return "missing href"
    return None


_WINDOW = 256 * 1024


def _fingerprint(parts: list[str]) -> str:
    text = " ".join(parts)
    for volatile in _VOLATILE:
        text = volatile.sub("", text)
    # The hash of `" ".join(text.split())`, computed window by window: splitting a 15 MB page at
    # once makes a list of every word (160 MB). A space owed at a window's end is written before
    # the next word, so a run of whitespace across windows is one space, as in the one-shot form.
    digest = blake2b(digest_size=16)
    owed = started = False
    for start in range(0, len(text), _WINDOW):
        window = text[start : start + _WINDOW]
        words = " ".join(window.split())
        if window[0].isspace():
            owed = True
        trailing = window[-1].isspace()
        if words:
            if owed and started:
                digest.update(b" ")
            digest.update(words.encode("utf-8", "surrogatepass"))
            started, owed = True, trailing
        else:
            owed = owed or trailing
    return digest.hexdigest()


class _TextParts:
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


#: Enough text to identify a language with confidence; more costs time and tells nothing new.
MAIN_TEXT_LIMIT = 1000

#: Elements whose text is the page's own content.
_MAIN_TAGS = frozenset({"main"})
#: Elements whose text is not: navigation and sidebars anywhere; a page's banner and footer
#: outside its main content and articles (an article's own header holds its headline).
_CHROME_TAGS = frozenset({"nav", "aside"})
_BANNER_TAGS = frozenset({"header", "footer"})
_REGION_TAGS = _MAIN_TAGS | _CHROME_TAGS | _BANNER_TAGS | {"article"}


class MainText:
    """The text a careful reader calls the page's own, gathered while the page is tokenized.

    The rule (README, HL503): the text of `<main>` and `[role=main]` elements where the page has
    any, else of its `<article>` elements, else of `<body>`; in each case without `<nav>`, `<aside>`,
    elements marked `hidden`, the words of links (menus, tag clouds and listings are links, not the
    page's prose), scripts, styles, templates and `<noscript>`; `<header>` and `<footer>` count only
    inside the main content or an article. Several `<main>` or `<article>` elements all count, in
    document order. Each bucket keeps at most ``MAIN_TEXT_LIMIT`` characters.

    Regions are tracked from start and end tags without a tree: an element of interest opens a
    region, a nested element of the same name deepens it, and its end tag (or `</body>`) closes it
    with whatever opened inside and was left unclosed.
    """

    __slots__ = ("_regions", "_region_tags", "_open", "_buckets", "_sizes", "_in_link", "_done")

    def __init__(self) -> None:
        self._regions: list[list] = []  # [tag, kind, depth]
        self._region_tags: Counter[str] = Counter()  # tags of the open regions
        self._open = {"main": 0, "article": 0, "skip": 0}
        self._buckets: dict[str, list[str]] = {"main": [], "article": [], "body": []}
        self._sizes = {"main": 0, "article": 0, "body": 0}
        # Links do not nest (a new <a> closes the open one): a flag, not a region.
        self._in_link = False
        # The main content's bucket is full: nothing later can change the text.
        self._done = False

    def start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._in_link = True
            return
        if self._done or (not attrs and tag not in _REGION_TAGS and tag not in self._region_tags):
            return  # most tags: no region opens or deepens
        kind = None
        if tag in _MAIN_TAGS:
            kind = "main"
        elif tag == "article":
            kind = "article"
        elif tag in _CHROME_TAGS or (
            tag in _BANNER_TAGS and not (self._open["main"] or self._open["article"])
        ):
            kind = "skip"
        if attrs and kind != "skip":
            for name, value in attrs:
                if name == "hidden":
                    kind = "skip"
                    break
                if name == "role" and value and value.strip().lower() == "main" and kind is None:
                    kind = "main"
        if kind is not None:
            self._regions.append([tag, kind, 1])
            self._region_tags[tag] += 1
            self._open[kind] += 1
            return
        for region in reversed(self._regions):
            if region[0] == tag:
                region[2] += 1
                return

    def end(self, tag: str) -> None:
        if tag == "a":
            self._in_link = False
            return
        regions = self._regions
        if self._done or not regions or (tag not in self._region_tags and tag not in ("body", "html")):
            return
        if tag in ("body", "html"):
            self._close(0)
            self._in_link = False
            return
        for index in range(len(regions) - 1, -1, -1):
            region = regions[index]
            if region[0] == tag:
                region[2] -= 1
                if not region[2]:
                    self._close(index)
                return

    def _close(self, index: int) -> None:
        for tag, kind, _ in self._regions[index:]:
            self._open[kind] -= 1
            self._region_tags[tag] -= 1
            if not self._region_tags[tag]:
                del self._region_tags[tag]
        del self._regions[index:]

    def data(self, text: str) -> None:
        open_ = self._open
        if self._in_link or open_["skip"] or self._done:
            return
        bucket = "main" if open_["main"] else "article" if open_["article"] else "body"
        size = self._sizes[bucket]
        if size < MAIN_TEXT_LIMIT:
            piece = text[: MAIN_TEXT_LIMIT - size]
            self._buckets[bucket].append(piece)
            self._sizes[bucket] = size = size + len(piece)
            self._done = bucket == "main" and size >= MAIN_TEXT_LIMIT

    def text(self) -> str:
        """The first bucket of main, article, body that has words."""
        for bucket in ("main", "article", "body"):
            words = " ".join(" ".join(self._buckets[bucket]).split())
            if words:
                return words
        return ""


class _Extractor(HTMLParser):
    """Tracks the insertion mode while collecting facts; `inert` reports every find as ignored."""

    def __init__(self, inert: str | None = None, fingerprint: bool = True, main_text: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self._inert = inert
        self._raw_text = _RAW_TEXT_SCRIPTING_OFF if inert else _RAW_TEXT
        self._mode = _BEFORE_HEAD
        self._closed_by: str | None = None
        self._closed_line: int | None = None
        self._template_depth = 0
        self._annotations: list[HtmlAnnotation] = []
        self._ignored: list[IgnoredElement] = []
        self._canonicals: list[HtmlCanonical] = []
        self._html_lang: str | None = None
        self._content_language: str | None = None
        self._noindex = False
        self._meta_robots: str | None = None
        self._links: dict[str, None] = {}
        self._base_href: str | None = None
        self._sitemaps: list[str] = []
        self._text = _TextParts() if fingerprint else None
        self._main = MainText() if main_text and not inert else None

    def facts(self) -> HtmlFacts:
        return HtmlFacts(
            annotations=self._annotations,
            ignored=self._ignored,
            canonicals=self._canonicals,
            sitemaps=self._sitemaps,
            html_lang=self._html_lang,
            content_language=self._content_language,
            noindex=self._noindex,
            meta_robots=self._meta_robots,
            links=list(self._links),
            base_href=self._base_href,
            fingerprint=_fingerprint(self._text.parts()) if self._text is not None else None,
            main_text=self._main.text() if self._main is not None else "",
        )

    # -- insertion mode (WHATWG 13.2.6.4.1 to 13.2.6.4.6) --

    def _close_head(self, by: str, line: int) -> None:
        self._mode = _IN_BODY
        self._closed_by = by
        self._closed_line = line

    def _start_tag_mode(self, tag: str) -> None:
        mode = self._mode
        if tag == "html":  # a later <html> only merges attributes
            return
        if tag == "head":
            if mode == _BEFORE_HEAD:
                self._mode = _IN_HEAD
        elif tag in (_REOPEN_HEAD if mode == _AFTER_HEAD else _HEAD_CONTENT):
            if mode == _BEFORE_HEAD:  # implies <head>
                self._mode = _IN_HEAD
        else:  # implies </head> and <body>
            self._close_head(tag, self.getpos()[0])

    def _in_head(self) -> bool:
        return self._mode in (_IN_HEAD, _AFTER_HEAD)

    # -- tokens --

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        inert = self._inert or (_INSIDE_TEMPLATE if self._template_depth else None)
        if inert is None and self._mode != _IN_BODY:
            self._start_tag_mode(tag)
        if tag in self._raw_text:
            self.set_cdata_mode(tag)
        elif tag == "template":
            self._template_depth += 1
        elif inert is None and self._main is not None:
            self._main.start(tag, attrs)
        if not attrs:
            return

        pieces = self._text
        if pieces is not None and tag in ("input", "meta") and _is_secret_field(tag, attrs):
            pieces = None
        hreflang_like = False
        for name, value in attrs:
            if name in _CONTENT_ATTRS:
                if value and pieces is not None:
                    pieces.append(value)
            elif name in _HREFLANG_NAMES:
                hreflang_like = True

        if tag == "link":
            self._link(_attr_map(attrs), inert)
        elif hreflang_like:
            reason = inert or f"hreflang on <{tag}> is ignored by search engines"
            self._ignore(tag, _attr_map(attrs), reason)
        if inert is not None:
            return
        if tag in ("a", "area"):
            self._anchor(_first(attrs, "href"))
        elif tag == "meta":
            self._meta(_attr_map(attrs))
        elif tag == "html" and self._html_lang is None:
            # A second <html> adds the attributes the first lacks: the first lang written wins.
            self._html_lang = _first(attrs, "lang")
        elif tag == "base" and self._base_href is None:
            self._base_href = _first(attrs, "href")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # HTML5 ignores the self-closing flag: <title/> still opens RCDATA, <head/> stays open.
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self._template_depth:
            # Inside a template only its own end tag matters.
            if tag == "template":
                self._template_depth -= 1
            return
        if self._main is not None:
            self._main.end(tag)
        mode = self._mode
        if self._inert or mode == _IN_BODY:
            return
        if tag == "head":
            if mode != _AFTER_HEAD:
                self._mode = _AFTER_HEAD
        elif tag in _ENDS_HEAD_AS_END_TAG:
            self._close_head(f"</{tag}>", self.getpos()[0])
        # Any other end tag before <body> is a parse error that is ignored.

    def handle_data(self, data: str) -> None:
        raw = self.cdata_elem
        pieces = self._text
        if raw == "noscript":
            # Reported, not fingerprinted: fallback markup, mostly tracking pixels.
            self._noscript(data)
        elif raw is None:
            if self._mode != _IN_BODY and not self._template_depth and not self._inert:
                text = data.lstrip(_HTML_WHITESPACE)
                if text:
                    skipped = len(data) - len(text)
                    self._close_head("#text", self.getpos()[0] + data.count("\n", 0, skipped))
            if pieces is not None:
                pieces.append(data)
            if self._main is not None and self._mode == _IN_BODY and not self._template_depth:
                self._main.data(data)
        elif raw not in ("script", "style") and pieces is not None:  # code is not content
            pieces.append(data)

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
    # html.parser counts the newlines of every token it passes (about 7 % of the extraction), while
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
    # function because it runs for every token: a call per tag cost 8 % of the extraction.
    # Measured on the benchmark's 5 KB pages: 770 -> 450 µs a page (bench/RESULTS.md).

    def goahead(self, end: bool) -> None:
        """html.parser's ``goahead`` (3.11, ``convert_charrefs``), plain tags read in one match."""
        rawdata = self.rawdata
        i, n = 0, len(rawdata)
        handle_data = self.handle_data
        plain_tag, plain_attributes = _PLAIN_TAG.match, _PLAIN_ATTRIBUTE.findall
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
                attrs: list[tuple[str, str | None]] = []
                if attributes:
                    for attribute, equals, double, single, bare in plain_attributes(attributes):
                        value = (double or single or bare) if equals else None
                        attrs.append((attribute.lower(), unescape(value) if value else value))
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

    # -- facts --

    def _link(self, attrs: dict[str, str], inert: str | None) -> None:
        rel = _tokens(attrs.get("rel", ""))
        href = attrs.get("href")
        if inert is None and href is not None and "canonical" in rel:
            self._canonicals.append(HtmlCanonical(href, self._in_head()))
        if inert is None and href and "sitemap" in rel and self._in_head():
            self._sitemaps.append(href)
        typo = next((name for name in attrs if name in _HREFLANG_TYPOS), None)
        if typo is None and "hreflang" not in attrs:
            if not ("lang" in attrs and "alternate" in rel and "type" not in attrs):
                return
            typo = "lang"
        reason = inert or _link_defect(rel, attrs, typo)
        line = self.getpos()[0]
        if reason is not None:
            self._ignore("link", attrs, reason)
        elif self._in_head():
            self._annotations.append(HtmlAnnotation(attrs["hreflang"], attrs["href"], line, True))
        else:
            self._annotations.append(
                HtmlAnnotation(
                    attrs["hreflang"], attrs["href"], line, False, self._closed_by, self._closed_line
                )
            )

    def _ignore(self, tag: str, attrs: dict[str, str], reason: str) -> None:
        self._ignored.append(IgnoredElement(tag, attrs, self.getpos()[0], self._in_head(), reason))

    def _noscript(self, content: str) -> None:
        """Report what hides in a `<noscript>`: its markup is text to us, so parse it apart."""
        inner = _Extractor(inert=_INSIDE_NOSCRIPT, fingerprint=False)
        inner.feed(content)
        inner.close()
        offset = self.getpos()[0] - 1
        in_head = self._in_head()
        for element in inner._ignored:
            element.line += offset
            element.in_head = in_head
            self._ignored.append(element)

    def _anchor(self, href: str | None) -> None:
        if href is None:
            return
        probe = href.strip().lower()
        # Empty and fragment-only references point at the page itself.
        if probe and not probe.startswith("#") and not probe.startswith(_NOT_DOCUMENTS):
            self._links[href] = None

    def _meta(self, attrs: dict[str, str]) -> None:
        content = attrs.get("content")
        if content is None:
            return
        if self._content_language is None and attrs.get("http-equiv", "").lower() == "content-language":
            self._content_language = content
        if attrs.get("name", "").lower() in ("robots", "googlebot"):
            noindex = not _NOINDEX.isdisjoint(_ROBOTS_SEPARATOR.split(content.lower()))
            if self._meta_robots is None or (noindex and not self._noindex):
                self._meta_robots = content
            self._noindex |= noindex
