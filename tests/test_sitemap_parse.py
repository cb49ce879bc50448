"""The streaming sitemap reader: real sitemaps, broken ones, hostile ones, and W3C Datetime."""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qivrora_spider.extract.sitemap_parse import (
    MAX_ERRORS,
    MAX_SITEMAP_BYTES,
    MAX_SITEMAP_URLS,
    NOT_A_SITEMAP,
    SITEMAP_NS,
    XHTML_NS,
    ParsedAlternate,
    ParsedSitemapRef,
    ParsedUrl,
    SitemapParseResult,
    SitemapReader,
    parse_w3c_datetime,
    sniff_sitemap,
)

OPEN_URLSET = f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}">'


def parse(body: bytes) -> tuple[list[ParsedUrl | ParsedSitemapRef], SitemapParseResult]:
    reader = SitemapReader(body)
    entries = list(reader.entries())
    return entries, reader.result


def urlset(*lines: str) -> bytes:
    """A urlset whose root opens on line 2, so the first given line is line 3."""
    return "\n".join(['<?xml version="1.0" encoding="UTF-8"?>', OPEN_URLSET, *lines, "</urlset>"]).encode()


def urls_of(entries: list[ParsedUrl | ParsedSitemapRef]) -> list[ParsedUrl]:
    urls = [entry for entry in entries if isinstance(entry, ParsedUrl)]
    assert len(urls) == len(entries)
    return urls


# --- the corpus: real sitemaps from public projects ------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """What one corpus file holds, read by eye from the file."""

    urls: int
    usable: int  # hreflang alternates search engines use
    samples: tuple[tuple[str, str, str], ...]  # (loc, hreflang, href) of usable alternates
    lastmods: tuple[tuple[str, str], ...] = ()  # (loc, lastmod)
    problems: tuple[tuple[int, str | None, str | None, str | None, str, bool], ...] = ()
    errors: tuple[str, ...] = ()


_SITEMAPJS_LOC = "https://roosterteeth.com/episode/let-s-watch-2018-house-party-part-2"
_SITEMAPJS_SAMPLES = (
    (_SITEMAPJS_LOC, "en", "http://test.com/page-1/&%3E%3C'%22"),
    (_SITEMAPJS_LOC, "ja", "http://test.com/page-1/ja/&%3E%3C'%22"),
)
_SITEMAPJS_LASTMODS = (
    (_SITEMAPJS_LOC, "2016-09-12T00:00:00.000Z"),
    ("http://example.com/&><'\"/", "2011-06-27T00:00:00.000Z"),
)


def _sitemapjs(line: int, errors: tuple[str, ...] = ()) -> Expected:
    """sitemap.js's 7 entries; at ``line`` the app deep link and the amphtml link it writes beside
    two hreflang alternates: legitimate links, just not hreflang."""
    problems = (
        (line, "alternate", None, "android-app://com.company.test/page-1/&><'\"",
         "href is an app deep link (android-app://), not a web URL", False),
        (line + 1, "amphtml", None, "http://ampproject.org/article.amp.html&><'\"",
         'not an hreflang alternate (rel="amphtml")', False),
    )
    return Expected(urls=7, usable=2, samples=_SITEMAPJS_SAMPLES, lastmods=_SITEMAPJS_LASTMODS,
                    problems=problems, errors=errors)


_LARAVEL = Expected(
    urls=1,
    usable=2,
    samples=(("http://localhost/home", "nl", "http://localhost/thuis"),
             ("http://localhost/home", "fr", "http://localhost/maison")),
)

