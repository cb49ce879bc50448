"""The demo site, and a flawless site to prove the audit quiet, both served by ``SiteServer``.

The demo is Northwind Outdoor, a small shop for tents and clothing: six languages on the main host
(`en`, `en-GB`, `de`, `fr`, `es`, `pt-BR`, and a language picker as `x-default`) and a Japanese
country store on a second host. It carries hreflang in all three places search engines read it
(HTML `<head>`, HTTP `Link` headers on PDFs, `<xhtml:link>` in sitemaps), a robots.txt naming a
sitemap index of three sitemaps (one gzip), canonicals, noindex pages and language switchers.

Most of it is clean: that is what shows the audit raises no false alarms. The rest carries the
defects site owners really make. ``ANSWER_KEY`` lists every finding the audit must report on it,
nothing more: each planted defect, and each finding that follows from one (with why). The
end-to-end tests hold the audit to it, and the docs' demo page (docs/demo.md) shows it as a table.

``build_clean_site`` is a second site, a city museum on two hosts with regions of one language,
scripts (`zh-Hans`, `zh-Hant`, `sr-Latn`), annotations in every source and a PDF pair: no finding.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from datetime import date, timedelta
from html import escape
from itertools import count
from typing import Iterable, Iterator, Mapping

from .site_server import Route, SiteServer, alternate

MAIN, SECOND = "main", "second"

#: The smallest body a PDF reader accepts; the crawl reads a PDF's headers, not its body.
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"

# --- sitemap XML ---------------------------------------------------------------------------------


def urlset(*entries: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n' + "\n".join(entries) + "\n</urlset>\n"
    )


def url_entry(loc: str, *links: tuple[str, str], lastmod: str | None = None) -> str:
    """One `<url>`; `links` are (hreflang, href) written as `<xhtml:link>`."""
    parts = [f"<loc>{loc}</loc>"]
    if lastmod:
        parts.append(f"<lastmod>{lastmod}</lastmod>")
    parts += [f'<xhtml:link rel="alternate" hreflang="{h}" href="{u}"/>' for h, u in links]
    return "<url>" + "".join(parts) + "</url>"


def sitemap_index(*locs: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "\n".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
        + "\n</sitemapindex>\n"
    )


# --- what a site is made of ----------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Ref:
    """A path on one of a site's two hosts (MAIN or SECOND): URLs exist only once servers run."""

    host: str
    path: str


def on_second(path: str) -> Ref:
    return Ref(SECOND, path)


Where = str | Ref  # a path on the main host, or a Ref


def _ref(where: Where) -> Ref:
    return where if isinstance(where, Ref) else Ref(MAIN, where)


@dataclass(frozen=True)
class Cluster:
    """The language versions of one page: hreflang value -> (where, title); `x-default` among them."""

    versions: Mapping[str, tuple[Ref, str]]

    @classmethod
    def of(cls, versions: Mapping[str, tuple[Where, str]], x_default: str | tuple[Where, str]) -> Cluster:
        """`x_default` names the version that serves as x-default, or is a page of its own."""
        found = {value: (_ref(where), title) for value, (where, title) in versions.items()}
        found["x-default"] = (
            found[x_default] if isinstance(x_default, str) else (_ref(x_default[0]), x_default[1])
        )
        return cls(found)

    def ref(self, hreflang: str) -> Ref:
        return self.versions[hreflang][0]

    @property
    def refs(self) -> list[Ref]:
        return list(dict.fromkeys(ref for ref, _ in self.versions.values()))


@dataclass
class Doc:
    """An HTML page as its template renders it. Defects are planted by editing these fields."""

    ref: Ref
    title: str
    lang: str | None  # <html lang>
    alternates: list[tuple[str, str]]  # (hreflang, href) as written in <head>
    switcher: list[tuple[str, str]] = field(default_factory=list)  # (hreflang, url): other versions
    canonical: str | None = None
    head_code: str = ""  # "header code" pasted into the CMS, rendered before the annotations
    robots: str | None = None  # <meta name="robots" content=...>
    headers: list[tuple[str, str]] = field(default_factory=list)
    menu: str | None = None  # the menu it is listed in and shows: its language
    text: str = ""  # the page's own text (a product description), below its title in <main>


@dataclass
class Entry:
    """A sitemap `<url>`: (hreflang, href) alternates are written as `<xhtml:link>`."""

    ref: Ref
    lastmod: str | None = None
    alternates: list[tuple[str, str]] = field(default_factory=list)


LANGUAGE_NAMES = {
    "en": "English",
    "en-GB": "English (UK)",
    "en-US": "English (US)",
    "de": "Deutsch",
    "de-DE": "Deutsch (Deutschland)",
    "de-AT": "Deutsch (Österreich)",
    "fr": "Français",
    "es": "Español",
    "pt-BR": "Português (Brasil)",
    "ja": "日本語",
    "sr": "Српски",
    "sr-Latn": "Srpski",
    "zh-Hans": "简体中文",
    "zh-Hant": "繁體中文",
}


