"""HL5xx: language signals."""

from __future__ import annotations

import itertools

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


# --- HL503 content-language-mismatch ---------------------------------------------------------------


XD = "https://ex.com/"


_DIGESTS = itertools.count(1)


def read_as(language: str | None, share: float = 0.97, letters: int = 1200, *chrome: str) -> dict:
    """Blocks of a page's own text: `share` of `letters` in `language`, the rest unclear; then the
    `chrome` blocks (`digest:language:letters`) its template repeats."""
    own = round(share * letters)
    blocks = [f"{next(_DIGESTS):08x}:{language or ''}:{own}", f"{next(_DIGESTS):08x}::{letters - own}", *chrome]
    return {"text_blocks": " ".join(blocks)}


def text_site(de_text: dict, *, de_value: str = "de", de_lang: str | None = "de") -> list:
    links = [ann("en-GB", GB), ann(de_value, DE), ann("x-default", XD)]
    return [
        page(GB, *links, html_lang="en-GB", **read_as("en")),
        page(DE, *links, html_lang=de_lang, **de_text),
        page(XD, *links, html_lang="en", **read_as("fr")),  # a language picker, never judged
    ]


def test_hl503_untranslated_page() -> None:
    (finding,) = hits(text_site(read_as("en", 0.98, 1840)), "HL503")
    assert (finding.name, finding.severity) == ("content-language-mismatch", "warning")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (DE, "", "de", "html")
    assert finding.message == (
        "Its text reads 98 % English, 2 % unclear (1,840 letters, template text left out), but this page "
        "declares itself `de`: translate it, or leave it out of the cluster until it is translated."
    )


def test_hl503_compares_primary_languages_and_groups_close_ones() -> None:
    assert hits(text_site(read_as("de"), de_value="de-AT"), "HL503") == []
    assert hits(text_site(read_as("sr-Latn"), de_value="hr", de_lang="hr"), "HL503") == []
    assert hits(text_site(read_as("id"), de_value="ms", de_lang="ms"), "HL503") == []
    assert hits(text_site(read_as("no"), de_value="nb", de_lang="nb"), "HL503") == []


def test_hl503_compares_scripts_where_the_page_names_one() -> None:
    assert [f.hreflang for f in hits(text_site(read_as("zh-Hans"), de_value="zh-Hant", de_lang="zh"), "HL503")] == [
        "zh-Hant"
    ]
    assert [f.hreflang for f in hits(text_site(read_as("zh-Hans"), de_value="zh-TW", de_lang="zh"), "HL503")] == [
        "zh-TW"
    ]
    assert hits(text_site(read_as("zh-Hant"), de_value="zh", de_lang="zh"), "HL503") == []
    (serbian,) = hits(text_site(read_as("sr-Cyrl"), de_value="sr-Latn", de_lang="sr"), "HL503")
    assert "reads 97 % Serbian (Cyrillic)" in serbian.message


def test_hl503_judges_only_confident_long_texts_of_pages() -> None:
    assert hits(text_site(read_as("en", 0.79)), "HL503") == []  # a page partly translated
    assert len(hits(text_site(read_as("en", 0.8)), "HL503")) == 1
    assert hits(text_site(read_as("en", 1.0, 199)), "HL503") == []  # too short to judge
    assert len(hits(text_site(read_as("en", 1.0, 200)), "HL503")) == 1
    assert hits(text_site(read_as("en"), de_value="x-default"), "HL503") == []
    gone = text_site(read_as("en"))
    gone[1].status = 404
    assert hits(gone, "HL503") == []


def test_hl503_falls_back_to_html_lang_without_a_self_reference() -> None:
    alone = page(DE, html_lang="de-CH", **read_as("en"))
    (finding,) = hits([alone], "HL503")
    assert (finding.hreflang, finding.source) == ("", "html")
    assert 'but this page says `<html lang="de-CH">`' in finding.message


def test_hl503_leaves_languages_the_identifier_cannot_name() -> None:
    # Northern Sami is not one of CLD2's languages: its text reads as a neighbour's, Finnish say.
    assert hits([page(DE, html_lang="se", **read_as("fi"))], "HL503") == []
    assert len(hits([page(DE, html_lang="sv", **read_as("fi"))], "HL503")) == 1


def _theme(count: int, own: str, chrome: tuple[str, ...]) -> list:
    """`count` German pages of one host, each with its own text (`own`) under the same chrome."""
    return [page(f"https://ex.com/de/{n}/", html_lang="de", **read_as(own, 1.0, 400, *chrome)) for n in range(count)]


def test_hl503_leaves_out_blocks_half_the_pages_of_a_host_and_language_repeat() -> None:
    tagline, footer = "aaaaaaaa:de:900", "bbbbbbbb:de:300"
    pages = _theme(3, "de", (tagline, footer))
    pages.append(page("https://ex.com/de/x/", html_lang="de", **read_as("en", 1.0, 400, tagline, footer)))
    (finding,) = hits(pages, "HL503")
    assert finding.url == "https://ex.com/de/x/"
    assert finding.message.startswith("Its text reads 100 % English (400 letters, template text left out)")
    # On 2 pages only (under TEMPLATE_MIN_PAGES), or on fewer than half of them, a block is the page's own.
    assert hits(pages[2:], "HL503") == []
    rare = _theme(4, "de", ()) + [
        page(f"https://ex.com/de/y{n}/", html_lang="de", **read_as("en", 1.0, 400, tagline, footer)) for n in range(3)
    ]
    assert hits(rare, "HL503") == []
    # Another host's pages, or the same host's English pages, do not make a block template text.
    other = [page(f"https://other.com/de/{n}/", html_lang="de", **read_as("de", 1.0, 400, tagline)) for n in range(5)]
    english = [page(f"https://ex.com/en/{n}/", html_lang="en", **read_as("en", 1.0, 400, tagline)) for n in range(5)]
    assert hits(other + english + pages[2:], "HL503") == []


def test_hl503_leaves_names_out_of_the_evidence() -> None:
    names = page(DE, html_lang="de", text_blocks="0000000a:-:3000 0000000b:en:150")
    assert hits([names], "HL503") == []
    names = page(DE, html_lang="de", text_blocks="0000000a:-:3000 0000000b:en:150 0000000c:en:50")
    (finding,) = hits([names], "HL503")
    assert finding.message.startswith("Its text reads 100 % English (200 letters")


def test_hl503_reads_hand_edited_blocks_without_failing() -> None:
    edited = page(DE, html_lang="de", text_blocks="x:en:12a 0000000a:en:300 : ::: y:en:-4")
    assert [f.message.split(" (")[0] for f in hits([edited], "HL503")] == ["Its text reads 100 % English"]


def test_hl503_counts_the_template_on_a_sample_of_a_large_site(monkeypatch) -> None:
    from qivrora_spider.audit.checks import language

    monkeypatch.setattr(language, "TEMPLATE_SAMPLE", 20)
    tagline = "aaaaaaaa:de:900"
    pages = _theme(200, "de", (tagline,))
    pages.append(page("https://ex.com/de/x/", html_lang="de", **read_as("en", 1.0, 400, tagline)))
    assert [f.url for f in hits(pages, "HL503")] == ["https://ex.com/de/x/"]
    assert [f.url for f in hits(list(reversed(pages)), "HL503")] == ["https://ex.com/de/x/"]
