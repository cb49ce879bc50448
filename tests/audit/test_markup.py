"""HL101 to HL107 and HL112: each source of one page, as written."""

from __future__ import annotations

import pytest

from .builders import IgnoredAnnotation, SitemapEntry, TargetStatus, ann, cluster, entry, hits, page, run

EN, DE, FR, XD = "https://ex.com/en/", "https://ex.com/de/", "https://ex.com/fr/", "https://ex.com/"
AT = "https://ex.com/de-at/"
SITEMAP = "https://ex.com/sitemap.xml"
SITEMAP2 = "https://ex.com/sitemap-2.xml"
LANGS = {"en": EN, "de": DE, "x-default": XD}


def site(*extra, source="html"):
    """A clean cluster; `extra` annotations are added to the `en` page."""
    pages = cluster(LANGS, source=source)
    pages[0].annotations.extend(extra)
    return pages


def sitemap_site():
    """The same cluster declared only in a sitemap; the pages carry no annotations."""
    links = [ann(value, url, "sitemap") for value, url in LANGS.items()]
    entries = [
        entry(SITEMAP, url, *[ann(a.hreflang, a.href, "sitemap") for a in links]) for url in LANGS.values()
    ]
    return [page(url) for url in LANGS.values()] + entries


def mine(facts):
    return [f for f in run(facts) if f.check[:3] in ("HL0", "HL1", "HL2")]


# --- HL101 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("href", ["/es/", "../es/", "../es/./"])
def test_relative_href(href):
    (finding,) = hits(site(ann("es", href, line=11)), "HL101")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (
        EN,
        "https://ex.com/es/",
        "es",
        "html",
    )
    assert finding.severity == "error"
    assert finding.cluster
    assert f"`{href}`" in finding.message and "relative" in finding.message
    assert "`https://ex.com/es/`" in finding.message and "line 11" in finding.message


def test_relative_href_resolved_by_the_crawl():
    (finding,) = hits(site(ann("es", "/es/", base=EN)), "HL101")
    assert finding.target == "https://ex.com/es/"


def test_relative_href_in_sitemap():
    facts = [*site(), entry(SITEMAP, EN, ann("es", "/es/", "sitemap"))]
    (finding,) = hits(facts, "HL101")
    assert (finding.url, finding.source) == (EN, "sitemap")
    assert SITEMAP in finding.message


def test_absolute_href_is_not_relative():
    assert hits(site(), "HL101") == []


# --- HL102 -------------------------------------------------------------------------------------


def test_protocol_relative_href_is_reported_and_kept():
    pages = cluster(LANGS)
    for p in pages:
        p.annotations = [
            ann(a.hreflang, "//ex.com/de/", base=p.url) if a.url == DE else a for a in p.annotations
        ]
    found = mine(pages)
    assert {f.check for f in found} == {"HL102"}
    finding = next(f for f in found if f.url == EN)
    assert (finding.target, finding.hreflang, finding.source, finding.severity) == (
        DE,
        "de",
        "html",
        "warning",
    )
    assert finding.cluster
    assert "`//ex.com/de/`" in finding.message and f"`{DE}`" in finding.message
    assert len(found) == 3  # one per page that writes it


def test_absolute_href_is_not_protocol_relative():
    assert hits(site(ann("es", "https://ex.com/es/")), "HL102") == []


# --- HL103 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "href, why",
    [
        ("", "empty"),
        ("javascript:void(0)", "not http or https"),
        ("https://ex.com/de/ x", "whitespace"),
        ("ftp://ex.com/es/", "not http or https"),
    ],
)
def test_invalid_href(href, why):
    (finding,) = hits(site(ann("es", href)), "HL103")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, href, "es", "html")
    assert why in finding.message
    assert finding.severity == "error" and finding.cluster


def test_valid_href_is_not_invalid():
    assert hits(site(ann("es", "https://ex.com/es/?a=1")), "HL103") == []


# --- HL104 -------------------------------------------------------------------------------------


def test_rel_alternative():
    pages = site()
    attrs = {"rel": "alternative", "hreflang": "fr", "href": FR}
    pages[0].ignored.append(
        IgnoredAnnotation("html", "link", 'rel="alternative" is not rel="alternate"', attrs, 7)
    )
    (finding,) = hits(pages, "HL104")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, FR, "fr", "html")
    assert finding.severity == "error" and finding.cluster
    assert "line 7" in finding.message and 'rel="alternative"' in finding.message
    assert f'`<link rel="alternate" hreflang="fr" href="{FR}">`' in finding.message


def test_misspelt_attribute_names_the_value_and_resolves_the_href():
    pages = site()
    attrs = {"rel": "alternate", "hreflag": "fr", "href": "/fr/"}
    pages[0].ignored.append(IgnoredAnnotation("html", "link", "misspelt attribute `hreflag`", attrs, 8))
    (finding,) = hits(pages, "HL104")
    assert (finding.target, finding.hreflang) == (FR, "fr")
    assert "hreflag" in finding.message


