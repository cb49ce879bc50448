"""URL identity: the one normalisation every URL of a crawl goes through.

One page must be one node of the hreflang graph whichever way a link spells
its URL, so everything that compares, stores or reports a URL passes it through
:func:`normalize_url` first. The rules (DESIGN.md, "URL identity") keep what a
server may treat as a different resource (path case, trailing slash, query) and
drop only what cannot matter (scheme and host case, default port, fragment).
"""

from __future__ import annotations

import enum
import re
import sys
from functools import lru_cache
from ipaddress import IPv6Address
from urllib.parse import quote, urljoin, urlsplit

import idna

__all__ = [
    "HrefKind",
    "InvalidURL",
    "classify_href",
    "href_problem",
    "netloc",
    "normalize_url",
    "normalised_origin",
    "origin",
    "variant_key",
]


class InvalidURL(ValueError):
    """A URL that cannot name a crawlable page; the message says why in one sentence."""


class HrefKind(enum.Enum):
    """How an hreflang href is written, which decides HL101, HL102 and HL103."""

    ABSOLUTE = "absolute"
    PROTOCOL_RELATIVE = "protocol-relative"
    RELATIVE = "relative"
    INVALID = "invalid"


_DEFAULT_PORTS = {"http": "80", "https": "443"}
_UNPARSEABLE_HOST = "the host cannot be parsed"
_WHITESPACE = re.compile(r"\s")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
# RFC 3986 reg-name without percent-encoding; "_" is not DNS but real hosts use it.
_HOST = re.compile(r"[a-z0-9\-._~!$&'()*+,;=]+")
_PERCENT_HEX = re.compile(r"%[0-9A-Fa-f]{2}")
# Characters left as written: the same sets w3lib's safe_url_string leaves alone,
# so a raw href and the URL Scrapy requests for it (response.url) normalise alike.
_PATH_SAFE = "!$&'()*+,;=:@/?-._~%"
_QUERY_SAFE = _PATH_SAFE.replace("'", "")
# Most URLs need no encoding; a regex check is far cheaper than quote().
_UNCHANGED_PATH = re.compile(f"[A-Za-z0-9{re.escape(_PATH_SAFE)}]*")
_UNCHANGED_QUERY = re.compile(f"[A-Za-z0-9{re.escape(_QUERY_SAFE)}]*")
_NETLOC_END = re.compile(r"[/?#]")


def normalize_url(url: str, base: str | None = None) -> str:
    """Return the identity of ``url`` (resolved against ``base``), or raise InvalidURL.

    Leading and trailing whitespace is stripped as browsers do; whitespace
    inside is an error rather than silently encoded, because the audit reports
    such hrefs (HL103) instead of guessing what was meant.
    """
    url = url.strip()
    if base is not None:
        if url.startswith("/") and not url.startswith("//"):
            base = _root_of(base.strip())
        elif _SCHEME.match(url):
            base = None
        else:
            base = base.strip()
    return _normalize(url, base)


# A page's links are resolved against the same base one after another: its root is cut once.
@lru_cache(maxsize=256)
def _root_of(base: str) -> str:
    """``scheme://netloc/`` of an http(s) ``base``, else ``base`` itself.

    A root-relative reference takes only the scheme and netloc from its base (RFC 3986 5.2.2), so
    keying the cache by the base's root instead of the page lets a site's navigation links, the same
    on every page, hit it. The netloc is cut as urlsplit cuts it, userinfo and all.
    """
    if base.startswith("https://"):
        start = 8
    elif base.startswith("http://"):
        start = 7
    else:
        return base
    end = _NETLOC_END.search(base, start)
    return (base[: end.start()] if end else base) + "/"


# Bounded: pages repeat their navigation links, so a modest cache absorbs most calls.
@lru_cache(maxsize=8192)
def _normalize(url: str, base: str | None) -> str:
    if not url:
        raise InvalidURL("empty URL")
    if _WHITESPACE.search(url):
        raise InvalidURL("whitespace inside the URL")
    try:
        # A URL with a scheme is absolute as written (RFC 3986 strict resolution),
        # so only scheme-less references, "//host/x" included, are joined.
        if base is not None and not _SCHEME.match(url):
            url = urljoin(base, url)
        parts = urlsplit(url)
    except ValueError:
        # urlsplit refuses unbalanced brackets, bracketed non-IPs and NFKC tricks in the host.
        raise InvalidURL(_UNPARSEABLE_HOST) from None
    if not parts.scheme:
        raise InvalidURL("relative URL without a base to resolve it against")
    if parts.scheme not in _DEFAULT_PORTS:
        raise InvalidURL(f"scheme '{parts.scheme}' is not http or https")
    authority = _authority(parts.scheme, parts.netloc)
    path = _encode(_remove_dot_segments(parts.path or "/"), _UNCHANGED_PATH, _PATH_SAFE)
    query = _encode(parts.query, _UNCHANGED_QUERY, _QUERY_SAFE)
    # An empty query ("/a?") is dropped, as urlsplit and w3lib do. Interned: a crawl keeps each URL in
    # many facts (annotations, links, sitemap entries, canonicals), one string serves them all.
    return sys.intern(f"{parts.scheme}://{authority}{path}" + (f"?{query}" if query else ""))


