"""Locale segments learned from clusters, HL207 unannotated-translation and HL208 page-without-annotations."""

from __future__ import annotations

from qivrora_spider.audit.core.segments import Segment, learn_locale_segments, place_of
from tests.audit.builders import canonical, cluster, hits, page

E = "https://ex.com"
TOPICS = ("preise", "team", "hilfe")


def prefixed_site(*extra: object, topics: tuple[str, ...] = TOPICS) -> list:
    """/en/<topic>/ and /fr/<topic>/ in one cluster per topic; /de/ is where German would go."""
    facts: list = [page(f"{E}/en/", links=[])]
    for topic in topics:
        facts += cluster({"en": f"{E}/en/{topic}/", "fr": f"{E}/fr/{topic}/"})
    return [*facts, *extra]


# --- learning the segments ----------------------------------------------------------------------------


def test_place_of_splits_origin_first_folder_and_rest() -> None:
    assert place_of(f"{E}/de/preise/?a=1") == (E, "de", "preise/?a=1")
    assert place_of(f"{E}/about") == (E, None, "about")
    assert place_of(f"{E}/") == (E, None, "")
    assert place_of(f"{E}/?lang=de") == (E, None, "?lang=de")


def test_segments_are_prefixes_subdomains_hosts_and_the_root() -> None:
    members = []
    for n in range(3):
        members += [
            (f"{E}/x{n}", f"c{n}", "en"),  # the root
            (f"{E}/de/x{n}", f"c{n}", "de"),
            (f"https://fr.ex.com/x{n}", f"c{n}", "fr"),
            (f"https://ex.es/x{n}", f"c{n}", "es"),
        ]
    learned = learn_locale_segments(members)
    assert learned.segments == [
        Segment(E, None, "en"), Segment(E, "de", "de"), Segment("https://ex.es", None, "es"),
        Segment("https://fr.ex.com", None, "fr"),
    ]
    assert learned.locate(f"{E}/de/preise/") == (Segment(E, "de", "de"), "preise/")
    assert learned.locate(f"{E}/tags/a/") == (Segment(E, None, "en"), "tags/a/")


def test_a_segment_needs_three_clusters_and_ninety_percent() -> None:
    two = [(f"{E}/de/x{n}", f"c{n}", "de") for n in range(2)]
    assert not learn_locale_segments(two)
    mixed = [(f"{E}/intl/{v}{n}", f"c{n}", v) for n in range(3) for v in ("fr", "es", "it")]
    assert not learn_locale_segments(mixed)
    mostly = [(f"{E}/de/x{n}", f"c{n}", "de") for n in range(9)] + [(f"{E}/de/y", "c0", "en")]
    assert learn_locale_segments(mostly).segments == [Segment(E, "de", "de")]


# --- HL207 / HL208 -------------------------------------------------------------------------------------


def test_hl207_translation_the_cluster_does_not_name() -> None:
    # /de/ is learned from three German members elsewhere; /de/preise/ is not in the preise cluster.
    facts = prefixed_site(*cluster({"en": f"{E}/en/a/", "de": f"{E}/de/a/"}),
                          *cluster({"en": f"{E}/en/b/", "de": f"{E}/de/b/"}),
                          *cluster({"en": f"{E}/en/c/", "de": f"{E}/de/c/"}),
                          page(f"{E}/de/preise/"))
    (finding,) = hits(facts, "HL207")
    assert (finding.url, finding.target, finding.hreflang, finding.severity) == (
        f"{E}/de/preise/", f"{E}/en/preise/", "de", "warning"
    )
    assert finding.name == "unannotated-translation"
    assert finding.cluster and finding.cluster in finding.message
    assert [f.url for f in hits(facts, "HL208")] == [f"{E}/en/"]  # the home page has no cluster


def test_hl207_subdomain_and_host_segments() -> None:
    facts = []
    for topic in TOPICS:
        facts += cluster({"en": f"{E}/{topic}", "fr": f"https://fr.ex.com/{topic}", "es": f"https://ex.es/{topic}"})
    facts += [page("https://fr.ex.com/kontakt"), page(f"{E}/kontakt"), page("https://ex.es/preise2")]
    facts += cluster({"en": f"{E}/kontakt-en", "es": "https://ex.es/kontakt"})
    found = {f.url: (f.target, f.hreflang) for f in hits(facts, "HL207")}
    assert found == {
        "https://fr.ex.com/kontakt": ("https://ex.es/kontakt", "fr"),
    }
    # /kontakt at the English root has no counterpart in a cluster without `en`: HL208.
    assert f"{E}/kontakt" in {f.url for f in hits(facts, "HL208")}


def test_hl207_not_where_no_counterpart_exists() -> None:
    # Tags, search and a legal page in one language: nothing under another segment to translate.
    facts = prefixed_site(page(f"{E}/en/tags/tents/"), page(f"{E}/search/"), page(f"{E}/en/impressum/"))
    assert hits(facts, "HL207") == []
    assert [f.url for f in hits(facts, "HL208")] == [
        f"{E}/en/", f"{E}/en/impressum/", f"{E}/en/tags/tents/", f"{E}/search/"
    ]


def test_hl207_not_where_the_cluster_already_has_the_language() -> None:
    # /fr/team/ is outside the cluster, but the team cluster has its fr member: a copy, not a translation.
    facts = prefixed_site(topics=("preise", "hilfe", "a"))
    facts += cluster({"en": f"{E}/en/team/", "fr": f"{E}/fr/equipe/"})
    facts.append(page(f"{E}/fr/team/"))
    assert hits(facts, "HL207") == []
    assert f"{E}/fr/team/" in {f.url for f in hits(facts, "HL208")}


def test_hl207_hl208_only_indexable_self_canonical_unannotated_html_pages() -> None:
    skipped = [
        page(f"{E}/en/noindex/", noindex="meta"),
        page(f"{E}/en/elsewhere/", canonicals=[canonical(f"{E}/en/")]),
        page(f"{E}/en/gone/", status=404),
        page(f"{E}/en/guide.pdf", is_html=False),
    ]
    facts = prefixed_site(*skipped, page(f"{E}/en/self/", canonicals=[canonical(f"{E}/en/self/")]))
    assert [f.url for f in hits(facts, "HL208")] == [f"{E}/en/", f"{E}/en/self/"]


def test_hl208_not_on_a_host_without_clusters() -> None:
    facts = prefixed_site(page("https://blog.ex.com/post/"))
    assert "https://blog.ex.com/post/" not in {f.url for f in hits(facts, "HL208")}
    assert hits([page(f"{E}/a/"), page(f"{E}/b/")], "HL208") == []


def test_hl207_page_joins_its_cluster_in_the_fixes() -> None:
    from qivrora_spider.audit import AuditContext
    from qivrora_spider.audit.core.fact_store import FactStore
    from qivrora_spider.report.fixes import cluster_fixes

    german = [c for n in "abc" for c in cluster({"en": f"{E}/en/{n}/", "de": f"{E}/de/{n}/"})]
    store = FactStore()
    store.add_all(prefixed_site(*german, page(f"{E}/de/preise/")))
    (fix,) = [fix for fix in cluster_fixes(AuditContext(store)) if f"{E}/en/preise/" in fix.annotated]
    assert [(m.url, m.hreflang) for m in fix.members] == [
        (f"{E}/de/preise/", "de"), (f"{E}/en/preise/", "en"), (f"{E}/fr/preise/", "fr")
    ]
    assert f'hreflang="de" href="{E}/de/preise/"' in fix.html
