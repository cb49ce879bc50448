"""HL4xx: alternates that cannot serve. A search engine follows every hreflang target and keeps it only
when the target answers 200, may be crawled and may be indexed.

Each target gets at most one of these checks: by its HTTP status (3xx, 4xx, 5xx, any other status
but 200; noindex when it answers 200), else the failure to connect, else robots.txt. It is reported once per (annotating page,
target) pair: where one page names the target in several sources, the row names the first of HTML,
HTTP header, sitemap, and the message lists every place the annotation must be changed. Annotations
search engines ignore (bad value, outside <head>) count too, as long as their target URL is known: a
404 stays a 404 once the value is fixed. A target the crawl did not examine (limits, exclusions) is
HL206, not a pass and not one of these. A page that names a variant of its own URL instead of itself
(a slashless self-reference that redirects) is HL110's, whose fix, the page's own URL, cures this too.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterator

from ...extract.urls import origin
from ...facts import Annotation, Page
from ..core.annotations import variant_self_references
from ..core.context import AuditContext, per_audit, places
from ..core.registry import Hit, check
from ..core.statuses import redirects_by_visitor, redirect_story
from ..core.wording import ERRORS, answers
from ..core.written import X_DEFAULT


def _verdict(ctx: AuditContext, target: str) -> str | None:
    """The one HL4xx check that judges `target`, or None when it serves (or is unknown)."""
    record = ctx.fetched(target)
    if record is None:
        return None
    status = record.status
    if status is not None:
        if 300 <= status < 400:
            return "HL401"
        if 400 <= status < 500:
            return "HL402"
        if status >= 500:
            return "HL403"
        if status != 200:
            return "HL407"
        if isinstance(record, Page) and record.noindex:
            return "HL406"
        return None
    if record.error:
        return "HL404"
    if getattr(record, "not_examined", None) == "robots":
        return "HL405"
    return None


@per_audit
def _judged_pairs(ctx: AuditContext) -> dict[str, list[tuple[str, str, list[Annotation]]]]:
    """Check id -> the (page, target, annotations) pairs whose target that HL4xx check judges."""
    verdicts = {}
    for url in (*ctx.pages, *ctx.statuses):
        verdict = _verdict(ctx, url)
        if verdict is not None:
            verdicts[url] = verdict
    variants = variant_self_references(ctx)
    found: dict[str, list[tuple[str, str, list[Annotation]]]] = defaultdict(list)
    for url, target, named in ctx.pairs_naming(verdicts):
        if target in variants.get(url, ()):  # a self-reference to a variant of the page's URL: HL110
            continue
        verdict = verdicts[target]
        if (
            verdict == "HL401"
            and all(a.hreflang.strip().lower() == X_DEFAULT for a in named)
            and redirects_by_visitor(ctx, target)
        ):
            verdict = "HL408"  # a locale-adaptive entry page, a proper x-default
        found[verdict].append((url, target, named))
    return found


def _pair_hits(ctx: AuditContext, check_id: str, explain: Callable[[str], str]) -> Iterator[Hit]:
    """One hit per (page, target) pair whose target `check_id` judges; `explain` says why and the fix."""
    for url, target, found in _judged_pairs(ctx).get(check_id, ()):
        first = found[0]
        named = "This page, its own" if url == target else "The"
        yield Hit(
            url,
            f"{named} `{first.hreflang}` alternate {target} (in {places(found)}) {explain(target)}.",
            target=target,
            hreflang=first.hreflang,
            source=first.source,
        )


@check(
    "HL401",
    "alternate-redirects",
    "error",
    why="""
Search engines expect hreflang to name the final URL of each language version. An alternate that
redirects is not the page that gets indexed, so the annotation does not connect to it, return links
cannot be confirmed, and every crawl wastes a fetch on the redirect; chains and loops make it worse.
""",
    example="""
`https://example.com/en/` lists `hreflang="fr" href="http://example.com/fr"`, which answers
`301 Moved Permanently` with `Location: https://example.com/fr/`.
""",
    fix="""
Annotate the URL the redirect ends at (here `https://example.com/fr/`), exactly as the server serves it:
scheme, host, trailing slash and all. Break redirect loops and shorten chains.
""",
    failing="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="fr" href="http://example.com/fr">
<!-- http://example.com/fr answers 301, Location: https://example.com/fr/ -->
""",
    fixed="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="fr" href="https://example.com/fr/">
""",
    precedence="""
A self-reference is HL110, not HL401. A redirecting URL takes no part in HL107 or HL205.
""",
    since="0.1.0",
)
def alternate_redirects(ctx: AuditContext) -> Iterator[Hit]:
    yield from _pair_hits(ctx, "HL401", lambda target: redirect_story(ctx, target))


@check(
    "HL408",
    "x-default-redirects",
    "notice",
    why="""