class Site:
    """Pages, PDFs, sitemaps and robots.txt of a two-host site, rendered onto the servers at the end."""

    def __init__(self, servers: Mapping[str, SiteServer], brand: str) -> None:
        self.servers = servers
        self.brand = brand
        self.docs: dict[Ref, Doc] = {}
        self.routes: dict[Ref, Route] = {}
        self.menus: dict[tuple[str, str], list[tuple[str, Ref]]] = {}
        self.footer: dict[str, list[tuple[str, Ref]]] = {}

    def url(self, where: Where) -> str:
        ref = _ref(where)
        return self.servers[ref.host].url(ref.path)

    def link(self, here: Ref, there: Ref) -> str:
        """A navigation href as sites write them: a path on the same host, else absolute."""
        return there.path if there.host == here.host else self.url(there)

    def annotations(self, cluster: Cluster) -> list[tuple[str, str]]:
        return [(value, self.url(ref)) for value, (ref, _) in cluster.versions.items()]

    def list_in_menu(self, host: str, language: str, label: str, ref: Ref) -> None:
        self.menus.setdefault((host, language), []).append((label, ref))

    def cluster(self, cluster: Cluster, *, html: bool = True, canonical: bool = False) -> dict[str, Doc]:
        """A page per version, each listing every version (`html`) and linking the others.

        Keyed by hreflang value; a separate x-default page (a language picker) is keyed `x-default`.
        """
        annotations = self.annotations(cluster) if html else []
        docs: dict[str, Doc] = {}
        for value, (ref, title) in cluster.versions.items():
            if ref in self.docs:
                continue  # x-default served by one of the language versions
            language = value if value != "x-default" else None
            docs[value] = self.docs[ref] = Doc(
                ref,
                title,
                lang=language or "en",  # a separate x-default page (a language picker) is in English
                alternates=list(annotations),
                switcher=[
                    (v, self.url(r))
                    for v, (r, _) in cluster.versions.items()
                    if r != ref and v != "x-default"
                ],
                canonical=self.url(ref) if canonical else None,
                menu=language,
            )
            if language:
                self.list_in_menu(ref.host, language, title, ref)
        return docs

    def page(self, doc: Doc) -> None:
        self.docs[doc.ref] = doc

    def delete(self, ref: Ref) -> None:
        """Take a page down, and out of its menu: the server answers 404 for it."""
        doc = self.docs.pop(ref)
        if doc.menu:
            self.menus[(ref.host, doc.menu)] = [
                item for item in self.menus[(ref.host, doc.menu)] if item[1] != ref
            ]

    def pdfs(self, cluster: Cluster) -> dict[str, Route]:
        """A PDF per version, each with every version in its HTTP Link header."""
        header = link_header(self.annotations(cluster))
        routes: dict[str, Route] = {}
        for value, (ref, title) in cluster.versions.items():
            if ref in self.routes:
                continue
            routes[value] = self.routes[ref] = Route(
                PDF, content_type="application/pdf", headers=[("Link", header)]
            )
            if value != "x-default":
                self.list_in_menu(ref.host, value, f"{title} (PDF)", ref)
        return routes

    def sitemap(self, ref: Ref, entries: Iterable[Entry], *, compress: bool = False) -> None:
        body = urlset(*(url_entry(self.url(e.ref), *e.alternates, lastmod=e.lastmod) for e in entries))
        self.routes[ref] = (
            Route(gzip.compress(body.encode()), content_type="application/gzip")
            if compress
            else Route(body, content_type="application/xml")
        )

    def sitemap_index(self, ref: Ref, sitemaps: Iterable[Ref]) -> None:
        self.routes[ref] = Route(
            sitemap_index(*(self.url(s) for s in sitemaps)), content_type="application/xml"
        )

    def robots(self, host: str, rules: str, sitemap: Ref) -> None:
        self.routes[Ref(host, "/robots.txt")] = Route(
            f"{rules.strip()}\n\nSitemap: {self.url(sitemap)}\n", content_type="text/plain"
        )

    def publish(self) -> None:
        """Render every page (menus are known only now) and put every route on its server."""
        for ref, doc in self.docs.items():
            self.routes[ref] = Route(self._render(doc), headers=doc.headers)
        for ref, route in self.routes.items():
            self.servers[ref.host].routes[ref.path] = route

    def _render(self, doc: Doc) -> str:
        here = doc.ref
        head = [
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(doc.title)} | {escape(self.brand)}</title>",
            '<link rel="stylesheet" href="/static/site.css">',
            '<script src="/static/site.js" defer></script>',
        ]
        if doc.robots:
            head.append(f'<meta name="robots" content="{doc.robots}">')
        if doc.canonical:
            head.append(f'<link rel="canonical" href="{doc.canonical}">')
        if doc.head_code:
            head.append(doc.head_code)
        head += [alternate(value, href) for value, href in doc.alternates]
        menu = self.menus.get((here.host, doc.menu), []) if doc.menu else []
        nav = " ".join(f'<a href="{self.link(here, ref)}">{escape(label)}</a>' for label, ref in menu)
        languages = " ".join(
            f'<a href="{url}" lang="{value}">{LANGUAGE_NAMES.get(value, value)}</a>'
            for value, url in doc.switcher
        )
        footer = " ".join(
            f'<a href="{self.link(here, ref)}">{escape(label)}</a>'
            for label, ref in self.footer.get(here.host, [])
        )
        lang = f' lang="{doc.lang}"' if doc.lang else ""
        return (
            f"<!doctype html>\n<html{lang}>\n<head>\n" + "\n".join(head) + "\n</head>\n<body>\n"
            f"<header><strong>{escape(self.brand)}</strong>\n<nav>{nav}</nav>\n"
            f'<nav class="languages">{languages}</nav></header>\n'
            f"<main><h1>{escape(doc.title)}</h1>\n<p>{escape(self.brand)}: {escape(doc.title)}.</p>"
            + (f"\n<p>{escape(doc.text)}</p>" if doc.text else "")
            + "</main>\n"
            f"<footer>{footer}</footer>\n</body>\n</html>\n"
        )


def edited(
    pairs: list[tuple[str, str]], value: str, *, hreflang: str = "", href: str = ""
) -> list[tuple[str, str]]:
    """(hreflang, href) `pairs` with the one for `value` written otherwise: another value or href."""
    return [(hreflang or v, href or h) if v == value else (v, h) for v, h in pairs]


def dropped(pairs: list[tuple[str, str]], value: str) -> list[tuple[str, str]]:
    return [(v, h) for v, h in pairs if v != value]


