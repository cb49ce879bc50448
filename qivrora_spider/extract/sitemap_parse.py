"""Read a sitemap body as a stream: entries, hreflang alternates and problems, exactly as written.

Scrapy's ``scrapy.utils.sitemap.Sitemap`` drops hreflang values and parses with recovery, so a broken
file looks fine. This reader keeps every ``<xhtml:link>`` as written, records what is wrong instead
of raising, and bounds its cost whatever the input: gzip is inflated in chunks up to the protocol's
size limit, entities are never expanded, nothing is loaded from disk or network, and each entry is
dropped from the tree once read, so memory stays flat over 50,000 entries. A file is read up to the
protocol's limits (52,428,800 bytes, 50,000 entries), as search engines read it; past them it is only
measured, so that SM003 can say by how much it is too large.

libxml2's own limits (10 MB of text in one node, 256 levels deep) are lifted with ``huge_tree``: a
well-formed sitemap of 50 MB must read as one, not as an XML error. The size cap above bounds what that
lets in, and ``huge_tree`` keeps libxml2's guard against entity expansion. The limits it keeps (2,048
levels, names of 10,000,000 characters) are reported in our words, never in libxml2's, which name its
options.

Usage::

    reader = SitemapReader(body)
    for entry in reader.entries():    # ParsedUrl in a <urlset>, ParsedSitemapRef in an index
        ...
    reader.result                      # complete once the iteration has ended

Line numbers are libxml2's: the line where a start tag ends. Past line 65,535 libxml2 infers them
from the neighbouring text and may be one line late.

Pure: no Scrapy, no network.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from functools import lru_cache

from lxml import etree

#: The protocol's limits for one file; SM003 is reported above either.
MAX_SITEMAP_BYTES = 52_428_800  # uncompressed
MAX_SITEMAP_URLS = 50_000

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"

#: The error for content that is no sitemap at all, told by its first bytes.
NOT_A_SITEMAP = "the content is an HTML page or other text, with no <urlset> or <sitemapindex> at its start"

#: Errors kept per file: the file is invalid either way, and a broken generator repeats one
#: mistake per entry.
MAX_ERRORS = 100

#: Bytes inflated and fed to the parser at a time: bounds what one step costs.
_CHUNK = 64 * 1024
#: Enough to get past a BOM, the XML declaration, a stylesheet and a generator comment.
_SNIFF_BYTES = 1024
_GZIP_MAGIC = b"\x1f\x8b"
#: zlib's window bits for a gzip wrapper (16 + MAX_WBITS).
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))

#: Children of each entry the protocol defines; anything else in the sitemap namespace is invalid.
_ENTRY_FIELDS = {"url": ("loc", "lastmod", "changefreq", "priority"), "sitemap": ("loc", "lastmod")}
_ENTRY_OF = {"urlset": "url", "sitemapindex": "sitemap"}
#: App-indexing links (rel="alternate" without hreflang) are legitimate, just not hreflang.
_APP_SCHEMES = ("android-app:", "ios-app:")
_LETTERS = re.compile(r"[^a-z]")

#: Prolog a sitemap may start with, then its root element, under any prefix.
_SITEMAP_HEAD = re.compile(
    r"\s*(?:<\?.*?\?>\s*|<!--.*?-->\s*|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>\s*)*"
    r"<(?:[A-Za-z_][\w.-]*:)?(?:urlset|sitemapindex)[\s/>]",
    re.DOTALL,
)

#: W3C Datetime (https://www.w3.org/TR/NOTE-datetime): a time needs a time zone designator.
_W3C_DATETIME = re.compile(
    r"(?P<year>[0-9]{4})"
    r"(?:-(?P<month>[0-9]{2})"
    r"(?:-(?P<day>[0-9]{2})"
    r"(?:T(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2})"
    r"(?::(?P<second>[0-9]{2})(?:\.(?P<fraction>[0-9]+))?)?"
    r"(?P<tzd>Z|[+-][0-9]{2}:[0-9]{2}))?)?)?"
)


@dataclass(frozen=True, slots=True)
class ParsedAlternate:
    """One ``<link>`` child of a ``<url>``, attributes as written (None when absent).

    ``problem`` is None for a usable hreflang alternate. Otherwise ``incomplete`` tells the two
    kinds of problem apart: True for an element that looks like an hreflang annotation but that
    search engines ignore (HL104), False for a legitimate link that is simply not hreflang
    (``rel="amphtml"``, an app deep link, a mobile ``media`` alternate).
    """

    rel: str | None
    hreflang: str | None
    href: str | None
    line: int
    problem: str | None = None
    incomplete: bool = False


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    """A ``<url>`` entry. ``loc`` and ``lastmod`` are stripped of surrounding whitespace, as
    search engines read them; otherwise as written (entities decoded, lastmod not validated)."""

    loc: str
    lastmod: str | None
    alternates: list[ParsedAlternate]
    line: int


@dataclass(frozen=True, slots=True)
class ParsedSitemapRef:
    """A ``<sitemap>`` entry of an index; whether the child is itself an index is the caller's
    to find out when it reads the child."""

    loc: str
    lastmod: str | None
    line: int


@dataclass(slots=True)
class SitemapParseResult:
    """What is known about the file as a whole; complete once ``entries()`` is exhausted.

    ``size`` counts uncompressed bytes, whether or not the parse got that far, up to just past
    MAX_SITEMAP_BYTES: ``truncated`` says the file is larger, that nothing past the limit was parsed
    and that ``size`` is a lower bound.
    ``url_count`` counts every ``<url>`` (or ``<sitemap>``) element parsed, including those without a
    usable ``<loc>``, as SM003 counts them; only the first MAX_SITEMAP_URLS are read as entries.
    ``looks_like_sitemap`` tells a sitemap (however broken) from an HTML page by content.
    """

    kind: str | None = None  # "urlset", "sitemapindex", None when the root is neither
    gzip: bool = False
    size: int = 0
    truncated: bool = False
    url_count: int = 0
    errors: list[str] = field(default_factory=list)
    looks_like_sitemap: bool = False


class SitemapReader:
    """Parse one sitemap body lazily; ``entries()`` can be iterated once, as it consumes the parse."""

    def __init__(self, body: bytes) -> None:
        self.result = SitemapParseResult(gzip=body.startswith(_GZIP_MAGIC))
        self._body = body
        self._started = False
        self._head = b""
        self._depth = 0
        self._root: etree._Element | None = None
        self._ns: str | None = None
        self._stopped = False  # the content is not a sitemap we may read: say so, parse no further
        self._cut_short = False  # the input ended early (size limit, broken gzip): no premature-end error
        self._omitted_errors = 0

    def entries(self) -> Iterator[ParsedUrl | ParsedSitemapRef]:
        """Yield the entries in document order: ``ParsedUrl`` items for a ``<urlset>``,
        ``ParsedSitemapRef`` items for a ``<sitemapindex>`` (one iterator, since a file is one kind),
        at most MAX_SITEMAP_URLS of them.

        Entries read before a fatal XML error stay valid; the error is in ``result.errors``.
        """
        if self._started:
            raise RuntimeError("SitemapReader.entries() reads the body once")
        self._started = True
        # Entities stay unexpanded and no DTD or network is loaded; huge_tree: see the module's doc.
        parser = etree.XMLPullParser(
            events=("start", "end"), resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True
        )
        document = self._document()
        failed = False
        for chunk in document:
            if len(self._head) < _SNIFF_BYTES:
                self._head += chunk[: _SNIFF_BYTES - len(self._head)]
            try:
                parser.feed(chunk)
            except etree.XMLSyntaxError:
                failed = True  # the parser's log says why; events before the error still count
            yield from self._handle(parser.read_events())
            if self._stopped or failed:
                break
        else:
            if not self._cut_short:
                # What close() raises is in the parser's log, reported by _finish with the rest.
                with suppress(etree.XMLSyntaxError):
                    parser.close()
                yield from self._handle(parser.read_events())
        self._finish(parser)
        # A file too large is too large however broken: measure the rest, up to the limit.
        for _ in document:
            pass
        if self._omitted_errors:
            self.result.errors.append(f"{self._omitted_errors} more errors not listed")

    # --- input ---------------------------------------------------------------------------------

    def _document(self) -> Iterator[bytes]:
        """The uncompressed document in chunks, cut after MAX_SITEMAP_BYTES so a gzip bomb costs
        bounded time and memory."""
        result = self.result
        chunks = _gunzip(self._body) if result.gzip else _slices(self._body)
        try:
            for chunk in chunks:
                result.size += len(chunk)
                if result.size > MAX_SITEMAP_BYTES:
                    result.truncated = self._cut_short = True
                    yield chunk[: len(chunk) - (result.size - MAX_SITEMAP_BYTES)]
                    return
                yield chunk
        except zlib.error as exc:
            self._cut_short = True
            # zlib's words ("Error -3 while decompressing data: ...") are its own, not a reader's.
            if str(exc).endswith(("incorrect data check", "incorrect length check")):
                self._error(
                    "broken gzip: the data does not match its checksum or length, so it was damaged or cut"
                )
            else:
                self._error("broken gzip: the compressed data is corrupt")
        except EOFError as exc:
            self._cut_short = True
            self._error(f"broken gzip: {exc}")

    # --- events --------------------------------------------------------------------------------

    def _handle(self, events: Iterable[tuple[str, etree._Element]]) -> Iterator[ParsedUrl | ParsedSitemapRef]:
        for event, elem in events:
            if event == "start":
                self._depth += 1
                if self._depth == 1:
                    self._open_root(elem)
                    if self._stopped:
                        return
            else:
                self._depth -= 1
                if self._depth == 1:
                    entry = self._close_child(elem)
                    if entry is not None:
                        yield entry

    def _open_root(self, root: etree._Element) -> None:
        ns, name = _split_tag(root.tag)
        if name not in _ENTRY_OF:
            self._error(f"root element is <{_written_name(root)}>, not <urlset> or <sitemapindex>")
            self._stopped = True
            return
        self.result.kind = name
        self.result.looks_like_sitemap = True
        self._root, self._ns = root, ns
        if ns is None:
            self._error(f"<{name}> has no namespace, not '{SITEMAP_NS}'")
        elif ns != SITEMAP_NS:
            self._error(f"namespace is '{ns}', not '{SITEMAP_NS}'")
        dtd = root.getroottree().docinfo.internalDTD
        if dtd is not None and next(dtd.iterentities(), None) is not None:
            # A sitemap has no use for entities; declaring them is an attack (billion laughs, XXE)
            # or a mistake, and libxml2 expands internal ones in attribute values regardless.
            self._error("entity declarations are not allowed in a sitemap")
            self._stopped = True

    def _close_child(self, elem: etree._Element) -> ParsedUrl | ParsedSitemapRef | None:
        """Read one child of the root, then drop it from the tree to keep memory flat."""
        # _open_root has set both before any child can end.
        assert self._root is not None and self.result.kind is not None
        ns, name = _split_tag(elem.tag)
        entry_name = _ENTRY_OF[self.result.kind]
        entry: ParsedUrl | ParsedSitemapRef | None = None
        if ns == self._ns and name == entry_name:
            self.result.url_count += 1
            if self.result.url_count <= MAX_SITEMAP_URLS:  # past the limit, counted only (SM003)
                entry = self._read_entry(elem, entry_name)
        else:
            self._unexpected(elem, self.result.kind)
        elem.clear()
        while elem.getprevious() is not None:
            del self._root[0]
        return entry

    def _read_entry(self, elem: etree._Element, entry_name: str) -> ParsedUrl | ParsedSitemapRef | None:
        values: dict[str, str] = {}
        alternates: list[ParsedAlternate] = []
        for child in elem:
            if not isinstance(child.tag, str):
                continue  # comments and processing instructions
            ns, name = _split_tag(child.tag)
            if ns == self._ns and name in _ENTRY_FIELDS[entry_name]:
                if name in values:
                    self._error(f"more than one <{name}> in <{entry_name}> at line {child.sourceline}")
                else:
                    values[name] = "".join(child.itertext()).strip()
            elif name == "link" and entry_name == "url":
                alternates.append(_read_link(child, ns))
            elif ns == self._ns:
                self._unexpected(child, entry_name)
        loc = values.get("loc")
        if loc is None:
            self._error(f"<{entry_name}> without <loc> at line {elem.sourceline}")
            return None
        if not loc:
            self._error(f"empty <loc> in <{entry_name}> at line {elem.sourceline}")
            return None
        if entry_name == "url":
            return ParsedUrl(loc, values.get("lastmod"), alternates, elem.sourceline)
        return ParsedSitemapRef(loc, values.get("lastmod"), elem.sourceline)

    # --- errors --------------------------------------------------------------------------------

    def _error(self, message: str) -> None:
        if len(self.result.errors) < MAX_ERRORS:
            self.result.errors.append(message)
        else:
            self._omitted_errors += 1

    def _unexpected(self, elem: etree._Element, parent_name: str) -> None:
        self._error(f"unexpected <{_written_name(elem)}> in <{parent_name}> at line {elem.sourceline}")

    def _finish(self, parser: etree.XMLPullParser) -> None:
        """Add what only the end of the parse knows: libxml2's errors, emptiness, the sniff."""
        result = self.result
        if self._root is None:
            # No sitemap root was read (none at all, or a fatal error first): judge the first bytes.
            result.looks_like_sitemap = _is_sitemap_head(self._head)
        if self._root is None and not _strip_bom(self._head).strip():
            if not result.errors:  # a broken gzip already says why nothing was read
                self._error("empty document")  # rather than libxml2's "Start tag expected"
        elif self._root is None and not result.looks_like_sitemap and not self._stopped:
            if not result.errors:
                # An HTML page or a text file: libxml2's complaints about it as XML say nothing useful.
                self._error(NOT_A_SITEMAP)
        elif not self._stopped:
            # The feed log is this parser's own (an exception's log may hold other parsers' entries).
            for entry in parser.feed_error_log:
                # An unknown entity is only a warning where a DOCTYPE names an external DTD, but
                # it stays unread all the same.
                undeclared = entry.type == etree.ErrorTypes.WAR_UNDECLARED_ENTITY
                if entry.level < etree.ErrorLevels.ERROR and not undeclared:
                    continue
                where = f" at line {entry.line}" if entry.line > 0 else ""
                if entry.type in _PARSER_LIMITS:
                    self._error(_parser_limit(entry.message, where))
                else:
                    what = "namespace" if entry.domain == etree.ErrorDomains.NAMESPACE else "syntax"
                    self._error(f"XML {what} error{where}: {entry.message.strip()}")