Google documents `x-default` for "auto-redirecting homepages": an entry page that sends each visitor
to the version of their language or country. Such a page answers a temporary redirect (302, 303,
307) that ends on a page, and is a proper `x-default`, so this is a notice, not HL401: check that the
redirect is meant. A permanent redirect (301, 308), or one that ends anywhere but on a page answering
200 (a 404, a loop, a chain past the limit), stays HL401.
""",
    example="""
Every page of a cluster lists `hreflang="x-default" href="https://example.com/"`, which answers
`302 Found` with `Location: https://example.com/en/` for a visitor without `Accept-Language`.
""",
    fix="""
Nothing, if the entry page is meant to choose a version for each visitor. Otherwise annotate the page
the redirect ends at as `x-default`.
""",
    failing="""
<link rel="alternate" hreflang="x-default" href="https://example.com/">
<!-- https://example.com/ answers 302 to /en/ for a crawler with no Accept-Language -->
""",
    fixed="""
<!-- nothing to change where the redirect is by design; or name the page it serves: -->
<link rel="alternate" hreflang="x-default" href="https://example.com/en/">
""",
    precedence="""
Reported instead of HL401 for a 302, 303 or 307 `x-default` whose redirects end on a 200; a 301 or
308, or redirects that end elsewhere, stay HL401.
""",
    since="0.2.0",
)
def x_default_redirects(ctx: AuditContext) -> Iterator[Hit]:
    def explain(target: str) -> str:
        where = ctx.redirect_chain(target)[-1]
        return (
            f"{answers(ctx.status(target) or 0)} and sent the crawler to {where}: a locale-adaptive entry "
            "page, a proper `x-default` if it chooses a version for each visitor; otherwise annotate the "
            "page it redirects to"
        )

    yield from _pair_hits(ctx, "HL408", explain)


@check(
    "HL402",
    "alternate-client-error",
    "error",
    why="""
An alternate that answers 4xx (404 Not Found, 410 Gone, 403 Forbidden...) does not exist for search
engines: the language version is missing from the cluster, and the annotation pointing to it is ignored.
""",
    example="""
`https://example.com/en/` lists `hreflang="es" href="https://example.com/es/"`, which answers
`404 Not Found` since the Spanish section was removed.
""",
    fix="""
Restore the page, correct the URL in the annotation, or remove the annotation from every page that
lists it.
""",
    failing="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="es" href="https://example.com/es/">
<!-- https://example.com/es/ answers 404 -->
""",
    fixed="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="es" href="https://example.com/es/productos/">
""",
    precedence="""
A self-reference is HL110, not HL402. A URL that answers 4xx takes no part in HL107 or HL205.
""",
    since="0.1.0",
)
def alternate_client_error(ctx: AuditContext) -> Iterator[Hit]:
    def explain(target: str) -> str:
        return (
            f"{answers(ctx.status(target) or 0)}: correct the URL, restore the page, or remove the annotation"
        )

    yield from _pair_hits(ctx, "HL402", explain)


@check(
    "HL403",
    "alternate-server-error",
    "error",
    why="""
An alternate that answers 5xx cannot be read, so search engines cannot confirm it or its return links;
if the error persists they drop the page from their index and from the cluster.
""",
    example="""
`https://example.com/en/` lists `hreflang="ja" href="https://example.com/ja/"`, which answers
`503 Service Unavailable`.
""",
    fix="""
Fix the server so the alternate answers 200; if the failure was temporary, crawl again to confirm.
""",
    failing="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="ja" href="https://example.com/ja/">
<!-- https://example.com/ja/ answers 503 -->
""",
    fixed="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="ja" href="https://example.com/ja/">
<!-- https://example.com/ja/ answers 200 -->
""",
    precedence="""
A URL that answers 5xx takes no part in HL107 or HL205.
""",
    since="0.1.0",
)
def alternate_server_error(ctx: AuditContext) -> Iterator[Hit]:
    def explain(target: str) -> str:
        return f"{answers(ctx.status(target) or 0)}: fix the server so that it answers 200"

    yield from _pair_hits(ctx, "HL403", explain)


@check(
    "HL404",
    "alternate-unreachable",
    "error",
    why="""
An alternate whose host does not resolve, refuses connections, times out or fails its TLS handshake
cannot be crawled at all: search engines treat the language version as missing.
""",
    example="""
`https://example.com/en/` lists `hreflang="de" href="https://example.de/"`, and `example.de` has no DNS
record.
""",
    fix="""
