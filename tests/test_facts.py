"""Facts as JSON lines and back (``read_facts``): what older versions wrote still reads to the same
facts, strings repeated across facts come back shared, and a bad line is named by file and line.
"""

from __future__ import annotations

import json
import math

import pytest

from qivrora_spider.audit.core.fact_store import FactStore
from qivrora_spider.extract.text_language import decode_blocks
from qivrora_spider.fact_lines import FactsFormatError, fact_from_dict, fact_line, fact_to_dict, read_facts
from qivrora_spider.facts import (
    FACT_TYPES,
    Annotation,
    Canonical,
    CrawlInfo,
    IgnoredAnnotation,
    LocaleProbe,
    LocaleRule,
    Page,
    RobotsTxt,
    SitemapEntry,
    SitemapFile,
    TargetStatus,
)

SITEMAP = "https://a.example/sitemap-ä.xml"
#: One fact of each kind, every field away from its default: non-ASCII text, a float that JSON must
#: carry to the last bit, nested facts of every class, a dict of attributes.
EVERY_KIND = (
    Page(
        url="https://a.example/de/stra%C3%9Fe",
        requested="https://a.example/de/straße",
        status=200,
        location=None,
        content_type="text/html; charset=utf-8",
        error="timeout",
        error_detail="Zeitüberschreitung nach 30 s – „erneut“",
        in_scope=False,
        depth=3,
        annotations=[
            Annotation("html", "de-AT", "/de/straße", "https://a.example/de/stra%C3%9Fe", line=7),
            Annotation("header", "x-default", "https://a.example/", "https://a.example/", in_head=False,
                       head_closed_by="<div>", head_closed_line=5),
        ],
        ignored=[
            IgnoredAnnotation("html", "a", "not a <link>", {"hreflang": "日本語", "href": "/ja"}, line=9),
        ],
        canonicals=[Canonical("header", "../x", None, in_head=False)],
        html_lang="de",
        content_language="de-AT, en",
        noindex="meta",
        is_html=True,
        fingerprint="0123456789abcdef0123456789abcdef01234567",
        links=["https://a.example/", "https://a.example/de/stra%C3%9Fe"],
        text_blocks=decode_blocks("CgsMDQ:de:3412 _____w::12 ASNFZw:-:40 AAAAAA:?"),
        rendered=True,
        render_error="the browser's navigation failed",
        served_only=[Annotation("html", "en", "/en", "https://a.example/en", line=8)],
        nofollow_links=["https://a.example/"],
    ),
    TargetStatus(
        url="https://a.example/en", method="HEAD", status=301, location="https://a.example/en/", error="dns",
        not_examined="robots",
    ),
    RobotsTxt(
        origin="https://a.example", url="https://a.example/robots.txt", status=200, exists=True,
        sitemaps=[SITEMAP], error="tls",
    ),
    SitemapFile(
        url=SITEMAP, sitemap_kind="sitemapindex", parent="https://a.example/index.xml", via="robots",
        status=200, error="reset", gzip=True, size=1_234_567, truncated=True, url_count=2,
        errors=["line 3: “<loc>” is empty"],
        children=["https://a.example/s1.xml", "https://a.example/s2.xml"],
    ),
    SitemapEntry(
        sitemap=SITEMAP, loc=" https://a.example/de/straße ", url="https://a.example/de/stra%C3%9Fe",
        lastmod="2026-01-01", line=4,
        annotations=[
            Annotation("sitemap", "de", "https://a.example/de/straße", "https://a.example/de/stra%C3%9Fe",
                       line=5, sitemap=SITEMAP),
        ],
        ignored=[
            IgnoredAnnotation("sitemap", "xhtml:link", "no rel", {"hreflang": "fr"}, line=6, sitemap=SITEMAP),
        ],
        position=2,
    ),
    CrawlInfo(
        started="2026-01-01T00:00:00+00:00", start_urls=["https://a.example/"], scope=["https://a.example"],
        limits_reached=["max_pages"],
    ),
    LocaleProbe(
        url="https://a.example/en", accept_language="fr", status=302, location="https://a.example/fr/",
        error="reset", annotations=[Annotation("header", "fr", "https://a.example/fr/", "https://a.example/fr/")],
        canonicals=[Canonical("html", "/fr/", "https://a.example/fr/")], main_text_language="fr", vary=True,
    ),
    LocaleRule(
        url="https://a.example/en", where="_redirects:3", rule="/en  /fr/  302!  Language=fr",
        conditions=["Language=fr"], status=302, target="https://a.example/fr/",
    ),
)


