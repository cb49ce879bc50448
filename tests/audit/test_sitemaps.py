"""SM0xx: sitemaps and robots.txt."""

from __future__ import annotations

import gzip

import pytest

from qivrora_spider.audit import CHECKS
from qivrora_spider.extract.sitemap_facts import read_sitemap
from qivrora_spider.extract.sitemap_parse import NOT_A_SITEMAP, SITEMAP_NS
from tests.audit.builders import (
    CRAWL_STARTED,
    Page,
    TargetStatus,
    ann,
    canonical,
    cluster,
    entry,
    family_findings,
    hits,
    page,
    robots,
    run,
    sitemap_file,
)

HOST = "https://ex.com"
SM = f"{HOST}/sitemap.xml"
EN, DE, FR = f"{HOST}/en/", f"{HOST}/de/", f"{HOST}/fr/"


def urlset_bytes(*entries: str) -> bytes:
    """A urlset in the sitemap namespace whose first entry is on line 3."""
    lines = ['<?xml version="1.0"?>', f'<urlset xmlns="{SITEMAP_NS}">', *entries, "</urlset>"]
    return "\n".join(lines).encode()


def fields(finding: object) -> tuple:
    return (finding.check, finding.url, finding.target, finding.hreflang, finding.source)  # type: ignore[attr-defined]


def sm(facts: list) -> list[tuple[str, str, str]]:
    return sorted((f.check, f.url, f.target) for f in run(facts) if f.check.startswith("SM"))


def test_every_sm_check_is_in_a_sitemap_family() -> None:
    # SM010 and SM011 too: they need the previous crawl (tests/audit/test_lastmod_history.py).
    families = {c.id: c.family for c in CHECKS.values() if c.id.startswith("SM")}
    assert {check for check, family in families.items() if family == "lastmod"} == {
        "SM007", "SM008", "SM009", "SM010", "SM011"
    }
    assert set(families.values()) == {"sitemaps", "lastmod", "sitemap_orphans"}
    assert CHECKS["SM001"].name == "sitemap-url-not-ok"


# --- SM001 sitemap-url-not-ok ---------------------------------------------------------------------


def test_sm001_redirect_names_the_location() -> None:
    old, new = f"{HOST}/old", f"{HOST}/new/"
    facts = [
        robots(HOST, SM),
        sitemap_file(SM),
        entry(SM, old, line=5),
        page(old, status=301, location=new),
        page(new),
    ]
    (finding,) = hits(facts, "SM001")
    assert (finding.name, finding.severity) == ("sitemap-url-not-ok", "error")
    assert fields(finding) == ("SM001", SM, old, "", "sitemap")
    assert "(line 5)" in finding.message and f"redirects to {new}" in finding.message
    assert f"list {new} directly" in finding.message


def test_sm001_missing_failing_and_unreachable_entries_one_row_each() -> None:
    gone, broken, dead = f"{HOST}/gone", f"{HOST}/broken", "https://dead.example/"
    facts = [
        sitemap_file(SM),
        entry(SM, gone, line=3),
        entry(SM, gone, line=9),  # listed twice in one file: one row, the first line
        entry(SM, broken, line=4),
        entry(SM, dead, line=6),
        TargetStatus(gone, method="HEAD", status=404),
        page(broken, status=500),
        Page(url=dead, requested=dead, error="refused"),
    ]
    found = hits(facts, "SM001")
    assert [(f.url, f.target) for f in found] == [(SM, dead), (SM, broken), (SM, gone)]
    assert "refused" in found[0].message
    assert "500 Internal Server Error" in found[1].message
    assert "404 Not Found" in found[2].message and "(line 3)" in found[2].message


def test_sm001_near_miss_ok_and_unknown_entries() -> None:
    unknown = f"{HOST}/later"
    facts = [
        sitemap_file(SM),
        entry(SM, EN),
        entry(SM, unknown),
        entry(SM, f"{HOST}/private/"),
        page(EN),
        TargetStatus(unknown, not_examined="max_pages"),
        TargetStatus(f"{HOST}/private/", not_examined="robots"),  # SM012, not SM001
    ]
    assert hits(facts, "SM001") == []