Correct the host name in the annotation, or fix the DNS, server or certificate of the alternate's host.
""",
    failing="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="de" href="https://exmaple.de/">
<!-- exmaple.de has no DNS record -->
""",
    fixed="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="de" href="https://example.de/">
""",
    since="0.1.0",
)
def alternate_unreachable(ctx: AuditContext) -> Iterator[Hit]:
    def explain(target: str) -> str:
        record = ctx.fetched(target)
        error = record.error if record is not None and record.error else "error"
        detail = getattr(record, "error_detail", None)
        reason = ERRORS.get(error) or f"could not be fetched ({detail or error})"
        return f"cannot be reached: {reason}; correct the URL or fix its host"

    yield from _pair_hits(ctx, "HL404", explain)


@check(
    "HL405",
    "alternate-blocked-by-robots",
    "error",
    why="""
A search engine does not fetch a URL that robots.txt disallows, so it can neither see the alternate's
content nor its return links: the language version cannot join the cluster.
""",
    example="""
`https://example.com/en/` lists `hreflang="fr" href="https://example.com/fr/"`, and
`https://example.com/robots.txt` says `Disallow: /fr/`.
""",
    fix="""
Allow the alternate in its host's robots.txt, or remove the annotation if the page is not meant to be
found. (To keep a page out of the index, use noindex, not robots.txt, and do not annotate it.)
""",
    failing="""
# https://example.com/robots.txt
User-agent: *
Disallow: /fr/
""",
    fixed="""
# https://example.com/robots.txt
User-agent: *
Disallow: /cart/
""",
    since="0.1.0",
)
def alternate_blocked_by_robots(ctx: AuditContext) -> Iterator[Hit]:
    def explain(target: str) -> str:
        robots = f"{origin(target)}/robots.txt"
        return (
            f"is disallowed by {robots}, so search engines cannot read it: "
            "allow it there, or remove the annotation"
        )

    yield from _pair_hits(ctx, "HL405", explain)


@check(
    "HL406",
    "alternate-noindex",
    "error",
    why="""
A noindex page is kept out of the index, so it cannot be shown to anyone, and search engines drop
hreflang clusters that mix indexable and noindex pages or treat the annotation as a contradiction.
""",
    example="""
`https://example.com/en/` lists `hreflang="it" href="https://example.com/it/"`, and that page has
`<meta name="robots" content="noindex">` (or answers with `X-Robots-Tag: noindex`).
""",
    fix="""
Remove the noindex if the page is a language version meant to be found; otherwise remove every
annotation that points to it.
""",
    failing="""
<!-- on https://example.com/it/, annotated by https://example.com/en/ -->
<meta name="robots" content="noindex">
""",
    fixed="""
<!-- on https://example.com/it/ -->
<meta name="robots" content="index, follow">
""",
    precedence="""
A noindex page's own self-reference is reported too. A noindex URL takes no part in HL107 or HL205.
""",
    since="0.1.0",
)
def alternate_noindex(ctx: AuditContext) -> Iterator[Hit]:
    def explain(target: str) -> str:
        page = ctx.page(target)
        said = (
            "an `X-Robots-Tag` header"
            if page is not None and page.noindex == "header"
            else "a robots meta tag"
        )
        return (
            f"is noindex ({said}), so search engines keep it out of the index: "
            "remove the noindex or the annotation"
        )

    yield from _pair_hits(ctx, "HL406", explain)


@check(
    "HL407",
    "alternate-unexpected-status",
    "error",
    why="""
Only a `200 OK` answer carries a page to index. A target that answers `204 No Content`,
`206 Partial Content`, another 2xx or a 1xx status has no content search engines can index, so the
language version is missing from the cluster although the server did not report an error.
""",
    example="""
`https://example.com/en/` lists `hreflang="de" href="https://example.com/de/"`, which answers
`204 No Content` (an API route or a misconfigured edge function in place of the page).
""",
    fix="""
Make the alternate answer `200 OK` with the page, or annotate the URL that serves the page.
""",
    failing="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<!-- https://example.com/de/ answers 204 No Content -->
""",
    fixed="""
<!-- on https://example.com/en/ -->
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<!-- https://example.com/de/ answers 200 with the page -->
""",
    since="0.1.0",
)
def alternate_unexpected_status(ctx: AuditContext) -> Iterator[Hit]:
    def explain(target: str) -> str:
        return (
            f"{answers(ctx.status(target) or 0)}, which carries no page to index: "
            "make it answer 200 with the page, or annotate the URL that serves it"
        )

    yield from _pair_hits(ctx, "HL407", explain)
