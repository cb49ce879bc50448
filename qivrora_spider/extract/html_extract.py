"""The facts hreflang checks need from one HTML page, read in a single pass.

`html.parser` tokenizes (pure Python, never gives up on garbage, gives line numbers;
``compat.html_parser`` makes it faster and linear); whether an
element ends up in `<head>` is decided by re-implementing the part of the WHATWG tree-construction
algorithm that governs it, because search engines ignore annotations outside `<head>` (HL105) and
an HTML5 parser closes the head early on the first element that does not belong there. The same
pass gathers the page's main text, whose language HL503 compares with the declared one
(``main_text.py``), and its fingerprint (``fingerprint.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..compat.html_parser import HtmlTokenizer
from .fingerprint import CONTENT_ATTRS, TextParts, is_secret_field, text_fingerprint
from .main_text import MainText


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
    #: The page's own content as blocks of text, at most ``MAIN_TEXT_LIMIT`` characters (``MainText``);
    #: none where not asked.
    main_text: tuple[str, ...] = ()
    #: The hrefs of ``links`` that only `rel="nofollow"` anchors name: no link for SM014.
    nofollow_links: list[str] = field(default_factory=list)


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

_ROBOTS_SEPARATOR = re.compile(r"[\s,]+")
_NOINDEX = frozenset({"noindex", "none"})
_NOT_DOCUMENTS = ("javascript:", "mailto:", "tel:", "data:")


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


class _Extractor(HtmlTokenizer):
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
        self._followed: set[str] = set()  # hrefs of anchors without rel="nofollow"
        self._base_href: str | None = None
        self._sitemaps: list[str] = []
        self._text = TextParts() if fingerprint else None
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
            nofollow_links=[href for href in self._links if href not in self._followed],
            base_href=self._base_href,
            fingerprint=text_fingerprint(self._text.parts()) if self._text is not None else None,
            main_text=self._main.blocks() if self._main is not None else (),
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
        if pieces is not None and tag in ("input", "meta") and is_secret_field(tag, attrs):
            pieces = None
        hreflang_like = False
        for name, value in attrs:
            if name in CONTENT_ATTRS:
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
            self._anchor(_first(attrs, "href"), _first(attrs, "rel"))
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

    def _anchor(self, href: str | None, rel: str | None) -> None:
        if href is None:
            return
        probe = href.strip().lower()
        # Empty and fragment-only references point at the page itself.
        if probe and not probe.startswith("#") and not probe.startswith(_NOT_DOCUMENTS):
            self._links[href] = None
            if rel is None or "nofollow" not in rel.lower().split():
                self._followed.add(href)

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