# --- SM002 page-missing-from-sitemap --------------------------------------------------------------


def site_with_sitemap(*pages: Page, **sitemap_kw: object) -> list:
    return [robots(HOST, SM), sitemap_file(SM, **sitemap_kw), entry(SM, EN), page(EN), *pages]


def test_sm002_indexable_page_in_no_sitemap() -> None:
    (finding,) = hits(site_with_sitemap(page(FR, canonicals=[canonical(FR)])), "SM002")
    assert (finding.name, finding.severity) == ("page-missing-from-sitemap", "warning")
    assert fields(finding) == ("SM002", FR, "", "", "crawl")
    assert SM in finding.message and "add it" in finding.message


@pytest.mark.parametrize(
    "missing",
    [
        page(FR, noindex="meta"),
        page(FR, canonicals=[canonical(EN)]),
        page(FR, canonicals=[canonical(FR), canonical(EN, "header")]),
        page(FR, status=404),
        page(FR, is_html=False),
        page(FR, in_scope=False),
        page("https://other.example/fr/"),
    ],
    ids=[
        "noindex",
        "canonical-elsewhere",
        "conflicting-canonicals",
        "404",
        "not-html",
        "out-of-scope",
        "other-host",
    ],
)
def test_sm002_near_miss_pages_that_need_no_sitemap(missing: Page) -> None:
    assert hits(site_with_sitemap(missing), "SM002") == []


def test_sm002_near_miss_host_without_sitemaps_or_not_fully_read() -> None:
    assert hits([page(EN), page(FR)], "SM002") == []
    # Only a probe that found nothing: the host has no sitemap.
    assert hits([sitemap_file(SM, None, via="probe", status=404), page(FR)], "SM002") == []
    # A sitemap of the host could not be read: FR may be in it.
    other = f"{HOST}/sitemap-fr.xml"
    facts = site_with_sitemap(page(FR)) + [sitemap_file(other, None, status=503, via="index", parent=SM)]
    assert hits(facts, "SM002") == []


# --- SM003 sitemap-too-large ----------------------------------------------------------------------


def test_sm003_too_many_urls_and_too_many_bytes() -> None:
    big, huge = f"{HOST}/big.xml", f"{HOST}/huge.xml.gz"
    facts = [
        sitemap_file(big, url_count=50_001),
        sitemap_file(huge, truncated=True, size=52_428_800, gzip=True),
    ]
    found = hits(facts, "SM003")
    assert [fields(f) for f in found] == [
        ("SM003", big, "", "", "sitemap"),
        ("SM003", huge, "", "", "sitemap"),
    ]
    assert found[0].message == (
        "This sitemap lists 50,001 URLs, more than one file may hold (50,000 URLs), so only its first 50,000 "
        "URLs were read: split it into sitemaps of at most 50,000 URLs and 52,428,800 bytes each, listed in a "
        "sitemap index."
    )
    assert found[1].message == (
        "This sitemap is larger than 52,428,800 bytes uncompressed, more than one file may hold, so only its "
        "first 52,428,800 bytes were read: split it into sitemaps of at most 50,000 URLs and 52,428,800 bytes "
        "each, listed in a sitemap index."
    )


def test_sm003_both_limits_and_an_index() -> None:
    index = f"{HOST}/index.xml"
    facts = [
        sitemap_file(SM, url_count=60_000, truncated=True, size=52_428_801),
        sitemap_file(index, "sitemapindex", url_count=50_001),
    ]
    found = {f.url: f.message for f in hits(facts, "SM003")}
    # The count is of the bytes read only, and there the URL limit came first.
    assert found[SM].startswith(
        "This sitemap lists at least 60,000 URLs and is larger than 52,428,800 bytes uncompressed, more than "
        "one file may hold (50,000 URLs), so only its first 50,000 URLs were read: split it"
    )
    assert found[index] == (
        "This sitemap index lists 50,001 sitemaps, more than one file may hold (50,000 sitemaps), so only its "
        "first 50,000 sitemaps were read: split it into several sitemap indexes of at most 50,000 sitemaps and "
        "52,428,800 bytes, and name each in robots.txt."
    )