CORPUS_EXPECTED = {
    "laravel-sitemap/alternate_snapshot_1.xml": _LARAVEL,
    "laravel-sitemap/alternate_snapshot_2.xml": _LARAVEL,
    "nextjs-sitemap-hreflang/pas7-sitemap-snippet.xml": Expected(
        urls=3,
        usable=9,
        samples=(
            ("https://example.com/blog/en/nextjs-sitemap-guide", "uk",
             "https://example.com/blog/uk/nextjs-sitemap-guide"),
            ("https://example.com/services", "x-default", "https://example.com/services"),
        ),
        lastmods=(("https://example.com/blog", "2026-02-01"),
                  ("https://example.com/blog/en/nextjs-sitemap-guide", "2026-02-15"),
                  ("https://example.com/services", "2026-01-20")),
    ),
    "nextjs-sitemap-hreflang/sitemap.xml": Expected(
        urls=1,
        usable=2,
        samples=(("https://example.com/blog", "en", "https://example.com/blog"),
                 ("https://example.com/blog", "uk", "https://example.com/blog/uk")),
        lastmods=(("https://example.com/blog", "2026-02-01"),),
    ),
    "rootjs/sitemap_inline_snapshot.xml": Expected(
        urls=28,
        usable=168,
        samples=(("https://www.example.com/", "en-CA", "https://www.example.com/en_ca/"),
                 ("https://www.example.com/fr/foo/", "x-default", "https://www.example.com/foo/")),
    ),
    "scrapy/test_spider_sitemap_0.xml": Expected(
        urls=1,
        usable=3,
        samples=(("http://www.example.com/english/", "de-ch", "http://www.example.com/schweiz-deutsch/"),
                 ("http://www.example.com/english/", "it", "http://www.example.com/italiano/")),
        problems=((12, "alternate", "it", None, "missing href", True),),
    ),
    "scrapy/test_spider_sitemap_2.xml": Expected(
        urls=2,
        usable=1,
        samples=(
            ("http://www.example.com/english/article_1/", "de", "http://www.example.com/deutsch/article_1/"),
        ),
        lastmods=(("http://www.example.com/english/article_1/", "2010-01-01"),
                  ("http://www.example.com/english/article_2/", "2015-01-01")),
    ),
    "scrapy/test_utils_sitemap_6.xml": Expected(
        urls=1,
        usable=3,
        samples=(("http://www.example.com/english/", "de", "http://www.example.com/deutsch/"),
                 ("http://www.example.com/english/", "en", "http://www.example.com/english/")),
        problems=((12, "alternate", "en", None, "missing href", True),),
    ),
    # The same entries three ways: plain, CDATA in extension elements, and after a bad <foo> tag.
    "sitemapjs/alltags.xml": _sitemapjs(61),
    "sitemapjs/alltags.cdata.xml": _sitemapjs(72),
    "sitemapjs/bad-tag-sitemap.xml": _sitemapjs(63, errors=("unexpected <foo> in <urlset> at line 3",)),
}


@pytest.fixture
def corpus() -> Path:
    """Sitemaps from other projects' tests, kept in the repository so that a clone runs these tests."""
    return Path(__file__).parent / "corpora" / "sitemaps"


def test_every_corpus_file_has_expectations(corpus: Path) -> None:
    files = {path.relative_to(corpus).as_posix() for path in corpus.rglob("*.xml")}
    assert files == set(CORPUS_EXPECTED)


def test_every_corpus_file_keeps_its_origin_and_licence(corpus: Path) -> None:
    manifest = json.loads((corpus / "MANIFEST.json").read_text(encoding="utf-8"))
    assert sorted(entry["file"] for entry in manifest) == sorted(CORPUS_EXPECTED)
    provenance = ("repo", "commit", "path", "license", "copyright")
    assert [entry["file"] for entry in manifest if not all(entry.get(key) for key in provenance)] == []


@pytest.mark.parametrize("name", sorted(CORPUS_EXPECTED))
def test_corpus_file(name: str, corpus: Path) -> None:
    expected = CORPUS_EXPECTED[name]
    body = (corpus / name).read_bytes()
    entries, result = parse(body)
    urls = urls_of(entries)

    assert (result.kind, result.gzip, result.size, result.truncated) == ("urlset", False, len(body), False)
    assert result.looks_like_sitemap and sniff_sitemap(body)
    assert result.errors == list(expected.errors)
    assert result.url_count == len(urls) == expected.urls
    usable = [
        (url.loc, alt.hreflang, alt.href) for url in urls for alt in url.alternates if alt.problem is None
    ]
    assert len(usable) == expected.usable
    assert set(expected.samples) <= set(usable)
    lastmods = {url.loc: url.lastmod for url in urls}
    assert all(lastmods[loc] == lastmod for loc, lastmod in expected.lastmods)
    problems = [
        (alt.line, alt.rel, alt.hreflang, alt.href, alt.problem, alt.incomplete)
        for url in urls
        for alt in url.alternates
        if alt.problem is not None
    ]
    assert problems == list(expected.problems)


def test_gzip_body_parses_like_the_plain_one(corpus: Path) -> None:
    plain = (corpus / "rootjs/sitemap_inline_snapshot.xml").read_bytes()
    entries, result = parse(gzip.compress(plain))
    assert entries == parse(plain)[0]
    assert (result.gzip, result.size, result.errors) == (True, len(plain), [])


def test_gzip_of_several_members_is_one_document() -> None:
    body = urlset(*(f"<url><loc>https://example.com/{name}</loc></url>" for name in "ab"))
    middle = len(body) // 2
    entries, result = parse(gzip.compress(body[:middle]) + gzip.compress(body[middle:]))
    assert [entry.loc for entry in entries] == ["https://example.com/a", "https://example.com/b"]
    assert result.errors == []


