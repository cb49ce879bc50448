"""URL identity: what normalize_url merges, what it keeps apart, and what it refuses."""

from __future__ import annotations

import operator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from w3lib.url import safe_url_string

from qivrora_spider.extract.urls import (
    HrefKind,
    InvalidURL,
    _normalize,
    classify_href,
    href_problem,
    netloc,
    normalize_url,
    origin,
    variant_key,
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param("http://bücher.example/", "http://xn--bcher-kva.example/", id="idn-to-punycode"),
        pytest.param("http://BÜCHER.example/", "http://xn--bcher-kva.example/", id="idn-upper-case"),
        pytest.param("http://☃.net/", "http://xn--n3h.net/", id="idna2003-fallback"),
        pytest.param("HTTP://Example.COM/Path", "http://example.com/Path", id="scheme-host-lower-path-kept"),
        pytest.param(
            "http://example.com/a%2fb?q=%c3%a9", "http://example.com/a%2Fb?q=%C3%A9", id="percent-hex-upper"
        ),
        pytest.param("http://example.com/%41", "http://example.com/%41", id="unreserved-escape-not-decoded"),
        pytest.param(
            "http://example.com/café?q=ü", "http://example.com/caf%C3%A9?q=%C3%BC", id="non-ascii-encoded"
        ),
        pytest.param(
            "http://example.com/a|b?x[]=1", "http://example.com/a%7Cb?x%5B%5D=1", id="unsafe-ascii-encoded"
        ),
        pytest.param("http://example.com:80/", "http://example.com/", id="http-default-port"),
        pytest.param("https://example.com:443/", "https://example.com/", id="https-default-port"),
        pytest.param("http://example.com:443/", "http://example.com:443/", id="https-port-on-http-kept"),
        pytest.param("http://example.com:8080/", "http://example.com:8080/", id="other-port-kept"),
        pytest.param("http://example.com:/x", "http://example.com/x", id="empty-port"),
        pytest.param("http://example.com/a#top", "http://example.com/a", id="fragment-dropped"),
        pytest.param("http://example.com/a/./b/../c", "http://example.com/a/c", id="dot-segments"),
        pytest.param("http://example.com/a/b/..", "http://example.com/a/", id="trailing-dot-dot"),
        pytest.param("http://example.com/../../x", "http://example.com/x", id="dot-dot-above-root"),
        pytest.param(
            "http://example.com/.well-known/x", "http://example.com/.well-known/x", id="dot-name-kept"
        ),
        pytest.param("http://example.com", "http://example.com/", id="empty-path"),
        pytest.param("http://example.com?a=1", "http://example.com/?a=1", id="empty-path-with-query"),
        pytest.param("http://example.com/a/", "http://example.com/a/", id="trailing-slash-kept"),
        pytest.param(
            "http://example.com/a?sort=desc&b=1", "http://example.com/a?sort=desc&b=1", id="query-kept"
        ),
        pytest.param("http://example.com/a?b=1&a=2", "http://example.com/a?b=1&a=2", id="query-order-kept"),
        pytest.param("http://example.com/a?", "http://example.com/a", id="empty-query-dropped"),
        pytest.param("  http://example.com/a \n", "http://example.com/a", id="outer-whitespace-stripped"),
        pytest.param("http://user:pw@Example.com/", "http://user:pw@example.com/", id="userinfo-kept"),
        pytest.param("http://[::1]:80/x", "http://[::1]/x", id="ipv6-default-port"),
        pytest.param("http://[2001:DB8::1]/", "http://[2001:db8::1]/", id="ipv6-lower"),
        pytest.param("http://example.com:0080/", "http://example.com/", id="zero-padded-default-port"),
    ],
)
def test_normalize_url(url: str, expected: str) -> None:
    assert normalize_url(url) == expected


