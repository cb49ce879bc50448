"""HL801 locale-adaptive-page, judged on the probe's facts; which language the probe sends."""

from __future__ import annotations

from qivrora_spider.extract.locale_probe import probe_language
from qivrora_spider.facts import LocaleProbe, LocaleRule
from tests.audit.builders import ann, canonical, cluster, hits, page

E = "https://ex.com"
EN, FR, DE, ROOT = f"{E}/en/", f"{E}/fr/", f"{E}/de/", f"{E}/"


def site(probe: LocaleProbe, **en_kw: object) -> list:
    pages = cluster({"en": EN, "fr": FR, "de": DE})
    return [page(EN, *pages[0].annotations, **{"html_lang": "en", **en_kw}), *pages[1:], probe]


def same_as_en(**kw: object) -> LocaleProbe:
    annotations = [ann(v, u) for v, u in (("en", EN), ("fr", FR), ("de", DE))]
    return LocaleProbe(url=EN, accept_language="de", annotations=annotations, **{"status": 200, **kw})


def test_probe_language_is_the_first_other_language_by_sorted_value() -> None:
    en = page(EN, ann("en", EN), ann("fr", FR), ann("en-GB", f"{E}/uk/"), ann("de", DE), ann("x-default", ROOT))
    assert probe_language(en) == "de"
    assert probe_language(page(ROOT, ann("x-default", ROOT), ann("de", DE))) is None
    assert probe_language(page(EN, ann("en", EN))) is None
    assert probe_language(page(FR, ann("en", EN), html_lang="en")) is None


def test_hl801_other_canonical_and_other_text_language() -> None:
    probe = same_as_en(canonicals=[canonical(DE)], main_text_language="de")
    (finding,) = hits(site(probe, text_blocks="a1b2c3:en:400"), "HL801")
    assert (finding.url, finding.target, finding.hreflang, finding.severity) == (EN, "", "de", "warning")
    assert "another canonical" in finding.message and "main text read as `de`, not `en`" in finding.message


def test_hl801_names_vary_where_it_changes_but_vary_alone_is_no_finding() -> None:
    assert hits(site(same_as_en(vary=True)), "HL801") == []
    (finding,) = hits(site(same_as_en(vary=True, status=302, location=DE)), "HL801")
    assert finding.target == DE and "`Vary: Accept-Language`" in finding.message


def test_hl801_not_for_x_default_targets_failed_probes_or_pages_outside_clusters() -> None:
    pages = cluster({"en": EN, "fr": FR, "x-default": EN})
    redirecting = LocaleProbe(url=EN, accept_language="fr", status=302, location=FR)
    assert hits([*pages, redirecting], "HL801") == []
    assert hits(site(LocaleProbe(url=EN, accept_language="de", error="timeout")), "HL801") == []
    lone = f"{E}/lone/"
    assert hits([page(lone), LocaleProbe(url=lone, accept_language="de", status=302, location=DE)], "HL801") == []


def test_hl801_from_a_build_folders_rule_by_language_or_country() -> None:
    rewrite = LocaleRule(EN, "_redirects:4", "/en/  /de/  200!  Language=de", ["Language=de"], 200, DE)
    (finding,) = hits(site(rewrite), "HL801")
    assert (finding.url, finding.target, finding.hreflang) == (EN, "", "de")
    assert finding.message.startswith(
        f"The `_redirects` rule at _redirects:4 (`/en/ /de/ 200! Language=de`) serves the content of {DE} "
        "at this URL for visitors with `Language=de`: "
    )
    by_country = LocaleRule(EN, "_redirects:2", "/en/ /fr/ 301! Country=fr,be", ["Country=fr,be"], 301, FR)
    (finding,) = hits(site(by_country), "HL801")
    assert (finding.target, finding.hreflang) == (FR, "")
    assert "answers 301 Moved Permanently to" in finding.message
    # Not on an x-default target (HL408's), nor on a page in no cluster.
    pages = cluster({"en": EN, "fr": FR, "x-default": EN})
    assert hits([*pages, by_country], "HL801") == []
    lone = f"{E}/lone/"
    lone_rule = LocaleRule(lone, "_redirects:1", "/lone/ /fr/ 302! Language=fr", ["Language=fr"], 302, FR)
    assert hits([page(lone), lone_rule], "HL801") == []