def test_corrupt_gzip_is_reported() -> None:
    entries, result = parse(b"\x1f\x8b\x08\x00" + b"not deflate data" * 4)
    assert entries == []
    assert result.gzip and result.kind is None
    assert len(result.errors) == 1
    assert result.errors == ["broken gzip: the compressed data is corrupt"]  # not zlib's "Error -3 ..."


def test_gzip_with_a_wrong_checksum_is_reported() -> None:
    body = bytearray(gzip.compress(urlset("<url><loc>https://example.com/</loc></url>")))
    body[-8] ^= 0xFF  # the CRC-32 of the uncompressed data
    _, result = parse(bytes(body))
    assert result.errors == [
        "broken gzip: the data does not match its checksum or length, so it was damaged or cut"
    ]


def test_cut_gzip_keeps_the_entries_read_before_the_cut() -> None:
    # Hash-named URLs compress poorly, so half the gzip holds about half the entries.
    locs = [f"https://example.com/{hashlib.sha256(str(i).encode()).hexdigest()}" for i in range(2000)]
    body = gzip.compress(urlset(*(f"<url><loc>{loc}</loc></url>" for loc in locs)))
    entries, result = parse(body[: len(body) // 2])
    assert 0 < len(entries) < len(locs)
    assert [entry.loc for entry in entries] == locs[: len(entries)]
    assert result.errors == ["broken gzip: the compressed data ends before the end of the stream"]


# --- hostile input ---------------------------------------------------------------------------------

_LAUGHS = '<!ENTITY lol0 "lol">' + "".join(
    f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)
)


@pytest.mark.parametrize(
    "url",
    [
        "<url><loc>&lol9;</loc></url>",
        '<url><loc>https://example.com/</loc><xhtml:link rel="alternate" hreflang="&lol9;" href="x"/></url>',
    ],
    ids=["in-text", "in-attribute"],
)
def test_billion_laughs_is_never_expanded(url: str) -> None:
    body = f'<?xml version="1.0"?>\n<!DOCTYPE urlset [{_LAUGHS}]>\n{OPEN_URLSET}{url}</urlset>'.encode()
    entries, result = parse(body)
    assert entries == []
    assert result.errors == ["entity declarations are not allowed in a sitemap"]
    assert "lollol" not in repr(result)


def test_billion_laughs_in_the_root_element_is_refused_in_our_words() -> None:
    # libxml2 stops it before the root element opens, with "Maximum entity amplification factor
    # exceeded, see xmlCtxtSetMaxAmplification."
    body = f'<?xml version="1.0"?>\n<!DOCTYPE urlset [{_LAUGHS}]>\n<urlset xmlns="{SITEMAP_NS}" a="&lol9;"/>'
    entries, result = parse(body.encode())
    assert entries == []
    assert result.errors == ["entity declarations are not allowed in a sitemap"]


@pytest.mark.parametrize(
    ("doctype", "url"),
    [
        ('<!DOCTYPE urlset [<!ENTITY x SYSTEM "{uri}">]>', "<url><loc>&x;</loc></url>"),
        ('<!DOCTYPE urlset [<!ENTITY x SYSTEM "{uri}">]>',
         '<url><loc>https://example.com/</loc><xhtml:link rel="alternate" hreflang="&x;" href="x"/></url>'),
        ('<!DOCTYPE urlset [<!ENTITY % x SYSTEM "{uri}"> %x;]>', "<url><loc>https://a.example/</loc></url>"),
        ('<!DOCTYPE urlset SYSTEM "{dtd}">', "<url><loc>&secret;</loc></url>"),
    ],
    ids=["entity-in-text", "entity-in-attribute", "parameter-entity", "external-dtd"],
)
def test_xxe_never_reads_the_file(tmp_path: Path, doctype: str, url: str) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-4f2a")
    dtd = tmp_path / "entities.dtd"
    dtd.write_text('<!ENTITY secret "TOP-SECRET-4f2a">')
    prolog = doctype.format(uri=secret.as_uri(), dtd=dtd.as_uri())
    body = f'<?xml version="1.0"?>\n{prolog}\n{OPEN_URLSET}{url}</urlset>'.encode()
    entries, result = parse(body)
    assert result.errors  # refused, or the unknown entity reported: never resolved
    assert "TOP-SECRET" not in repr(entries) + repr(result)
    assert all(entry.loc == "&secret;" for entry in entries)  # left unexpanded, as written


def test_gzip_bomb_stops_at_the_size_limit() -> None:
    # 60 MB that gzip packs into about 90 KB, compressed block by block to stay memory-light.
    head, url = OPEN_URLSET.encode(), b"<url><loc>https://example.com/</loc></url>"
    block = url + b" " * 65_000
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    blocks = 60 * 1024 * 1024 // len(block)
    parts = [compressor.compress(head), *(compressor.compress(block) for _ in range(blocks))]
    parts += [compressor.compress(b"</urlset>"), compressor.flush()]
    entries, result = parse(b"".join(parts))
    assert result.truncated and result.size > MAX_SITEMAP_BYTES
    # Parsing stopped at the limit: exactly the <url> elements that end within it were read.
    within_limit = (MAX_SITEMAP_BYTES - len(head) - len(url)) // len(block) + 1
    assert result.url_count == len(entries) == within_limit < blocks
    assert result.errors == []  # too large is SM003, the caller's to report; not a broken file


def test_more_than_50000_urls_are_all_counted_and_the_first_50000_read() -> None:
    urls = [f"<url>\n<loc>https://example.com/{i}</loc>\n</url>" for i in range(50_002)]
    urls[-1] = "<url>\n</url>"  # no <loc>, but past the limit: not read, so not reported
    entries, result = parse(urlset(*urls))
    assert result.url_count == MAX_SITEMAP_URLS + 2
    assert len(entries) == MAX_SITEMAP_URLS and entries[-1].loc == "https://example.com/49999"
    assert result.errors == [] and not result.truncated
    # Past its 16-bit line counter libxml2 infers lines from the text after a tag: one line late here.
    assert entries[-1].line - (3 + 3 * 49_999) in (0, 1)


MB = 1024 * 1024
#: The start of a urlset whose root opens on line 2, as urlset() writes it.
_HEAD = urlset().removesuffix(b"</urlset>")


def _gzip(body: bytes) -> bytes:
    return gzip.compress(body, compresslevel=1)  # fast, and whitespace packs well at any level


def _plain(body: bytes) -> bytes:
    return body


@pytest.mark.parametrize("pack", [_plain, _gzip], ids=["plain", "gzip"])
def test_sitemap_of_60_mb_of_whitespace_is_too_large_not_invalid(pack: Callable[[bytes], bytes]) -> None:
    # Well-formed XML whose whitespace is one text node of 60 MB, six times libxml2's default limit.
    body = _HEAD + b"<url><loc>https://example.com/</loc></url>" + b" " * (60 * MB) + b"</urlset>"
    entries, result = parse(pack(body))
    assert [entry.loc for entry in entries] == ["https://example.com/"]
    assert result.truncated and result.size > MAX_SITEMAP_BYTES
    assert result.errors == []  # too large is SM003, the caller's to report; not an XML error


@pytest.mark.slow  # reads 51 MB
def test_sitemap_of_51_mb_of_entries_is_read_up_to_the_limit() -> None:
    # An hreflang sitemap passes 50 MB before 50,000 URLs: ten alternates make an entry 1.5 KB.
    page = "shop/garden/tools/stainless-steel-hand-trowel-with-ash-wood-handle-{0}"
    links = "".join(
        f'<xhtml:link rel="alternate" hreflang="{lang}" href="https://example.com/{lang}/{page}"/>'
        for lang in ("en", "de", "fr", "es", "it", "nl", "pt", "pl", "sv", "da")
    )
    template = f"<url><loc>https://example.com/en/{page}</loc><lastmod>2024-05-01</lastmod>{links}</url>\n"
    total = 51 * MB // len(template.format(0))
    body = urlset(*(template.format(i) for i in range(total)))
    entries, result = parse(body)
    assert result.truncated and result.size > MAX_SITEMAP_BYTES and result.errors == []
    # Every entry that ends within the limit is read, in order, and nothing after it.
    assert result.url_count == len(entries) == body[:MAX_SITEMAP_BYTES].count(b"</url>") < total
    assert [entry.loc for entry in entries[-2:]] == [
        "https://example.com/en/" + page.format(i) for i in (len(entries) - 2, len(entries) - 1)
    ]
    assert len(entries[-1].alternates) == 10


def test_text_longer_than_10_mb_is_read_with_what_follows() -> None:
    padding = " " * (11 * MB)
    body = urlset(
        f"<url><loc>https://example.com/a</loc>{padding}</url>", "<url><loc>https://example.com/b</loc></url>"
    )
    entries, result = parse(body)
    assert [entry.loc for entry in entries] == ["https://example.com/a", "https://example.com/b"]
    assert result.errors == [] and not result.truncated


#: Beginnings that stop the parse early, and the error each gives.
_BROKEN_STARTS = {
    "syntax": (
        _HEAD + b"<url><loc>https://example.com/</lo></url>",
        "XML syntax error at line 3: Opening and ending tag mismatch: loc line 3 and lo",
    ),
    "not-a-sitemap": (b"<html><body>", "root element is <html>, not <urlset> or <sitemapindex>"),
    "entities": (
        f'<!DOCTYPE urlset [<!ENTITY a "b">]>\n{OPEN_URLSET}'.encode(),
        "entity declarations are not allowed in a sitemap",
    ),
}


@pytest.mark.parametrize("pack", [_plain, _gzip], ids=["plain", "gzip"])
@pytest.mark.parametrize("broken", sorted(_BROKEN_STARTS))
def test_a_broken_sitemap_is_measured_up_to_the_limit_all_the_same(
    broken: str, pack: Callable[[bytes], bytes]
) -> None:
    start, error = _BROKEN_STARTS[broken]
    entries, result = parse(pack(start + b" " * (60 * MB)))
    assert entries == []
    assert result.errors == [error]
    assert result.truncated and result.size > MAX_SITEMAP_BYTES  # too large (SM003) as well as broken


def _nested(depth: int) -> bytes:
    """A <urlset> whose <url> holds an extension nested so that the deepest element is at `depth`."""
    inner = depth - 2
    opening, closing = '<x:a xmlns:x="urn:x">' * inner, "</x:a>" * inner
    return urlset(f"<url><loc>https://example.com/</loc>{opening}{closing}</url>")


def _long_name(length: int) -> bytes:
    return urlset(f"<url><loc>https://example.com/</loc><{'a' * length} xmlns='urn:x'/></url>")


@pytest.mark.parametrize(
    ("make", "size", "error"),
    [
        (_nested, 2049, "elements are nested more than 2,048 levels deep at line 3, more than Qivrora's XML "
                        "parser reads, so the file was read only up to there"),
        (_long_name, 10_000_001, "a name is longer than 10,000,000 characters at line 3, more than Qivrora's "
                                 "XML parser reads, so the file was read only up to there"),
    ],
    ids=["depth", "name"],
)
def test_limits_of_the_xml_parser_are_said_in_plain_words(
    make: Callable[[int], bytes], size: int, error: str
) -> None:
    _, result = parse(make(size))
    assert result.errors[0] == error  # not libxml2's "Excessive depth ..., use XML_PARSE_HUGE option"
    assert not any("XML_PARSE_HUGE" in e or "xmlCtxt" in e for e in result.errors)
    entries, result = parse(make(size - 1))
    assert (len(entries), result.errors) == (1, [])


# --- what is not a sitemap, and broken sitemaps ----------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b'<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title/></head></html>',
        b"<!DOCTYPE html>\n<html><head><meta charset=utf-8><title>Home</title></head></html>",
    ],
    ids=["xhtml", "html5"],
)
def test_html_page_is_not_a_sitemap(body: bytes) -> None:
    entries, result = parse(body)
    assert entries == []
    assert (result.kind, result.looks_like_sitemap) == (None, False)
    assert result.errors == ["root element is <html>, not <urlset> or <sitemapindex>"]


