"""HL201 to HL206: the cluster graph, all sources merged."""

from __future__ import annotations

from .builders import Canonical, CrawlInfo, TargetStatus, ann, cluster, entry, hits, page, run

EN, DE, FR, IT, XD = (f"https://ex.com/{p}" for p in ("en/", "de/", "fr/", "it/", ""))
BR, PT, AT = "https://ex.com/br/", "https://ex.com/pt/", "https://ex.com/at/"
SITEMAP = "https://ex.com/sitemap.xml"
LANGS = {"en": EN, "de": DE, "x-default": XD}


def at(pages, url):
    return next(p for p in pages if p.url == url)


def annotate(url, langs, source="html", **kw):
    return page(url, *[ann(value, href, source) for value, href in langs.items()], **kw)


def mine(facts):
    return [f for f in run(facts) if f.check[:3] in ("HL0", "HL1", "HL2")]


def without(pages, url, target):
    """Drop `url`'s annotation for `target`."""
    at(pages, url).annotations = [a for a in at(pages, url).annotations if a.url != target]
    return pages


# --- HL201 -------------------------------------------------------------------------------------


def test_missing_return_link():
    pages = without(cluster(LANGS), DE, EN)
    found = mine(pages)
    assert [f.check for f in found] == ["HL201"]  # no HL204 on top
    (finding,) = found
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, DE, "de", "html")
    assert finding.severity == "error" and finding.cluster
    assert finding.message == (
        f"`{EN}` lists `{DE}` as `de`, but `{DE}` does not link back: "
        f'add `<link rel="alternate" hreflang="en" href="{EN}">` to its <head>.'
    )


def test_missing_return_link_to_a_page_without_annotations():
    pages = [annotate(EN, {"en": EN, "de": DE}), page(DE)]
    (finding,) = hits(pages, "HL201")
    assert "carries no hreflang annotations" in finding.message


def test_return_link_in_the_sitemap_counts():
    pages = without(cluster(LANGS), DE, EN)
    facts = [*pages, entry(SITEMAP, DE, ann("en", EN, "sitemap"))]
    assert hits(facts, "HL201") == []


def test_sitemap_only_cluster_is_clean():
    facts = [page(url) for url in LANGS.values()]
    facts += [
        entry(SITEMAP, url, *[ann(v, u, "sitemap") for v, u in LANGS.items()]) for url in LANGS.values()
    ]
    assert mine(facts) == []


def test_target_that_answers_an_error_is_not_hl201():
    pages = [p for p in cluster(LANGS) if p.url != DE] + [page(DE, status=404)]
    assert hits(pages, "HL201") == []
    assert hits(pages, "HL206") == []


def test_target_that_redirects_is_not_hl201():
    pages = [p for p in cluster(LANGS) if p.url != DE]
    facts = [*pages, page(DE, status=301, location="https://ex.com/de/start/")]
    assert hits(facts, "HL201") == []


def test_target_known_only_by_head_is_hl206_not_hl201():
    pages = [p for p in cluster(LANGS) if p.url != DE]
    facts = [*pages, TargetStatus(url=DE, method="HEAD", status=200)]
    assert hits(facts, "HL201") == []
    (finding,) = hits(facts, "HL206")
    assert "HEAD" in finding.message


def test_noindex_or_non_canonical_target_is_not_hl201():
    pages = without(cluster(LANGS), DE, EN)
    at(pages, DE).noindex = "meta"
    assert hits(pages, "HL201") == []
    pages = without(cluster(LANGS), DE, EN)
    at(pages, DE).canonicals = [Canonical("html", EN, EN)]
    assert hits(pages, "HL201") == []


