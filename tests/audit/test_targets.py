"""HL4xx: alternates that cannot serve."""

from __future__ import annotations

import pytest

from tests.audit.builders import (
    Page,
    TargetStatus,
    ann,
    cluster,
    entry,
    family_findings,
    hits,
    page,
    run,
)

EN, DE = "https://ex.com/en/", "https://ex.com/de/"
SITEMAP = "https://ex.com/sitemap.xml"


def annotated_by_en(target: str, *records: object, value: str = "de") -> list:
    """en annotates itself and `target`; `records` say what `target` answered."""
    return [page(EN, ann("en", EN), ann(value, target), html_lang="en"), *records]


def hl4(facts: list) -> list[tuple[str, str, str]]:
    return sorted((f.check, f.url, f.target) for f in run(facts) if f.check.startswith("HL4"))


# --- HL401 alternate-redirects ---------------------------------------------------------------------


def test_hl401_redirect_names_the_final_url() -> None:
    slashless = "https://ex.com/de"
    facts = annotated_by_en(slashless, page(slashless, status=301, location=DE), page(DE, html_lang="de"))
    (finding,) = hits(facts, "HL401")
    assert (finding.check, finding.name, finding.severity) == ("HL401", "alternate-redirects", "error")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, slashless, "de", "html")
    assert "301 Moved Permanently and redirects to https://ex.com/de/" in finding.message
    assert "annotate https://ex.com/de/ directly" in finding.message


def test_hl401_chain_of_redirects_from_head_statuses() -> None:
    a, b = "http://ex.com/de", "https://ex.com/de"
    facts = annotated_by_en(
        a,
        TargetStatus(a, method="HEAD", status=301, location=b),
        TargetStatus(b, method="HEAD", status=302, location=DE),
        page(DE),
    )
    (finding,) = hits(facts, "HL401")
    assert finding.target == a
    assert f"chain of 2 redirects ({a} → {b} → {DE})" in finding.message


def test_hl401_redirect_loop() -> None:
    a, b = "https://ex.com/de", "https://ex.com/de/index"
    facts = annotated_by_en(a, page(a, status=301, location=b), page(b, status=302, location=a))
    (finding,) = hits(facts, "HL401")
    assert "loop" in finding.message and f"{a} → {b} → {a}" in finding.message


def test_hl401_redirect_to_a_missing_page() -> None:
    a = "https://ex.com/de"
    facts = annotated_by_en(a, page(a, status=301, location=DE), page(DE, status=404))
    (finding,) = hits(facts, "HL401")
    assert "404 Not Found" in finding.message
    assert hl4(facts) == [("HL401", EN, a)]  # the 404 at the end is no annotation's target


def test_hl401_redirect_without_location() -> None:
    facts = annotated_by_en(DE, page(DE, status=302))
    (finding,) = hits(facts, "HL401")
    assert "without a Location" in finding.message


def test_hl4xx_leave_a_self_reference_to_a_redirecting_variant_to_hl110() -> None:
    # /de/ names itself without its slash, which redirects to it: one wrong href, one finding (HL110),
    # not also HL401 on the same pair. /en/ naming that variant is still an HL401: it is not en's URL.
    slashless = "https://ex.com/de"
    facts = [
        page(EN, ann("en", EN), ann("de", slashless), html_lang="en"),
        page(DE, ann("en", EN), ann("de", slashless), html_lang="de"),
        page(slashless, status=301, location=DE),
    ]
    assert hl4(facts) == [("HL401", EN, slashless)]
    assert [(f.url, f.target) for f in hits(facts, "HL110")] == [(DE, slashless)]


def test_hl401_variant_beside_an_exact_self_reference_is_reported() -> None:
    # The page names itself exactly; its x-default names the slashless variant: no HL110, so HL401.
    slashless = "https://ex.com/de"
    facts = [
        page(DE, ann("de", DE), ann("x-default", slashless), html_lang="de"),
        page(slashless, status=301, location=DE),
    ]
    assert hl4(facts) == [("HL401", DE, slashless)]
    assert hits(facts, "HL110") == []


# --- HL402 / HL403 / HL404 ---------------------------------------------------------------------------


