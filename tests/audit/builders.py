"""Short ways to write facts in audit tests, so a test reads like the site it describes."""

from __future__ import annotations

from typing import Any, Iterable

from qivrora_spider.audit import audit
from qivrora_spider.extract.text_language import decode_blocks
from qivrora_spider.extract.urls import normalize_url
from qivrora_spider.facts import (
    Annotation,
    Canonical,
    CrawlInfo,
    IgnoredAnnotation,
    Page,
    RobotsTxt,
    SitemapEntry,
    SitemapFile,
    TargetStatus,
)
from qivrora_spider.findings import Finding

__all__ = [
    "Annotation", "Canonical", "CrawlInfo", "IgnoredAnnotation", "Page", "RobotsTxt", "SitemapEntry",
    "SitemapFile", "TargetStatus", "ann", "page", "cluster", "entry", "run", "hits",
]

CRAWL_STARTED = "2026-11-29T12:00:00+00:00"


def ann(hreflang: str, href: str, source: str = "html", *, base: str | None = None, **kw: Any) -> Annotation:
    """An annotation as extracted: `url` resolved from `href` the way the crawl resolves it."""
    try:
        url: str | None = normalize_url(href, base)
    except ValueError:
        url = None
    return Annotation(source=source, hreflang=hreflang, href=href, url=url, **kw)


def page(url: str, *annotations: Annotation, status: int = 200, **kw: Any) -> Page:
    """A page; its `text_blocks` written as exported facts write them (`digest:language:letters`)."""
    if isinstance(kw.get("text_blocks"), str):
        kw["text_blocks"] = decode_blocks(kw["text_blocks"])
    kw.setdefault("is_html", True)
    kw.setdefault("html_lang", None)
    return Page(url=url, requested=url, status=status, annotations=list(annotations), **kw)


def cluster(langs: dict[str, str], source: str = "html", **page_kw: Any) -> list[Page]:
    """A complete, correct cluster: every page lists every member, itself included."""
    links = [ann(value, url, source) for value, url in langs.items()]
    pages = []
    for value, url in langs.items():
        if value == "x-default":
            continue
        kw = {"html_lang": value, **page_kw}
        pages.append(page(url, *[ann(a.hreflang, a.href, source) for a in links], **kw))
    for value, url in langs.items():
        if value == "x-default" and url not in {p.url for p in pages}:
            pages.append(page(url, *[ann(a.hreflang, a.href, source) for a in links], **page_kw))
    return pages


def entry(sitemap: str, loc: str, *annotations: Annotation, lastmod: str | None = None, **kw: Any) -> SitemapEntry:
    return SitemapEntry(
        sitemap=sitemap, loc=loc, url=normalize_url(loc), lastmod=lastmod, annotations=list(annotations), **kw
    )


def run(facts: Iterable[Any], **kw: Any) -> list[Finding]:
    facts = [CrawlInfo(started=CRAWL_STARTED), *facts]
    return audit(facts, **kw)


def hits(facts: Iterable[Any], check: str, **kw: Any) -> list[Finding]:
    """The findings of one check only."""
    return [f for f in run(facts, **kw) if f.check == check]


# --- canonical, target, language, source and sitemap checks ------------------------------------


def canonical(href: str, source: str = "html", *, base: str | None = None) -> Canonical:
    """A rel="canonical" as extracted: `url` resolved from `href` the way the crawl resolves it."""
    try:
        url: str | None = normalize_url(href, base)
    except ValueError:
        url = None
    return Canonical(source=source, href=href, url=url)


def sitemap_file(url: str, kind: str | None = "urlset", **kw: Any) -> SitemapFile:
    """A sitemap the crawl read: by default a valid urlset that answered 200."""
    kw.setdefault("status", 200)
    return SitemapFile(url=url, sitemap_kind=kind, **kw)


def robots(origin: str, *sitemaps: str, **kw: Any) -> RobotsTxt:
    """An origin's robots.txt: by default it exists and names `sitemaps`."""
    kw.setdefault("status", 200)
    kw.setdefault("exists", kw["status"] == 200)
    return RobotsTxt(origin=origin, url=f"{origin}/robots.txt", sitemaps=list(sitemaps), **kw)


def family_findings(facts: Iterable[Any], *families: str, **kw: Any) -> list[Finding]:
    """The findings of the checks of the given families (module names: "canonical", "sitemaps", ...)."""
    from qivrora_spider.audit import CHECKS

    wanted = {c.id for c in CHECKS.values() if c.family in families}
    return [f for f in run(facts, **kw) if f.check in wanted]
