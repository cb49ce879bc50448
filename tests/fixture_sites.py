"""Sites for crawl tests, built on the live server's own addresses."""

from __future__ import annotations

import gzip

from qivrora_spider.demo.site import PDF, sitemap_index, url_entry, urlset
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page

__all__ = ["PDF", "multilingual_site", "sitemap_index", "url_entry", "urlset"]


def multilingual_site(site: SiteServer, other: SiteServer) -> None:
    """A small site with every kind of fact: two hosts, a PDF, a redirect, robots, a gzip sitemap."""
    a, b = site.url, other.url
    cluster = [("en", a("/en/")), ("de", a("/de/")), ("fr", b("/fr/")), ("x-default", a("/"))]
    links = "\n".join(alternate(h, u) for h, u in cluster)
    nav = '<a href="/en/">English</a> <a href="/de/">Deutsch</a> <a href="/docs/guide.pdf">Guide</a>'
    site.routes.update(
        {
            "/robots.txt": Route(
                f"User-agent: *\nDisallow: /private/\nSitemap: {a('/sitemap_index.xml')}\n",
                content_type="text/plain",
            ),
            "/": Route(html_page(links, body=nav + ' <a href="/about">About</a>')),
            "/en/": Route(
                html_page(links, alternate("es", a("/old/")), alternate("it", a("/private/it/")),
                          '<link rel="canonical" href="/en/">', body=nav)
            ),
            "/de/": Route(html_page(links, body=nav, lang="de")),
            "/about": Route(html_page(body='<a href="/en/">home</a> <a href="mailto:x@y.z">mail</a>')),
            "/old/": Route("", status=301, headers=[("Location", a("/en/"))]),
            "/private/it/": Route(html_page(lang="it")),
            "/docs/guide.pdf": Route(
                PDF,
                content_type="application/pdf",
                headers=[
                    (
                        "Link",
                        f'<{a("/docs/guide.pdf")}>; rel="alternate"; hreflang="en", '
                        f'<{a("/docs/guide-de.pdf")}>; rel="alternate"; hreflang="de"',
                    )
                ],
            ),
            "/docs/guide-de.pdf": Route(PDF, content_type="application/pdf"),
            "/sitemap_index.xml": Route(sitemap_index(a("/sitemap-pages.xml.gz")), content_type="application/xml"),
            "/sitemap-pages.xml.gz": Route(
                gzip.compress(
                    urlset(
                        url_entry(a("/en/"), *cluster, lastmod="2026-11-01"),
                        url_entry(a("/de/"), *cluster, lastmod="2026-11-02"),
                    ).encode()
                ),
                content_type="application/gzip",
            ),
        }
    )
    other.routes.update({"/fr/": Route(html_page(links, lang="fr"))})