def test_sm003_and_sm004_for_a_broken_file_over_the_limit() -> None:
    broken = urlset_bytes("<url><loc>https://ex.com/en/</lo></url>") + b" " * (60 * 1024 * 1024)
    facts = list(read_sitemap(url=SM, body=gzip.compress(broken, compresslevel=1), status=200, via="robots"))
    assert {f.check for f in run(facts) if f.check in ("SM003", "SM004")} == {"SM003", "SM004"}


def test_sm003_near_miss_at_the_limits_and_a_probe_that_found_no_sitemap() -> None:
    assert hits([sitemap_file(SM, url_count=50_000, size=52_428_800)], "SM003") == []
    probed = sitemap_file(SM, None, via="probe", truncated=True, size=52_428_801, errors=[NOT_A_SITEMAP])
    assert hits([probed], "SM003") == []


# --- SM004 sitemap-invalid ------------------------------------------------------------------------


def test_sm004_names_the_first_error_and_counts_the_rest() -> None:
    errors = [
        "namespace is 'http://www.google.com/schemas/sitemap/0.84', not '...'",
        "<url> without <loc> at line 9",
    ]
    (finding,) = hits([sitemap_file(SM, errors=errors, via="robots")], "SM004")
    assert (finding.name, finding.severity) == ("sitemap-invalid", "error")
    assert fields(finding) == ("SM004", SM, "", "", "sitemap")
    assert "0.84" in finding.message and "(and 1 more problem)" in finding.message
    assert "listed in robots.txt" in finding.message


def test_sm004_index_inside_an_index() -> None:
    child = f"{HOST}/sitemap-2.xml"
    facts = [
        sitemap_file(SM, "sitemapindex", children=[child]),
        sitemap_file(child, "sitemapindex", via="index", parent=SM),
    ]
    (finding,) = hits(facts, "SM004")
    assert fields(finding) == ("SM004", child, SM, "", "sitemap")
    assert "indexes cannot nest" in finding.message


def test_sm004_unfetchable_and_not_a_sitemap() -> None:
    down, html = f"{HOST}/down.xml", f"{HOST}/page.xml"
    facts = [
        sitemap_file(down, None, status=None, error="timeout", via="index", parent=SM),
        sitemap_file(html, None, via="start"),
    ]
    found = hits(facts, "SM004")
    assert [(f.url, f.target) for f in found] == [(down, SM), (html, "")]
    assert found[0].message == (
        f"This sitemap, listed in {SM}, cannot be fetched because its server did not answer in time: "
        "make it answer 200 at this URL, or list it where it does."
    )
    assert "neither <urlset> nor <sitemapindex>" in found[1].message


_LISTED = "This sitemap, listed in robots.txt,"


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (urlset_bytes("<url><loc>https://ex.com/en/</lo></url>"), 200,
         f"{_LISTED} is invalid: XML syntax error at line 3: Opening and ending tag mismatch: loc line 3 and lo: "
         "make it well-formed XML, written by an XML library rather than by joining strings."),
        (b'<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"><url><loc>https://ex.com/en/</loc></url>'
         b"</urlset>", 200,
         f"{_LISTED} is invalid: namespace is 'http://www.google.com/schemas/sitemap/0.84', not "
         f"'{SITEMAP_NS}': declare the sitemap namespace on the root element: `xmlns=\"{SITEMAP_NS}\"`."),
        (urlset_bytes("<url></url>", "<url><loc> </loc></url>"), 200,
         f"{_LISTED} is invalid: <url> without <loc> at line 3 (and 1 more problem): give every entry exactly "
         "one `<loc>`, an absolute http(s) URL."),
        (b"<!doctype html>\n<html lang=en><body><p>Page not found</body></html>", 200,
         f"{_LISTED} is invalid: the content is an HTML page or other text, with no <urlset> or <sitemapindex> "
         "at its start: serve the sitemap's XML at this URL, or stop listing it as a sitemap."),
        (b"\x1f\x8b\x08\x00" + b"not deflate data" * 4, 200,
         f"{_LISTED} is invalid: broken gzip: the compressed data is corrupt: serve a complete gzip file, or the "
         "XML uncompressed."),
        (b'<!DOCTYPE urlset [<!ENTITY a "b">]>' + urlset_bytes("<url><loc>&a;</loc></url>").split(b"\n", 1)[1],
         200,
         f"{_LISTED} is invalid: entity declarations are not allowed in a sitemap: remove the DOCTYPE and its "
         "entities, which a sitemap has no use for."),
        (b"", 404, f"{_LISTED} answers 404 Not Found instead of 200: publish it at this URL, or list it where it "
         "is published."),
        (b"", 503, f"{_LISTED} answers 503 Service Unavailable instead of 200: fix the server so that it answers "
         "200."),
    ],
    ids=["syntax", "namespace", "no-loc", "html", "gzip", "entities", "404", "503"],
)
def test_sm004_says_what_is_wrong_and_the_fix(body: bytes, status: int, message: str) -> None:
    facts = list(read_sitemap(url=SM, body=body, status=status, via="robots"))
    (finding,) = hits(facts, "SM004")
    assert finding.message == message