def test_redirect_destination_counts_by_its_own_url():
    # en lists the old URL of de, which redirects; the destination links back to en.
    old = "https://ex.com/deutsch/"
    pages = cluster(LANGS)
    at(pages, EN).annotations = [ann("de", old) if a.url == DE else a for a in at(pages, EN).annotations]
    facts = [*pages, page(old, status=301, location=DE)]
    # en's link to de goes through a redirect: HL401 says so (and names de); no HL201 (de, en).
    assert hits(facts, "HL201") == []
    at(pages, EN).annotations = [a for a in at(pages, EN).annotations if a.url != old]
    (finding,) = hits([*pages, page(old, status=301, location=DE)], "HL201")
    assert (finding.url, finding.target) == (DE, EN)


def test_cross_host_cluster_is_clean():
    pages = cluster(
        {
            "en": "http://127.0.0.1:8001/en/",
            "de": "http://127.0.0.1:8002/de/",
            "x-default": "http://127.0.0.1:8001/",
        }
    )
    assert mine(pages) == []


def test_cross_host_missing_return_link():
    a, b = "http://127.0.0.1:8001/en/", "http://127.0.0.1:8002/de/"
    pages = [annotate(a, {"en": a, "de": b}), annotate(b, {"de": b})]
    (finding,) = hits(pages, "HL201")
    assert (finding.url, finding.target) == (a, b)


def test_trailing_slash_cluster_written_consistently_is_clean():
    pages = cluster({"en": "https://ex.com/en", "de": "https://ex.com/de", "x-default": "https://ex.com/"})
    assert mine(pages) == []


# --- HL202 -------------------------------------------------------------------------------------


def test_inconsistent_return_language():
    pages = cluster({"en": EN, "pt-BR": BR, "x-default": XD})
    at(pages, BR).annotations = [ann("en", EN), ann("pt-PT", BR), ann("x-default", XD)]
    found = hits(pages, "HL202")
    assert sorted(f.url for f in found) == [XD, EN]
    finding = next(f for f in found if f.url == EN)
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (EN, BR, "pt-BR", "html")
    assert finding.severity == "error" and finding.cluster
    assert "`pt-BR`" in finding.message and "`pt-PT`" in finding.message and "calls itself" in finding.message


def test_consistent_return_language_in_another_case_is_fine():
    pages = cluster({"en": EN, "pt-BR": BR, "x-default": XD})
    at(pages, BR).annotations = [ann("en", EN), ann("pt-br", BR), ann("x-default", XD)]
    assert hits(pages, "HL202") == []


def test_x_default_is_not_a_language_disagreement():
    pages = cluster({"en": EN, "de": DE, "x-default": EN})
    at(pages, DE).annotations = [ann("en", EN), ann("de", DE)]  # omits x-default: not HL202
    assert hits(pages, "HL202") == []


def test_two_languages_for_one_url_are_hl111_not_hl202():
    pages = cluster(LANGS)
    at(pages, EN).annotations.append(ann("fr", DE))
    assert hits(pages, "HL202") == []
    assert len(hits(pages, "HL111")) == 1


def test_no_hl202_without_the_return_link():
    pages = [annotate(EN, {"en": EN, "pt-BR": BR}), annotate(BR, {"pt-PT": BR})]
    assert hits(pages, "HL202") == []
    assert len(hits(pages, "HL201")) == 1


# --- HL203 -------------------------------------------------------------------------------------


def linked_site():
    pages = cluster({"en": EN, "de": DE, "fr": FR, "x-default": XD})
    at(pages, XD).links = [EN, DE]
    at(pages, EN).links = [XD, DE]
    return pages


def test_unlinked_alternate():
    (finding,) = hits(linked_site(), "HL203")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (FR, XD, "fr", "")
    assert finding.severity == "warning" and finding.cluster
    assert "no crawled page links to it" in finding.message and "`<a href>`" in finding.message


def test_linked_alternates_are_fine():
    pages = linked_site()
    at(pages, DE).links = [FR]
    assert hits(pages, "HL203") == []


def test_no_link_facts_means_no_judgement():
    assert hits(cluster({"en": EN, "de": DE, "fr": FR, "x-default": XD}), "HL203") == []


