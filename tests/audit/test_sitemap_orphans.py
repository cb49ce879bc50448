"""SM014 sitemap-url-unlinked: a page only a sitemap names, judged only where every link was followed."""

from __future__ import annotations

import pytest

from tests.audit.builders import CrawlInfo, TargetStatus, ann, entry, hits, page, sitemap_file

E = "https://ex.com"
HOME, ABOUT, ORPHAN = f"{E}/", f"{E}/about/", f"{E}/it/prezzi/"
SITEMAP = f"{E}/sitemap.xml"


def site(
    *extra: object,
    limits: tuple[str, ...] = (),
    start: str = HOME,
    home: object = None,
    about: object = None,
    orphan: object = None,
) -> list:
    """Home and /about/ link each other; the sitemap lists all three; /it/prezzi/ is linked from nowhere."""
    return [
        CrawlInfo(started="2026-11-29T12:00:00+00:00", start_urls=[start], limits_reached=list(limits)),
        sitemap_file(SITEMAP),
        *(entry(SITEMAP, url) for url in (HOME, ABOUT, ORPHAN)),
        home or page(HOME, links=[ABOUT]),
        about or page(ABOUT, links=[HOME]),
        orphan or page(ORPHAN),
        *extra,
    ]


def test_sm014_page_only_the_sitemap_names() -> None:
    (finding,) = hits(site(), "SM014")
    assert (finding.url, finding.target, finding.hreflang, finding.severity) == (ORPHAN, SITEMAP, "", "notice")
    assert finding.name == "sitemap-url-unlinked"
    assert "no crawled page links to it" in finding.message


def test_sm014_a_link_to_a_url_that_redirects_to_it_counts() -> None:
    old = f"{E}/it/old/"
    facts = site(TargetStatus(old, method="HEAD", status=301, location=ORPHAN), about=page(ABOUT, links=[old]))
    assert hits(facts, "SM014") == []


def test_sm014_a_nofollow_link_does_not_count() -> None:
    facts = site(about=page(ABOUT, links=[HOME, ORPHAN], nofollow_links=[ORPHAN]))
    assert [f.url for f in hits(facts, "SM014")] == [ORPHAN]
    facts.append(page(f"{E}/other/", links=[ORPHAN]))  # a followed link elsewhere: linked
    assert hits(facts, "SM014") == []


@pytest.mark.parametrize("limit", ["max_pages", "max_depth", "interrupted"])
def test_sm014_not_judged_where_the_crawl_was_cut_short(limit: str) -> None:
    assert hits(site(limits=(limit,)), "SM014") == []


def test_sm014_not_judged_from_a_sitemap_or_robots_txt_alone() -> None:
    assert hits(site(start=SITEMAP), "SM014") == []
    assert hits(site(start=f"{E}/robots.txt"), "SM014") == []


def test_sm014_not_judged_in_list_mode() -> None:
    facts = [f if not hasattr(f, "in_scope") else _out_of_scope(f) for f in site()]
    assert hits(facts, "SM014") == []


def _out_of_scope(fact: object) -> object:
    fact.in_scope = False  # type: ignore[attr-defined]
    return fact


def test_sm014_start_urls_non_html_and_failing_pages_are_exempt() -> None:
    assert hits(site(start=ORPHAN), "SM014") == []
    assert hits(site(orphan=page(ORPHAN, is_html=False, content_type="application/pdf")), "SM014") == []
    assert hits(site(orphan=page(ORPHAN, status=404)), "SM014") == []


def test_sm014_an_hreflang_target_is_hl203s() -> None:
    facts = site(home=page(HOME, ann("en", HOME), ann("it", ORPHAN), links=[ABOUT]))
    assert hits(facts, "SM014") == []
    # Its own self-reference does not make it a target.
    own = site(orphan=page(ORPHAN, ann("it", ORPHAN)))
    assert [f.url for f in hits(own, "SM014")] == [ORPHAN]