def test_sm004_a_redirect_names_the_final_url() -> None:
    facts = list(read_sitemap(url=SM, body=b"", status=301, via="robots", location=f"{HOST}/new.xml"))
    (finding,) = hits(facts, "SM004")
    assert finding.message == f"{_LISTED} redirects (301) to {HOST}/new.xml: list the final URL instead."


def test_sm004_counts_the_errors_the_reader_did_not_list() -> None:
    facts = list(read_sitemap(url=SM, body=urlset_bytes(*["<url></url>"] * 150), status=200, via="start"))
    (finding,) = hits(facts, "SM004")
    assert "(and 149 more problems)" in finding.message


def test_sm004_near_miss_valid_file_and_empty_probe() -> None:
    facts = [
        sitemap_file(SM),
        sitemap_file(
            "https://b.example/sitemap.xml",
            None,
            status=404,
            via="probe",
            errors=["answered HTTP 404, not 200"],
        ),
    ]
    assert hits(facts, "SM004") == []


# --- SM005 sitemap-url-out-of-scope ---------------------------------------------------------------


BLOG_SM = f"{HOST}/blog/sitemap.xml"


def test_sm005_above_the_folder_and_on_another_host() -> None:
    shop, other = f"{HOST}/shop/x", "https://ex.de/x"
    facts = [
        robots(HOST),
        sitemap_file(BLOG_SM),
        entry(BLOG_SM, f"{HOST}/blog/post"),
        entry(BLOG_SM, shop),
        entry(BLOG_SM, other),
    ]
    found = hits(facts, "SM005")
    assert [fields(f) for f in found] == [
        ("SM005", BLOG_SM, shop, "", "sitemap"),
        ("SM005", BLOG_SM, other, "", "sitemap"),
    ]
    assert "outside the sitemap's folder /blog/" in found[0].message
    assert "another host" in found[1].message and "https://ex.de/robots.txt" in found[1].message


def test_sm005_other_scheme_is_out_of_scope() -> None:
    facts = [sitemap_file(SM), entry(SM, "http://ex.com/en/")]
    assert [f.target for f in hits(facts, "SM005")] == ["http://ex.com/en/"]


def test_sm005_near_miss_robots_txt_lifts_the_folder_rule() -> None:
    facts = [robots(HOST, BLOG_SM), sitemap_file(BLOG_SM, via="robots"), entry(BLOG_SM, f"{HOST}/shop/x")]
    assert hits(facts, "SM005") == []


def test_sm005_near_miss_cross_submission_through_the_other_hosts_robots() -> None:
    cdn_index, cdn_child = "https://cdn.ex.com/sitemap-index.xml", "https://cdn.ex.com/maps/ex.xml"
    facts = [
        robots(HOST, cdn_index),
        sitemap_file(cdn_index, "sitemapindex", children=[cdn_child]),
        sitemap_file(cdn_child, via="index", parent=cdn_index),
        entry(cdn_child, EN),  # listed by a child of the index ex.com's robots.txt names
    ]
    assert hits(facts, "SM005") == []


