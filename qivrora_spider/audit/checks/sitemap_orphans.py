"""SM014: pages that only a sitemap names. A page no `<a href>` leads to is crawled rarely, whatever
the sitemap says: a language version that the language switcher forgets is found late or never.

"No page links to it" is only known once the crawl followed every link it found: not in list mode,
not from a sitemap or robots.txt alone, not where a limit or an interruption cut the crawl short.
"""

from __future__ import annotations

from typing import Iterator

from ...extract.urls import origin
from ..core.context import AuditContext
from ..core.registry import Hit, check
from ..core.statuses import is_lister
from ..core.wording import code

#: Limits after which links were left unfollowed (CrawlInfo.limits_reached).
_CUT_SHORT = {"max_pages", "max_depth", "interrupted"}


def followed_every_link(ctx: AuditContext) -> bool:
    """Did the crawls behind these facts follow every link they found, from a page they started at?"""
    store = ctx.store
    if not store.crawls or _CUT_SHORT.intersection(store.limits_reached):
        return False
    if not any(page.in_scope for page in ctx.pages.values()):
        return False  # list mode: no page had its links followed
    starts = {url for crawl in store.crawls for url in crawl.start_urls}
    return any(_is_page_start(ctx, url) for url in starts)


def _is_page_start(ctx: AuditContext, url: str) -> bool:
    if url.startswith("file:") or url == f"{origin(url)}/robots.txt":
        return False
    known = ctx.store.sitemaps.get(url)
    return known is None or known.sitemap_kind is None


def _reached_by_links(ctx: AuditContext) -> set[str]:
    """URLs an `<a href>` without nofollow names, or that such a link reaches through redirects."""
    store = ctx.store
    linked = store.linked - store.nofollow_only if store.nofollow_only else store.linked
    reached = set()
    for records in (ctx.pages, ctx.statuses):
        for url, record in records.items():
            if record.location and url in linked:
                reached.add(ctx.redirect_chain(url)[-1])
    return reached | linked if reached else linked


def _starts(ctx: AuditContext) -> set[str]:
    """The start URLs and where their redirects ended: the crawl began there, no link was needed."""
    return {
        final for crawl in ctx.store.crawls for url in crawl.start_urls for final in ctx.redirect_chain(url)
    }


@check(
    "SM014",
    "sitemap-url-unlinked",
    "notice",
    why="""
A sitemap helps search engines find a URL; links tell them it matters. A page that a sitemap lists and
no crawled page links to with `<a href>` (without `rel="nofollow"`) is an orphan: crawled rarely, and
out of reach for visitors. Typically a language version that only the sitemap names and no language
switcher links to. Judged only on crawls that followed every link to the end: not in list mode, not
from a sitemap or robots.txt alone, not where `max_pages` or `max_depth` cut the crawl short. Start
URLs are exempt; an hreflang target that no page links to is HL203's, not also this.
""",
    example="""
`https://example.com/sitemap.xml` lists `https://example.com/it/prezzi/`, which answers 200, but no
page of the site links to it: the Italian pricing page exists only in the sitemap.
""",
    fix="""
Link the page from the pages it belongs with (its section, the language switcher of its translations),
or remove it from the sitemap if it is not meant to be found.
""",
    failing="""
<!-- sitemap.xml lists it; no crawled page links to it -->
<url><loc>https://example.com/de/preise/</loc></url>
""",
    fixed="""
<!-- the language switcher of https://example.com/en/preise/ -->
<a href="https://example.com/de/preise/">Deutsch</a>
""",
    precedence="""
Not reported where HL203 names the same URL (an hreflang target no page links to); judged only on
crawls that followed links to the end.
""",
    since="0.2.0",
)
def sitemap_url_unlinked(ctx: AuditContext) -> Iterator[Hit]:
    if not followed_every_link(ctx):
        return
    reached = _reached_by_links(ctx)
    starts = _starts(ctx)
    graph = ctx.graph
    for url, entries in sorted(ctx.entries_by_url.items()):
        page = ctx.page(url)
        if page is None or page.status != 200 or not page.is_html or not page.in_scope:
            continue
        if url in reached or url in starts:
            continue
        if any(other != url and is_lister(ctx, other) for other in graph.predecessors(url)):
            continue  # an hreflang target: HL203 says it
        sitemap = min(entry.sitemap for entry in entries)
        yield Hit(
            url,
            f"{code(url)} is listed in {sitemap} but no crawled page links to it with `<a href>`: found only "
            "through the sitemap, it is rarely crawled; link it from the pages it belongs with.",
            target=sitemap,
        )
