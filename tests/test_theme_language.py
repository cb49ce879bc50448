"""HL503 under the frames real themes put around a page's text (issue 29).

Two themes, each with an English and a German locale and the same German chrome on every German page:
a blog theme with no `<main>`, `<article>` or `<aside>`, whose sidebar (a tagline, a licence line, a
language switcher) comes before the content; and a documentation theme whose translated footer ("Edit
this page", "Last updated", "Was this page helpful?", previous and next) sits inside `<main>`. Read as
one text, the chrome hid the English body of an untranslated page; left out as the template the pages
repeat, it does not. Beside them, the pages that must not be reported: translated, half translated,
a translated page with long quotations, a showcase of names.
"""

from __future__ import annotations

import re

from pathlib import Path

import pytest_twisted

from qivrora_spider.audit import audit
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.fact_lines import read_facts

from .conftest import crawl

TEXTS = Path(__file__).parent / "texts"


def paragraphs(name: str) -> list[str]:
    found = (TEXTS / f"{name}.txt").read_text(encoding="utf-8")
    return [f"<p>{paragraph}</p>" for paragraph in found.split("\n\n") if paragraph.strip()]


def text(name: str) -> str:
    return "".join(paragraphs(name))


SIDEBAR = {
    "de": (
        "Notizen aus der Werkstatt: Hier schreibe ich über Werkzeuge, Reisen und die kleinen Dinge, die "
        "den Alltag leichter machen. Neue Beiträge erscheinen jeden zweiten Sonntag, und ältere Texte "
        "werden regelmäßig überarbeitet und ergänzt.",
        "Alle Texte stehen unter einer freien Lizenz und dürfen mit Namensnennung weitergegeben werden.",
    ),
    "en": (
        "Notes from the workshop: I write here about tools, travel and the small things that make "
        "everyday life easier. New posts appear every other Sunday, and older texts are revised.",
        "All texts are under a free licence and may be shared with attribution.",
    ),
}
FOOTER = {
    "de": (
        "<p>Diese Seite bearbeiten</p><p>Zuletzt aktualisiert am dritten März</p>"
        "<p>War diese Seite hilfreich? Schreiben Sie uns, was fehlt oder was wir besser erklären sollten.</p>"
    ),
    "en": (
        "<p>Edit this page</p><p>Last updated on the third of March</p>"
        "<p>Was this page helpful? Write to us about what is missing or what we should explain better.</p>"
    ),
}
NAMES = "".join(
    f"<li>{name}</li>"
    for name in (
        "Bright Pixel Studio", "Cloud Forge Labs", "Northwind Traders", "Blue Harbor Design", "Red Maple Press",
        "Silver Lake Software", "Golden Gate Bakery", "Green Field Farms", "Iron Bridge Capital",
        "Quiet Creek Records", "Stone Arch Builders", "Morning Star Coffee", "Open Road Cycles",
        "Tall Pine Outfitters", "Swift River Logistics", "Bright Horizon Travel", "Clear Sky Solar",
        "Urban Roots Garden", "Paper Crane Books", "Wild Oak Furniture", "Harbor Light Films",
    )
)
#: Page -> (English body, German body): what each locale of the blog serves.
BLOG = {
    "grinder": (text("en/01-grinder"), text("de/01-rucksack")),
    "install": (text("en/02-install-cli"), text("de/02-konfiguration")),
    "returns": (text("en/03-returns"), text("de/03-versand")),
    "password": (text("en/04-password"), text("de/04-konto")),
    # Untranslated: the English text under the German sidebar.
    "cycling": (text("en/05-cycling"), text("en/05-cycling")),
    "recipe": (text("en/06-recipe"), text("en/06-recipe")),
    # Half translated: not a page to report as untranslated.
    "hiking": (text("en/05-cycling"), "".join(paragraphs("de/05-wanderweg")[:2] + paragraphs("en/06-recipe")[:1])),
    # Translated, with a long English quotation.
    "quote": (text("en/03-returns"), text("mixed/de-quote-en-02")),
    # Names read as any language: not judged.
    "showcase": (f"<ul>{NAMES}</ul>", f"<h2>Projekte</h2><ul>{NAMES}</ul>"),
}
#: Page -> (English, German) bodies of the documentation theme: one paragraph, under the footer.
DOCS = {
    "grinder": (paragraphs("en/01-grinder")[0], paragraphs("de/01-rucksack")[0]),
    "install": (paragraphs("en/02-install-cli")[0], paragraphs("de/02-konfiguration")[0]),
    "returns": (paragraphs("en/03-returns")[0], paragraphs("de/03-versand")[0]),
    "recipe": (paragraphs("en/06-recipe")[0], paragraphs("de/06-rezept")[0]),
    "password": (paragraphs("en/04-password")[0], paragraphs("en/04-password")[0]),  # untranslated
}


