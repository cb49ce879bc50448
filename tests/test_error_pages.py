"""A page is a URL that answered 200: the body of any other response adds nothing to the graph.

The reproduction of issue 13: two unrelated clusters each name a `fr` alternate that does not exist,
and the static host answers both with the site's `404.html`, whose language switcher annotates
`/404/`. Read as a page, that body made every broken alternate a page annotating `/404/`, and joined
the two clusters into one (with invented HL107, HL205 and HL204 findings).
"""

from __future__ import annotations

import json

import pytest_twisted

from qivrora_spider.audit import AuditContext, audit
from qivrora_spider.audit.core.fact_store import FactStore
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.fact_lines import fact_to_dict, read_facts
from qivrora_spider.facts import Page
from qivrora_spider.report import cluster_fixes

from .audit.builders import CrawlInfo, ann, page
from .conftest import crawl


def two_clusters_and_a_404_page(site: SiteServer) -> None:
    a = site.url
    for slug in ("a", "b"):
        cluster = [("en", a(f"/en/{slug}/")), ("de", a(f"/de/{slug}/")), ("fr", a(f"/fr/{slug}/"))]
        links = [alternate(value, url) for value, url in cluster]
        site.routes[f"/en/{slug}/"] = Route(html_page(*links))
        site.routes[f"/de/{slug}/"] = Route(html_page(*links, lang="de"))
    site.not_found = Route(
        html_page(alternate("en", a("/404/")), alternate("x-default", a("/404/")), title="Not found"),
        status=404,
    )


def _table(findings):
    return sorted((f.check, f.url, f.target, f.hreflang, f.cluster, f.message) for f in findings)


def _assert_two_clusters_and_four_hl402(findings, a) -> None:
    clusters = {f.url: f.cluster for f in findings}
    assert clusters[a("/en/a/")] != clusters[a("/en/b/")], "the 404 body joined two clusters"
    assert sorted((f.url, f.target) for f in findings if f.check == "HL402") == [
        (a(f"/{lang}/{slug}/"), a(f"/fr/{slug}/")) for lang in ("de", "en") for slug in ("a", "b")
    ]
    assert not {"HL107", "HL205", "HL204", "HL108", "HL201"} & {f.check for f in findings}
    assert a("/404/") not in {u for f in findings for u in (f.url, f.target)}


@pytest_twisted.ensureDeferred
async def test_a_404_body_joins_no_clusters_over_http_and_from_a_folder(site, tmp_path):
    two_clusters_and_a_404_page(site)
    start = site.url("/en/a/") + "," + site.url("/en/b/")
    served = await crawl(start=start)
    _assert_two_clusters_and_four_hl402(served.findings, site.url)
    assert site.requests()["/404/"] == 0, "an alternate named by a 404 body is not fetched"
    fr = served.page(site.url("/fr/a/"))
    assert (fr.status, fr.annotations, fr.is_html) == (404, [], False)

    site.export(tmp_path / "public")
    assert (tmp_path / "public" / "404.html").is_file()
    before = site.requests()
    offline = await crawl(site=str(tmp_path / "public"), base=site.url("/"), start=start)
    assert site.requests() == before, "the folder answered, not the server"
    assert _table(offline.findings) == _table(served.findings)


def test_exported_facts_of_an_error_page_add_no_annotation():
    """Facts written by an older crawl (or another worker) that kept a 404 body's annotations."""
    en, de, fr, missing = (f"https://example.com/{p}/" for p in ("en", "de", "fr", "404"))
    en_b, de_b, fr_b = (f"https://example.com/{p}/b/" for p in ("en", "de", "fr"))
    switcher = [ann("en", missing), ann("x-default", missing)]
    facts = [
        CrawlInfo(started="2026-11-29T12:00:00+00:00"),
        page(en, ann("en", en), ann("de", de), ann("fr", fr), html_lang="en"),
        page(de, ann("en", en), ann("de", de), ann("fr", fr), html_lang="de"),
        page(en_b, ann("en", en_b), ann("de", de_b), ann("fr", fr_b), html_lang="en"),
        page(de_b, ann("en", en_b), ann("de", de_b), ann("fr", fr_b), html_lang="de"),
        page(fr, *switcher, status=404, html_lang="en"),
        page(fr_b, *switcher, status=404, html_lang="en"),
    ]
    lines = [json.dumps(fact_to_dict(fact)) for fact in facts]
    store = FactStore()
    store.add_all(read_facts(lines))
    context = AuditContext(store)
    findings = audit(context)
    assert len(context.clusters) == 2
    assert sorted(f.check for f in findings if f.severity == "error") == ["HL402"] * 4
    assert store.pages[fr] == Page(url=fr, requested=fr, status=404)
    fixes = cluster_fixes(context)
    assert [[m.url for m in fix.members] for fix in fixes] == [[de, en], [de_b, en_b]]
    assert all([(d.url, d.reason) for d in fix.dropped] == [(fix.annotated[-1], "answers 404 Not Found")] for fix in fixes)


@pytest_twisted.ensureDeferred
async def test_alternates_answering_204_or_206_are_hl407_over_http(site):
    a = site.url
    cluster = [("en", a("/en/")), ("de", a("/de/")), ("fr", a("/fr/"))]
    links = [alternate(value, url) for value, url in cluster]
    site.routes["/en/"] = Route(html_page(*links))
    site.routes["/de/"] = Route(b"", status=204, content_type=None)
    site.routes["/fr/"] = Route(html_page(*links, lang="fr"), status=206)
    result = await crawl(start=a("/en/"))
    assert sorted((f.url, f.target) for f in result.findings if f.check == "HL407") == [
        (a("/en/"), a("/de/")), (a("/en/"), a("/fr/"))
    ]
    assert result.page(a("/fr/")).annotations == [], "a 206 body is not a page"
    assert "HL201" not in result.checks()
