""""Fix first": findings grouped by root cause, on sites whose one cause is known."""

from __future__ import annotations

from qivrora_spider.report.causes import OWN_CAUSE, rank_causes

from .audit.builders import ann, cluster, entry, page, robots, run, sitemap_file

E = "https://example.com"
SM = f"{E}/sitemap.xml"


def test_one_noindex_page_many_pages_name_is_one_cause_first():
    # Eight language pages name one hub as x-default; the hub is noindex. Two small defects elsewhere.
    langs = ["en", "de", "fr", "es", "it", "nl", "pl", "pt"]
    members = {lang: f"{E}/{lang}/" for lang in langs}
    facts = cluster({**members, "x-default": f"{E}/hub/"})
    facts = [p for p in facts if p.url != f"{E}/hub/"]
    facts.append(page(f"{E}/hub/", *[ann(lang, url) for lang, url in members.items()], ann("x-default", f"{E}/hub/"), noindex="meta"))
    facts += cluster({"en": f"{E}/a/en", "de": f"{E}/a/de"})[:1] + [page(f"{E}/a/de")]
    causes = rank_causes(run(facts))
    first = causes[0]
    assert first.key == ("url", f"{E}/hub/")
    assert first.findings >= len(langs) and dict(first.checks).get("HL406", 0) >= len(langs)
    assert first.title.startswith(f"{E}/hub/ is kept out of the index") and f"{len(langs)} pages" in first.title
    assert "indexable" in first.action and "add the page it canonicalises to" in first.action
    assert all(cause.key != ("url", f"{E}/hub/") for cause in causes[1:]), "one cause, not one per finding"


def test_one_template_omitting_self_references_is_one_cause_saying_what_to_add():
    facts = []
    for n in range(4):
        en, de = f"{E}/{n}/en/", f"{E}/{n}/de/"
        facts += [page(en, ann("de", de)), page(de, ann("en", en))]
    causes = rank_causes(run(facts))
    (template,) = [cause for cause in causes if cause.key == ("template", "HL108")]
    assert template.findings == 8 and len(template.pages) == 8 and template.clusters == 4
    assert template.title == "8 pages: missing-self-reference, likely one template"
    example = template.pages[0]
    assert f"Add a self-reference to the template: on {example}, an annotation naming {example}." == template.action
    assert causes[0] is template, "it removes most"


def test_one_sitemap_listing_redirecting_urls_is_one_cause():
    facts = [robots(E, SM), sitemap_file(SM)]
    for n in range(6):
        old, new = f"{E}/old/{n}", f"{E}/new/{n}/"
        facts += [entry(SM, old, line=3 + n), page(old, status=301, location=new), page(new), entry(SM, new, line=20 + n)]
    causes = rank_causes(run(facts))
    first = causes[0]
    assert first.key == ("sitemap", SM, "SM001") and first.findings == 6
    assert first.title == f"{SM} lists 6 URLs: sitemap-url-not-ok"


def test_many_urls_with_one_small_problem_fold_into_their_kind_and_causes_are_ordered():
    facts = []
    for n in range(OWN_CAUSE + 1):
        en, de, moved = f"{E}/{n}/en/", f"{E}/{n}/de/", f"{E}/{n}/de"
        facts += [
            page(en, ann("en", en), ann("de", moved)),
            page(moved, status=301, location=de),
            page(de, ann("de", de), ann("en", en)),
        ]
    causes = rank_causes(run(facts))
    (redirects,) = [cause for cause in causes if cause.key == ("kind", "redirects")]
    assert redirects.title == f"{OWN_CAUSE + 1} URLs redirecting, yet annotated or listed"
    assert [cause.findings for cause in causes] == sorted((cause.findings for cause in causes), reverse=True)
    assert rank_causes(reversed(run(facts))) == causes, "the same findings in any order give the same causes"