def test_html_page_that_is_not_xml_at_all_is_not_a_sitemap() -> None:
    entries, result = parse(b"<!doctype html>\n<html lang=en><body><p>Hello</body></html>")
    assert entries == []
    assert (result.kind, result.looks_like_sitemap) == (None, False)
    # Said as what it is, rather than as libxml2's "StartTag: invalid element name".
    assert result.errors == [NOT_A_SITEMAP]

@pytest.mark.parametrize(
    "body", [b"", b"  \n\t", b"\xef\xbb\xbf\n", gzip.compress(b"")], ids=["empty", "blank", "bom", "gzip"]
)
def test_empty_document(body: bytes) -> None:
    entries, result = parse(body)
    assert entries == []
    assert (result.kind, result.looks_like_sitemap, result.errors) == (None, False, ["empty document"])


def test_url_without_loc_is_reported_with_its_line() -> None:
    body = urlset(
        "<url><loc>https://example.com/a</loc></url>",
        "<url>",
        "  <lastmod>2024-01-01</lastmod>",
        "</url>",
        "<url><loc>  </loc></url>",
        "<url><loc>https://example.com/b</loc></url>",
    )
    entries, result = parse(body)
    assert [entry.loc for entry in entries] == ["https://example.com/a", "https://example.com/b"]
    assert result.url_count == 4
    assert result.errors == ["<url> without <loc> at line 4", "empty <loc> in <url> at line 7"]


