"""The facts a crawl records: what the audit needs, nothing more.

Facts are plain dataclasses so that they are Scrapy items (itemadapter knows dataclasses), travel
through feeds as JSON lines, and load back for ``scrapy hreflang-report`` without Scrapy. Every URL
field holds a normalised URL (``urls.normalize_url``); the ``*_raw``/``href`` fields keep the value as
written, for messages.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import operator
import sys
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Iterator, NamedTuple

import orjson

from .extract.text_language import decode_blocks, encode_blocks
from .extract.urls import InvalidURL, normalize_url

#: Where an annotation was read. "rendered": the <head> as a browser built it (``-a render=1``), for an
#: annotation the HTML as served does not carry as written; one the served HTML carries stays "html".
SOURCES = ("html", "header", "sitemap", "rendered")


@dataclass(slots=True)
class Annotation:
    """One hreflang annotation as a search engine reads it (or would, were it well formed)."""

    source: str  # "html", "header", "sitemap" or "rendered"
    hreflang: str  # as written
    href: str  # as written
    url: str | None = None  # absolute and normalised; None where the href cannot be resolved
    line: int | None = None
    in_head: bool = True  # HTML only: inside <head> as an HTML5 parser builds the tree
    head_closed_by: str | None = None  # HTML only, when not in head: what ended the head
    head_closed_line: int | None = None
    sitemap: str | None = None  # sitemap only: the sitemap file that holds it


@dataclass(slots=True)
class IgnoredAnnotation:
    """An hreflang-like element that search engines ignore (HL104)."""

    source: str
    tag: str
    reason: str
    attrs: dict[str, str] = field(default_factory=dict)
    line: int | None = None
    sitemap: str | None = None


@dataclass(slots=True)
class Canonical:
    source: str  # "html" or "header"
    href: str  # as written
    url: str | None  # normalised, None when it cannot be resolved
    in_head: bool = True  # search engines ignore a rel="canonical" in <body>


@dataclass(slots=True)
class Page:
    """A URL the crawl fetched with GET: a page, an alternate, a PDF, or a failure to fetch one."""

    kind: ClassVar[str] = "page"

    url: str
    requested: str  # the URL as it was found, before normalisation
    status: int | None = None
    location: str | None = None  # normalised Location of a 3xx
    content_type: str | None = None
    error: str | None = None  # why no response: "dns", "refused", "timeout", "tls", "reset", ...
    error_detail: str | None = None
    in_scope: bool = True  # its links were followed
    depth: int = 0
    annotations: list[Annotation] = field(default_factory=list)
    ignored: list[IgnoredAnnotation] = field(default_factory=list)
    canonicals: list[Canonical] = field(default_factory=list)
    html_lang: str | None = None
    content_language: str | None = None  # Content-Language header, else meta http-equiv
    noindex: str | None = None  # where noindex was said: "meta", "header"; None when indexable
    is_html: bool = False
    fingerprint: str | None = None
    links: list[str] = field(default_factory=list)  # normalised <a href> targets
    #: The blocks of the page's main text, packed (``extract.text_language.read_blocks``): for each, a
    #: digest of its text, the language it reads as and its letters. HL503 weighs them once the blocks
    #: many pages of the site repeat are left out. Written as text in JSON (``encode_blocks``); b"" for
    #: facts of versions before block-level reading.
    text_blocks: bytes = b""
    # -a render=1: the annotations, canonicals, language, noindex and links above are those of the
    # page as a browser rendered it; what rendering took away from the served HTML is kept beside.
    rendered: bool = False
    render_error: str | None = None  # why rendering failed (HL703): the served HTML's facts stand
    served_only: list[Annotation] = field(default_factory=list)  # served annotations rendering removed or changed
    #: The links above that only `rel="nofollow"` anchors name (SM014 does not count them).
    nofollow_links: list[str] = field(default_factory=list)


#: The one status whose body is a page: what it says is judged and joins the graph.
PAGE_STATUS = 200


def response_only(page: Page) -> Page:
    """A response that is not a page (a static host's ``404.html``, an error page, a redirect's body):
    its status, type and Location are the fact, and nothing read from its headers or body counts.

    Otherwise one ``404.html`` served for every missing URL annotates ``/404`` from each broken
    alternate and joins their unrelated clusters into one. Facts of older crawls, other workers and
    exported files pass through here too (``FactStore``), so every mode follows the same rule.
    """
    if page.status == PAGE_STATUS:
        return page
    return Page(
        url=page.url,
        requested=page.requested,
        status=page.status,
        location=page.location,
        content_type=page.content_type,
        error=page.error,
        error_detail=page.error_detail,
        in_scope=page.in_scope,
        depth=page.depth,
    )


#: Why a URL was not examined, and the limit noted in CrawlInfo, where the crawl was interrupted (Ctrl-C).
INTERRUPTED = "interrupted"


@dataclass(slots=True)
class TargetStatus:
    """A URL the crawl did not GET: its HEAD status, or why it was not examined at all."""

    kind: ClassVar[str] = "status"

    url: str
    method: str | None = None  # "HEAD" or "GET" (fallback where HEAD is refused); None: not fetched
    status: int | None = None
    location: str | None = None
    error: str | None = None  # as Page.error
    #: "robots", "max_pages", "cluster", "max_depth", "excluded", "private", INTERRUPTED
    not_examined: str | None = None


@dataclass(slots=True)
class LocaleProbe:
    """A page requested a second time with an Accept-Language (``-a locale_probe=1``, HL801): what it
    answered, to compare with the crawl's own request, which sends none."""

    kind: ClassVar[str] = "probe"

    url: str
    accept_language: str  # the header sent: an hreflang value of the page's cluster
    status: int | None = None
    location: str | None = None  # normalised Location of a 3xx
    error: str | None = None  # as Page.error: no answer to compare
    annotations: list[Annotation] = field(default_factory=list)  # HTML and Link header
    canonicals: list[Canonical] = field(default_factory=list)
    main_text_language: str | None = None
    vary: bool = False  # it answered `Vary: Accept-Language`