def test_hreflang_on_anchor_and_missing_href():
    pages = site()
    pages[0].ignored += [
        IgnoredAnnotation(
            "html", "a", "hreflang on <a> is ignored by search engines", {"href": FR, "hreflang": "fr"}, 40
        ),
        IgnoredAnnotation("html", "link", "missing href", {"rel": "alternate", "hreflang": "it"}, 9),
    ]
    found = {f.hreflang: f for f in hits(pages, "HL104")}
    assert found["fr"].target == FR and "<a" in found["fr"].message
    assert found["it"].target == "" and "missing href" in found["it"].message


def test_incomplete_annotation_in_sitemap_entry():
    ignored = IgnoredAnnotation(
        "sitemap", "xhtml:link", "missing href", {"rel": "alternate", "hreflang": "fr"}, 12
    )
    facts = [*site(), SitemapEntry(sitemap=SITEMAP, loc=EN, url=EN, ignored=[ignored])]
    (finding,) = hits(facts, "HL104")
    assert (finding.url, finding.source, finding.hreflang) == (EN, "sitemap", "fr")
    assert SITEMAP in finding.message


def test_complete_annotations_are_not_incomplete():
    assert hits(site(), "HL104") == []


# --- HL105 -------------------------------------------------------------------------------------


def test_outside_head_names_the_element_that_ended_the_head():
    late = ann("fr", FR, line=30, in_head=False, head_closed_by="img", head_closed_line=12)
    (finding,) = hits(site(late), "HL105")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, FR, "fr", "html")
    assert finding.severity == "error" and finding.cluster
    assert "`<img>` at line 12 ended the <head> early" in finding.message
    assert "line 30" in finding.message
    assert "move the `<link>` into <head> before it" in finding.message


def test_outside_head_after_stray_text_and_in_body():
    facts = site(
        ann("fr", FR, line=30, in_head=False, head_closed_by="#text", head_closed_line=3),
        ann("it", "https://ex.com/it/", line=50, in_head=False, head_closed_by="body", head_closed_line=20),
    )
    found = {f.hreflang: f.message for f in hits(facts, "HL105")}
    assert "stray text at line 3 ended the <head> early" in found["fr"]
    assert "inside <body>" in found["it"]


def test_outside_head_annotation_is_left_out_of_the_graph():
    pages = cluster(LANGS)
    de_page = next(p for p in pages if p.url == DE)
    back = next(a for a in de_page.annotations if a.url == EN)
    back.in_head, back.head_closed_by, back.head_closed_line = False, "div", 5
    (finding,) = hits(pages, "HL201")
    assert (finding.url, finding.target) == (EN, DE)
    assert "outside <head>" in finding.message


def test_annotations_in_head_are_not_outside_head():
    assert hits(site(), "HL105") == []


# --- HL106 -------------------------------------------------------------------------------------


def test_duplicate_language():
    (finding,) = hits(site(ann("De", AT, line=9)), "HL106")  # compared canonically
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, AT, "de", "html")
    assert finding.severity == "error" and finding.cluster
    assert f"`{DE}`" in finding.message and f"`{AT}`" in finding.message and "2 URLs" in finding.message


def test_duplicate_language_in_sitemap_across_entries_of_one_page():
    facts = [
        *sitemap_site(),
        entry(
            SITEMAP2, EN, *[ann(v, u, "sitemap") for v, u in {"en": EN, "de": AT, "x-default": XD}.items()]
        ),
    ]
    (finding,) = hits(facts, "HL106")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, AT, "de", "sitemap")


def test_same_annotation_in_html_and_sitemap_is_neither_duplicate_language_nor_annotation():
    facts = [*site(), entry(SITEMAP, EN, *[ann(v, u, "sitemap") for v, u in LANGS.items()])]
    assert hits(facts, "HL106") == [] and hits(facts, "HL112") == []


def test_different_urls_in_different_sources_are_not_duplicate_language():
    facts = [*site(), entry(SITEMAP, EN, ann("de", AT, "sitemap"))]
    assert hits(facts, "HL106") == []


def test_x_default_twice_is_not_duplicate_language():
    found = run(site(ann("x-default", EN)))
    assert [f.check for f in found if f.check in ("HL106", "HL107")] == ["HL107"]


# --- HL107 -------------------------------------------------------------------------------------


def test_multiple_x_default_on_one_page():
    (finding,) = hits(site(ann("x-default", EN)), "HL107")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, EN, "x-default", "html")
    assert f"`{XD}`" in finding.message and f"`{EN}`" in finding.message
    assert finding.cluster


