"""HL3xx: canonical conflicts."""

from __future__ import annotations

from tests.audit.builders import ann, canonical, cluster, entry, family_findings, hits, page, run

EN, DE, FR = "https://ex.com/en/", "https://ex.com/de/", "https://ex.com/fr/"
DE_SORTED = "https://ex.com/de/?sort=desc"
SITEMAP = "https://ex.com/sitemap.xml"


def checks(facts: list) -> list[tuple[str, str, str]]:
    return sorted((f.check, f.url, f.target) for f in run(facts) if f.check.startswith("HL3"))


# --- HL301 alternate-not-canonical -------------------------------------------------------------


def parameterised_alternate() -> list:
    """en lists the `?sort=desc` variant of the German page, which canonicalises to /de/."""
    links = [ann("en", EN), ann("de", DE_SORTED)]
    return [
        page(EN, *links, html_lang="en"),
        page(DE_SORTED, *links, html_lang="de", canonicals=[canonical(DE)]),
    ]


def test_hl301_parameterised_alternate() -> None:
    (finding,) = hits(parameterised_alternate(), "HL301")
    assert (finding.check, finding.name, finding.severity) == ("HL301", "alternate-not-canonical", "error")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, DE_SORTED, "de", "html")
    assert DE in finding.message and "annotate https://ex.com/de/ instead" in finding.message
    assert finding.cluster


def test_hl301_and_hl302_each_where_it_is_fixed() -> None:
    # The variant's own self-reference is HL302 at the variant, not also an HL301 there.
    assert checks(parameterised_alternate()) == [
        ("HL301", EN, DE_SORTED),
        ("HL302", DE_SORTED, DE),
    ]


def test_hl301_one_row_per_pair_whatever_the_sources() -> None:
    links = [ann("en", EN), ann("de", DE_SORTED)]
    in_sitemap = [ann("en", EN, "sitemap", sitemap=SITEMAP), ann("de", DE_SORTED, "sitemap", sitemap=SITEMAP)]
    facts = [
        page(EN, *links, html_lang="en"),
        entry(SITEMAP, EN, *in_sitemap),
        page(DE_SORTED, html_lang="de", canonicals=[canonical(DE)]),
    ]
    (finding,) = hits(facts, "HL301")
    assert (finding.url, finding.target, finding.source) == (EN, DE_SORTED, "html")
    assert f"the HTML and sitemap {SITEMAP}" in finding.message


def test_hl301_sitemap_annotation_names_the_sitemap() -> None:
    facts = [
        entry(
            SITEMAP,
            EN,
            ann("en", EN, "sitemap", sitemap=SITEMAP),
            ann("de", DE_SORTED, "sitemap", sitemap=SITEMAP),
        ),
        page(EN, html_lang="en"),
        page(DE_SORTED, html_lang="de", canonicals=[canonical(DE, "header")]),
    ]
    (finding,) = hits(facts, "HL301")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, DE_SORTED, "de", "sitemap")
    assert SITEMAP in finding.message


def test_hl301_says_remove_when_the_canonical_is_annotated_too() -> None:
    links = [ann("en", EN), ann("de", DE), ann("de", DE_SORTED)]
    facts = [page(EN, *links), page(DE, *links[:2]), page(DE_SORTED, canonicals=[canonical(DE)])]
    (finding,) = hits(facts, "HL301")
    assert "remove it" in finding.message and DE in finding.message


def test_hl301_near_miss_self_canonical_alternates() -> None:
    facts = cluster({"en": EN, "de": DE})
    for p in facts:
        p.canonicals = [canonical(p.url), canonical(p.url, "header")]
    assert checks(facts) == []


# --- HL302 page-not-canonical --------------------------------------------------------------------


def test_hl302_annotated_page_canonicalises_elsewhere() -> None:
    other = "https://ex.com/en/index.html"
    facts = cluster({"en": EN, "de": DE})
    facts[0].canonicals = [canonical(other, "header")]
    found = hits(facts, "HL302")
    assert [(f.url, f.target, f.hreflang, f.source) for f in found] == [(EN, other, "", "header")]
    assert "HTTP Link header" in found[0].message and other in found[0].message
    # de annotates en, which canonicalises elsewhere: fixed at de, so an HL301 there.
    assert checks(facts) == [("HL301", DE, EN), ("HL302", EN, other)]


