"""Any input gives a result or a defined error, never an unexpected exception: the adapters.

The parsers each have their own property tests (test_linkheader, test_hreflang_values, test_urls,
test_sitemap_parse, test_html_extract). These cover what the spider calls on every response, which
puts those parsers together with URL resolution: a page's facts from any status, headers and body; a
sitemap's facts from any body; the internal-address decision on any address; the CSV neutraliser on
any value.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from qivrora_spider.downloadermiddlewares.addresses import internal_reason, ip_literal
from qivrora_spider.extract.page_facts import build_page
from qivrora_spider.extract.sitemap_facts import read_sitemap
from qivrora_spider.extract.text_language import encode_blocks
from qivrora_spider.fact_lines import fact_from_dict, fact_line, fact_to_dict, read_facts
from qivrora_spider.facts import Page, SitemapEntry, SitemapFile
from qivrora_spider.feeds.exporters import FORMULA_STARTS, neutralise

HEADER_NAMES = ("Content-Type", "Location", "Link", "Content-Language", "X-Robots-Tag")
URLS = st.sampled_from(["https://example.com/a/b", "http://127.0.0.1:8000/", "https://xn--bcher-kva.example/%C3%A4?q=1"])
markup = st.text(alphabet="<>/!?-='\"& \n#;abehiklmnorstx\x00[]:.", max_size=300)


@settings(max_examples=300, deadline=None)
@given(
    url=URLS,
    status=st.integers(100, 599),
    headers=st.dictionaries(st.sampled_from(HEADER_NAMES), st.lists(st.text(max_size=200), max_size=3)),
    text=st.one_of(st.none(), st.text(max_size=500), markup.map(lambda t: "<html><head>" + t)),
    in_scope=st.booleans(),
)
def test_a_page_of_any_status_headers_and_body_gives_a_page_fact(url, status, headers, text, in_scope):
    page = build_page(
        url=url, requested=url, status=status, headers=lambda name: headers.get(name, []),
        text=text, in_scope=in_scope, depth=0,
    )
    assert isinstance(page, Page) and page.url == url
    assert all(a.url is None or a.url.startswith(("http://", "https://")) for a in page.annotations)
    # What asdict would give, the packed blocks written as text.
    assert fact_to_dict(page) == {
        "fact": "page", **dataclasses.asdict(page), "text_blocks": encode_blocks(page.text_blocks)
    }
    assert fact_from_dict(fact_to_dict(page)) == page, "the fact survives the facts feed"
    line = fact_line(page)
    assert json.loads(line) == fact_to_dict(page) and list(read_facts([line.decode()])) == [page], "and Redis"


@settings(max_examples=200, deadline=None)
@given(body=st.one_of(st.binary(max_size=1500), markup.map(str.encode)), status=st.sampled_from([200, 200, 301, 404]))
def test_a_sitemap_of_any_body_gives_entries_then_its_file(body, status):
    facts = list(read_sitemap(url="https://example.com/sitemap.xml", body=body, status=status, via="start"))
    *entries, sitemap = facts
    assert isinstance(sitemap, SitemapFile) and all(isinstance(e, SitemapEntry) for e in entries)
    assert sitemap.url_count >= len(entries) or status != 200
    assert all(isinstance(error, str) for error in sitemap.errors)
    assert [fact_to_dict(fact) for fact in facts] == [{"fact": f.kind, **dataclasses.asdict(f)} for f in facts]
    assert [json.loads(fact_line(fact)) for fact in facts] == [fact_to_dict(fact) for fact in facts]


@given(st.one_of(st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address), st.integers(0, 2**128 - 1).map(ipaddress.IPv6Address)))
def test_any_address_is_judged(address):
    reason = internal_reason(address)
    assert reason is None or (isinstance(reason, str) and reason)
    assert internal_reason(str(address)) == reason
    if reason is None:  # public: globally routed, or an IPv6 form of a public IPv4 address
        carried = address.ipv4_mapped if address.version == 6 else None
        assert (carried or address).is_global and not address.is_multicast


@given(st.text(max_size=60))
def test_any_host_is_an_address_or_a_name(host):
    literal = ip_literal(host)
    if literal is None:
        return
    assert internal_reason(literal) is None or internal_reason(literal)


@given(st.text())
def test_any_value_is_inert_in_a_spreadsheet(value):
    cell = neutralise(value)
    assert not cell.startswith(FORMULA_STARTS)
    assert cell == value or cell == "'" + value