@pytest.mark.parametrize(
    ("url", "base", "expected"),
    [
        pytest.param("../es/", "https://example.com/en/page", "https://example.com/es/", id="parent"),
        pytest.param("es/", "https://example.com/en/", "https://example.com/en/es/", id="sibling"),
        pytest.param("/es/", "https://example.com/en/", "https://example.com/es/", id="root-relative"),
        pytest.param(
            "?lang=es", "https://example.com/en/p", "https://example.com/en/p?lang=es", id="query-only"
        ),
        pytest.param("#top", "https://example.com/en/", "https://example.com/en/", id="fragment-only"),
        pytest.param(
            "//Other.com/x", "https://example.com/en/", "https://other.com/x", id="protocol-relative"
        ),
        pytest.param(
            "//other.com/x", "http://example.com/", "http://other.com/x", id="protocol-relative-http"
        ),
        pytest.param("http://b.com:80/", "https://example.com/", "http://b.com/", id="absolute-ignores-base"),
        pytest.param("x", "https://Bücher.example/a/", "https://xn--bcher-kva.example/a/x", id="idn-base"),
    ],
)
def test_normalize_url_resolves_against_base(url: str, base: str, expected: str) -> None:
    assert normalize_url(url, base) == expected


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        pytest.param("", "empty URL", id="empty"),
        pytest.param(" \t", "empty URL", id="whitespace-only"),
        pytest.param("http://example.com/a b", "whitespace inside the URL", id="space-in-path"),
        pytest.param("http://exa mple.com/", "whitespace inside the URL", id="space-in-host"),
        pytest.param("ftp://example.com/", "scheme 'ftp' is not http or https", id="ftp"),
        pytest.param("javascript:void(0)", "scheme 'javascript' is not http or https", id="javascript"),
        pytest.param("/es/", "relative URL without a base to resolve it against", id="relative-no-base"),
        pytest.param(
            "//example.com/", "relative URL without a base to resolve it against", id="protocol-rel-no-base"
        ),
        pytest.param("http:///x", "no host", id="empty-host"),
        pytest.param("http:es", "no host", id="no-authority"),
        pytest.param("http://:8080/", "no host", id="port-only"),
        pytest.param("http://[::1/", "the host cannot be parsed", id="unclosed-bracket"),
        pytest.param("http://[zz]/", "the host cannot be parsed", id="bracketed-non-address"),
        pytest.param("http://[1.2.3.4]/", "the host cannot be parsed", id="ipv4-in-brackets"),
        pytest.param("http://example.com:99999/", "port 99999 is out of range", id="port-too-big"),
        pytest.param("http://example.com:8o/", "port '8o' is not a number", id="port-not-number"),
        pytest.param(
            "http://exa<mple.com/",
            "host 'exa<mple.com' contains characters not allowed in a host name",
            id="bad-host-char",
        ),
        pytest.param(
            "http://bücher..example/",
            "host 'bücher..example' is not a valid internationalised name",
            id="bad-idn",
        ),
    ],
)
def test_normalize_url_refuses(url: str, reason: str) -> None:
    with pytest.raises(InvalidURL) as raised:
        normalize_url(url)
    assert str(raised.value) == reason


def test_non_http_scheme_is_judged_after_resolution() -> None:
    with pytest.raises(InvalidURL, match="scheme 'ftp'"):
        normalize_url("//example.com/x", "ftp://example.com/")


def test_unparseable_base_is_an_invalid_url() -> None:
    with pytest.raises(InvalidURL, match="the host cannot be parsed"):
        normalize_url("x", "http://[")


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/café?q=it's",
        "http://Bücher.example:80/a/./b/../c?x=%e2#frag",
        "https://example.com/a|b?x[]=1&y=<z>",
        "https://example.com/%7euser/a`b^c{d}",
    ],
)
def test_scrapy_request_url_is_the_same_node(url: str) -> None:
    """Scrapy requests safe_url_string(href), so the response URL must normalise alike."""
    assert normalize_url(safe_url_string(url)) == normalize_url(url)


@pytest.mark.parametrize(
    ("href", "kind", "reason"),
    [
        pytest.param("https://example.com/es/", HrefKind.ABSOLUTE, None, id="absolute"),
        pytest.param(" HTTP://example.com/es/ ", HrefKind.ABSOLUTE, None, id="absolute-padded"),
        pytest.param("//example.com/es/", HrefKind.PROTOCOL_RELATIVE, None, id="protocol-relative"),
        pytest.param("/es/", HrefKind.RELATIVE, None, id="root-relative"),
        pytest.param("../es/", HrefKind.RELATIVE, None, id="parent-relative"),
        pytest.param("es/", HrefKind.RELATIVE, None, id="path-relative"),
        pytest.param("?lang=es", HrefKind.RELATIVE, None, id="query-relative"),
        pytest.param("", HrefKind.INVALID, "empty URL", id="empty"),
        pytest.param(" ", HrefKind.INVALID, "empty URL", id="blank"),
        pytest.param(
            "http://a.com/ x", HrefKind.INVALID, "whitespace inside the URL", id="whitespace-inside"
        ),
        pytest.param("/es/ x", HrefKind.INVALID, "whitespace inside the URL", id="whitespace-in-relative"),
        pytest.param(
            "javascript:void(0)",
            HrefKind.INVALID,
            "scheme 'javascript' is not http or https",
            id="javascript",
        ),
        pytest.param(
            "mailto:a@example.com", HrefKind.INVALID, "scheme 'mailto' is not http or https", id="mailto"
        ),
        pytest.param(
            "android-app://com.example/http/example.com/es",
            HrefKind.INVALID,
            "scheme 'android-app' is not http or https",
            id="android-app",
        ),
        pytest.param(
            "ftp://example.com/es/", HrefKind.INVALID, "scheme 'ftp' is not http or https", id="ftp"
        ),
        pytest.param("http:/es/", HrefKind.INVALID, "no host", id="http-without-host"),
        pytest.param(
            "//exa<mple.com/",
            HrefKind.INVALID,
            "host 'exa<mple.com' contains characters not allowed in a host name",
            id="protocol-rel-bad-host",
        ),
        pytest.param(
            "https://example.com:70000/", HrefKind.INVALID, "port 70000 is out of range", id="bad-port"
        ),
    ],
)
def test_classify_href(href: str, kind: HrefKind, reason: str | None) -> None:
    assert classify_href(href) is kind
    assert href_problem(href) == reason


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param("http://ex.com/a", "https://ex.com/a", id="scheme"),
        pytest.param("https://ex.com/a/", "https://ex.com/a", id="trailing-slash"),
        pytest.param("https://ex.com/A", "https://ex.com/a", id="path-case"),
        pytest.param("http://Ex.com:80/A/", "https://ex.com/a", id="all-at-once"),
        pytest.param("https://ex.com/", "http://ex.com", id="root"),
        pytest.param("https://ex.com/a/?q=1", "http://ex.com/a?q=1", id="with-query"),
    ],
)
def test_variant_key_collides(first: str, second: str) -> None:
    assert variant_key(normalize_url(first)) == variant_key(normalize_url(second))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param("https://ex.com/a", "https://ex.com/b", id="other-path"),
        pytest.param("https://ex.com/a", "https://www.ex.com/a", id="other-host"),
        pytest.param("https://ex.com/a", "https://ex.com:8443/a", id="other-port"),
        pytest.param("https://ex.com/a?q=1", "https://ex.com/a?q=2", id="other-query"),
        pytest.param("https://ex.com/a", "https://ex.com/a?q=1", id="query-or-none"),
    ],
)
def test_variant_key_keeps_apart(first: str, second: str) -> None:
    assert variant_key(normalize_url(first)) != variant_key(normalize_url(second))