def test_hl402_client_error_one_row_per_annotating_page() -> None:
    fr = "https://ex.com/fr/"
    links = [ann("en", EN), ann("fr", fr), ann("de", DE)]
    facts = [page(EN, *links), page(fr, *links), TargetStatus(DE, method="HEAD", status=404)]
    found = hits(facts, "HL402")
    assert [(f.url, f.target, f.hreflang, f.source) for f in found] == [
        (EN, DE, "de", "html"),
        (fr, DE, "de", "html"),
    ]
    assert "404 Not Found" in found[0].message and "remove the annotation" in found[0].message


def test_hl402_several_sources_one_row_named_html_first() -> None:
    facts = [
        page(EN, ann("en", EN), ann("de", DE, "header"), ann("DE", DE)),
        entry(SITEMAP, EN, ann("de", DE, "sitemap", sitemap=SITEMAP)),
        page(DE, status=410),
    ]
    (finding,) = hits(facts, "HL402")
    assert (finding.url, finding.hreflang, finding.source) == (EN, "DE", "html")
    assert f"the HTML and the HTTP Link header and sitemap {SITEMAP}" in finding.message
    assert "410 Gone" in finding.message


def test_hl402_sitemap_annotation() -> None:
    facts = [
        entry(
            SITEMAP, EN, ann("en", EN, "sitemap", sitemap=SITEMAP), ann("de", DE, "sitemap", sitemap=SITEMAP)
        ),
        page(EN),
        page(DE, status=404),
    ]
    (finding,) = hits(facts, "HL402")
    assert (finding.url, finding.target, finding.source) == (EN, DE, "sitemap")
    assert SITEMAP in finding.message


def test_hl403_server_error() -> None:
    (finding,) = hits(annotated_by_en(DE, page(DE, status=503)), "HL403")
    assert (finding.check, finding.name, finding.url, finding.target, finding.hreflang, finding.source) == (
        "HL403",
        "alternate-server-error",
        EN,
        DE,
        "de",
        "html",
    )
    assert "503 Service Unavailable" in finding.message


def test_hl404_unreachable_page_and_status() -> None:
    other = "https://ex.de/"
    facts = [
        page(EN, ann("en", EN), ann("de", other), ann("fr", "https://ex.fr/")),
        Page(url=other, requested=other, error="dns"),
        TargetStatus("https://ex.fr/", method="HEAD", error="timeout"),
    ]
    found = hits(facts, "HL404")
    assert [(f.url, f.target, f.hreflang) for f in found] == [(EN, other, "de"), (EN, "https://ex.fr/", "fr")]
    assert "DNS" in found[0].message and "in time" in found[1].message


# --- HL405 / HL406 ------------------------------------------------------------------------------------


def test_hl405_blocked_by_robots() -> None:
    (finding,) = hits(annotated_by_en(DE, TargetStatus(DE, not_examined="robots")), "HL405")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, DE, "de", "html")
    assert "https://ex.com/robots.txt" in finding.message


def test_hl406_noindex_meta_and_header() -> None:
    fr = "https://ex.com/fr/"
    facts = [
        page(EN, ann("en", EN), ann("de", DE), ann("fr", fr)),
        page(DE, noindex="meta"),
        page(fr, noindex="header"),
    ]
    found = hits(facts, "HL406")
    assert [(f.url, f.target, f.hreflang, f.source) for f in found] == [
        (EN, DE, "de", "html"),
        (EN, fr, "fr", "html"),
    ]
    assert "robots meta tag" in found[0].message and "X-Robots-Tag" in found[1].message


def test_hl406_noindex_page_annotating_itself() -> None:
    facts = [page(DE, ann("de", DE), noindex="meta")]
    (finding,) = hits(facts, "HL406")
    assert (finding.url, finding.target) == (DE, DE)
    assert finding.message.startswith(f"This page, its own `de` alternate {DE}")


# --- near misses --------------------------------------------------------------------------------------


def test_near_miss_200_target() -> None:
    assert hl4(annotated_by_en(DE, page(DE))) == []


def test_near_miss_target_not_examined_is_no_hl4xx() -> None:
    assert hl4(annotated_by_en(DE, TargetStatus(DE, not_examined="max_pages"))) == []
    assert hl4(annotated_by_en(DE)) == []


def test_near_miss_clean_cluster() -> None:
    assert family_findings(cluster({"en": EN, "de": DE, "x-default": EN}), "targets") == []


# --- HL407 alternate-unexpected-status -------------------------------------------------------------


