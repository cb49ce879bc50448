"""A synthetic multilingual site for the benchmark: seeded, deterministic, written as static files.

The same ``SiteModel`` feeds two consumers: ``write_site`` renders it as HTML pages, a robots.txt and
sitemaps for the crawl benchmark, and ``bench.audit_bench`` turns it into ``Page`` facts for the audit
benchmark, so both measure the same site shape (languages, links, defects).

Shape: an item (one piece of content) is published in ``hreflang`` languages taken in turn from
``languages``; each version is a page ``/{lang}/p{item}/`` whose ``<head>`` names every version of
its item (itself included). Each page links to the next page (so one start page reaches the whole
site by links alone, as the bare spider needs) and to ``links - 1`` pages drawn at random. A share
``defect_rate`` of pages carries one defect of ``DEFECT_KINDS``. Pages are padded to ``page_size``
bytes with paragraphs of real text in their language (``SAMPLES``). Usage::

    python bench/generate_site.py /tmp/site --base-url http://127.0.0.1:8080 --pages 20000
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

#: Valid ISO 639-1 codes, in the order sites usually add them.
LANGUAGE_CODES = (
    "en de fr es it nl pt pl sv da fi nb cs hu ro el tr ja ko zh".split()
)
#: What a defective page gets wrong, one each; every kind maps to findings of the audit.
DEFECT_KINDS = (
    "missing-return",  # drops its annotation of another version: that version's link is not returned
    "invalid-value",  # `de-UK`: UK is no ISO 3166-1 code
    "broken-target",  # an alternate that answers 404
    "relative-href",  # a root-relative href, which search engines ignore
    "missing-self",  # no annotation of itself
)
#: Largest sitemap the protocol allows, in URLs.
SITEMAP_LIMIT = 50_000

#: Real text in each page's language (bench/langid_samples/), so that HL503 identifies what a real site
#: has: lorem ipsum reads as Latin, and every page would be an untranslated one.
SAMPLES = Path(__file__).parent / "langid_samples"
_WORDS = (
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore "
    "et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip "
    "ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla"
).split()


def paragraphs(lang: str) -> list[str]:
    """The sample paragraphs of a language; a language without samples gets Latin filler (HL503)."""
    found = [
        paragraph.strip()
        for text in sorted((SAMPLES / lang).glob("*.txt"))
        for paragraph in text.read_text(encoding="utf-8").split("\n\n")
        if paragraph.strip()
    ]
    return found or [" ".join(_WORDS)]


@dataclass(frozen=True)
class SiteOptions:
    pages: int = 20_000
    languages: int = 5
    hreflang: int = 5  # annotations per page, itself included; at most `languages`
    links: int = 20  # internal <a href> links per page
    defect_rate: float = 0.02
    page_size: int = 5_000  # bytes per page, padded with text
    sitemap_size: int = SITEMAP_LIMIT  # URLs per sitemap file
    seed: int = 1

    def __post_init__(self) -> None:
        if self.pages < 1:
            raise ValueError("pages must be at least 1")
        if not 1 <= self.languages <= len(LANGUAGE_CODES):
            raise ValueError(f"languages must be 1..{len(LANGUAGE_CODES)}")
        if not 1 <= self.hreflang <= self.languages:
            raise ValueError("hreflang must be 1..languages")
        if self.links < 1:
            raise ValueError("links must be at least 1 (the link to the next page)")
        if not 0.0 <= self.defect_rate <= 1.0:
            raise ValueError("defect_rate must be within 0..1")
        if not 1 <= self.sitemap_size <= SITEMAP_LIMIT:
            raise ValueError(f"sitemap_size must be 1..{SITEMAP_LIMIT}")


@dataclass(frozen=True, slots=True)
class Alternate:
    hreflang: str  # as written
    href: str  # as written
    url: str  # absolute: what the crawl resolves `href` to


@dataclass(slots=True)
class PageSpec:
    index: int
    item: int
    lang: str
    alternates: list[Alternate]
    links: list[int]  # indices of the pages it links to
    defect: str | None = None


@dataclass
class SiteModel:
    """Pages, their annotations and links, derived from the options and the seed alone."""

    options: SiteOptions
    base_url: str  # scheme://host[:port], no trailing slash
    paths: list[str] = field(init=False)
    urls: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")
        per_item = self.options.hreflang
        self.paths = [
            f"/{self._lang(index // per_item, index % per_item)}/p{index // per_item}/"
            for index in range(self.options.pages)
        ]
        # One string per page, shared by every fact that names it (as a crawl's interning would).
        self.urls = [self.base_url + path for path in self.paths]

    def _lang(self, item: int, slot: int) -> str:
        return LANGUAGE_CODES[(item + slot) % self.options.languages]

    @property
    def start_url(self) -> str:
        return self.urls[0]

    def missing_url(self, index: int) -> str:
        """A URL the site does not serve (404), named by a `broken-target` defect."""
        return f"{self.base_url}/gone/p{index}/"

    def __iter__(self) -> Iterator[PageSpec]:
        options = self.options
        rng = random.Random(options.seed)
        count, per_item = options.pages, options.hreflang
        for index in range(count):
            item = index // per_item
            first = item * per_item
            versions = range(first, min(first + per_item, count))
            alternates = [
                Alternate(self._lang(item, v - first), self.urls[v], self.urls[v]) for v in versions
            ]
            links = [(index + 1) % count] + [rng.randrange(count) for _ in range(options.links - 1)]
            defect = rng.choice(DEFECT_KINDS) if rng.random() < options.defect_rate else None
            if defect is not None:
                self._spoil(defect, index, first, alternates, rng)
            yield PageSpec(index, item, self._lang(item, index - first), alternates, links, defect)

    def _spoil(
        self, defect: str, index: int, first: int, alternates: list[Alternate], rng: random.Random
    ) -> None:
        own = index - first
        others = [slot for slot in range(len(alternates)) if slot != own]
        if defect == "missing-self":
            del alternates[own]
            return
        if not others:  # an item in one language has no other version to spoil: drop itself
            del alternates[own]
            return
        slot = rng.choice(others)
        target = alternates[slot]
        if defect == "missing-return":
            del alternates[slot]
        elif defect == "invalid-value":
            alternates[slot] = Alternate(f"{target.hreflang}-UK", target.href, target.url)
        elif defect == "broken-target":
            missing = self.missing_url(index)
            alternates[slot] = Alternate(target.hreflang, missing, missing)
        elif defect == "relative-href":
            alternates[slot] = Alternate(target.hreflang, self.paths[first + slot], target.url)


def _filler(rng: random.Random, size: int, pool: list[str]) -> str:
    """About `size` bytes of paragraphs of `pool`, so pages weigh what real ones do."""
    parts: list[str] = []
    written = 0
    while written < size:
        paragraph = "<p>" + rng.choice(pool) + "</p>\n"
        parts.append(paragraph)
        written += len(paragraph.encode("utf-8"))
    return "".join(parts)


def render_page(model: SiteModel, page: PageSpec, filler: str) -> str:
    """The HTML of one page: values come from the model and need no escaping."""
    url = model.urls[page.index]
    head = "\n".join(
        f'<link rel="alternate" hreflang="{a.hreflang}" href="{a.href}">' for a in page.alternates
    )
    nav = "\n".join(f'<li><a href="{model.paths[target]}">Page {target}</a></li>' for target in page.links)
    return (
        f'<!doctype html>\n<html lang="{page.lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>Item {page.item} ({page.lang})</title>\n"
        f'<link rel="canonical" href="{url}">\n{head}\n</head>\n<body>\n'
        f"<h1>Item {page.item} ({page.lang})</h1>\n<ul>\n{nav}\n</ul>\n{filler}</body>\n</html>\n"
    )


def _sitemap(model: SiteModel, pages: list[PageSpec]) -> str:
    entries = []
    for page in pages:
        links = "".join(
            f'<xhtml:link rel="alternate" hreflang="{a.hreflang}" href="{a.href}"/>' for a in page.alternates
        )
        entries.append(f"<url><loc>{model.urls[page.index]}</loc>{links}</url>\n")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n' + "".join(entries) + "</urlset>\n"
    )


def write_site(root: Path, model: SiteModel) -> dict[str, object]:
    """Write every page, robots.txt, the sitemap index and its sitemaps under `root`; a summary."""
    options = model.options
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(options.seed + 1)  # the text, apart from the structure's stream
    pools: dict[str, list[str]] = {}  # padding per language, from a pool: per-page text costs too much
    defects: Counter[str] = Counter()
    written = 0
    sitemap_names: list[str] = []
    batch: list[PageSpec] = []
    (root / "sitemaps").mkdir(exist_ok=True)

    def flush() -> None:
        name = f"sitemaps/sitemap-{len(sitemap_names) + 1}.xml"
        (root / name).write_text(_sitemap(model, batch), encoding="utf-8")
        sitemap_names.append(name)
        batch.clear()

    for page in model:
        if page.defect:
            defects[page.defect] += 1
        pool = pools.get(page.lang)
        if pool is None:
            markup = len(render_page(model, page, ""))
            texts = paragraphs(page.lang)
            pool = pools[page.lang] = [_filler(rng, options.page_size - markup - 250, texts) for _ in range(32)]
        html = render_page(model, page, f"<p>{page.lang} {page.item}</p>\n" + pool[page.index % len(pool)])
        directory = root / model.paths[page.index].strip("/")
        os.makedirs(directory, exist_ok=True)
        (directory / "index.html").write_text(html, encoding="utf-8")
        written += len(html)
        batch.append(page)
        if len(batch) == options.sitemap_size:
            flush()
    if batch:
        flush()
    index = "".join(f"<sitemap><loc>{model.base_url}/{name}</loc></sitemap>\n" for name in sitemap_names)
    (root / "sitemap_index.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{index}</sitemapindex>\n',
        encoding="utf-8",
    )
    (root / "robots.txt").write_text(
        f"User-agent: *\nAllow: /\n\nSitemap: {model.base_url}/sitemap_index.xml\n", encoding="utf-8"
    )
    return {
        "pages": options.pages,
        "items": math.ceil(options.pages / options.hreflang),
        "sitemaps": len(sitemap_names),
        "mean_page_bytes": round(written / options.pages),
        "defects": dict(sorted(defects.items())),
        "start_url": model.start_url,
    }


def add_options(parser: argparse.ArgumentParser) -> None:
    """The site's shape as command-line options, shared with bench/run.py."""
    defaults = SiteOptions()
    parser.add_argument("--pages", type=int, default=defaults.pages)
    parser.add_argument("--languages", type=int, default=defaults.languages)
    parser.add_argument("--hreflang", type=int, default=defaults.hreflang, help="annotations per page")
    parser.add_argument("--links", type=int, default=defaults.links, help="internal links per page")
    parser.add_argument("--defect-rate", type=float, default=defaults.defect_rate)
    parser.add_argument("--page-size", type=int, default=defaults.page_size, help="bytes per page")
    parser.add_argument("--sitemap-size", type=int, default=defaults.sitemap_size, help="URLs per sitemap")
    parser.add_argument("--seed", type=int, default=defaults.seed)


def options_from(args: argparse.Namespace, **overrides: int) -> SiteOptions:
    values = {
        "pages": args.pages, "languages": args.languages, "hreflang": args.hreflang, "links": args.links,
        "defect_rate": args.defect_rate, "page_size": args.page_size, "sitemap_size": args.sitemap_size,
        "seed": args.seed,
    }
    return SiteOptions(**{**values, **overrides})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("root", type=Path, help="folder to write the site into")
    parser.add_argument("--base-url", required=True, help="scheme://host:port the site will be served at")
    add_options(parser)
    args = parser.parse_args(argv)
    summary = write_site(args.root, SiteModel(options_from(args), args.base_url))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
