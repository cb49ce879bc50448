"""HL001 to HL007: each annotation's value, any source, wherever it is written."""

from __future__ import annotations

import pytest

from qivrora_spider.extract.hreflang_values import check_hreflang

from .builders import IgnoredAnnotation, ann, cluster, entry, hits, page, run

EN, DE, XD = "https://ex.com/en/", "https://ex.com/de/", "https://ex.com/"
OTHER = "https://ex.com/other/"
SITEMAP = "https://ex.com/sitemap.xml"


def site(*extra):
    """A clean cluster with x-default; `extra` annotations are added to the `en` page."""
    pages = cluster({"en": EN, "de": DE, "x-default": XD})
    pages[0].annotations.extend(extra)
    return pages


def value_findings(facts):
    return [f for f in run(facts) if f.check.startswith("HL0")]


@pytest.mark.parametrize(
    "value, check_id, severity",
    [
        ("fre", "HL001", "error"),
        ("jp", "HL001", "error"),
        ("xx", "HL001", "error"),
        ("en-UK", "HL002", "error"),
        ("es-419", "HL002", "error"),
        ("en-EU", "HL002", "error"),
        ("US", "HL003", "error"),
        ("CH", "HL003", "error"),
        ("fr_FR", "HL004", "error"),
        ("US-en", "HL005", "error"),
        ("zh-Hanz", "HL005", "error"),
        ("", "HL005", "error"),
        (" en", "HL005", "error"),
        ("en-GB-oxendict", "HL005", "error"),
        ("EN-us", "HL006", "notice"),
        ("iw", "HL007", "warning"),
        ("sh", "HL007", "warning"),
    ],
)
def test_bad_value_is_one_finding_of_its_check(value, check_id, severity):
    found = value_findings(site(ann(value, OTHER, line=9)))
    assert len(found) == 1
    finding = found[0]
    assert (finding.check, finding.severity) == (check_id, severity)
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, OTHER, value, "html")
    assert finding.message == check_hreflang(value).message
    assert finding.cluster  # the en page is in a cluster


@pytest.mark.parametrize("value", ["zh-Hant-TW", "zh-Hans", "sr-Latn", "x-default", "en-GB", "de", "pt-BR"])
def test_valid_values_are_not_reported(value):
    assert value_findings(site(ann(value, OTHER))) == []


def test_valid_script_and_region_cluster_is_clean():
    pages = cluster(
        {
            "zh-Hant-TW": "https://ex.com/tw/",
            "zh-Hans": "https://ex.com/cn/",
            "sr-Latn": "https://ex.com/sr/",
            "x-default": XD,
        }
    )
    mine = [f for f in run(pages) if f.check[:3] in ("HL0", "HL1", "HL2")]
    assert mine == []


def test_sitemap_value_names_the_sitemap_file():
    facts = [*site(), entry(SITEMAP, EN, ann("en_GB", EN, "sitemap"), ann("de", DE, "sitemap"))]
    (finding,) = hits(facts, "HL004")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, EN, "en_GB", "sitemap")
    assert SITEMAP in finding.message
    assert "`en-GB`" in finding.message


def test_header_value_is_judged():
    (finding,) = hits(site(ann("gr", OTHER, "header")), "HL001")
    assert (finding.url, finding.source, finding.hreflang) == (EN, "header", "gr")
    assert "`el`" in finding.message


def test_value_is_judged_outside_head_and_with_a_bad_href():
    facts = site(
        ann("fr_FR", "/fr/", base=EN, in_head=False, head_closed_by="img", head_closed_line=4, line=9),
        ann("it_IT", ""),
    )
    found = {f.hreflang: f for f in hits(facts, "HL004")}
    assert found["fr_FR"].target == "https://ex.com/fr/"  # normalised where resolvable
    assert found["it_IT"].target == ""  # the href as written otherwise


def test_relative_href_without_resolved_url_is_resolved_against_the_page():
    (finding,) = hits(site(ann("es_ES", "../es/")), "HL004")
    assert finding.target == "https://ex.com/es/"


def test_one_finding_per_annotation():
    facts = site(ann("en-UK", "https://ex.com/uk/"), ann("en-UK", "https://ex.com/gb/"))
    found = hits(facts, "HL002")
    assert sorted(f.target for f in found) == ["https://ex.com/gb/", "https://ex.com/uk/"]


def test_ignored_elements_are_not_judged_here():
    pages = site()
    pages[0].ignored.append(
        IgnoredAnnotation(
            "html", "link", "misspelt attribute `hreflag`", {"hreflag": "fr_FR", "href": OTHER}, 8
        )
    )
    assert value_findings(pages) == []


def test_value_of_an_unfetched_sitemap_page_is_judged():
    facts = [entry(SITEMAP, "https://ex.com/jp/", ann("jp", "https://ex.com/jp/", "sitemap"))]
    (finding,) = hits(facts, "HL001")
    assert (finding.url, finding.source) == ("https://ex.com/jp/", "sitemap")


def test_disabled_value_check_is_silent():
    assert [f for f in run(site(ann("fr_FR", OTHER)), disable=["HL004"]) if f.check == "HL004"] == []


def test_language_and_x_default_on_one_url_are_valid_values():
    assert value_findings([page(EN, ann("en", EN), ann("x-default", EN))]) == []