# --- helpers -------------------------------------------------------------------------------------


#: libxml2's errors for a limit of its own rather than a fault of the file.
_PARSER_LIMITS = {etree.ErrorTypes.ERR_RESOURCE_LIMIT, etree.ErrorTypes.ERR_NAME_TOO_LONG}
#: The limits libxml2 keeps under huge_tree (tests pin both).
_MAX_DEPTH = 2048
_MAX_NAME = 10_000_000


def _parser_limit(message: str, where: str) -> str:
    """A limit of libxml2 that the file reached, in our words: libxml2's name its options."""
    if "amplification" in message:
        # Only declared entities expand; reported like the declarations themselves.
        return "entity declarations are not allowed in a sitemap"
    if "depth" in message:
        what = f"elements are nested more than {_MAX_DEPTH:,} levels deep"
    elif "Name too long" in message:
        what = f"a name is longer than {_MAX_NAME:,} characters"
    else:
        return f"the file reaches a limit of Qivrora's XML parser{where}, so it was read only up to there"
    return f"{what}{where}, more than Qivrora's XML parser reads, so the file was read only up to there"


def _slices(body: bytes) -> Iterator[bytes]:
    for start in range(0, len(body), _CHUNK):
        yield body[start : start + _CHUNK]


def _gunzip(body: bytes) -> Iterator[bytes]:
    """Inflate gzip in bounded steps: at most _CHUNK bytes in and out at a time.

    Raises zlib.error for corrupt data and EOFError when the data stops mid-stream.
    """
    inflater = zlib.decompressobj(_GZIP_WBITS)
    for start in range(0, len(body), _CHUNK):
        data = body[start : start + _CHUNK]
        while True:
            if inflater.eof:
                if not data:
                    break
                # A gzip file may hold several members, each a stream of its own.
                inflater = zlib.decompressobj(_GZIP_WBITS)
            out = inflater.decompress(data, _CHUNK)
            if out:
                yield out
            data = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
            # A full chunk out may leave output pending inside zlib even with no input left.
            if not data and len(out) < _CHUNK:
                break
    if not inflater.eof:
        raise EOFError("the compressed data ends before the end of the stream")