def link_header(annotations: Iterable[tuple[str, str]]) -> str:
    return ", ".join(f'<{href}>; rel="alternate"; hreflang="{value}"' for value, href in annotations)


def days(start: date, step: int) -> Iterator[str]:
    """Distinct lastmod dates, as a CMS records the day each page last changed."""
    for n in count():
        yield (start + timedelta(days=step * n)).isoformat()


# --- the demo: Northwind Outdoor ------------------------------------------------------------------

JP = on_second

HOME = Cluster.of(
    {
        "en": ("/en/", "Outdoor gear"),
        "en-GB": ("/en-gb/", "Outdoor kit"),
        "de": ("/de/", "Outdoor-Ausrüstung"),
        "fr": ("/fr/", "Équipement outdoor"),
        "es": ("/es/", "Equipo de montaña"),
        "pt-BR": ("/pt-br/", "Equipamento outdoor"),
        "ja": (JP("/"), "アウトドア用品"),
    },
    x_default=("/", "Choose your country"),
)
TENTS = Cluster.of(
    {
        "en": ("/en/tents/", "Tents"),
        "en-GB": ("/en-gb/tents/", "Tents"),
        "de": ("/de/zelte/", "Zelte"),
        "fr": ("/fr/tentes/", "Tentes"),
        "es": ("/es/tiendas-de-campana/", "Tiendas de campaña"),
        "pt-BR": ("/pt-br/barracas/", "Barracas"),
        "ja": (JP("/tents/"), "テント"),
    },
    x_default="en",
)
TRAIL_TENT = Cluster.of(
    {
        "en": ("/en/p/trail-2-tent/", "Trail 2 tent"),
        "en-GB": ("/en-gb/p/trail-2-tent/", "Trail 2 tent"),
        "de": ("/de/p/trail-2-zelt/", "Trail 2 Zelt"),
        "fr": ("/fr/p/tente-trail-2/", "Tente Trail 2"),
        "es": ("/es/p/tienda-trail-2/", "Tienda Trail 2"),
        "pt-BR": ("/pt-br/p/barraca-trail-2/", "Barraca Trail 2"),
        "ja": (JP("/p/trail-2-tent/"), "トレイル2 テント"),
    },
    x_default="en",
)
FOOTWEAR = Cluster.of(
    {
        "en": ("/en/footwear/", "Footwear"),
        "en-GB": ("/en-gb/footwear/", "Footwear"),
        "de": ("/de/schuhe/", "Schuhe"),
        "fr": ("/fr/chaussures/", "Chaussures"),
        "es": ("/es/calzado/", "Calzado"),
        "pt-BR": ("/pt-br/calcados/", "Calçados"),
        "ja": (JP("/footwear/"), "シューズ"),
    },
    x_default="en",
)
JACKETS = Cluster.of(
    {
        "en": ("/en/jackets/", "Jackets"),
        "en-GB": ("/en-gb/jackets/", "Jackets"),
        "de": ("/de/jacken/", "Jacken"),
        "fr": ("/fr/vestes/", "Vestes"),
        "es": ("/es/chaquetas/", "Chaquetas"),
        "pt-BR": ("/pt-br/jaquetas/", "Jaquetas"),
        "ja": (JP("/jackets/"), "ジャケット"),
    },
    x_default="en",
)
BACKPACK = Cluster.of(
    {
        "en": ("/en/p/ridge-40-backpack/", "Ridge 40 backpack"),
        "en-GB": ("/en-gb/p/ridge-40-rucksack/", "Ridge 40 rucksack"),
        "de": ("/de/p/ridge-40-rucksack/", "Ridge 40 Rucksack"),
        "fr": ("/fr/p/sac-a-dos-ridge-40/", "Sac à dos Ridge 40"),
        "es": ("/es/p/mochila-ridge-40/", "Mochila Ridge 40"),
        "pt-BR": ("/pt-br/p/mochila-ridge-40/", "Mochila Ridge 40"),
        "ja": (JP("/p/ridge-40-backpack/"), "リッジ40 バックパック"),
    },
    x_default="en",
)
BASE_LAYER = Cluster.of(
    {
        "en": ("/en/p/merino-base-layer/", "Merino base layer"),
        "en-GB": ("/en-gb/p/merino-base-layer/", "Merino base layer"),
        "de": ("/de/p/merino-funktionsshirt/", "Merino Funktionsshirt"),
        "fr": ("/fr/p/sous-couche-merinos/", "Sous-couche en mérinos"),
    },
    x_default="en",
)
HELP = Cluster.of(
    {
        "en": ("/en/help/", "Help"),
        "en-GB": ("/en-gb/help/", "Help"),
        "de": ("/de/hilfe/", "Hilfe"),
        "fr": ("/fr/aide/", "Aide"),
        "es": ("/es/ayuda/", "Ayuda"),
        "pt-BR": ("/pt-br/ajuda/", "Ajuda"),
        "ja": (JP("/help/"), "ヘルプ"),
    },
    x_default="en",
)
PRIVACY = Cluster.of(
    {
        "en": ("/en/privacy/", "Privacy"),
        "de": ("/de/datenschutz/", "Datenschutz"),
        "fr": ("/fr/confidentialite/", "Confidentialité"),
        "es": ("/es/privacidad/", "Privacidad"),
        "pt-BR": ("/pt-br/privacidade/", "Privacidade"),
    },
    x_default="en",
)
TENT_CARE = Cluster.of(
    {
        "en": ("/docs/tent-care-en.pdf", "Tent care"),
        "fr": ("/docs/tent-care-fr.pdf", "Entretien de la tente"),
    },
    x_default="en",
)
ABOUT = Cluster.of(
    {
        "en": ("/en/about/", "About us"),
        "en-GB": ("/en-gb/about/", "About us"),
        "de": ("/de/ueber-uns/", "Über uns"),
        "fr": ("/fr/a-propos/", "À propos"),
    },
    x_default="en",
)
TRAIL_WEEK = Cluster.of(
    {
        "en": ("/en/trail-week/", "Trail Week"),
        "de": ("/de/trail-week/", "Trail Week"),
        "ja": (JP("/trail-week/"), "トレイルウィーク"),
    },
    x_default="en",
)
CONTACT = Cluster.of(
    {
        "en": ("/en/contact/", "Contact"),
        "de": ("/de/kontakt/", "Kontakt"),
        "fr": ("/fr/contact/", "Contact"),
    },
    x_default="en",
)
SHIPPING = Cluster.of(
    {
        "en": ("/en/shipping/", "Shipping"),
        "de": ("/de/versand/", "Versand"),
        "es": ("/es/envios/", "Envíos"),
    },
    x_default="en",
)
RETURNS = Cluster.of(
    {
        "en": ("/en/returns/", "Returns"),
        "de": ("/de/retouren/", "Retouren"),
        "fr": ("/fr/retours/", "Retours"),
    },
    x_default="en",
)
BOOTS = Cluster.of(
    {
        "en": ("/en/p/alpine-gtx-boots/", "Alpine GTX boots"),
        "de": ("/de/p/alpine-gtx-wanderschuh/", "Alpine GTX Wanderschuh"),
        "fr": ("/fr/p/chaussures-alpine-gtx/", "Chaussures Alpine GTX"),
    },
    x_default="en",
)
#: The German boots page's URL before its slug was translated; it redirects to the new one.
BOOTS_OLD_DE = Ref(MAIN, "/de/p/alpine-gtx/")
JACKET = Cluster.of(
    {
        "en": ("/en/p/glacier-jacket/", "Glacier jacket"),
        "de": ("/de/p/glacier-jacke/", "Glacier Jacke"),
        "fr": ("/fr/p/veste-glacier/", "Veste Glacier"),
    },
    x_default="en",
)
SALE = Cluster.of(
    {"en": ("/en/sale/", "Sale"), "de": ("/de/angebote/", "Angebote"), "fr": ("/fr/soldes/", "Soldes")},
    x_default="en",
)
HEADLAMP = Cluster.of(
    {
        "en": ("/en/p/headlamp-400/", "Headlamp 400"),
        "es": ("/es/p/frontal-400/", "Frontal 400"),
        "pt-BR": ("/pt-br/p/lanterna-400/", "Lanterna de cabeça 400"),
    },
    x_default="en",
)
STORES = Cluster.of(
    {
        "en": ("/en/stores/", "Our stores"),
        "de": ("/de/filialen/", "Filialen"),
        "fr": ("/fr/magasins/", "Magasins"),
    },
    x_default="en",
)
CAMP_STOVE = Cluster.of(
    {
        "en": ("/en/p/ember-camp-stove/", "Ember camp stove"),
        "de": ("/de/p/ember-campingkocher/", "Ember Campingkocher"),
        "fr": ("/fr/p/rechaud-ember/", "Réchaud Ember"),
        "es": ("/es/p/hornillo-ember/", "Hornillo Ember"),
    },
    x_default="en",
)
#: The stove's descriptions, as the shop's product editors wrote them (the French one is missing).
CAMP_STOVE_TEXTS = {
    "en": (
        "The Ember camp stove folds to the size of a coffee mug and boils a litre of water in under four "
        "minutes. Its stainless steel burner screws onto any standard gas canister, and the wide pot "
        "supports hold pans up to twenty centimetres across. A piezo igniter lights the flame without "
        "matches, even when your hands are cold, and the simmer valve turns it down low enough for "
        "porridge. The stove weighs eighty-five grams and packs into its own hard case."
    ),
    "de": (
        "Der Ember Campingkocher lässt sich auf die Größe eines Kaffeebechers zusammenklappen und bringt "
        "einen Liter Wasser in weniger als vier Minuten zum Kochen. Der Brenner aus Edelstahl passt auf "
        "jede handelsübliche Gaskartusche, und die breiten Topfauflagen tragen Töpfe bis zwanzig "
        "Zentimeter Durchmesser. Ein Piezozünder entzündet die Flamme ohne Streichhölzer, auch mit kalten "
        "Händen, und das Regelventil dreht sie so weit herunter, dass sogar Haferbrei gelingt. Der Kocher "
        "wiegt fünfundachtzig Gramm und steckt in einem eigenen festen Etui."
    ),
    "es": (
        "El hornillo Ember se pliega hasta el tamaño de una taza de café y hierve un litro de agua en "
        "menos de cuatro minutos. Su quemador de acero inoxidable se enrosca en cualquier cartucho de gas "
        "estándar, y los amplios soportes sostienen ollas de hasta veinte centímetros de diámetro. Un "
        "encendedor piezoeléctrico prende la llama sin cerillas, incluso con las manos frías, y la válvula "
        "de regulación la baja lo suficiente para cocinar a fuego lento. El hornillo pesa ochenta y cinco "
        "gramos y se guarda en su propio estuche rígido."
    ),
}
#: The German stores page without its trailing slash: the server redirects it to the page.
STORES_DE_SLASHLESS = Ref(MAIN, "/de/filialen")
RAIN_JACKET = Cluster.of(
    {
        "en": ("/en/p/storm-rain-jacket/", "Storm rain jacket"),
        "de": ("/de/p/storm-regenjacke/", "Storm Regenjacke"),
        "es": ("/es/p/chaqueta-storm/", "Chaqueta impermeable Storm"),
    },
    x_default="en",
)
SLEEPING_BAG = Cluster.of(
    {
        "en": ("/en/p/down-sleeping-bag/", "Down sleeping bag"),
        "de": ("/de/p/daunenschlafsack/", "Daunenschlafsack"),
        "fr": ("/fr/p/sac-de-couchage-duvet/", "Sac de couchage en duvet"),
        "ja": (JP("/p/down-sleeping-bag/"), "ダウン寝袋"),
    },
    x_default="en",
)
SIZE_GUIDE = Cluster.of(
    {"en": ("/docs/size-guide-en.pdf", "Size guide"), "de": ("/docs/size-guide-de.pdf", "Größentabelle")},
    x_default="en",
)
GIFT_CARDS = Ref(MAIN, "/en/gift-cards/")