@dataclass(slots=True)
class RobotsTxt:
    kind: ClassVar[str] = "robots"

    origin: str  # scheme://host[:port]
    url: str
    status: int | None = None
    exists: bool = False  # answered 200 with a robots.txt
    sitemaps: list[str] = field(default_factory=list)  # normalised Sitemap: lines
    error: str | None = None


@dataclass(slots=True)
class SitemapFile:
    kind: ClassVar[str] = "sitemap"

    url: str
    sitemap_kind: str | None = None  # "urlset", "sitemapindex", None when not a sitemap
    parent: str | None = None  # the index that lists it
    via: str = "start"  # "start", "robots", "page" (its <link rel="sitemap">), "index", "probe"
    status: int | None = None
    error: str | None = None  # fetch error, as Page.error
    gzip: bool = False
    size: int = 0  # uncompressed bytes read
    truncated: bool = False  # stopped at the protocol's size limit
    url_count: int = 0
    errors: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)  # an index's sitemaps, normalised


@dataclass(slots=True)
class SitemapEntry:
    kind: ClassVar[str] = "entry"

    sitemap: str
    loc: str  # as written
    url: str | None  # normalised; None when loc cannot be resolved
    lastmod: str | None = None  # as written
    line: int | None = None
    annotations: list[Annotation] = field(default_factory=list)
    ignored: list[IgnoredAnnotation] = field(default_factory=list)
    #: Its place among the <url> elements of its file (1, 2, ...): a minified sitemap has every entry
    #: on line 1, and a URL listed twice there is two entries (SM013). 0 in facts of older versions.
    position: int = 0


@dataclass(slots=True)
class CrawlInfo:
    """One per crawl: when it ran and which limits cut it short (HL206 needs to say why)."""

    kind: ClassVar[str] = "crawl"

    started: str  # ISO 8601, UTC
    start_urls: list[str] = field(default_factory=list)
    scope: list[str] = field(default_factory=list)
    limits_reached: list[str] = field(default_factory=list)


FACT_TYPES: tuple[type, ...] = (Page, TargetStatus, RobotsTxt, SitemapFile, SitemapEntry, CrawlInfo, LocaleProbe)
_NESTED = {
    "annotations": Annotation,
    "ignored": IgnoredAnnotation,
    "canonicals": Canonical,
    "served_only": Annotation,
}


class FactsFormatError(ValueError):
    """A facts file line that is not a fact this version knows."""


def fact_to_dict(fact: Any) -> dict[str, Any]:
    """What ``dataclasses.asdict`` gives, at a fraction of its cost (it deep-copies every value):
    facts hold scalars, lists of scalars or of nested facts, and dicts of strings. The `facts` feed
    format writes every fact of a crawl so."""
    return {"fact": fact.kind, **_as_dict(fact)}