# --- SM006 sitemap-not-in-robots ------------------------------------------------------------------


def test_sm006_robots_without_sitemap_line() -> None:
    (finding,) = hits([robots(HOST), sitemap_file(SM, via="probe")], "SM006")
    assert (finding.name, finding.severity) == ("sitemap-not-in-robots", "warning")
    assert fields(finding) == ("SM006", f"{HOST}/robots.txt", SM, "", "robots")
    assert f"Sitemap: {SM}" in finding.message


def test_sm006_no_robots_txt_names_the_top_sitemap() -> None:
    child = f"{HOST}/sitemap-1.xml"
    facts = [
        robots(HOST, status=404),
        sitemap_file(SM, "sitemapindex", via="start"),
        sitemap_file(child, via="index", parent=SM),
    ]
    (finding,) = hits(facts, "SM006")
    assert fields(finding) == ("SM006", f"{HOST}/robots.txt", SM, "", "robots")
    assert "404 Not Found" in finding.message


def test_sm006_near_miss() -> None:
    assert hits([robots(HOST, SM), sitemap_file(SM)], "SM006") == []
    assert hits([robots(HOST, status=503), sitemap_file(SM)], "SM006") == []  # unknown, not absent
    assert hits([sitemap_file(SM)], "SM006") == []  # robots.txt never asked for
    assert hits([robots(HOST), sitemap_file(SM, None, via="probe", status=404)], "SM006") == []  # no sitemap


# --- SM007 / SM008 lastmod ------------------------------------------------------------------------


def test_sm007_lastmod_not_w3c() -> None:
    facts = [
        sitemap_file(SM),
        entry(SM, EN, lastmod="2024-05-01 09:30:00", line=4),
        entry(SM, DE, lastmod="2024-05-01T09:30:00", line=8),
        entry(SM, FR, lastmod="2024-05-01"),
        entry(SM, f"{HOST}/it/", lastmod="2024-05-01T09:30:00+02:00"),
    ]
    found = hits(facts, "SM007")
    assert [fields(f) for f in found] == [("SM007", SM, DE, "", "sitemap"), ("SM007", SM, EN, "", "sitemap")]
    assert "`<lastmod>2024-05-01 09:30:00</lastmod>`" in found[1].message and "W3C" in found[1].message


@pytest.mark.parametrize(
    ("lastmod", "future"),
    [
        ("2026-12-01", True),
        ("2027", True),
        ("2026-12", True),
        ("2026-11-30T01:00:00+00:00", True),
        (CRAWL_STARTED[:10], False),  # today
        ("2026-11-30", False),  # already begun east of the crawler
        ("2026-11-29T23:00:00Z", False),  # later today
        ("2026-11-30T01:00:00+14:00", False),
        ("2026-11", False),
        ("not a date", False),  # SM007's
    ],
)
def test_sm008_lastmod_in_future(lastmod: str, future: bool) -> None:
    found = hits([sitemap_file(SM), entry(SM, EN, lastmod=lastmod)], "SM008")
    assert [fields(f) for f in found] == ([("SM008", SM, EN, "", "sitemap")] if future else [])
    if future:
        assert lastmod in found[0].message and "2026-11-29" in found[0].message


# --- SM009 lastmod-bulk-stamped -------------------------------------------------------------------


def stamped(total: int, same: int) -> list:
    entries = [entry(SM, f"{HOST}/p{i}", lastmod="2026-11-28") for i in range(same)]
    entries += [entry(SM, f"{HOST}/q{i}", lastmod=f"2026-10-{i + 1:02d}") for i in range(total - same)]
    return [sitemap_file(SM), *entries]


def test_sm009_one_date_for_nearly_all_entries() -> None:
    (finding,) = hits(stamped(10, 10), "SM009")
    assert (finding.name, finding.severity) == ("lastmod-bulk-stamped", "warning")
    assert fields(finding) == ("SM009", SM, "", "", "sitemap")
    assert "10 of the 10" in finding.message and "2026-11-28" in finding.message
    assert [f.url for f in hits(stamped(20, 18), "SM009")] == [SM]


