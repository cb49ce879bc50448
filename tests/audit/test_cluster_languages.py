"""HL209 disputed-language and HL210 regional-without-generic: the languages a cluster gives its members."""

from __future__ import annotations

from tests.audit.builders import ann, cluster, hits, page

E = "https://ex.com"
EN, DE, X, FR = f"{E}/en/", f"{E}/de/", f"{E}/x/", f"{E}/fr/"


# --- HL209 disputed-language ---------------------------------------------------------------------------


def test_hl209_two_pages_give_one_url_two_languages() -> None:
    facts = [
        page(EN, ann("en", EN), ann("de", DE), ann("fr", X)),
        page(DE, ann("en", EN), ann("de", DE), ann("es", X)),
        page(X, html_lang="fr"),
    ]
    (finding,) = hits(facts, "HL209")
    assert (finding.url, finding.target, finding.hreflang, finding.severity) == (X, "", "", "error")
    assert finding.name == "disputed-language"
    assert f"`es` by `{DE}`" in finding.message and f"`fr` by `{EN}`" in finding.message
    assert finding.cluster


def test_hl209_self_reference_is_one_voice() -> None:
    # /x/ calls itself fr without linking back to /en/, which calls it es: HL201's pair, a dispute too.
    facts = [
        page(EN, ann("en", EN), ann("es", X)),
        page(X, ann("fr", X)),
    ]
    (finding,) = hits(facts, "HL209")
    assert finding.url == X and f"`{X}` (itself)" in finding.message


def test_hl209_not_where_hl202_names_the_only_disagreement() -> None:
    facts = [
        page(EN, ann("en", EN), ann("es", X)),
        page(X, ann("en", EN), ann("fr", X)),
    ]
    assert hits(facts, "HL209") == []
    assert [(f.url, f.target) for f in hits(facts, "HL202")] == [(EN, X)]


def test_hl209_regions_of_one_language_are_no_dispute() -> None:
    facts = [
        page(EN, ann("en-GB", EN), ann("en-US", X)),
        page(DE, ann("de", DE), ann("en-GB", X)),
        page(X, html_lang="en"),
    ]
    assert hits(facts, "HL209") == []


def test_hl209_x_default_is_no_dispute() -> None:
    facts = [
        page(EN, ann("en", EN), ann("x-default", X)),
        page(DE, ann("de", DE), ann("fr", X)),
        page(X),
    ]
    assert hits(facts, "HL209") == []


def test_hl209_scripts_differ() -> None:
    facts = [
        page(EN, ann("en", EN), ann("zh-Hant", X)),
        page(DE, ann("de", DE), ann("zh-Hans", X)),
        page(X),
    ]
    assert [f.url for f in hits(facts, "HL209")] == [X]


def test_hl209_one_page_naming_one_url_twice_is_hl111() -> None:
    facts = [page(EN, ann("en", EN), ann("fr", X), ann("es", X)), page(X)]
    assert hits(facts, "HL209") == []
    assert len(hits(facts, "HL111")) == 1


def test_hl209_clean_cluster() -> None:
    assert hits(cluster({"en": EN, "de": DE, "fr": FR, "x-default": EN}), "HL209") == []


# --- HL210 regional-without-generic --------------------------------------------------------------------

GB, US = f"{E}/en-gb/", f"{E}/en-us/"


def test_hl210_two_regions_without_the_language_or_x_default() -> None:
    facts = cluster({"en-GB": GB, "en-US": US, "de": DE})
    (finding,) = hits(facts, "HL210")
    assert (finding.url, finding.target, finding.hreflang, finding.severity) == (DE, "", "en", "notice")
    assert finding.name == "regional-without-generic"
    assert "`en-GB` and `en-US`" in finding.message


def test_hl210_one_row_per_language_with_scripts() -> None:
    tw, hk, at, ch = f"{E}/tw/", f"{E}/hk/", f"{E}/at/", f"{E}/ch/"
    facts = cluster({"zh-Hant-TW": tw, "zh-Hant-HK": hk, "de-AT": at, "de-CH": ch})
    assert sorted(f.hreflang for f in hits(facts, "HL210")) == ["de", "zh-Hant"]


def test_hl210_not_with_the_generic_or_x_default_whatever_they_answer() -> None:
    assert hits(cluster({"en-GB": GB, "en-US": US, "en": EN}), "HL210") == []
    facts = cluster({"en-GB": GB, "en-US": US, "x-default": f"{E}/"})
    facts = [p for p in facts if p.url != f"{E}/"] + [page(f"{E}/", status=404)]
    assert hits(facts, "HL210") == []


def test_hl210_not_for_one_region_or_regions_of_different_scripts() -> None:
    assert hits(cluster({"en-GB": GB, "de": DE}), "HL210") == []
    assert hits(cluster({"zh-Hant-TW": f"{E}/tw/", "zh-Hans-CN": f"{E}/cn/"}), "HL210") == []