@pytest.mark.parametrize("status", [204, 206, 202, 103])
def test_a_target_answering_a_status_with_no_page_is_hl407(status):
    facts = annotated_by_en(DE, page(DE, ann("en", EN), ann("de", DE), status=status))
    assert hl4(facts) == [("HL407", EN, DE)]
    (finding,) = hits(facts, "HL407")
    assert (finding.name, finding.severity, finding.hreflang) == ("alternate-unexpected-status", "error", "de")
    assert f"answers {status} " in finding.message and "answer 200" in finding.message
    # The target is the defect: no missing return link or incomplete cluster follows from it.
    assert not {"HL201", "HL204", "HL206"} & {f.check for f in run(facts)}


def test_a_status_check_answering_204_is_hl407():
    facts = annotated_by_en(DE, TargetStatus(url=DE, method="HEAD", status=204))
    assert hl4(facts) == [("HL407", EN, DE)]


def test_a_target_answering_200_is_not_hl407():
    facts = annotated_by_en(DE, page(DE, ann("en", EN), ann("de", DE), html_lang="de"))
    assert hits(facts, "HL407") == []


# --- HL408 x-default-redirects -----------------------------------------------------------------------

ROOT = "https://ex.com/"


def adaptive_entry(status: int, *landing: object) -> list:
    """en and de both name / as x-default, and / answers `status` to /en/ (or as `landing` says)."""
    links = [ann("en", EN), ann("de", DE), ann("x-default", ROOT)]
    return [
        page(EN, *links, html_lang="en"),
        page(DE, *links, html_lang="de"),
        *(landing or (page(ROOT, status=status, location=EN),)),
    ]


@pytest.mark.parametrize("status", [302, 303, 307])
def test_hl408_temporary_x_default_redirect_to_a_page_is_a_notice_not_hl401(status: int) -> None:
    facts = adaptive_entry(status)
    found = hits(facts, "HL408")
    assert [(f.url, f.target, f.hreflang, f.severity) for f in found] == [
        (DE, ROOT, "x-default", "notice"),
        (EN, ROOT, "x-default", "notice"),
    ]
    assert found[0].name == "x-default-redirects"
    assert f"sent the crawler to {EN}" in found[0].message
    assert hits(facts, "HL401") == []


@pytest.mark.parametrize("status", [301, 308])
def test_hl408_permanent_x_default_redirect_stays_hl401(status: int) -> None:
    facts = adaptive_entry(status)
    assert hits(facts, "HL408") == []
    assert [(f.url, f.target) for f in hits(facts, "HL401")] == [(DE, ROOT), (EN, ROOT)]


@pytest.mark.parametrize(
    "landing",
    [
        (page(ROOT, status=302, location="https://ex.com/gone/"), page("https://ex.com/gone/", status=404)),
        (page(ROOT, status=302, location="https://ex.com/a"), page("https://ex.com/a", status=302, location=ROOT)),
        (page(ROOT, status=302),),
    ],
    ids=["ends-on-404", "loop", "no-location"],
)
def test_hl408_temporary_redirect_that_ends_on_no_page_stays_hl401(landing: tuple) -> None:
    facts = adaptive_entry(302, *landing)
    assert hits(facts, "HL408") == []
    assert len(hits(facts, "HL401")) == 2


def test_hl408_only_for_the_x_default_annotation() -> None:
    # / is named en by one page and x-default by the others: the en annotation is a redirect (HL401).
    facts = [
        page(EN, ann("en", ROOT), ann("de", DE), html_lang="en"),
        page(DE, ann("en", EN), ann("de", DE), ann("x-default", ROOT), html_lang="de"),
        page(ROOT, status=302, location=EN),
    ]
    assert [(f.url, f.target) for f in hits(facts, "HL401")] == [(EN, ROOT)]
    assert [(f.url, f.target) for f in hits(facts, "HL408")] == [(DE, ROOT)]


def test_hl408_fix_keeps_the_entry_page_as_x_default() -> None:
    from qivrora_spider.audit import AuditContext
    from qivrora_spider.audit.core.fact_store import FactStore
    from qivrora_spider.report.fixes import cluster_fixes

    store = FactStore()
    store.add_all(adaptive_entry(302))
    (fix,) = cluster_fixes(AuditContext(store))
    assert [(m.url, m.hreflang) for m in fix.members] == [(DE, "de"), (EN, "en"), (ROOT, "x-default")]
    assert fix.replaced == ()