@pytest.mark.parametrize(
    ("root", "error"),
    [
        ('<urlset xmlns="http://www.google.com/schemas/sitemap/0.84">',
         f"namespace is 'http://www.google.com/schemas/sitemap/0.84', not '{SITEMAP_NS}'"),
        ("<urlset>", f"<urlset> has no namespace, not '{SITEMAP_NS}'"),
    ],
)
def test_wrong_namespace_is_reported_and_the_entries_still_read(root: str, error: str) -> None:
    entries, result = parse(f"{root}<url><loc>https://example.com/</loc></url></urlset>".encode())
    assert [entry.loc for entry in entries] == ["https://example.com/"]
    assert (result.kind, result.looks_like_sitemap, result.errors) == ("urlset", True, [error])


def test_sitemap_index_yields_sitemap_refs() -> None:
    body = f"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="{SITEMAP_NS}">
  <sitemap>
    <loc>https://example.com/sitemap-1.xml.gz</loc>
    <lastmod>2024-05-01T10:00:00+02:00</lastmod>
  </sitemap>
  <sitemap><loc>https://example.com/sitemap-2.xml</loc></sitemap>
</sitemapindex>""".encode()
    entries, result = parse(body)
    assert entries == [
        ParsedSitemapRef("https://example.com/sitemap-1.xml.gz", "2024-05-01T10:00:00+02:00", 3),
        ParsedSitemapRef("https://example.com/sitemap-2.xml", None, 7),
    ]
    assert (result.kind, result.url_count, result.errors) == ("sitemapindex", 2, [])


def test_entry_of_the_other_kind_is_an_error() -> None:
    _, in_urlset = parse(urlset("<sitemap><loc>https://example.com/s.xml</loc></sitemap>"))
    assert (in_urlset.url_count, in_urlset.errors) == (0, ["unexpected <sitemap> in <urlset> at line 3"])
    index = f'<sitemapindex xmlns="{SITEMAP_NS}">\n<url><loc>https://example.com</loc></url>\n</sitemapindex>'
    entries, in_index = parse(index.encode())
    assert entries == []
    assert (in_index.url_count, in_index.errors) == (0, ["unexpected <url> in <sitemapindex> at line 2"])


def test_cdata_loc_is_read_as_text() -> None:
    entries, _ = parse(urlset("<url><loc><![CDATA[https://example.com/?a=1&b=<2>]]></loc></url>"))
    assert entries[0].loc == "https://example.com/?a=1&b=<2>"


def test_whitespace_around_loc_and_lastmod_is_stripped_and_lastmod_kept_unvalidated() -> None:
    body = urlset("<url><loc>", "  https://example.com/a ", "</loc><lastmod> yesterday </lastmod></url>")
    entries, result = parse(body)
    assert (entries[0].loc, entries[0].lastmod) == ("https://example.com/a", "yesterday")
    assert result.errors == []


def test_unknown_and_repeated_children_of_url_are_errors_extensions_are_not() -> None:
    body = urlset(
        '<url xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">',
        "  <loc>https://example.com/a</loc>",
        "  <loc>https://example.com/b</loc>",
        "  <title>A</title>",
        "  <image:image><image:loc>https://example.com/a.png</image:loc></image:image>",
        "</url>",
    )
    entries, result = parse(body)
    assert [entry.loc for entry in entries] == ["https://example.com/a"]
    assert result.errors == [
        "more than one <loc> in <url> at line 5",
        "unexpected <title> in <url> at line 6",
    ]


def test_fatal_xml_error_keeps_the_entries_before_it() -> None:
    body = urlset("<url><loc>https://example.com/a</loc></url>", "<url><loc>https://example.com/b</lo></url>")
    entries, result = parse(body)
    assert [entry.loc for entry in entries] == ["https://example.com/a"]
    assert result.errors == ["XML syntax error at line 4: Opening and ending tag mismatch: loc line 4 and lo"]


def test_document_that_ends_early_is_reported() -> None:
    body = f'{OPEN_URLSET}\n<url><loc>https://example.com/a</loc></url>\n<url><loc>https://exa'.encode()
    entries, result = parse(body)
    assert [entry.loc for entry in entries] == ["https://example.com/a"]
    assert result.errors == ["XML syntax error at line 3: Premature end of data in tag loc line 3"]


def test_whitespace_before_the_xml_declaration_is_a_broken_sitemap() -> None:
    entries, result = parse(b"\n" + urlset("<url><loc>https://example.com/a</loc></url>"))
    assert entries == []
    assert result.looks_like_sitemap  # by content, though XML cannot read it
    assert result.errors == [
        "XML syntax error at line 2: XML declaration allowed only at the start of the document"
    ]


@pytest.mark.parametrize("encoding", ["utf-16", "iso-8859-1"])
def test_declared_encoding_is_honoured(encoding: str) -> None:
    url = "<url><loc>https://example.com/é</loc></url>"
    text = f'<?xml version="1.0" encoding="{encoding}"?>{OPEN_URLSET}{url}</urlset>'
    entries, result = parse(text.encode(encoding))
    assert [entry.loc for entry in entries] == ["https://example.com/é"]
    assert result.errors == []


def test_errors_are_capped() -> None:
    _, result = parse(urlset(*["<url></url>"] * (MAX_ERRORS + 50)))
    assert result.url_count == MAX_ERRORS + 50
    assert result.errors[0] == "<url> without <loc> at line 3"
    assert result.errors[MAX_ERRORS:] == ["50 more errors not listed"]


def test_entries_can_be_read_once() -> None:
    reader = SitemapReader(urlset("<url><loc>https://example.com/</loc></url>"))
    assert len(list(reader.entries())) == 1
    with pytest.raises(RuntimeError):
        list(reader.entries())


# --- xhtml:link: usable alternates, broken annotations, other links ------------------------------


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ('<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>',
         ParsedAlternate("alternate", "de", "https://example.com/de", 4)),
        ('<xhtml:link rel="Alternate nofollow" hreflang="EN_us" href=""/>',
         ParsedAlternate("Alternate nofollow", "EN_us", "", 4)),
        ('<xhtml:link hreflang="de" href="https://example.com/de"/>',
         ParsedAlternate(None, "de", "https://example.com/de", 4, "missing rel", True)),
        ('<xhtml:link rel="alternative" hreflang="de" href="https://example.com/de"/>',
         ParsedAlternate("alternative", "de", "https://example.com/de", 4,
                         'not an hreflang alternate (rel="alternative")', True)),
        ('<xhtml:link rel="amphtml" href="https://example.com/a.amp"/>',
         ParsedAlternate("amphtml", None, "https://example.com/a.amp", 4,
                         'not an hreflang alternate (rel="amphtml")', False)),
        ('<xhtml:link rel="alternate" href="https://example.com/de"/>',
         ParsedAlternate("alternate", None, "https://example.com/de", 4, "missing hreflang", True)),
        ('<xhtml:link rel="alternate" hreflag="de" href="https://example.com/de"/>',
         ParsedAlternate("alternate", None, "https://example.com/de", 4,
                         "missing hreflang (found 'hreflag')", True)),
        ('<xhtml:link rel="alternate" href-lang="de" href="https://example.com/de"/>',
         ParsedAlternate("alternate", None, "https://example.com/de", 4,
                         "missing hreflang (found 'href-lang')", True)),
        ('<xhtml:link rel="alternate" hreflang="de"/>',
         ParsedAlternate("alternate", "de", None, 4, "missing href", True)),
        ('<xhtml:link rel="alternate" href="android-app://com.example/http/example.com/"/>',
         ParsedAlternate("alternate", None, "android-app://com.example/http/example.com/", 4,
                         "href is an app deep link (android-app://), not a web URL", False)),
        ('<xhtml:link rel="alternate" media="(max-width: 640px)" href="https://m.example.com/"/>',
         ParsedAlternate("alternate", None, "https://m.example.com/", 4,
                         'not an hreflang alternate (media="(max-width: 640px)")', False)),
        ('<link rel="alternate" hreflang="de" href="https://example.com/de"/>',
         ParsedAlternate("alternate", "de", "https://example.com/de", 4,
                         f"wrong namespace ('{SITEMAP_NS}'), not '{XHTML_NS}'", True)),
        ('<link xmlns="" rel="amphtml" href="https://example.com/a.amp"/>',
         ParsedAlternate("amphtml", None, "https://example.com/a.amp", 4,
                         f"wrong namespace (no namespace), not '{XHTML_NS}'", False)),
    ],
)
def test_link_is_judged(link: str, expected: ParsedAlternate) -> None:
    entries, result = parse(urlset("<url>", f"<loc>https://example.com/</loc>{link}", "</url>"))
    assert urls_of(entries)[0].alternates == [expected]
    assert result.errors == []


def test_undeclared_xhtml_prefix_is_a_wrong_namespace_and_an_xml_error() -> None:
    body = f"""<urlset xmlns="{SITEMAP_NS}">