@lru_cache(maxsize=256)  # a file uses a handful of tags, each thousands of times
def _split_tag(tag: str) -> tuple[str | None, str]:
    """Namespace URI and local name. libxml2 leaves an element with an undeclared prefix as
    'prefix:name' in no namespace; its local name is still 'name'."""
    if tag.startswith("{"):
        ns, _, name = tag[1:].partition("}")
        return ns, name
    return None, tag.rpartition(":")[2]


def _written_name(elem: etree._Element) -> str:
    """The element's name as the file writes it, for messages."""
    tag: str = elem.tag
    if not tag.startswith("{"):
        return tag  # no namespace, or an undeclared prefix that libxml2 kept as written
    name = tag.partition("}")[2]
    return f"{elem.prefix}:{name}" if elem.prefix else name


def _read_link(elem: etree._Element, ns: str | None) -> ParsedAlternate:
    rel, hreflang, href = elem.get("rel"), elem.get("hreflang"), elem.get("href")
    problem, incomplete = _judge_link(elem, rel, hreflang, href)
    if ns != XHTML_NS:
        # Search engines read only xhtml:link: whatever it would have been, it is ignored, and it
        # is an incomplete annotation if it would have been (or looked like) one.
        incomplete = problem is None or incomplete
        prefix, colon, _ = elem.tag.partition(":")
        found = f"'{ns}'" if ns is not None else f"undeclared prefix '{prefix}'" if colon else "no namespace"
        problem = f"wrong namespace ({found}), not '{XHTML_NS}'"
    return ParsedAlternate(rel, hreflang, href, elem.sourceline, problem, incomplete)