def _as_dict(value: Any) -> dict[str, Any]:
    data = {}
    for name in _field_names(type(value)):
        item = getattr(value, name)
        if type(item) is list:
            nested = item and dataclasses.is_dataclass(item[0])
            item = [_as_dict(each) for each in item] if nested else item[:]
        elif type(item) is dict:
            item = dict(item)
        elif type(item) is bytes:
            item = encode_blocks(item)
        data[name] = item
    return data


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


_PAGE_VALUES = operator.attrgetter(*_field_names(Page))
_LINKS_AT = _field_names(Page).index("links")
_NOFOLLOW_AT = _field_names(Page).index("nofollow_links")
#: What a page kept by the audit holds for its nofollow links: one list for all, never written to.
_NO_NOFOLLOW: list[str] = []


def without_links(page: Page) -> Page:
    """A copy of `page` whose links are left out: what the audit keeps of each page, the links being
    folded into one set. Built by place from its values, as ``dataclasses.replace`` costs several
    times more for every page kept (bench/RESULTS.md)."""
    values = list(_PAGE_VALUES(page))
    values[_LINKS_AT] = []
    values[_NOFOLLOW_AT] = _NO_NOFOLLOW
    return Page(*values)


def fact_from_dict(data: dict[str, Any]) -> Any:
    """The fact `data` describes (as ``fact_to_dict`` gives it), `data` left as it was."""
    return _fact_from(dict(data))


def _fact_from(data: dict[str, Any]) -> Any:
    """``fact_from_dict`` of a dict it may change, as ``read_facts`` parses one for each line: its kind
    is taken out and its strings replaced by interned ones."""
    kind = data.pop("fact", None)
    reading = _READING.get(kind)  # type: ignore[arg-type]
    if reading is None:
        raise FactsFormatError(f"unknown fact kind {kind!r}")
    cls, fields, strings, lists, nested = reading
    for name in _RETIRED.get(kind, ()):  # type: ignore[arg-type]
        data.pop(name, None)
    _intern(data, strings, lists)
    if data.get("text_blocks").__class__ is str:
        data["text_blocks"] = decode_blocks(data["text_blocks"])
    try:
        for key, item_cls, item_fields, item_strings in nested:
            if key in data:
                data[key] = [_build(item_cls, item_fields, _intern(item, item_strings)) for item in data[key]]
        fact = _build(cls, fields, data)
    except (TypeError, AttributeError) as exc:
        # A field the class has not fails its constructor too: looked for here, not in every fact, and
        # named before anything else the fact gets wrong.
        unknown = ", ".join(sorted(set(data).difference(fields)))
        if unknown:
            raise FactsFormatError(f"unknown field(s) {unknown} for a {kind} fact") from None
        raise FactsFormatError(f"incomplete {kind} fact: {exc}") from None
    if cls is Page or cls is TargetStatus or cls is LocaleProbe:
        _check_url(fact.url)  # URLs are node identities: a forged one must not reach the audit
    return fact


#: Fields that older versions wrote and this one no longer reads: their facts still load, without them.
_RETIRED: dict[str, tuple[str, ...]] = {
    "page": ("main_text_language", "main_text_confidence", "main_text_letters"),
}

#: The fields of each kind of fact (nested ones by their key) whose values many facts repeat: URLs,
#: hrefs, hreflang values, sources and names; then its lists of URLs. A page's links are not among
#: them: the audit's store folds them into one set as it takes the page (``FactStore``), and interns
#: them there, so the 20 or so strings of each page's list die with the fact read back.
_REPEATED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "page": (
        ("url", "requested", "location", "content_type", "html_lang", "content_language"),
        (),
    ),
    "status": (("url", "location", "method", "error", "not_examined"), ()),
    "probe": (("url", "accept_language", "location", "main_text_language"), ()),
    "entry": (("sitemap", "loc", "url", "lastmod"), ()),
    "sitemap": (("url", "parent", "via"), ("children",)),
    "robots": (("origin", "url"), ("sitemaps",)),
    "annotations": (("source", "hreflang", "href", "url", "sitemap"), ()),
    "served_only": (("source", "hreflang", "href", "url", "sitemap"), ()),
    "canonicals": (("source", "href", "url"), ()),
    "ignored": (("source", "tag", "reason", "sitemap"), ()),
}