#: Clusters without a planted defect: no finding may name any of their URLs.
CLEAN_CLUSTERS = (HOME, HELP, PRIVACY, TENTS, FOOTWEAR, JACKETS, TRAIL_TENT, BACKPACK, BASE_LAYER, TENT_CARE)

SITEMAP_INDEX = Ref(MAIN, "/sitemap_index.xml")
SITEMAP_PAGES = Ref(MAIN, "/sitemap-pages.xml.gz")
SITEMAP_PRODUCTS = Ref(MAIN, "/sitemap-products.xml")
SITEMAP_CAMPAIGNS = Ref(MAIN, "/sitemap-campaigns.xml")

#: The day the pages sitemap was last regenerated, stamped on every entry (SM009).
PUBLISHED = "2026-06-02"
#: The Trail Week launch: the campaign page's lastmod is stamped with it before it happens (SM008).
LAUNCH_IN_DAYS = 75


def launch_date(today: date | None = None) -> str:
    return ((today or date.today()) + timedelta(days=LAUNCH_IN_DAYS)).isoformat()


@dataclass(frozen=True)
class PlantedDefect:
    """One finding the audit must report on the demo: a planted defect, or what follows from one."""

    check: str
    url: Ref  # the page, or the sitemap file
    target: Ref | None
    hreflang: str
    note: str

    def key(self, bases: Mapping[str, str]) -> tuple[str, str, str, str]:
        """(check, url, target, hreflang) as the findings table writes them; `bases`: host -> base URL."""

        def absolute(ref: Ref | None) -> str:
            return bases[ref.host] + ref.path if ref is not None else ""

        return (self.check, absolute(self.url), absolute(self.target), self.hreflang)


