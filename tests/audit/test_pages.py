"""HL108 to HL111: one page's annotations, all sources together."""

from __future__ import annotations

from .builders import TargetStatus, ann, cluster, entry, hits, page, run

EN, DE, XD = "https://ex.com/en/", "https://ex.com/de/", "https://ex.com/"
SITEMAP = "https://ex.com/sitemap.xml"
LANGS = {"en": EN, "de": DE, "x-default": XD}


def site():
    return cluster(LANGS)


def at(pages, url):
    return next(p for p in pages if p.url == url)


def mine(facts):
    return [f for f in run(facts) if f.check[:3] in ("HL0", "HL1", "HL2")]


# --- HL108 -------------------------------------------------------------------------------------


def test_missing_self_reference():
    pages = site()
    at(pages, EN).annotations = [a for a in at(pages, EN).annotations if a.url != EN]
    found = mine(pages)
    assert [f.check for f in found] == ["HL108"]  # and no HL201, HL204 or HL205 as consequences
    (finding,) = found
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, "", "", "html")
    assert finding.severity == "error" and finding.cluster
    assert f'`<link rel="alternate" hreflang="en" href="{EN}">`' in finding.message


def test_self_reference_search_engines_ignore():
    pages = site()
    self_ref = next(a for a in at(pages, EN).annotations if a.url == EN)
    self_ref.in_head, self_ref.head_closed_by = False, "img"
    (finding,) = hits(pages, "HL108")
    assert (finding.url, finding.hreflang) == (EN, "en")
    assert "outside <head>" in finding.message


def test_self_reference_in_another_source_counts():
    pages = site()
    at(pages, EN).annotations = [a for a in at(pages, EN).annotations if a.url != EN]
    facts = [*pages, entry(SITEMAP, EN, ann("en", EN, "sitemap"))]
    assert hits(facts, "HL108") == []


def test_missing_self_reference_in_sitemap_only_page_names_the_sitemap():
    facts = [page(EN), entry(SITEMAP, EN, ann("de", DE, "sitemap"), ann("x-default", XD, "sitemap"))]
    (finding,) = hits(facts, "HL108")
    assert finding.source == "sitemap" and "xhtml:link" in finding.message


def test_no_self_reference_on_a_page_that_does_not_answer_200_is_not_hl108():
    pages = site()
    at(pages, EN).annotations = [a for a in at(pages, EN).annotations if a.url != EN]
    at(pages, EN).status = 404
    assert hits(pages, "HL108") == []


def test_page_whose_annotations_are_all_ignored_is_not_hl108():
    pages = site()
    for a in at(pages, EN).annotations:
        a.in_head, a.head_closed_by, a.head_closed_line = False, "img", 3
    assert hits(pages, "HL108") == []
    assert len(hits(pages, "HL105")) == 3


# --- HL109 -------------------------------------------------------------------------------------


def test_missing_x_default():
    pages = cluster({"en": EN, "de": DE})
    found = mine(pages)
    assert [f.check for f in found] == ["HL109"]
    (finding,) = found
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (DE, "", "", "")  # first sorted
    assert finding.severity == "notice"
    assert finding.cluster and finding.cluster == next(f.cluster for f in run(pages) if f.check == "HL109")
    assert "x-default" in finding.message and "2 URLs" in finding.message


def test_one_finding_per_cluster():
    pages = cluster({"en": EN, "de": DE}) + cluster(
        {"en": "https://two.com/en/", "fr": "https://two.com/fr/"}
    )
    found = hits(pages, "HL109")
    assert [f.url for f in found] == [DE, "https://two.com/en/"]
    assert len({f.cluster for f in found}) == 2


def test_cluster_with_x_default_is_fine():
    assert hits(site(), "HL109") == []


# --- HL110 -------------------------------------------------------------------------------------


def test_self_reference_to_http_variant():
    pages = site()
    for p in pages:
        p.annotations = [
            ann("en", "http://ex.com/en/") if a.url == EN and p.url == EN else a for a in p.annotations
        ]
    found = mine(pages)
    assert [f.check for f in found] == ["HL110"]  # not HL108, and no HL201/HL204/HL205/HL206 cascade
    (finding,) = found
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (
        EN,
        "http://ex.com/en/",
        "en",
        "html",
    )
    assert finding.severity == "warning" and finding.cluster
    assert "`http://ex.com/en/`" in finding.message and f"change the href to `{EN}`" in finding.message


def test_self_reference_to_slashless_variant_that_redirects():
    pages = site()
    own = at(pages, EN)
    own.annotations = [ann("en", "https://ex.com/en") if a.url == EN else a for a in own.annotations]
    facts = [*pages, TargetStatus(url="https://ex.com/en", method="HEAD", status=301, location=EN)]
    (finding,) = hits(facts, "HL110")
    assert finding.target == "https://ex.com/en"
    assert hits(facts, "HL108") == []


def test_self_reference_on_another_port_is_another_origin_not_a_variant():
    pages = site()
    own = at(pages, EN)
    own.annotations = [ann("en", "https://ex.com:8443/en/") if a.url == EN else a for a in own.annotations]
    assert hits(pages, "HL110") == []
    assert [f.url for f in hits(pages, "HL108")] == [EN]


def test_a_default_port_written_out_is_the_page_itself():
    pages = site()
    own = at(pages, EN)
    own.annotations = [ann("en", "https://ex.com:443/en/") if a.url == EN else a for a in own.annotations]
    assert mine(pages) == []


def test_exact_self_reference_is_not_a_variant():
    assert hits(site(), "HL110") == []


def test_other_page_is_not_a_variant():
    pages = site()
    at(pages, EN).annotations = [a for a in at(pages, EN).annotations if a.url != EN]
    assert hits(pages, "HL110") == [] and len(hits(pages, "HL108")) == 1


# --- HL111 -------------------------------------------------------------------------------------


def test_url_with_two_languages():
    pages = site()
    at(pages, EN).annotations.append(ann("fr", DE, line=14))
    (finding,) = hits(pages, "HL111")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, DE, "fr", "html")
    assert finding.severity == "warning" and finding.cluster
    assert "`de`" in finding.message and "`fr`" in finding.message and "2 languages" in finding.message


def test_x_default_and_a_language_on_one_url_are_fine_even_without_a_self_language():
    pages = site()
    at(pages, EN).annotations.append(ann("fr", XD))
    assert hits(pages, "HL111") == []


def test_language_and_x_default_on_one_url_are_fine():
    pages = cluster({"en": EN, "de": DE, "x-default": EN})
    assert hits(pages, "HL111") == []
    assert mine(pages) == []


def test_regions_of_one_language_on_one_url_are_fine():
    pages = cluster({"en-GB": EN, "en-IE": EN, "de": DE, "x-default": XD})
    assert hits(pages, "HL111") == []
    assert mine(pages) == []


def test_deprecated_code_and_its_replacement_are_one_language():
    pages = site()
    at(pages, EN).annotations += [ann("he", "https://ex.com/he/"), ann("iw", "https://ex.com/he/")]
    assert hits(pages, "HL111") == []


def test_two_languages_from_two_sources_are_judged_together():
    facts = [*site(), entry(SITEMAP, EN, ann("fr", DE, "sitemap"))]
    (finding,) = hits(facts, "HL111")
    assert (finding.target, finding.hreflang, finding.source) == (DE, "fr", "sitemap")
