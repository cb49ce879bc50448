"""HL5xx: language signals."""

from __future__ import annotations

from tests.audit.builders import ann, cluster, entry, family_findings, hits, page

GB, DE = "https://ex.com/en-gb/", "https://ex.com/de/"
SITEMAP = "https://ex.com/sitemap.xml"


def pair(gb_lang: str | None = "en-GB", **gb_kw: object) -> list:
    links = [ann("en-GB", GB), ann("de", DE)]
    return [page(GB, *links, html_lang=gb_lang, **gb_kw), page(DE, *links, html_lang="de")]


# --- HL501 html-lang-mismatch ---------------------------------------------------------------------------


def test_hl501_html_lang_names_another_language() -> None:
    (finding,) = hits(pair("de"), "HL501")
    assert (finding.check, finding.name, finding.severity) == ("HL501", "html-lang-mismatch", "warning")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (GB, "", "en-GB", "html")
    assert '`<html lang="de">`' in finding.message and '<html lang="en-GB">' in finding.message


def test_hl501_content_language_when_no_html_lang() -> None:
    (finding,) = hits(pair(None, content_language="de"), "HL501")
    assert finding.url == GB and "Content-Language `de`" in finding.message
    # ...and the missing <html lang> is its own notice.
    assert [f.url for f in hits(pair(None, content_language="de"), "HL502")] == [GB]


def test_hl501_self_reference_in_the_sitemap() -> None:
    facts = [
        page(GB, html_lang="fr"),
        page(DE, html_lang="de"),
        entry(
            SITEMAP,
            GB,
            ann("en-GB", GB, "sitemap", sitemap=SITEMAP),
            ann("de", DE, "sitemap", sitemap=SITEMAP),
        ),
    ]
    (finding,) = hits(facts, "HL501")
    assert (finding.url, finding.hreflang, finding.source) == (GB, "en-GB", "sitemap")
    assert SITEMAP in finding.message


def test_hl501_self_reference_to_a_variant_of_the_url() -> None:
    # The page names itself without its trailing slash (HL110): that is still its self-reference.
    links = [ann("en-GB", GB.rstrip("/")), ann("de", DE)]
    (finding,) = hits([page(GB, *links, html_lang="de"), page(DE, *links, html_lang="de")], "HL501")
    assert (finding.url, finding.hreflang) == (GB, "en-GB")


def test_hl501_near_miss_other_region_of_the_same_language() -> None:
    assert hits(pair("en-US"), "HL501") == []
    assert hits(pair("EN_us"), "HL501") == []


def test_hl501_near_miss_content_language_lists_the_language() -> None:
    assert hits(pair(None, content_language="de, en"), "HL501") == []


def test_hl501_near_miss_x_default_self_reference() -> None:
    root = "https://ex.com/"
    links = [ann("x-default", root), ann("de", DE)]
    assert hits([page(root, *links, html_lang="en"), page(DE, *links, html_lang="de")], "HL501") == []


# --- HL502 html-lang-missing ------------------------------------------------------------------------------


def test_hl502_missing_html_lang_suggests_the_self_reference() -> None:
    (finding,) = hits(pair(None), "HL502")
    assert (finding.check, finding.name, finding.severity) == ("HL502", "html-lang-missing", "notice")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (GB, "", "", "html")
    assert '<html lang="en-GB">' in finding.message


def test_hl502_invalid_html_lang() -> None:
    (finding,) = hits(pair("english"), "HL502")
    assert finding.url == GB and '`<html lang="english">` is not a language tag' in finding.message
    (finding,) = hits(pair(""), "HL502")
    assert "does not state its language" in finding.message


def test_hl502_target_without_self_reference() -> None:
    facts = [page(GB, ann("en-GB", GB), ann("de", DE), html_lang="en-GB"), page(DE, html_lang=None)]
    (finding,) = hits(facts, "HL502")
    assert finding.url == DE and '<html lang="en">' in finding.message


def test_hl502_near_miss_outside_clusters_and_not_html() -> None:
    assert hits([page("https://ex.com/about/", html_lang=None)], "HL502") == []
    facts = pair()
    facts[1].is_html, facts[1].html_lang = False, None  # a PDF in the cluster has no <html>
    assert hits(facts, "HL502") == []


def test_near_miss_clean_cluster() -> None:
    facts = cluster({"en-GB": GB, "de": DE, "x-default": GB})
    assert family_findings(facts, "language") == []