def test_hl302_near_miss_canonical_page_without_annotations() -> None:
    # A plain page that canonicalises elsewhere carries no annotations: nothing of HL3xx to say.
    assert checks([page(EN, canonicals=[canonical(DE)]), page(DE)]) == []


def test_hl302_near_miss_non_200_page() -> None:
    facts = [page(EN, ann("en", EN), status=404, canonicals=[canonical(DE)])]
    assert hits(facts, "HL302") == []


# --- HL303 cross-language-canonical -------------------------------------------------------------


def test_hl303_all_languages_canonicalise_to_english() -> None:
    facts = cluster({"en": EN, "de": DE, "fr": FR})
    facts[1].canonicals = [canonical(EN)]
    facts[2].canonicals = [canonical(EN)]
    found = hits(facts, "HL303")
    assert [(f.url, f.target, f.hreflang, f.source) for f in found] == [
        (DE, EN, "de", "html"),
        (FR, EN, "fr", "html"),
    ]
    assert (
        "`de`" in found[0].message
        and "`en`" in found[0].message
        and "point to the page itself" in found[0].message
    )
    # Reported once, where it is fixed: no HL302 at de and fr, no HL301 "annotate en instead".
    assert checks(facts) == [("HL303", DE, EN), ("HL303", FR, EN)]


def test_hl303_regional_versions_count() -> None:
    gb, us = "https://ex.com/en-gb/", "https://ex.com/en-us/"
    facts = cluster({"en-GB": gb, "en-US": us})
    facts[0].canonicals = [canonical(us)]
    (finding,) = hits(facts, "HL303")
    assert (finding.url, finding.target, finding.hreflang) == (gb, us, "en-GB")


def test_hl303_near_miss_x_default_page_is_no_language() -> None:
    root = "https://ex.com/"
    facts = cluster({"en": EN, "de": DE, "x-default": root})
    facts[-1].canonicals = [canonical(EN)]
    assert hits(facts, "HL303") == []
    assert ("HL302", root, EN) in checks(facts)


def test_hl303_near_miss_canonical_outside_the_cluster() -> None:
    facts = cluster({"en": EN, "de": DE}) + [page("https://ex.com/other/")]
    facts[1].canonicals = [canonical("https://ex.com/other/")]
    assert hits(facts, "HL303") == []
    assert ("HL302", DE, "https://ex.com/other/") in checks(facts)


# --- HL304 conflicting-canonicals ---------------------------------------------------------------


def test_hl304_html_and_header_disagree() -> None:
    facts = cluster({"en": EN, "de": DE})
    facts[0].canonicals = [canonical(EN), canonical("https://ex.com/en", "header")]
    (finding,) = hits(facts, "HL304")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (
        EN,
        "https://ex.com/en",
        "",
        "html",
    )
    assert "2 different canonicals" in finding.message and "HTTP Link header" in finding.message
    # Conflicting canonicals may all be ignored: no check takes either for granted.
    assert checks(facts) == [("HL304", EN, "https://ex.com/en")]


def test_hl304_unresolvable_canonical_counts() -> None:
    facts = cluster({"en": EN, "de": DE})
    facts[0].canonicals = [canonical(EN), canonical("javascript:void(0)")]
    (finding,) = hits(facts, "HL304")
    assert finding.url == EN and "javascript:void(0)" in finding.message


def test_hl304_near_miss_same_canonical_twice() -> None:
    facts = cluster({"en": EN, "de": DE})
    facts[0].canonicals = [canonical(EN), canonical(EN, "header")]
    assert hits(facts, "HL304") == []


def test_hl304_near_miss_page_outside_clusters() -> None:
    assert hits([page(EN, canonicals=[canonical(EN), canonical(DE)])], "HL304") == []


def test_clean_cluster_has_no_canonical_finding() -> None:
    facts = cluster({"en": EN, "de": DE, "fr": FR, "x-default": EN})
    for p in facts:
        p.canonicals = [canonical(p.url)]
    assert family_findings(facts, "canonical") == []