def test_alternate_on_a_host_the_crawl_did_not_explore_is_not_judged():
    other = "https://other.example/fr/"
    pages = cluster({"en": EN, "de": DE, "fr": other, "x-default": XD})
    at(pages, XD).links = [EN, DE]
    at(pages, EN).links = [XD]
    at(pages, other).in_scope = False
    assert hits(pages, "HL203") == []


def test_unlinked_alternate_that_does_not_answer_200_is_not_hl203():
    pages = [p for p in linked_site() if p.url != FR] + [page(FR, status=404)]
    assert hits(pages, "HL203") == []


# --- HL204 -------------------------------------------------------------------------------------


def test_incomplete_cluster():
    full = {"en": EN, "de": DE, "fr": FR, "it": IT}
    pages = [
        annotate(EN, full),
        annotate(DE, full),
        annotate(FR, {"en": EN, "de": DE, "fr": FR}),
        annotate(IT, {"it": IT, "en": EN}),
    ]
    found = {f.url: f for f in hits(pages, "HL204")}
    assert sorted(found) == [FR, IT]
    finding = found[FR]
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (FR, IT, "it", "html")
    assert finding.severity == "warning" and finding.cluster
    assert "omits 1" in finding.message and f"`{IT}` (`it`)" in finding.message
    # /it/ omits /de/ too, but /de/ lists /it/: that pair is HL201, not counted again here.
    assert (found[IT].target, found[IT].hreflang) == (FR, "fr")
    assert "omits 1" in found[IT].message
    assert [(f.url, f.target) for f in hits(pages, "HL201")] == [(DE, IT)]


def test_incomplete_cluster_message_caps_the_names():
    members = {code: f"https://ex.com/{code}/" for code in ("da", "de", "es", "fi", "fr", "it", "nl", "pl")}
    lister = {"en": EN, **members}
    short = "https://ex.com/short/"
    pages = [annotate(EN, {**lister, "x-default": short}), *[page(url) for url in members.values()]]
    pages.append(annotate(short, {"x-default": short, "en": EN}))
    # /short/ is listed by /en/ and lists /en/ back, but omits the 8 members /en/ lists.
    (finding,) = hits(pages, "HL204")  # the members without annotations are HL201's, once per pair
    assert (finding.target, finding.hreflang) == ("https://ex.com/da/", "da")
    assert "omits 8" in finding.message and "and 3 more" in finding.message


def test_complete_cluster_is_not_incomplete():
    assert hits(cluster({"en": EN, "de": DE, "fr": FR, "x-default": XD}), "HL204") == []


def test_members_that_redirect_are_not_counted_as_omitted():
    full = {"en": EN, "de": DE, "fr": FR}
    pages = [annotate(EN, full), annotate(DE, {"en": EN, "de": DE}), page(FR, status=301, location=XD)]
    assert hits(pages, "HL204") == []


# --- HL205 -------------------------------------------------------------------------------------


def test_language_collision():
    pages = [
        annotate(EN, {"en": EN, "de": DE, "de-AT": AT}),
        annotate(DE, {"en": EN, "de": DE, "de-AT": AT}),
        annotate(AT, {"en": EN, "de": AT, "x-default": XD}),
        annotate(XD, {"en": EN, "de": DE, "x-default": XD}),
    ]
    (finding,) = hits(pages, "HL205")
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (AT, DE, "de", "")
    assert finding.severity == "error"
    assert finding.cluster and finding.cluster == next(f.cluster for f in run(pages) if f.url == EN)
    assert "2 URLs" in finding.message and f"`{AT}` (by 1 page)" in finding.message
    assert f"`{DE}` (by 3 pages)" in finding.message


def test_one_page_mapping_a_value_twice_is_hl106_not_hl205():
    pages = cluster(LANGS)
    at(pages, EN).annotations.append(ann("de", AT))
    assert hits(pages, "HL205") == []
    assert len(hits(pages, "HL106")) == 1


def test_regions_are_not_a_collision():
    pages = cluster({"de-DE": DE, "de-AT": AT, "de": DE, "x-default": XD})
    assert mine(pages) == []