def _authority(scheme: str, netloc: str) -> str:
    """Normalise ``[userinfo@]host[:port]``: host lower-case and ASCII, default port dropped."""
    userinfo, at, hostport = netloc.rpartition("@")
    if hostport.startswith("["):
        host, _, port = hostport[1:].partition("]")
        try:
            # RFC 3986 brackets only IPv6 (urlsplit lets "[1.2.3.4]" through).
            IPv6Address(host)
        except ValueError:
            raise InvalidURL(_UNPARSEABLE_HOST) from None
        host = f"[{host.lower()}]"
        port = port.removeprefix(":")
    else:
        host, _, port = hostport.partition(":")
        host = _ascii_host(host)
    if not host:
        raise InvalidURL("no host")
    if port:
        if not (port.isascii() and port.isdigit()):
            raise InvalidURL(f"port '{port}' is not a number")
        number = int(port)
        if number > 65535:
            raise InvalidURL(f"port {number} is out of range")
        port = str(number)
    # An empty port ("host:") means the default one, as in browsers.
    if port in ("", _DEFAULT_PORTS[scheme]):
        return f"{userinfo}{at}{host}"
    return f"{userinfo}{at}{host}:{port}"


def _ascii_host(host: str) -> str:
    """Lower-case the host and turn an IDN into punycode (UTS 46, then IDNA 2003)."""
    if not host.isascii():
        try:
            host = idna.encode(host, uts46=True).decode("ascii")
        except idna.IDNAError:
            # IDNA 2008 refuses symbols (emoji domains) that browsers still resolve
            # through IDNA 2003, Python's own "idna" codec.
            try:
                host = host.encode("idna").decode("ascii")
            except UnicodeError:
                raise InvalidURL(f"host '{host}' is not a valid internationalised name") from None
    host = host.lower()
    if host and not _HOST.fullmatch(host):
        raise InvalidURL(f"host '{host}' contains characters not allowed in a host name")
    return host


def _remove_dot_segments(path: str) -> str:
    """Resolve ``.`` and ``..`` segments as RFC 3986 section 5.2.4 does."""
    # Both dot segments start with "/." in an absolute path; most paths skip the loop.
    if "/." not in path:
        return path
    segments = path.split("/")[1:]
    kept: list[str] = []
    for segment in segments:
        if segment == "..":
            if kept:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
    if segments[-1] in (".", ".."):
        kept.append("")
    return "/" + "/".join(kept)


def _encode(text: str, unchanged: re.Pattern[str], safe: str) -> str:
    """Percent-encode what must be encoded (UTF-8) and upper-case escapes' hex digits.

    Escapes are never decoded, not even of unreserved characters: ``%41`` and
    ``A`` stay two spellings, which keeps the rule simple and never changes
    what a server receives.
    """
    if not unchanged.fullmatch(text):
        text = quote(text, safe=safe, encoding="utf-8")
    if "%" in text:
        text = _PERCENT_HEX.sub(lambda match: match.group().upper(), text)
    return text


@lru_cache(maxsize=1024)
def _judge_href(href: str) -> tuple[HrefKind, str | None]:
    """Classify an href as written, with the reason when it is invalid."""
    text = href.strip()
    if text.startswith("//"):
        kind, absolute = HrefKind.PROTOCOL_RELATIVE, "https:" + text
    elif _SCHEME.match(text):
        kind, absolute = HrefKind.ABSOLUTE, text
    elif text and not _WHITESPACE.search(text):
        return HrefKind.RELATIVE, None
    else:
        # Empty, or whitespace inside: normalize_url words the reason.
        kind, absolute = HrefKind.INVALID, text
    try:
        normalize_url(absolute)
    except InvalidURL as error:
        return HrefKind.INVALID, str(error)
    return kind, None


def classify_href(href: str) -> HrefKind:
    """Say how an hreflang href is written: search engines use only absolute ones."""
    return _judge_href(href)[0]


def href_problem(href: str) -> str | None:
    """Say why an href is INVALID (HL103), or None when it is usable as written."""
    return _judge_href(href)[1]


def variant_key(url: str) -> str:
    """Key shared by URLs that differ only as HL110 variants of one another.

    Ignores the scheme, trailing slashes and path case; ``url`` is already
    normalised, so default ports are gone and hosts are lower-case.
    """
    parts = urlsplit(url)
    key = f"//{parts.netloc}{parts.path.rstrip('/').lower()}"
    return f"{key}?{parts.query}" if parts.query else key


def origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url`` as normalised: scope and robots.txt are per origin."""
    normalized = normalize_url(url)
    return f"{urlsplit(normalized).scheme}://{netloc(normalized)}"


def normalised_origin(url: str) -> str:
    """``origin(url)`` for a URL already normalised (every URL in the facts is), cut out, not parsed:
    the audit asks for the origin of every page."""
    if url.startswith(("https://", "http://")):
        end = url.find("/", 8)
        found = url[:end] if end >= 0 else url
        if "@" not in found:
            return found
    return origin(url)


def netloc(url: str) -> str:
    """``host[:port]`` of ``url`` as normalised, without userinfo."""
    return urlsplit(normalize_url(url)).netloc.rpartition("@")[2]