<url><loc>https://example.com/</loc>
<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>
</url>
</urlset>""".encode()
    entries, result = parse(body)
    assert urls_of(entries)[0].alternates == [
        ParsedAlternate("alternate", "de", "https://example.com/de", 3,
                        f"wrong namespace (undeclared prefix 'xhtml'), not '{XHTML_NS}'", True)
    ]
    assert result.errors == ["XML namespace error at line 3: Namespace prefix xhtml on link is not defined"]


# --- sniffing a body ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "is_sitemap"),
    [
        (f'<urlset xmlns="{SITEMAP_NS}"><url/></urlset>'.encode(), True),
        (f'<sitemapindex xmlns="{SITEMAP_NS}"/>'.encode(), True),
        (gzip.compress(f'<urlset xmlns="{SITEMAP_NS}"></urlset>'.encode(), mtime=0), True),
        (b'\xef\xbb\xbf<?xml version="1.0"?><urlset>', True),
        ((b'<?xml version="1.0" encoding="UTF-8"?>\n<?xml-stylesheet type="text/xsl" href="/sitemap.xsl"?>\n'
          b"<!-- generated by Yoast SEO -->\n<!-- second comment -->\n<urlset\n  xmlns:xhtml='x'>"), True),
        (f'<sm:urlset xmlns:sm="{SITEMAP_NS}">'.encode(), True),
        ('<?xml version="1.0" encoding="UTF-16"?><urlset>'.encode("utf-16"), True),
        (b"<!DOCTYPE html>\n<html><head><title>Sitemap</title></head><body>urlset</body></html>", False),
        (gzip.compress(b"<html><body>urlset</body></html>", mtime=0), False),
        (b"<urlsetx>", False),
        (b"", False),
        (b"\x1f\x8bnot gzip", False),
    ],
)
def test_sniff_sitemap(body: bytes, is_sitemap: bool) -> None:
    assert sniff_sitemap(body) is is_sitemap


# --- W3C Datetime ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024", datetime(2024, 1, 1, tzinfo=UTC)),
        ("2024-05", datetime(2024, 5, 1, tzinfo=UTC)),
        ("2024-02-29", datetime(2024, 2, 29, tzinfo=UTC)),
        ("2024-05-01T10:30Z", datetime(2024, 5, 1, 10, 30, tzinfo=UTC)),
        ("2024-05-01T10:30:15+02:00", datetime(2024, 5, 1, 10, 30, 15, tzinfo=timezone(timedelta(hours=2)))),
        ("2024-05-01T10:30:15.5-05:30",
         datetime(2024, 5, 1, 10, 30, 15, 500_000, tzinfo=timezone(-timedelta(hours=5, minutes=30)))),
        ("2016-09-12T00:00:00.000Z", datetime(2016, 9, 12, tzinfo=UTC)),
        ("2024-05-01T23:59:59.1234567Z", datetime(2024, 5, 1, 23, 59, 59, 123_456, tzinfo=UTC)),
    ],
)
def test_valid_w3c_datetime(value: str, expected: datetime) -> None:
    assert parse_w3c_datetime(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "", "yesterday", "24", "2024-1-5", "2024-13-01", "2024-02-30", "2023-02-29", "0000-01-01",
        "2024-01-01 10:00", "2024-01-01T10:00", "2024-01-01T10:00:00", "2024-01-01T10Z",
        "2024-01-01T24:00Z", "2024-01-01T10:60Z", "2024-01-01T10:00:60Z", "2024-01-01T10:00.5Z",
        "2024-01-01T10:00+0200", "2024-01-01T10:00+24:00", "2024-01-01T10:00+02:60", "2024-01-01t10:00z",
        "2024-01-01Z", " 2024-01-01", "\uff12\uff10\uff12\uff14-01-01", "20240101",
    ],
)
def test_invalid_w3c_datetime(value: str) -> None:
    assert parse_w3c_datetime(value) is None


# --- any input gives a result, never an exception ---------------------------------------------------

_VALID = urlset(
    "<url>",
    "  <loc>https://example.com/</loc><lastmod>2024-01-01</lastmod>",
    '  <xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>',
    "</url>",
)


def _read_anything(body: bytes) -> None:
    entries, result = parse(body)
    assert result.url_count >= len(entries)
    assert result.kind in (None, "urlset", "sitemapindex")
    assert len(result.errors) <= MAX_ERRORS + 1 and all(isinstance(error, str) for error in result.errors)
    assert result.kind is not None or not entries


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2048))
def test_any_bytes_give_a_result(body: bytes) -> None:
    _read_anything(body)
    _read_anything(gzip.compress(body))
    sniff_sitemap(body)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(_VALID) - 1), st.binary(max_size=6)), min_size=1, max_size=6))
def test_any_damage_to_a_sitemap_gives_a_result(edits: list[tuple[int, bytes]]) -> None:
    body = bytearray(_VALID)
    for position, replacement in edits:
        body[position : position + 1] = replacement
    _read_anything(bytes(body))