def test_every_kind_of_fact_is_tested():
    assert {type(fact) for fact in EVERY_KIND} == set(FACT_TYPES)


@pytest.mark.parametrize("fact", EVERY_KIND, ids=lambda fact: fact.kind)
def test_a_fact_line_reads_back_to_an_equal_fact(fact):
    line = fact_line(fact)
    assert b"\n" not in line and b"\\u" not in line, "one line, its text in UTF-8, not escaped"
    assert json.loads(line) == fact_to_dict(fact), "what json reads, and what the facts feed holds"
    (read,) = read_facts([line.decode("utf-8")])
    assert read == fact and type(read) is type(fact)


@pytest.mark.parametrize("ensure_ascii", [False, True], ids=["utf-8", "escaped"])
def test_lines_written_by_json_dumps_read_back_to_equal_facts(ensure_ascii):
    # As JOBDIR's facts.jsonl and Redis held facts before; tests and tools may still write them so.
    lines = [json.dumps(fact_to_dict(fact), ensure_ascii=ensure_ascii) for fact in EVERY_KIND]
    assert list(read_facts(lines)) == list(EVERY_KIND)


def test_a_page_line_of_an_older_version_still_reads():
    """Its fields this version no longer reads (the main text's language before block-level reading)
    are left out."""
    line = (
        '{"fact": "page", "url": "https://a.example/d%C3%A9", "requested": "https://a.example/dé", '
        '"status": 200, "content_type": "text/html", "depth": 1, "annotations": [{"source": "html", '
        '"hreflang": "fr", "href": "/dé", "url": "https://a.example/d%C3%A9", "line": 4}], "is_html": true, '
        '"main_text_confidence": 0.97}'
    )
    (page,) = read_facts([line])
    assert page == Page(
        url="https://a.example/d%C3%A9", requested="https://a.example/dé", status=200,
        content_type="text/html", depth=1, is_html=True,
        annotations=[Annotation("html", "fr", "/dé", "https://a.example/d%C3%A9", line=4)],
    )


def test_a_pages_blocks_are_packed_in_memory_and_text_in_json():
    page = EVERY_KIND[0]
    assert isinstance(page.text_blocks, bytes)
    assert json.loads(fact_line(page))["text_blocks"] == "CgsMDQ:de:3412 _____w::12 ASNFZw:-:40 AAAAAA:?"


def test_fields_in_any_order_read_to_the_same_fact():
    def reversed_fields(value):
        if isinstance(value, dict):
            return {key: reversed_fields(item) for key, item in reversed(value.items())}
        return [reversed_fields(item) for item in value] if isinstance(value, list) else value

    lines = [json.dumps(reversed_fields(fact_to_dict(fact))) for fact in EVERY_KIND]
    assert list(read_facts(lines)) == list(EVERY_KIND)


def test_what_json_dumps_writes_and_strict_json_has_not_still_reads():
    page = Page(url="https://a.example/", requested="https://a.example/", depth=math.nan,  # type: ignore[arg-type]
                error_detail="\ud800")
    (read,) = read_facts([json.dumps(fact_to_dict(page))])  # NaN, and the lone surrogate escaped
    assert math.isnan(read.depth) and read.error_detail == "\ud800"


def test_strings_repeated_across_facts_are_read_back_shared():
    page, _, robots, _, entry, _, probe, _ = read_facts(json.dumps(fact_to_dict(fact)) for fact in EVERY_KIND)
    assert page.url is page.annotations[0].url is entry.url is entry.annotations[0].url
    assert robots.sitemaps[0] is entry.sitemap is entry.annotations[0].sitemap is entry.ignored[0].sitemap
    assert page.annotations[0].source is page.served_only[0].source is page.ignored[0].source
    assert probe.annotations[0].source is page.annotations[1].source