D = PlantedDefect

ANSWER_KEY: tuple[PlantedDefect, ...] = (
    # HL0xx: values
    D(
        "HL002",
        ABOUT.ref("de"),
        ABOUT.ref("en-GB"),
        "en-UK",
        "The German About page, edited by hand, calls the British page `en-UK` (`en-GB` is right).",
    ),
    D(
        "HL201",
        ABOUT.ref("en-GB"),
        ABOUT.ref("de"),
        "de",
        "Follows from `en-UK`: search engines ignore that annotation, so the British page's link to the "
        "German one is not returned.",
    ),
    D(
        "HL001",
        TRAIL_WEEK.ref("en"),
        TRAIL_WEEK.ref("ja"),
        "jp",
        "The English Trail Week page calls the Japanese store's page `jp` (a country code; Japanese is "
        "`ja`).",
    ),
    D(
        "HL201",
        TRAIL_WEEK.ref("ja"),
        TRAIL_WEEK.ref("en"),
        "en",
        "Follows from `jp`: the Japanese page lists the English one, which lists it back only with `jp`.",
    ),
    # HL1xx: one page
    D(
        "HL105",
        CONTACT.ref("de"),
        CONTACT.ref("en"),
        "en",
        'A tracking pixel `<img>` pasted as "header code" into the German Contact page ends `<head>` '
        "before its annotations, so all four are outside `<head>`.",
    ),
    D("HL105", CONTACT.ref("de"), CONTACT.ref("de"), "de", "The same pixel: the self-reference."),
    D("HL105", CONTACT.ref("de"), CONTACT.ref("fr"), "fr", "The same pixel: the French annotation."),
    D(
        "HL105",
        CONTACT.ref("de"),
        CONTACT.ref("en"),
        "x-default",
        "The same pixel: the x-default annotation.",
    ),
    D(
        "HL201",
        CONTACT.ref("en"),
        CONTACT.ref("de"),
        "de",
        "Follows from the pixel: the German page's link back to the English one is ignored.",
    ),
    D(
        "HL201",
        CONTACT.ref("fr"),
        CONTACT.ref("de"),
        "de",
        "Follows from the pixel: the German page's link back to the French one is ignored.",
    ),
    D(
        "HL101",
        SHIPPING.ref("es"),
        SHIPPING.ref("es"),
        "es",
        "The Spanish Shipping page writes its self-reference as the relative `/es/envios/`.",
    ),
    D(
        "HL108",
        SHIPPING.ref("es"),
        None,
        "es",
        "Follows from the relative href: search engines ignore it, so the page has no self-reference.",
    ),
    # HL108 to HL111: one page, all sources
    D(
        "HL110",
        STORES.ref("de"),
        STORES_DE_SLASHLESS,
        "de",
        "The German Stores page names itself without its trailing slash, a URL the server redirects (301) "
        "to the page: one wrong href, so HL110 alone, not also HL401.",
    ),
    # HL2xx: the cluster graph
    D(
        "HL201",
        RETURNS.ref("de"),
        RETURNS.ref("fr"),
        "fr",
        "The French Returns page was never updated when the German one was added: it does not list it.",
    ),
    D(
        "HL201",
        SIZE_GUIDE.ref("en"),
        SIZE_GUIDE.ref("de"),
        "de",
        "The English size guide PDF lists its German translation in its HTTP Link header; the German PDF is "
        "served without a Link header, so it does not link back.",
    ),
    # HL3xx: canonicals
    D(
        "HL303",
        RAIN_JACKET.ref("es"),
        RAIN_JACKET.ref("en"),
        "es",
        "The Spanish rain jacket page's canonical points to the English page, so only that one is indexed.",
    ),
    D(
        "SM012",
        SITEMAP_PRODUCTS,
        RAIN_JACKET.ref("es"),
        "",
        "Follows from the canonical: the products sitemap lists a URL that canonicalises elsewhere.",
    ),
    # HL4xx: alternates that cannot serve
    D(
        "HL401",
        BOOTS.ref("en"),
        BOOTS_OLD_DE,
        "de",
        "The German boots page got a translated slug; the English page still names the old URL, which "
        "redirects (301) to the new one.",
    ),
    D("HL401", BOOTS.ref("fr"), BOOTS_OLD_DE, "de", "The same old URL, on the French boots page."),
    D(
        "HL402",
        JACKET.ref("en"),
        JACKET.ref("fr"),
        "fr",
        "The French Glacier jacket page was deleted (404); the English page still lists it.",
    ),
    D(
        "HL402",
        JACKET.ref("de"),
        JACKET.ref("fr"),
        "fr",
        "The deleted French page, listed by the German page.",
    ),
    D(
        "SM001",
        SITEMAP_PRODUCTS,
        JACKET.ref("fr"),
        "",
        "The products sitemap still lists the deleted French jacket page (404).",
    ),
    D(
        "HL405",
        SALE.ref("en"),
        SALE.ref("fr"),
        "fr",
        "robots.txt still disallows `/fr/soldes/` (an old rule against duplicate content); the English Sale "
        "page lists it.",
    ),
    D(
        "HL405",
        SALE.ref("de"),
        SALE.ref("fr"),
        "fr",
        "The blocked French Sale page, listed by the German page.",
    ),
    D(
        "SM012",
        SITEMAP_PAGES,
        SALE.ref("fr"),
        "",
        "Follows from the robots.txt rule: the pages sitemap lists a URL search engines may not crawl.",
    ),
    D(
        "HL406",
        HEADLAMP.ref("en"),
        HEADLAMP.ref("pt-BR"),
        "pt-BR",
        'The Brazilian headlamp page went live with the staging `<meta name="robots" content="noindex">`; '
        "the English page lists it.",
    ),
    D(
        "HL406",
        HEADLAMP.ref("es"),
        HEADLAMP.ref("pt-BR"),
        "pt-BR",
        "The noindex Brazilian page, listed by the Spanish page.",
    ),
    D(
        "HL406",
        HEADLAMP.ref("pt-BR"),
        HEADLAMP.ref("pt-BR"),
        "pt-BR",
        "Follows from the noindex: the Brazilian page annotates itself, and this row sits where the noindex "
        "is removed (or, if it stays, the page's own annotations).",
    ),
    D(
        "SM012",
        SITEMAP_PRODUCTS,
        HEADLAMP.ref("pt-BR"),
        "",
        "Follows from the noindex: the products sitemap lists a page kept out of the index.",
    ),
    # HL5xx: language signals
    D(
        "HL501",
        STORES.ref("fr"),
        None,
        "fr",
        'The French Stores page uses the English template: `<html lang="en">` on a page annotated `fr`.',
    ),
    D(
        "HL503",
        CAMP_STOVE.ref("fr"),
        None,
        "fr",
        "The French camp stove page went live before its description was translated: the shop fell back "
        "to the English text, inside the French menus and `<html lang=\"fr\">`.",
    ),
    # HL6xx: sources
    D(
        "HL601",
        SLEEPING_BAG.ref("de"),
        SLEEPING_BAG.ref("ja"),
        "ja",
        "The sitemap entry of the German sleeping bag page, cached before the Japanese store opened, omits "
        "the `ja` alternate its HTML lists.",
    ),
    # SM0xx: sitemaps
    D("SM002", GIFT_CARDS, None, "", "The new Gift cards page is linked from the menu but in no sitemap."),
    D(
        "HL208",
        GIFT_CARDS,
        None,
        "",
        "The same page exists in English only: indexable and in no cluster, on a host whose other pages are "
        "(a notice: true, and nothing to do until it is translated).",
    ),
    D(
        "SM008",
        SITEMAP_CAMPAIGNS,
        TRAIL_WEEK.ref("en"),
        "",
        f"The English Trail Week entry's lastmod is the launch date, {LAUNCH_IN_DAYS} days after the crawl.",
    ),
    D(
        "SM009",
        SITEMAP_PAGES,
        None,
        "",
        f"Every entry of the gzip pages sitemap has the lastmod {PUBLISHED}, the day it was regenerated.",
    ),
)