def test_sm009_compares_calendar_dates() -> None:
    facts = [sitemap_file(SM)] + [
        entry(SM, f"{HOST}/p{i}", lastmod=f"2026-11-28T{i:02d}:00:00+01:00") for i in range(12)
    ]
    assert [f.url for f in hits(facts, "SM009")] == [SM]


def test_sm009_near_miss_nine_entries_or_less_than_90_percent() -> None:
    assert hits(stamped(9, 9), "SM009") == []
    assert hits(stamped(10, 8), "SM009") == []


# --- SM012 sitemap-url-not-indexable --------------------------------------------------------------


def test_sm012_noindex_canonical_elsewhere_and_robots() -> None:
    cart, variant, private = f"{HOST}/cart/", f"{HOST}/de/?ref=nav", f"{HOST}/private/"
    facts = [
        sitemap_file(SM),
        entry(SM, cart),
        entry(SM, variant),
        entry(SM, private),
        page(cart, noindex="header"),
        page(variant, canonicals=[canonical(DE)]),
        TargetStatus(private, not_examined="robots"),
    ]
    found = {f.target: f for f in hits(facts, "SM012")}
    assert sorted(found) == [cart, variant, private]
    assert fields(found[cart]) == ("SM012", SM, cart, "", "sitemap")
    assert (found[cart].name, found[cart].severity) == ("sitemap-url-not-indexable", "warning")
    assert "noindex" in found[cart].message and "X-Robots-Tag" in found[cart].message
    assert (
        f"canonicalises to {DE}" in found[variant].message and f"list {DE} instead" in found[variant].message
    )
    assert "disallowed by https://ex.com/robots.txt" in found[private].message


def test_sm012_conflicting_canonicals_none_of_them_itself() -> None:
    facts = [sitemap_file(SM), entry(SM, FR), page(FR, canonicals=[canonical(EN), canonical(DE, "header")])]
    (finding,) = hits(facts, "SM012")
    assert fields(finding) == ("SM012", SM, FR, "", "sitemap")
    assert "2 conflicting canonicals" in finding.message


def test_sm012_near_miss_indexable_and_failing_entries() -> None:
    facts = [
        sitemap_file(SM),
        entry(SM, EN),
        entry(SM, DE),
        page(EN, canonicals=[canonical(EN)]),
        page(DE, status=404, noindex="meta"),  # SM001's
    ]
    assert hits(facts, "SM012") == []
    assert sm(facts) == [("SM001", SM, DE)]


# --- SM013 url-in-multiple-sitemaps ---------------------------------------------------------------


def test_sm013_one_row_per_listing() -> None:
    pages_sm, de_sm = f"{HOST}/sitemap-pages.xml", f"{HOST}/sitemap-de.xml"
    facts = [
        sitemap_file(pages_sm),
        sitemap_file(de_sm),
        entry(pages_sm, DE),
        entry(de_sm, DE),
        entry(de_sm, FR),
    ]
    found = hits(facts, "SM013")
    assert [fields(f) for f in found] == [
        ("SM013", de_sm, DE, "", "sitemap"),
        ("SM013", pages_sm, DE, "", "sitemap"),
    ]
    assert (found[0].name, found[0].severity) == ("url-in-multiple-sitemaps", "notice")
    assert f"also listed in {pages_sm}" in found[0].message


def test_sm013_listed_twice_in_one_file_one_row_per_entry() -> None:
    facts = [sitemap_file(SM), entry(SM, DE, line=12), entry(SM, DE, line=480), entry(SM, FR, line=3)]
    found = hits(facts, "SM013")
    assert [fields(f) for f in found] == [("SM013", SM, DE, "", "sitemap")] * 2
    assert [f.message for f in found] == [
        f"The sitemap lists {DE} (line {line}), which it lists twice (lines 12 and 480): list each URL once, "
        "in one sitemap only."
        for line in (12, 480)
    ]


