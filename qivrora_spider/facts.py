"""The facts a crawl records: what the audit needs, nothing more.

Facts are plain dataclasses so that they are Scrapy items (itemadapter knows dataclasses), travel
through feeds as JSON lines, and load back for ``scrapy hreflang-report`` without Scrapy. Every URL
field holds a normalised URL (``urls.normalize_url``); the ``*_raw``/``href`` fields keep the value as
written, for messages. How they are written and read back as JSON lines is ``fact_lines``.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from dataclasses import dataclass, field
from typing import ClassVar

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
    #: many pages of the site repeat are left out. Written as text in JSON (``fact_lines``,
    #: ``encode_blocks``); b"" for facts of versions before block-level reading.
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
class LocaleRule:
    """In a build folder (``-a site=``), the `_redirects` rule with a Language= or Country= condition
    that answers a page otherwise for the visitors it names (HL801 with no probe: the host chooses by
    visitor, and search engines, which send no language, meet no such condition)."""

    kind: ClassVar[str] = "locale_rule"

    url: str
    where: str  # "file:line"
    rule: str  # the line as written
    conditions: list[str] = field(default_factory=list)  # as written: "Language=fr", "Country=de,at"
    status: int = 0  # 3xx: it redirects; 200: it serves the target's content at the URL; 404, 410: so
    target: str | None = None  # normalised: where it redirects, or whose content it serves


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


FACT_TYPES: tuple[type, ...] = (
    Page, TargetStatus, RobotsTxt, SitemapFile, SitemapEntry, CrawlInfo, LocaleProbe, LocaleRule
)


@functools.cache
def field_names(cls: type) -> tuple[str, ...]:
    """A fact class's fields in order, which are its constructor's parameters: ``dataclasses.fields``
    builds its tuple anew on each call."""
    return tuple(f.name for f in dataclasses.fields(cls))


_PAGE_VALUES = operator.attrgetter(*field_names(Page))
_LINKS_AT = field_names(Page).index("links")
_NOFOLLOW_AT = field_names(Page).index("nofollow_links")
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
