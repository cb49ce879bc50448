"""HL503 on sites that reproduce how untranslated pages are published, crawled over HTTP.

Generators and CMSs fall back to the default language for pages nobody translated and publish the
fallback under the translated URL, with translated menus around it. The fixtures are made of real
texts (tests/texts/) in the languages of each pattern, and of the correct pages beside them that must
not be reported: closely related languages, Chinese in both scripts, a long quotation, a page that is
mostly navigation.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest_twisted

from qivrora_spider.audit import AuditContext, audit
from qivrora_spider.audit.checks.language import text_reading
from qivrora_spider.audit.core.fact_store import FactStore
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.fact_lines import read_facts
from qivrora_spider.report import cluster_fixes, render_report

from .conftest import crawl

TEXTS = Path(__file__).parent / "texts"


def text(name: str) -> str:
    """A text as paragraphs of HTML."""
    found = (TEXTS / f"{name}.txt").read_text(encoding="utf-8")
    return "".join(f"<p>{paragraph}</p>" for paragraph in found.split("\n\n") if paragraph.strip())


def chrome(lang: str) -> tuple[str, str]:
    """A translated header, menu and footer around the main content."""
    menus = {
        "fr": ("Documentation", "Accueil", "Guide", "Référence", "Tous droits réservés"),
        "de": ("Dokumentation", "Startseite", "Anleitung", "Referenz", "Alle Rechte vorbehalten"),
        "es": ("Tienda", "Inicio", "Ofertas", "Contacto", "Todos los derechos reservados"),
        "en": ("Documentation", "Home", "Guide", "Reference", "All rights reserved"),
    }
    title, *links, rights = menus.get(lang, menus["en"])
    nav = "".join(f'<a href="/{lang}/">{label}</a> ' for label in links)
    return f"<header><h1>{title}</h1><nav>{nav}</nav></header>", f"<footer>{rights}</footer>"


def page(lang: str, cluster: list[tuple[str, str]], main: str, *, lang_attr: str | None = None) -> Route:
    top, bottom = chrome(lang.split("-")[0])
    links = [alternate(value, url) for value, url in cluster]
    return Route(html_page(*links, body=f"{top}<main>{main}</main>{bottom}", lang=lang_attr or lang))


def language_sites(site: SiteServer) -> None:
    a = site.url
    docs = [("en", a("/en/setup/")), ("fr", a("/fr/setup/")), ("de", a("/de/setup/"))]
    shop = [("en", a("/en/p/grinder/")), ("es", a("/es/p/molinillo/"))]
    plan = [("en", a("/en/map/")), ("fr", a("/fr/plan/"))]
    quote = [("fr", a("/fr/retours/")), ("de", a("/de/zitat/"))]
    close = [
        (value, a(f"/{value.lower()}/guide/"))
        for value in ("hr", "bs", "sr-Cyrl", "sr-Latn", "da", "nb", "sv", "ms", "id", "es", "pt")
    ]
    chinese = [("zh-Hans", a("/zh-hans/doc/")), ("zh-Hant", a("/zh-hant/doc/")), ("zh-TW", a("/zh-tw/doc/"))]
    site.routes.update(
        {
            # A docs site whose French page kept the English body inside translated chrome.
            "/en/setup/": page("en", docs, text("en/02-install-cli")),
            "/fr/setup/": page("fr", docs, text("en/02-install-cli")),
            "/de/setup/": page("de", docs, text("de/02-konfiguration")),
            # A shop whose Spanish product text fell back to the English one.
            "/en/p/grinder/": page("en", shop, text("en/01-grinder")),
            "/es/p/molinillo/": page("es", shop, text("en/01-grinder")),
            # A page that is mostly navigation: too short to judge.
            "/en/map/": page("en", plan, "".join(f'<a href="/en/{n}/">Section {n}</a> ' for n in range(60))),
            "/fr/plan/": page("fr", plan, "".join(f'<a href="/fr/{n}/">Rubrique {n}</a> ' for n in range(60))),
            # Correct pages with a long quotation in another language.
            "/fr/retours/": page("fr", quote, text("mixed/fr-quote-en-01")),
            "/de/zitat/": page("de", quote, text("mixed/de-quote-en-02")),
            # Chinese in both scripts; the zh-TW page (Traditional implied) was given Simplified text.
            "/zh-hans/doc/": page("zh-Hans", chinese, text("zh-Hans/02-wendang")),
            "/zh-hant/doc/": page("zh-Hant", chinese, text("zh-Hant/02-wenjian")),
            "/zh-tw/doc/": page("zh-TW", chinese, text("zh-Hans/02-wendang")),
        }
    )
    # Closely related languages, each written correctly.
    for value, url in close:
        sample = next((TEXTS / value).glob("02-*.txt")).stem
        site.routes[url.removeprefix(site.base)] = page(value, close, text(f"{value}/{sample}"))


EXPECTED = {
    ("/fr/setup/", "fr", "English"),
    ("/es/p/molinillo/", "es", "English"),
    ("/zh-tw/doc/", "zh-TW", "Chinese (Simplified)"),
}


def hl503(findings, site: SiteServer) -> set[tuple[str, str, str]]:
    found = set()
    for f in findings:
        if f.check == "HL503":
            read = re.match(r"Its text reads \d+ % (.+?)(,| \(\d)", f.message).group(1)
            found.add((f.url.removeprefix(site.base), f.hreflang, read))
    return found


@pytest_twisted.ensureDeferred
async def test_untranslated_pages_are_hl503_and_correct_ones_are_not(site):
    language_sites(site)
    starts = ",".join(site.url(p) for p in ("/en/setup/", "/en/p/grinder/", "/en/map/", "/fr/retours/",
                                             "/hr/guide/", "/zh-hans/doc/"))
    result = await crawl(start=starts)
    assert hl503(result.findings, site) == EXPECTED
    (docs,) = [f for f in result.findings if f.check == "HL503" and f.url.endswith("/fr/setup/")]
    assert docs.severity == "warning" and docs.source == "html"
    assert docs.message.startswith("Its text reads 100 % English (")
    assert "but this page declares itself `fr`: translate it, or leave it out of the cluster" in docs.message
    store = FactStore()
    store.add_all(result.facts)
    context = AuditContext(store)
    assert text_reading(context, site.url("/fr/plan/")).letters == 0, "a page of links is names: nothing to judge"
    assert [language for language, _ in text_reading(context, site.url("/sr-cyrl/guide/")).languages] == ["sr-Cyrl"]
    assert text_reading(context, site.url("/zh-hant/doc/")).languages[0][0] == "zh-Hant"


@pytest_twisted.ensureDeferred
async def test_exported_facts_give_the_same_hl503(site, tmp_path):
    language_sites(site)
    facts = tmp_path / "facts.jsonl"
    result = await crawl(start=site.url("/en/setup/") + "," + site.url("/zh-hans/doc/"),
                         settings={"FEEDS": {str(facts): {"format": "facts"}}})
    crawled = sorted((f.check, f.url, f.message) for f in result.findings)
    with facts.open(encoding="utf-8") as lines:
        offline = sorted((f.check, f.url, f.message) for f in audit(read_facts(lines)))
    assert offline == crawled
    assert {url for check, url, _ in offline if check == "HL503"} == {site.url("/fr/setup/"), site.url("/zh-tw/doc/")}
    exported = [json.loads(line) for line in facts.read_text().splitlines()]
    assert all(fact["text_blocks"] for fact in exported if fact["fact"] == "page" and fact["status"] == 200)
    assert not any("Install" in json.dumps(fact) for fact in exported if fact["fact"] == "page"), "no text kept"


@pytest_twisted.ensureDeferred
async def test_the_report_shows_what_each_text_reads_as_and_the_fix_leaves_it_out(site):
    language_sites(site)
    result = await crawl(start=site.url("/en/setup/") + "," + site.url("/en/map/"))
    store = FactStore()
    store.add_all(result.facts)
    context = AuditContext(store)
    findings = audit(context)
    html = render_report(context, findings)
    assert "text reads 100 % English: not the declared language (HL503)" in html
    assert "text reads 100 % German</div>" in html
    assert "text too short to judge (" in html
    assert "whose text's language was judged (HL503), 2 too short to judge" in html
    (fix,) = [fix for fix in cluster_fixes(context) if site.url("/fr/setup/") in fix.annotated]
    assert [m.url for m in fix.members] == [site.url("/de/setup/"), site.url("/en/setup/")]
    assert [(d.url, d.reason) for d in fix.dropped] == [
        (site.url("/fr/setup/"), "is not translated yet: its main text reads as English, not `fr`")
    ]


@pytest_twisted.ensureDeferred
async def test_a_build_folder_is_judged_as_the_site_served(site, tmp_path):
    """Before publishing is where an untranslated page is cheapest to catch."""
    language_sites(site)
    start = site.url("/en/setup/") + "," + site.url("/en/p/grinder/")
    served = await crawl(start=start)
    site.export(tmp_path / "public")
    offline = await crawl(site=str(tmp_path / "public"), base=site.url("/"), start=start)
    assert sorted((f.check, f.url, f.message) for f in offline.findings if f.check == "HL503") == sorted(
        (f.check, f.url, f.message) for f in served.findings if f.check == "HL503"
    )
    assert hl503(offline.findings, site) == {("/fr/setup/", "fr", "English"), ("/es/p/molinillo/", "es", "English")}