def test_sm013_twice_in_one_file_and_once_in_another() -> None:
    de_sm = f"{HOST}/sitemap-de.xml"
    facts = [
        sitemap_file(SM), sitemap_file(de_sm), entry(SM, DE, line=2), entry(SM, DE, line=9), entry(de_sm, DE, line=4)
    ]
    assert [(f.url, f.message) for f in hits(facts, "SM013")] == [
        (de_sm, f"The sitemap lists {DE} (line 4), which is also listed in {SM}: list each URL once, in one "
                "sitemap only."),
        *((SM, f"The sitemap lists {DE} (line {line}), which it lists twice (lines 2 and 9) and which is also "
               f"listed in {de_sm}: list each URL once, in one sitemap only.") for line in (2, 9)),
    ]


def test_sm013_names_at_most_five_other_files() -> None:
    files = [f"{HOST}/sitemap-{i}.xml" for i in range(8)]
    found = hits([*map(sitemap_file, files), *(entry(f, DE, line=2) for f in files)], "SM013")
    assert len(found) == 8
    first, last = found[0], found[7]
    assert first.url == files[0] and f"also listed in {', '.join(files[1:6])} and 2 more:" in first.message
    assert last.url == files[7] and f"also listed in {', '.join(files[:5])} and 2 more:" in last.message


def test_sm013_near_miss_one_entry_read_twice() -> None:
    # The same entry from two exports of one crawl (hreflang-report) is one entry: (sitemap, loc, line).
    assert hits([sitemap_file(SM), entry(SM, DE, line=2), entry(SM, DE, line=2)], "SM013") == []


# --- a clean site ---------------------------------------------------------------------------------


def test_clean_site_has_no_finding_of_these_families() -> None:
    langs = {"en": EN, "de": DE, "fr": FR, "x-default": EN}
    pages = cluster(langs)
    for p in pages:
        p.canonicals = [canonical(p.url)]
    in_sitemap = [ann(v, u, "sitemap", sitemap=SM) for v, u in langs.items()]
    entries = [
        entry(SM, p.url, *in_sitemap, lastmod=f"2026-11-{20 + i:02d}", line=i + 2)
        for i, p in enumerate(pages)
    ]
    facts = [robots(HOST, SM), sitemap_file(SM, via="robots", url_count=len(entries)), *entries, *pages]
    assert family_findings(facts, "canonical", "targets", "language", "sources", "sitemaps", "lastmod") == []


def test_sm002_sitemaps_named_by_robots_count_for_the_host() -> None:
    cdn = "https://cdn.ex.com/ex.xml"
    facts = [robots(HOST, cdn), sitemap_file(cdn, via="robots"), entry(cdn, EN), page(EN), page(FR)]
    assert [(f.url, f.check) for f in hits(facts, "SM002")] == [(FR, "SM002")]
    assert cdn in hits(facts, "SM002")[0].message


def test_sm002_near_miss_truncated_sitemap() -> None:
    assert hits(site_with_sitemap(page(FR), truncated=True, size=52_428_800), "SM002") == []
    # Past 50,000 URLs the rest is not read either: FR may be listed there.
    assert hits(site_with_sitemap(page(FR), url_count=50_001), "SM002") == []


def test_sm006_near_miss_sitemap_cross_submitted_by_another_host() -> None:
    cdn = "https://cdn.ex.com/ex.xml"
    facts = [robots(HOST, cdn), robots("https://cdn.ex.com"), sitemap_file(cdn, via="robots"), entry(cdn, EN)]
    assert hits(facts, "SM006") == []


def test_sm013_a_url_listed_twice_in_a_minified_sitemap_is_two_rows() -> None:
    body = urlset_bytes(f"<url><loc>{EN}</loc></url>", f"<url><loc>{DE}</loc></url>", f"<url><loc>{EN}</loc></url>")
    facts = list(read_sitemap(url=SM, body=body.replace(b"\n", b""), status=200, via="robots"))
    assert {fact.line for fact in facts if hasattr(fact, "loc")} == {1}, "minified: every entry on line 1"
    found = hits(facts, "SM013")
    assert [(f.url, f.target) for f in found] == [(SM, EN), (SM, EN)]
    assert sorted(f.message.split(", which", 1)[0].rsplit(" ", 1)[-1] for f in found) == ["1", "3"]
    assert all("it lists twice (entries 1 and 3)" in f.message for f in found)