def blog_page(lang: str, cluster: list[tuple[str, str]], body: str) -> Route:
    tagline, licence = SIDEBAR[lang]
    switcher = '<a href="/en/">English</a> <a href="/de/">Deutsch</a>'
    sidebar = f'<div class="sidebar"><div class="tagline">{tagline}</div><div>{licence}</div><div>{switcher}</div></div>'
    links = [alternate(value, url) for value, url in cluster]
    return Route(html_page(*links, body=f'{sidebar}<div class="content">{body}</div>', lang=lang))


def docs_page(lang: str, cluster: list[tuple[str, str]], body: str, after: str) -> Route:
    footer = f'<div class="footer">{FOOTER[lang]}<a href="{after}">{"Weiter" if lang == "de" else "Next"}</a></div>'
    links = [alternate(value, url) for value, url in cluster]
    return Route(html_page(*links, body=f"<nav>Docs</nav><main><h1>Guide</h1>{body}{footer}</main>", lang=lang))


def themes(blog: SiteServer, docs: SiteServer) -> None:
    for name, bodies in BLOG.items():
        cluster = [(lang, blog.url(f"/{lang}/{name}/")) for lang in ("en", "de")]
        for (lang, url), body in zip(cluster, bodies):
            blog.routes[url.removeprefix(blog.base)] = blog_page(lang, cluster, body)
    names = list(DOCS)
    for index, (name, bodies) in enumerate(DOCS.items()):
        cluster = [(lang, docs.url(f"/{lang}/{name}/")) for lang in ("en", "de")]
        for (lang, url), body in zip(cluster, bodies):
            after = f"/{lang}/{names[(index + 1) % len(names)]}/"
            docs.routes[url.removeprefix(docs.base)] = docs_page(lang, cluster, body, after)


def starts(blog: SiteServer, docs: SiteServer) -> str:
    return ",".join([*(blog.url(f"/en/{name}/") for name in BLOG), *(docs.url(f"/en/{name}/") for name in DOCS)])


@pytest_twisted.ensureDeferred
async def test_untranslated_bodies_under_translated_chrome_are_found_and_nothing_else(site, other_site, tmp_path):
    themes(site, other_site)
    facts = tmp_path / "facts.jsonl"
    result = await crawl(start=starts(site, other_site), settings={"FEEDS": {str(facts): {"format": "facts"}}})
    found = {f.url: f.message for f in result.findings if f.check == "HL503"}
    assert set(found) == {site.url("/de/cycling/"), site.url("/de/recipe/"), other_site.url("/de/password/")}
    # Read until 600 letters of prose (``ENOUGH_LETTERS``), the German sidebar among them and left out.
    assert re.match(r"Its text reads 100 % English \((\d{3}|1,\d{3}) letters, template", found[site.url("/de/cycling/")])
    assert "template text left out), but this page declares itself `de`" in found[other_site.url("/de/password/")]
    with facts.open(encoding="utf-8") as lines:
        offline = sorted((f.check, f.url, f.message) for f in audit(read_facts(lines)))
    assert offline == sorted((f.check, f.url, f.message) for f in result.findings)


@pytest_twisted.ensureDeferred
async def test_a_build_folder_of_the_blog_theme_gives_the_same_answer(site, tmp_path):
    themes(site, SiteServer())
    start = ",".join(site.url(f"/en/{name}/") for name in BLOG)
    served = await crawl(start=start)
    site.export(tmp_path / "public")
    folder = await crawl(site=str(tmp_path / "public"), base=site.url("/"), start=start)
    rows = sorted((f.check, f.url, f.message) for f in served.findings if f.check == "HL503")
    assert rows == sorted((f.check, f.url, f.message) for f in folder.findings if f.check == "HL503")
    assert [url for _, url, _ in rows] == [site.url("/de/cycling/"), site.url("/de/recipe/")]