def test_claim_of_a_url_that_redirects_is_not_a_collision():
    pages = cluster(LANGS)
    at(pages, XD).annotations = [
        ann("de", "http://ex.com/de/") if a.url == DE else a for a in at(pages, XD).annotations
    ]
    facts = [*pages, TargetStatus(url="http://ex.com/de/", method="HEAD", status=301, location=DE)]
    assert hits(facts, "HL205") == []


def test_claim_of_a_url_that_answers_404_is_not_a_collision():
    """The 404 is the defect (HL402), not the collision it causes."""
    gone = "https://ex.com/de-old/"
    pages = cluster(LANGS)
    at(pages, XD).annotations = [ann("de", gone) if a.url == DE else a for a in at(pages, XD).annotations]
    facts = [*pages, page(gone, status=404)]
    assert hits(facts, "HL205") == []
    assert [(f.url, f.target) for f in hits(facts, "HL402")] == [(XD, gone)]


# --- HL206 -------------------------------------------------------------------------------------


def test_alternate_not_examined_after_max_pages():
    facts = [
        annotate(EN, {"en": EN, "fr": FR}),
        annotate(DE, {"de": DE, "fr": FR}),
        CrawlInfo(started="2026-11-29T12:00:00+00:00", limits_reached=["max_pages"]),
    ]
    (finding,) = hits(facts, "HL206")  # one per target, not per pair
    assert (finding.url, finding.target, finding.hreflang, finding.source) == (DE, FR, "fr", "html")
    assert finding.severity == "notice" and finding.cluster
    assert "max_pages" in finding.message and "1 other page" in finding.message
    assert hits(facts, "HL201") == []


def test_alternate_not_examined_reason_from_its_status():
    facts = [annotate(EN, {"en": EN, "fr": FR}), TargetStatus(url=FR, not_examined="max_depth")]
    (finding,) = hits(facts, "HL206")
    assert "depth" in finding.message
    facts = [annotate(EN, {"en": EN, "fr": FR}), TargetStatus(url=FR, not_examined="excluded")]
    (finding,) = hits(facts, "HL206")
    assert "excluded" in finding.message


def test_alternate_with_no_record_is_never_silent():
    (finding,) = hits([annotate(EN, {"en": EN, "fr": FR})], "HL206")
    assert finding.target == FR and "no record" in finding.message


def test_blocked_by_robots_is_hl405_not_hl206():
    facts = [annotate(EN, {"en": EN, "fr": FR}), TargetStatus(url=FR, not_examined="robots")]
    assert hits(facts, "HL206") == []


def test_examined_or_failed_alternates_are_not_hl206():
    facts = [
        annotate(EN, {"en": EN, "fr": FR, "it": IT}),
        annotate(FR, {"en": EN, "fr": FR}),
        TargetStatus(url=IT, method="HEAD", error="dns"),
    ]
    assert hits(facts, "HL206") == []


# --- whole sites -------------------------------------------------------------------------------


def test_complete_cluster_is_clean():
    assert mine(cluster({"en": EN, "de": DE, "fr": FR, "x-default": XD})) == []


def test_complete_cluster_with_links_is_clean():
    pages = cluster({"en": EN, "de": DE, "fr": FR, "x-default": XD})
    for p in pages:
        p.links = [EN, DE, FR, XD]
    assert mine(pages) == []


def test_page_that_canonicalises_elsewhere_is_not_owed_return_links():
    pages = without(cluster(LANGS), DE, EN)
    at(pages, EN).canonicals = [Canonical("html", XD, XD)]  # HL302's business
    assert hits(pages, "HL201") == []


def test_missing_return_on_a_pdf_asks_for_a_link_header():
    en, de = "https://ex.com/guide.pdf", "https://ex.com/guide-de.pdf"
    pdf = page(en, ann("en", en, "header"), ann("de", de, "header"), is_html=False)
    translation = page(de, is_html=False)
    (finding,) = hits([pdf, translation], "HL201")
    assert "HTTP `Link` header" in finding.message and "<head>" not in finding.message
