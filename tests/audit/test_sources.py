"""HL601: sources that disagree."""

from __future__ import annotations

from tests.audit.builders import ann, cluster, entry, family_findings, hits, page

EN, DE, FR = "https://ex.com/en/", "https://ex.com/de/", "https://ex.com/fr/"
DE_DE = "https://ex.com/de-de/"
SITEMAP = "https://ex.com/sitemap.xml"


def in_sitemap(value: str, href: str) -> object:
    return ann(value, href, "sitemap", sitemap=SITEMAP)


def test_hl601_same_value_different_urls() -> None:
    facts = [
        page(EN, ann("en", EN), ann("de", DE)),
        entry(SITEMAP, EN, in_sitemap("en", EN), in_sitemap("de", DE_DE)),
    ]
    (finding,) = hits(facts, "HL601")
    assert (finding.check, finding.name, finding.severity) == ("HL601", "sources-conflict", "error")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, DE_DE, "de", "sitemap")
    assert f"`de` is {DE_DE} in sitemap {SITEMAP} but {DE} in the HTML" in finding.message
    assert "same alternates" in finding.message


def test_hl601_one_source_omits_an_alternate() -> None:
    facts = [
        page(EN, ann("en", EN), ann("de", DE), ann("fr", FR)),
        entry(SITEMAP, EN, in_sitemap("en", EN), in_sitemap("de", DE)),
    ]
    (finding,) = hits(facts, "HL601")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, FR, "fr", "sitemap")
    assert f"`fr` ({FR}) is only in the HTML" in finding.message


def test_hl601_one_row_per_disagreeing_source_listing_the_differences() -> None:
    it, es = "https://ex.com/it/", "https://ex.com/es/"
    facts = [
        page(
            EN,
            ann("en", EN),
            ann("de", DE),
            ann("fr", FR),
            ann("it", it),
            ann("es", es),
            ann("en", EN, "header"),
            ann("de", DE, "header"),
        ),
        entry(
            SITEMAP,
            EN,
            in_sitemap("en", EN),
            in_sitemap("de", DE),
            in_sitemap("fr", FR),
            in_sitemap("it", it),
            in_sitemap("es", es),
        ),
    ]
    (finding,) = hits(facts, "HL601")
    assert (finding.source, finding.hreflang, finding.target) == ("header", "es", es)
    assert "the HTTP Link header" in finding.message and "; and 0 more" not in finding.message
    assert "`es`" in finding.message and "`fr`" in finding.message and "`it`" in finding.message


def test_hl601_more_than_three_differences_are_counted() -> None:
    others = {v: f"https://ex.com/{v}/" for v in ("de", "fr", "it", "es", "nl")}
    facts = [
        page(EN, ann("en", EN), *[ann(v, u) for v, u in others.items()]),
        entry(SITEMAP, EN, in_sitemap("en", EN)),
    ]
    (finding,) = hits(facts, "HL601")
    assert "; and 2 more" in finding.message


def test_hl601_near_miss_identical_annotations_in_html_and_sitemap() -> None:
    facts = [
        page(EN, ann("en", EN), ann("de", DE), ann("x-default", EN)),
        # Same annotations, other order and case: search engines read them as one.
        entry(
            SITEMAP,
            EN,
            in_sitemap("X-Default", EN),
            in_sitemap("De", DE),
            in_sitemap("en", "https://EX.com/en/"),
        ),
    ]
    assert hits(facts, "HL601") == []


def test_hl601_near_miss_page_annotated_only_in_the_sitemap() -> None:
    facts = [page(EN), entry(SITEMAP, EN, in_sitemap("en", EN), in_sitemap("de", DE))]
    assert hits(facts, "HL601") == []


def test_hl601_near_miss_unusable_annotations_are_not_compared() -> None:
    # The HTML annotation sits in <body>: HL105 says so; search engines see the sitemap's only.
    facts = [
        page(EN, ann("en", EN, in_head=False), ann("de", DE_DE, in_head=False)),
        entry(SITEMAP, EN, in_sitemap("en", EN), in_sitemap("de", DE)),
    ]
    assert hits(facts, "HL601") == []


def test_near_miss_clean_cluster_in_two_sources() -> None:
    langs = {"en": EN, "de": DE, "x-default": EN}
    facts = cluster(langs) + [
        entry(SITEMAP, url, *[in_sitemap(v, u) for v, u in langs.items()]) for url in (EN, DE)
    ]
    assert family_findings(facts, "sources") == []