class _Reading(NamedTuple):
    """How ``fact_from_dict`` reads a kind of fact, worked out once instead of for each fact."""

    cls: type
    fields: tuple[str, ...]
    strings: tuple[str, ...]  # its fields whose strings are interned
    lists: tuple[str, ...]  # its lists whose strings are interned
    #: Its lists of nested facts: the field, and the nested facts' class, fields and strings interned.
    nested: tuple[tuple[str, type, tuple[str, ...], tuple[str, ...]], ...]


_READING = {
    cls.kind: _Reading(
        cls,
        _field_names(cls),
        *_REPEATED.get(cls.kind, ((), ())),
        tuple(
            (key, nested, _field_names(nested), _REPEATED[key][0])
            for key, nested in _NESTED.items()
            if key in _field_names(cls)
        ),
    )
    for cls in FACT_TYPES
}


def _build(cls: type, fields: tuple[str, ...], data: dict[str, Any]) -> Any:
    """``cls(**data)``, the values passed by place where `data` has every field in order, as
    ``fact_line`` writes them (a fact's fields are its constructor's parameters, in order). Keywords
    parsed from JSON are not the interned strings Python looks for first among the names of
    parameters: finding them by comparing strings took longer than building a Page."""
    if tuple(data) == fields:
        return cls(*data.values())
    return cls(**data)


def _intern(data: dict[str, Any], names: tuple[str, ...], lists: tuple[str, ...] = ()) -> dict[str, Any]:
    """Intern the strings of a fact read back that other facts repeat, as the crawl does
    (``normalize_url``, hreflang values, hrefs as written shared with their URLs).

    JSON gives every occurrence of a string an object of its own: a page and its sitemap entry read
    back held dozens of strings more than in the crawl (the URLs, hrefs, hreflang values and sources
    of their annotations, ...), for the worker that audits a distributed crawl, ``hreflang-report``
    and a resumed JOBDIR crawl.
    """
    intern = sys.intern
    for name in names:
        value = data.get(name)
        if value.__class__ is str:
            data[name] = intern(value)
    for name in lists:
        value = data.get(name)
        if value.__class__ is list:
            data[name] = [intern(item) if item.__class__ is str else item for item in value]
    return data


def _check_url(url: object) -> None:
    try:
        ok = isinstance(url, str) and normalize_url(url) == url
    except InvalidURL:
        ok = False
    if not ok:
        raise FactsFormatError(f"url {url!r} is not a normalised http(s) URL")


def fact_line(fact: Any) -> bytes:
    """A fact as one line of UTF-8 JSON, as ``read_facts`` reads it back (without the newline): what
    ``fact_to_dict`` gives, written by orjson from the dataclass itself, faster than building that
    dict first. Every worker of a distributed crawl writes each of its facts so, for
    Redis, and a JOBDIR crawl for its facts.jsonl."""
    # orjson writes the fields, not the kind; the one bytes field, a page's packed blocks, as text.
    return _LINE_STARTS[type(fact)] + orjson.dumps(fact, default=_blocks_text)[1:]


def _blocks_text(value: Any) -> str:
    if type(value) is bytes:
        return encode_blocks(value)
    raise TypeError


#: ``{"fact":"<kind>",`` for each class of fact: a fact has fields, so the `}` of its own comes later.
_LINE_STARTS = {cls: b'{"fact":' + orjson.dumps(cls.kind) + b"," for cls in FACT_TYPES}


def read_facts(lines: Iterable[str], name: str = "<facts>") -> Iterator[Any]:
    """Facts from JSON lines, as ``fact_line`` and the `facts` feed format write them."""
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            data = _parse(line)
        except json.JSONDecodeError as exc:
            raise FactsFormatError(f"{name}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict) or "fact" not in data:
            raise FactsFormatError(
                f"{name}:{number}: not a Qivrora fact (export facts with the `facts` feed format)"
            )
        try:
            yield _fact_from(data)
        except FactsFormatError as exc:
            raise FactsFormatError(f"{name}:{number}: {exc}") from None


def _parse(line: str) -> Any:
    """A line read by orjson, faster than json, or by json where orjson refuses it: what json.dumps
    wrote in facts of older versions and strict JSON has not (NaN, Infinity, a lone surrogate
    escaped), and what is not JSON at all, which json names as it always did.

    The one value they read apart, an integer beyond 64 bits, which orjson reads as a float, is in no
    fact (orjson does not write one) and no worse than the float a forged line may hold anyway.
    """
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)