@pytest.mark.parametrize(
    ("url", "expected_origin", "expected_netloc"),
    [
        pytest.param("HTTPS://Example.com:443/a", "https://example.com", "example.com", id="default-port"),
        pytest.param("http://example.com:8080/a?q", "http://example.com:8080", "example.com:8080", id="port"),
        pytest.param(
            "http://user@bücher.example/",
            "http://xn--bcher-kva.example",
            "xn--bcher-kva.example",
            id="userinfo-and-idn",
        ),
    ],
)
def test_origin_and_netloc(url: str, expected_origin: str, expected_netloc: str) -> None:
    assert origin(url) == expected_origin
    assert netloc(url) == expected_netloc


@given(st.text(), st.one_of(st.none(), st.just("https://example.com/a/b"), st.text()))
def test_normalize_url_returns_str_or_raises_invalid_url(url: str, base: str | None) -> None:
    try:
        normalized = normalize_url(url, base)
    except InvalidURL:
        return
    assert isinstance(normalized, str)
    assert normalize_url(normalized) == normalized


@given(st.text())
def test_classify_href_never_raises(href: str) -> None:
    kind = classify_href(href)
    assert (href_problem(href) is not None) == (kind is HrefKind.INVALID)


def test_equal_urls_share_one_string() -> None:
    assert normalize_url("HTTP://Example.com:80/x") is normalize_url("/x", "http://example.com/y")


def _resolved_as_before(url: str, base: str) -> str:
    """What normalize_url gave before root-relative and absolute hrefs were cached apart from the page."""
    try:
        return _normalize.__wrapped__(url.strip(), base.strip())
    except InvalidURL as error:
        return f"InvalidURL: {error}"


def _resolved_now(url: str, base: str) -> str:
    try:
        return normalize_url(url, base)
    except InvalidURL as error:
        return f"InvalidURL: {error}"


_URL_TEXT = st.text(alphabet="aZ09/.?#%;:@[]=&-_~é\t ", max_size=20)


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("/de/p12/", "http://127.0.0.1:8000/en/p3/"),
        ("/a/./b/../c?x=%c3#frag", "https://User:pw@Example.COM:443/x/y?q#f"),
        ("/../..", "http://example.com"),
        ("/;p?", "http://example.com?q=1/2"),
        ("/x", "http://example.com#f/g"),
        ("/x", "http://ex\tample.com/a"),
        ("/x", "http:///a"),
        ("/x", "http://[::1/a"),
        ("/x", "HTTP://Example.com/a"),
        ("/x", "ftp://example.com/a"),
        ("/x", " https://example.com/a "),
        ("/x", ""),
        ("  /café ", "https://bücher.example/a"),
        ("https://b.com/x", "http://[/"),
        ("mailto:a@b.c", "https://example.com/"),
    ],
)
def test_cache_keys_resolve_as_the_page_did(url: str, base: str) -> None:
    assert _resolved_now(url, base) == _resolved_as_before(url, base)


@given(
    st.builds(
        operator.add,
        st.sampled_from(["/", "//", "", " /", "./", "../", "?", "#", "https://", "HTTP://"]),
        _URL_TEXT,
    ),
    st.builds(
        lambda scheme, netloc, rest: scheme + netloc + rest,
        st.sampled_from(["http://", "https://", "HTTPS://", "ftp://", "http:", ""]),
        st.text(alphabet="aZ09.:@[]é\t-", max_size=12),
        _URL_TEXT,
    ),
)
def test_cache_keys_resolve_any_href_as_the_page_did(url: str, base: str) -> None:
    assert _resolved_now(url, base) == _resolved_as_before(url, base)