def test_pages_of_one_cluster_declare_different_x_defaults():
    pages = cluster(LANGS)
    de_page = next(p for p in pages if p.url == DE)
    de_page.annotations = [ann("en", EN), ann("de", DE), ann("x-default", EN)]
    found = hits(pages, "HL107")
    assert len(found) == 1
    (finding,) = found
    # Declaring pages sorted: https://ex.com/ (XD) first; it declares XD, so the other is EN.
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (XD, EN, "x-default", "")
    assert finding.cluster
    assert "2 different x-default URLs" in finding.message


def test_one_page_with_an_extra_x_default_is_not_a_cluster_disagreement():
    found = hits(site(ann("x-default", FR)), "HL107")
    assert [(f.url, f.source) for f in found] == [(EN, "html")]


def test_pages_that_agree_on_x_default_are_fine():
    assert hits(site(), "HL107") == []


def test_x_default_that_redirects_is_not_a_second_x_default():
    pages = cluster(LANGS)
    de_page = next(p for p in pages if p.url == DE)
    de_page.annotations = [ann("en", EN), ann("de", DE), ann("x-default", "http://ex.com/")]
    facts = [*pages, TargetStatus(url="http://ex.com/", method="HEAD", status=301, location=XD)]
    assert hits(facts, "HL107") == []


def test_x_default_that_answers_404_takes_no_part_in_the_cluster_count():
    gone = "https://ex.com/gone/"
    pages = cluster(LANGS)
    de_page = next(p for p in pages if p.url == DE)
    de_page.annotations = [ann("en", EN), ann("de", DE), ann("x-default", gone)]
    facts = [*pages, TargetStatus(url=gone, method="HEAD", status=404)]
    assert hits(facts, "HL107") == []


def test_a_page_naming_every_x_default_of_a_disagreeing_cluster():
    """One page declares both x-default URLs that two other pages disagree on: one cluster-level
    finding, whose target is a URL other than the first."""
    pages = cluster(LANGS)
    for p in pages:
        claims = {XD: [XD, EN], EN: [EN], DE: [XD]}[p.url]
        p.annotations = [ann("en", EN), ann("de", DE), *(ann("x-default", url) for url in claims)]
    cluster_level = [f for f in hits(pages, "HL107") if not f.source]
    assert [(f.url, f.target) for f in cluster_level] == [(XD, EN)]


# --- HL112 -------------------------------------------------------------------------------------


def test_duplicate_annotation():
    facts = site(ann("en-US", "https://ex.com/en-us/", line=5), ann("EN-us", "https://ex.com/en-us/", line=9))
    (finding,) = hits(facts, "HL112")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (
        EN,
        "https://ex.com/en-us/",
        "EN-us",
        "html",
    )
    assert finding.severity == "notice" and finding.cluster
    assert "`en-US`" in finding.message and "`EN-us`" in finding.message and "lines 5, 9" in finding.message


def test_duplicate_annotation_in_one_sitemap_entry():
    facts = [*site(), entry(SITEMAP, EN, ann("de", DE, "sitemap"), ann("de", DE, "sitemap"))]
    (finding,) = hits(facts, "HL112")
    assert (finding.url, finding.source, finding.target) == (EN, "sitemap", DE)


def test_same_entry_in_two_sitemaps_is_not_duplicate_annotation():
    facts = [*sitemap_site(), entry(SITEMAP2, EN, *[ann(v, u, "sitemap") for v, u in LANGS.items()])]
    assert hits(facts, "HL112") == [] and hits(facts, "HL106") == []


def test_same_value_different_urls_is_not_duplicate_annotation():
    assert hits(site(ann("de", AT)), "HL112") == []


# --- whole sites -------------------------------------------------------------------------------


def test_complete_cluster_is_clean():
    assert mine(cluster(LANGS)) == []


def test_sitemap_only_cluster_is_clean():
    assert mine(sitemap_site()) == []


def test_header_only_cluster_is_clean():
    assert mine(cluster(LANGS, source="header")) == []


def test_a_language_switcher_anchor_beside_a_real_annotation_is_not_reported():
    pages = site()
    switcher = IgnoredAnnotation(
        "html", "a", "hreflang on <a> is ignored by search engines", {"href": DE, "hreflang": "de"}, 40
    )
    pages[0].ignored.append(switcher)
    assert hits(pages, "HL104") == [], "the page annotates DE with a <link>: the <a hreflang> is harmless"


def test_a_script_that_adds_a_second_url_for_a_served_value_is_hl106():
    """A rendered page has one <head>: what a script writes joins what was served."""
    pages = cluster(LANGS)
    en = next(p for p in pages if p.url == EN)
    en.annotations.append(ann("de", FR, "rendered"))
    (finding,) = hits(pages, "HL106")
    assert (finding.url, finding.hreflang, finding.source) == (EN, "de", "html")
    only_rendered = [page(DE, ann("de", DE, "rendered"), ann("de", FR, "rendered"))]
    assert [f.source for f in hits(only_rendered, "HL106")] == ["rendered"]