def _judge_link(
    elem: etree._Element, rel: str | None, hreflang: str | None, href: str | None
) -> tuple[str | None, bool]:
    """(problem, incomplete) for an xhtml:link; see ParsedAlternate."""
    tokens = rel.lower().split() if rel is not None else []
    # Only looked for when hreflang is absent: the common case stays cheap.
    misspelt = None if hreflang is not None else _misspelt_hreflang(elem)
    # Looks like hreflang: a (possibly misspelt) hreflang attribute, or rel="alternative".
    hreflang_like = hreflang is not None or misspelt is not None or "alternative" in tokens
    if rel is None:
        return "missing rel", hreflang_like
    if "alternate" not in tokens:
        return f'not an hreflang alternate (rel="{rel}")', hreflang_like
    if hreflang is None:
        scheme = next((s for s in _APP_SCHEMES if (href or "").strip().lower().startswith(s)), None)
        if scheme is not None:
            return f"href is an app deep link ({scheme}//), not a web URL", misspelt is not None
        if elem.get("media") is not None:
            return f'not an hreflang alternate (media="{elem.get("media")}")', misspelt is not None
        return ("missing hreflang" if misspelt is None else f"missing hreflang (found '{misspelt}')"), True
    if href is None:
        return "missing href", True
    return None, False