def build_demo_site(main: SiteServer, second: SiteServer) -> None:
    """Northwind Outdoor on `main` (six languages) and its Japanese store on `second`."""
    site = Site({MAIN: main, SECOND: second}, "Northwind Outdoor")

    for cluster in (HOME, HELP, PRIVACY, FOOTWEAR, JACKETS, BACKPACK):
        site.cluster(cluster, canonical=cluster in (BACKPACK, JACKETS))
    # The shop annotates these in its products sitemap, the Japanese store in its HTML.
    for cluster in (TENTS, BASE_LAYER):
        for doc in site.cluster(cluster, html=False, canonical=True).values():
            if doc.ref.host == SECOND:
                doc.alternates = site.annotations(cluster)
    site.cluster(TRAIL_TENT, canonical=True)  # annotated in the HTML and, identically, the sitemap
    site.pdfs(TENT_CARE)

    about = site.cluster(ABOUT)
    about["de"].alternates = edited(about["de"].alternates, "en-GB", hreflang="en-UK")

    trail_week = site.cluster(TRAIL_WEEK)
    trail_week["en"].alternates = edited(trail_week["en"].alternates, "ja", hreflang="jp")

    contact = site.cluster(CONTACT)
    contact["de"].head_code = '<img src="https://px.ads.example/t.gif?id=4711" width="1" height="1" alt="">'

    shipping = site.cluster(SHIPPING)
    shipping["es"].alternates = edited(shipping["es"].alternates, "es", href=SHIPPING.ref("es").path)

    returns = site.cluster(RETURNS)
    returns["fr"].alternates = dropped(returns["fr"].alternates, "de")

    boots = site.cluster(BOOTS, canonical=True)
    for value in ("en", "fr"):  # their template still has the old German URL
        boots[value].alternates = edited(boots[value].alternates, "de", href=site.url(BOOTS_OLD_DE))
        boots[value].switcher = edited(boots[value].switcher, "de", href=site.url(BOOTS_OLD_DE))
    site.routes[BOOTS_OLD_DE] = Route("", status=301, headers=[("Location", site.url(BOOTS.ref("de")))])

    site.cluster(JACKET, canonical=True)
    site.delete(JACKET.ref("fr"))  # the other pages' templates still list it

    site.cluster(SALE)  # robots.txt disallows the French page

    headlamp = site.cluster(HEADLAMP, canonical=True)
    headlamp["pt-BR"].robots = "noindex, follow"

    stores = site.cluster(STORES)
    stores["fr"].lang = "en"
    stores["de"].alternates = edited(stores["de"].alternates, "de", href=site.url(STORES_DE_SLASHLESS))
    site.routes[STORES_DE_SLASHLESS] = Route(
        "", status=301, headers=[("Location", site.url(STORES.ref("de")))]
    )

    rain_jacket = site.cluster(RAIN_JACKET, canonical=True)
    rain_jacket["es"].canonical = site.url(RAIN_JACKET.ref("en"))

    site.cluster(SLEEPING_BAG, canonical=True)  # annotated in the HTML and the sitemap

    stove = site.cluster(CAMP_STOVE, canonical=True)
    for value, doc in stove.items():
        # The product editor has not translated the French description: the shop shows the English one.
        doc.text = CAMP_STOVE_TEXTS.get(value, CAMP_STOVE_TEXTS["en"])

    site.pdfs(SIZE_GUIDE)["de"].headers = []  # the German PDF was uploaded without the Link header

    site.page(Doc(GIFT_CARDS, "Gift cards", "en", [], menu="en"))
    site.list_in_menu(MAIN, "en", "Gift cards", GIFT_CARDS)

    # What every shop has: a cart and an account nobody should find in a search engine, sorted
    # listings that canonicalise to the listing, a search that robots.txt keeps crawlers out of.
    cart, login = Ref(MAIN, "/cart/"), Ref(MAIN, "/account/login/")
    site.page(Doc(cart, "Your cart", "en", [], robots="noindex, nofollow"))
    site.page(Doc(login, "Sign in", "en", [], headers=[("X-Robots-Tag", "noindex")]))
    sorted_tents = Ref(MAIN, "/en/tents/?sort=price")
    site.page(Doc(sorted_tents, "Tents by price", "en", [], canonical=site.url(TENTS.ref("en")), menu="en"))
    site.list_in_menu(MAIN, "en", "Tents by price", sorted_tents)
    site.list_in_menu(MAIN, "en", "Popular: tents", Ref(MAIN, "/search?q=tent"))
    site.footer[MAIN] = [("Cart", cart), ("Sign in", login), ("Country and language", HOME.ref("x-default"))]
    site.footer[SECOND] = [("Northwind Outdoor international", HOME.ref("x-default"))]

    site.robots(
        MAIN,
        """
User-agent: *
Disallow: /search
# 2019, SEO agency: keep the French sale pages out of the index (duplicate prices)
Disallow: /fr/soldes/
""",
        SITEMAP_INDEX,
    )
    site.sitemap_index(SITEMAP_INDEX, [SITEMAP_PAGES, SITEMAP_PRODUCTS, SITEMAP_CAMPAIGNS])
    pages = [HOME, HELP, PRIVACY, ABOUT, CONTACT, SHIPPING, RETURNS, SALE, STORES]
    site.sitemap(
        SITEMAP_PAGES,
        [Entry(ref, PUBLISHED) for cluster in pages for ref in cluster.refs if ref.host == MAIN],
        compress=True,
    )
    dated = days(date(2026, 1, 5), 4)
    products: list[Entry] = []
    # The listings and products, each with whether the sitemap carries its annotations.
    for cluster, annotated in [
        (TENTS, True),
        (FOOTWEAR, False),
        (JACKETS, False),
        (TRAIL_TENT, True),
        (BACKPACK, False),
        (BASE_LAYER, True),
        (BOOTS, False),
        (JACKET, False),
        (HEADLAMP, False),
        (RAIN_JACKET, False),
        (SLEEPING_BAG, True),
        (CAMP_STOVE, False),
    ]:
        alternates = site.annotations(cluster) if annotated else []
        products += [Entry(ref, next(dated), list(alternates)) for ref in cluster.refs if ref.host == MAIN]
    sleeping_bag_de = next(e for e in products if e.ref == SLEEPING_BAG.ref("de"))
    sleeping_bag_de.alternates = dropped(sleeping_bag_de.alternates, "ja")  # cached before the store opened
    site.sitemap(SITEMAP_PRODUCTS, products)
    site.sitemap(
        SITEMAP_CAMPAIGNS,
        [Entry(TRAIL_WEEK.ref("en"), launch_date()), Entry(TRAIL_WEEK.ref("de"), "2026-10-19")],
    )

    # The Japanese store: its own robots.txt and sitemap (read when the crawl includes its host).
    jp_sitemap = Ref(SECOND, "/sitemap.xml")
    site.robots(SECOND, "User-agent: *\nAllow: /", jp_sitemap)
    jp_dates = days(date(2026, 4, 6), 7)
    site.sitemap(jp_sitemap, [Entry(ref, next(jp_dates)) for ref in site.docs if ref.host == SECOND])
    site.publish()