def test_a_pages_links_share_its_strings_once_the_audits_store_folds_them():
    # Not interned as they are read back: the store keeps one set of links, not the pages' lists.
    store = FactStore()
    store.add_all(read_facts([fact_line(fact) for fact in EVERY_KIND]))
    page = store.pages[EVERY_KIND[0].url]
    assert page.links == []
    (linked,) = [url for url in store.linked if url == page.url]
    assert linked is page.url


def test_fact_from_dict_leaves_its_argument_as_it_was():
    data = fact_to_dict(EVERY_KIND[0])
    kept = json.loads(json.dumps(data))
    assert fact_from_dict(data) == EVERY_KIND[0]
    assert data == kept and "fact" in data


PAGE = '"fact": "page", "url": "https://a.example/", "requested": "https://a.example/"'


@pytest.mark.parametrize(
    "line, message",
    [
        ("not json", "not JSON (Expecting value)"),
        ('{"fact": "page", "url": ', "not JSON (Expecting value)"),
        ('{"fact": "page",}', "not JSON (Expecting property name enclosed in double quotes)"),
        ('\ufeff{"fact": "crawl"}', "not JSON (Unexpected UTF-8 BOM (decode using utf-8-sig))"),
        ('{"fact": NaN', "not JSON (Expecting ',' delimiter)"),
        ("[1, 2]", "not a Qivrora fact (export facts with the `facts` feed format)"),
        ('{"check": "HL201"}', "not a Qivrora fact (export facts with the `facts` feed format)"),
        ('{"fact": "nope"}', "unknown fact kind 'nope'"),
        ('{"fact": null}', "unknown fact kind None"),
        ('{"fact": "crawl", "started": "x", "kind": "crawl"}', "unknown field(s) kind for a crawl fact"),
        (
            '{"fact": "page", "url": "https://a.example/", "requested": "x", "extra": 2, "colour": 1}',
            "unknown field(s) colour, extra for a page fact",
        ),
        # An unknown field is named before anything else is wrong with the fact.
        ("{" + PAGE + ', "annotations": [1], "zzz": 1}', "unknown field(s) zzz for a page fact"),
        (
            '{"fact": "page", "url": "https://a.example/"}',
            "incomplete page fact: Page.__init__() missing 1 required positional argument: 'requested'",
        ),
        (
            '{"fact": "status"}',
            "incomplete status fact: TargetStatus.__init__() missing 1 required positional argument: 'url'",
        ),
        ("{" + PAGE + ', "annotations": ["x"]}', "incomplete page fact: 'str' object has no attribute 'get'"),
        ("{" + PAGE + ', "annotations": 5}', "incomplete page fact: 'int' object is not iterable"),
        (
            "{" + PAGE + ', "annotations": [{"source": "html", "hreflang": "x", "href": "y"}, 7], '
            '"ignored": 1}',
            "incomplete page fact: 'int' object has no attribute 'get'",
        ),
        (
            "{" + PAGE + ', "annotations": [{"source": "html"}]}',
            "incomplete page fact: "
            "Annotation.__init__() missing 2 required positional arguments: 'hreflang' and 'href'",
        ),
        (
            "{" + PAGE + ', "ignored": [{"source": "html", "tag": "link"}]}',
            "incomplete page fact: "
            "IgnoredAnnotation.__init__() missing 1 required positional argument: 'reason'",
        ),
        (
            '{"fact": "entry", "sitemap": "s", "loc": "l", "url": null, '
            '"annotations": [{"source": "sitemap", "hreflang": "de", "href": "x", "colour": 1}]}',
            "incomplete entry fact: Annotation.__init__() got an unexpected keyword argument 'colour'",
        ),
        (
            '{"fact": "page", "url": "javascript:alert(1)", "requested": "x"}',
            "url 'javascript:alert(1)' is not a normalised http(s) URL",
        ),
        (
            '{"fact": "status", "url": "http://A.example"}',
            "url 'http://A.example' is not a normalised http(s) URL",
        ),
        ('{"fact": "status", "url": 5}', "url 5 is not a normalised http(s) URL"),
    ],
)
def test_a_bad_line_is_named_by_file_and_line(line, message):
    good = json.dumps(fact_to_dict(EVERY_KIND[1]))
    with pytest.raises(FactsFormatError) as raised:
        list(read_facts([good, "", f"  {line}\n", good], "facts.jsonl"))
    assert str(raised.value) == f"facts.jsonl:3: {message}"