def _misspelt_hreflang(elem: etree._Element) -> str | None:
    """An attribute meant as hreflang (``hreflag``, ``href-lang``, ``hrefLang``), as written."""
    for name in elem.attrib:
        if not name.startswith("{") and _LETTERS.sub("", name.lower()).startswith("hrefl"):
            return name
    return None


def _strip_bom(head: bytes) -> bytes:
    for bom, _ in _BOMS:
        if head.startswith(bom):
            return head[len(bom) :]
    return head


def _is_sitemap_head(head: bytes) -> bool:
    encoding = next((name for bom, name in _BOMS if head.startswith(bom)), "utf-8")
    text = _strip_bom(head).decode(encoding, errors="replace")
    return _SITEMAP_HEAD.match(text) is not None


def sniff_sitemap(body: bytes) -> bool:
    """Whether a body is a sitemap by content, not by name: the root element of its first KB
    (inflated first when gzip) is ``<urlset>`` or ``<sitemapindex>``, after a BOM, an XML
    declaration, processing instructions, comments and a DOCTYPE. Cheap: reads at most ~1 KB."""
    head = body[:_SNIFF_BYTES]
    if body.startswith(_GZIP_MAGIC):
        try:
            # 16 KB of gzip is plenty for 1 KB of text, whatever the header holds.
            head = zlib.decompressobj(_GZIP_WBITS).decompress(body[: 16 * _SNIFF_BYTES], _SNIFF_BYTES)
        except zlib.error:
            return False
    return _is_sitemap_head(head)


def parse_w3c_datetime(value: str) -> datetime | None:
    """Parse a W3C Datetime (YYYY, YYYY-MM, YYYY-MM-DD, or with hh:mm[:ss[.s]] and a time zone
    designator) to an aware datetime, UTC for dates; None when ``value`` is not one."""
    match = _W3C_DATETIME.fullmatch(value)
    if match is None:
        return None
    tzd = match["tzd"]
    fraction = (match["fraction"] or "")[:6].ljust(6, "0")
    try:
        if tzd is None or tzd == "Z":
            tz = UTC
        else:
            hours, minutes = int(tzd[1:3]), int(tzd[4:6])
            if minutes > 59:
                return None
            offset = timedelta(hours=hours, minutes=minutes)
            tz = timezone(-offset if tzd[0] == "-" else offset)  # ValueError from 24:00 on
        return datetime(
            int(match["year"]),
            int(match["month"] or 1),
            int(match["day"] or 1),
            int(match["hour"] or 0),
            int(match["minute"] or 0),
            int(match["second"] or 0),
            int(fraction),
            tzinfo=tz,
        )
    except ValueError:  # month 13, 30 February, hour 24, year 0000, ...
        return None