def _show(ref: Ref | None) -> str:
    """A demo URL for the table: its path, `jp:` marking the Japanese store."""
    if ref is None:
        return ""
    return f"`{ref.path}`" if ref.host == MAIN else f"`jp:{ref.path}`"


def defects_table() -> str:
    """The docs' table of the demo's findings (docs/demo.md), generated from ``ANSWER_KEY``: each
    check linked to its page of the docs site."""
    lines = ["| check | url | target | hreflang | what |", "|---|---|---|---|---|"]
    lines += [
        f"| [{d.check}](checks/{d.check.lower()}.md) | {_show(d.url)} | {_show(d.target)} | "
        f"{f'`{d.hreflang}`' if d.hreflang else ''} | {d.note} |"
        for d in ANSWER_KEY
    ]
    return "\n".join(lines)


# --- the clean site: a city museum --------------------------------------------------------------

ZH = on_second

MUSEUM_HOME = Cluster.of(
    {
        "en-US": ("/en-us/", "Visit the museum"),
        "en-GB": ("/en-gb/", "Visit the museum"),
        "de-DE": ("/de-de/", "Museum besuchen"),
        "de-AT": ("/de-at/", "Museum besuchen"),
        "sr": ("/sr/", "Посетите музеј"),
        "sr-Latn": ("/sr-latn/", "Posetite muzej"),
        "zh-Hans": (ZH("/zh-hans/"), "参观博物馆"),
        "zh-Hant": (ZH("/zh-hant/"), "參觀博物館"),
    },
    x_default=("/", "Choose your language"),
)
EXHIBITIONS = Cluster.of(
    {
        "en-US": ("/en-us/exhibitions/", "Exhibitions"),
        "en-GB": ("/en-gb/exhibitions/", "Exhibitions"),
        "de-DE": ("/de-de/ausstellungen/", "Ausstellungen"),
        "de-AT": ("/de-at/ausstellungen/", "Ausstellungen"),
        "sr": ("/sr/izlozbe/", "Изложбе"),
        "sr-Latn": ("/sr-latn/izlozbe/", "Izložbe"),
        "zh-Hans": (ZH("/zh-hans/exhibitions/"), "展览"),
        "zh-Hant": (ZH("/zh-hant/exhibitions/"), "展覽"),
    },
    x_default="en-US",
)
OPENING_HOURS = Cluster.of(
    {
        "en-US": ("/en-us/hours/", "Opening hours"),
        "en-GB": ("/en-gb/hours/", "Opening hours"),
        "de-DE": ("/de-de/oeffnungszeiten/", "Öffnungszeiten"),
        "de-AT": ("/de-at/oeffnungszeiten/", "Öffnungszeiten"),
        "zh-Hans": (ZH("/zh-hans/hours/"), "开放时间"),
        "zh-Hant": (ZH("/zh-hant/hours/"), "開放時間"),
    },
    x_default="en-US",
)
TICKETS = Cluster.of(
    {
        "en-US": ("/en-us/tickets/", "Tickets"),
        "de-DE": ("/de-de/tickets/", "Eintrittskarten"),
        "sr-Latn": ("/sr-latn/ulaznice/", "Ulaznice"),
        "zh-Hant": (ZH("/zh-hant/tickets/"), "門票"),
    },
    x_default="en-US",
)
FLOOR_PLAN = Cluster.of(
    {"en-US": ("/docs/floor-plan-en.pdf", "Floor plan"), "de-DE": ("/docs/lageplan-de.pdf", "Lageplan")},
    x_default="en-US",
)


def build_clean_site(main: SiteServer, second: SiteServer) -> None:
    """A city museum without a single defect: the audit must report nothing on it.

    Crawl both hosts (`start` = both home pages) so that the checks judged only on crawled hosts
    (HL203, SM002, SM006) are held to it too.
    """
    site = Site({MAIN: main, SECOND: second}, "City Museum")
    site.cluster(MUSEUM_HOME)
    site.cluster(EXHIBITIONS, html=False, canonical=True)  # annotated in the sitemaps only
    site.cluster(OPENING_HOURS, canonical=True)  # in the HTML and, identically, the sitemaps
    tickets = site.cluster(TICKETS, html=False)
    for doc in tickets.values():
        doc.headers = [("Link", link_header(site.annotations(TICKETS)))]  # in HTTP Link headers
    site.pdfs(FLOOR_PLAN)
    site.footer[MAIN] = site.footer[SECOND] = [("Languages", MUSEUM_HOME.ref("x-default"))]

    dated = days(date(2026, 1, 12), 5)

    def entries(host: str, clusters: Iterable[tuple[Cluster, bool]]) -> list[Entry]:
        return [
            Entry(ref, next(dated), site.annotations(cluster) if annotated else [])
            for cluster, annotated in clusters
            for ref in cluster.refs
            if ref.host == host and ref in site.docs
        ]

    index, pages, exhibitions = (
        Ref(MAIN, "/sitemap.xml"),
        Ref(MAIN, "/sitemaps/pages.xml.gz"),
        Ref(MAIN, "/sitemaps/exhibitions.xml"),
    )
    site.robots(MAIN, "User-agent: *\nDisallow: /admin/", index)
    site.sitemap_index(index, [pages, exhibitions])
    site.sitemap(
        pages, entries(MAIN, [(MUSEUM_HOME, False), (OPENING_HOURS, True), (TICKETS, False)]), compress=True
    )
    site.sitemap(exhibitions, entries(MAIN, [(EXHIBITIONS, True)]))
    zh_sitemap = Ref(SECOND, "/sitemap.xml")
    site.robots(SECOND, "User-agent: *\nAllow: /", zh_sitemap)
    site.sitemap(
        zh_sitemap,
        entries(SECOND, [(MUSEUM_HOME, False), (EXHIBITIONS, True), (OPENING_HOURS, True), (TICKETS, False)]),
    )
    site.publish()
