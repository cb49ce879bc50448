"""SM0xx: sitemaps and robots.txt. A sitemap should list every indexable page of its host, and only those.

`url` is the sitemap file (or the robots.txt) where the fix is made, except SM002, which is about a page
that no sitemap lists. A finding about a listed URL (SM001, SM005, SM012, and lastmod.py's SM010
and SM011) is one row per (sitemap, listed URL), even where the file lists the URL twice; the message
gives the line of the first listing. SM013 judges the repetition itself: one row per entry. Each listed URL is judged once: SM001 when it does not answer 200 (a redirect names where it
ends), SM012 when it answers 200 but may not be indexed. A URL the crawl did not examine is neither
(robots.txt aside, which is SM012). A file is read only up to the protocol's limits (SM003).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterator
from urllib.parse import urlsplit

from ...extract.sitemap_parse import MAX_SITEMAP_BYTES, MAX_SITEMAP_URLS, NOT_A_SITEMAP, SITEMAP_NS
from ...extract.urls import normalised_origin, origin
from ...facts import Page, SitemapEntry, SitemapFile
from ..core.context import AuditContext
from ..core.registry import Hit, check
from ..core.sitemap_entries import entry_hit, listed, lists
from ..core.statuses import redirect_story
from ..core.wording import ERRORS, answers, name_list


def _number(value: int) -> str:
    return f"{value:,}"


def _ancestors(ctx: AuditContext, sitemap: str) -> list[str]:
    """The sitemap and every index above it."""
    chain = [sitemap]
    record = ctx.store.sitemaps.get(sitemap)
    while record is not None and record.parent and record.parent not in chain:
        chain.append(record.parent)
        record = ctx.store.sitemaps.get(record.parent)
    return chain


def _named_by(ctx: AuditContext) -> dict[str, set[str]]:
    """Sitemap URL -> the origins whose robots.txt names it, or an index above it."""
    direct: dict[str, set[str]] = defaultdict(set)
    for robots in ctx.store.robots.values():
        for sitemap in robots.sitemaps:
            direct[sitemap].add(robots.origin)
    urls = set(ctx.store.sitemaps) | {entry.sitemap for entry in ctx.store.entries}
    return {url: set().union(*(direct[above] for above in _ancestors(ctx, url))) for url in urls}


def _readable(sitemap: SitemapFile) -> bool:
    """Read as a sitemap: answered 200 and has a sitemap root (however broken otherwise)."""
    return sitemap.status == 200 and sitemap.sitemap_kind is not None


def _read_to_the_end(sitemap: SitemapFile) -> bool:
    """Every URL it lists is known: read whole, or a probe that found no sitemap at all."""
    whole = not sitemap.truncated and sitemap.url_count <= MAX_SITEMAP_URLS
    return (_readable(sitemap) and whole) or (sitemap.via == "probe" and sitemap.sitemap_kind is None)


@check(
    "SM001",
    "sitemap-url-not-ok",
    "error",
    why="""
A sitemap tells search engines which URLs to index. Every URL it lists that redirects, is missing (4xx),
fails (5xx) or cannot be reached wastes crawl budget, and search engines lower their trust in a sitemap
full of them; a redirecting URL in particular is not the URL that gets indexed.
""",
    example="""
`https://example.com/sitemap.xml` lists `<loc>http://example.com/about</loc>`, which answers
`301 Moved Permanently` to `https://example.com/about/`.
""",
    fix="""
List only the final URLs that answer 200: replace redirecting URLs by their target, remove or restore
missing pages, and fix server errors.
""",
    failing="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://example.com/about</loc></url>
</urlset>
""",
    fixed="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/about/</loc></url>
</urlset>
""",
    precedence="""
A listed URL that answers 200 but is not indexable is SM012.
""",
    since="0.1.0",
)
def sitemap_url_not_ok(ctx: AuditContext) -> Iterator[Hit]:
    for (_, url), entry in listed(ctx).items():
        record = ctx.fetched(url)
        if record is None or record.status == 200:
            continue
        status = record.status
        if status is not None and 300 <= status < 400:
            why = redirect_story(ctx, url, use="list")
        elif status is not None:
            why = f"{answers(status)}: list only URLs that answer 200, or restore the page"
        elif record.error:
            why = f"cannot be reached ({record.error}): correct the URL or fix its host"
        elif getattr(record, "not_examined", None) == "private":
            why = (
                "points at an internal address (loopback, private network, link-local), which the crawl does "
                "not fetch and search engines cannot reach: list only public URLs"
            )
        else:
            continue  # not examined: robots.txt is SM012, crawl limits leave it unknown
        yield entry_hit(entry, f"{lists(entry)}, which {why}.")


def _hosted(sitemap_url: str) -> bool:
    """A sitemap read from disk (`-a start=sitemap.xml`) has no host: host rules do not apply to it."""
    return not sitemap_url.startswith("file:")


@check(
    "SM002",
    "page-missing-from-sitemap",
    "warning",
    why="""
Where a host has sitemaps, search engines use them to discover and schedule its pages, and for hreflang
sitemaps to read the clusters. An indexable page (200, not noindex, canonical to itself) that no sitemap
lists is found only through links, later and less reliably, and often shows that the sitemap generator
misses a whole section or language. The sitemaps of a host are those on it and those its robots.txt
names; a page listed in any sitemap is not reported (where that listing is out of scope, SM005 says
so), and a host with a sitemap that could not be read to the end is not judged (SM003 and SM004 report
that file).
""",
    example="""
`https://example.com/sitemap.xml` lists the English and German pages, but the crawl found
`https://example.com/fr/produits/` (200, indexable) through a link and no sitemap lists it.
""",
    fix="""
Add the page to a sitemap of its host (usually by fixing the generator, which misses the section), or,
if the page should not be indexed, make it noindex or canonicalise it to the page that should be.
""",
    failing="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/en/products/</loc></url>
</urlset>
""",
    fixed="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/en/products/</loc></url>
  <url><loc>https://example.com/fr/produits/</loc></url>
</urlset>
""",
    since="0.1.0",
)
def page_missing_from_sitemap(ctx: AuditContext) -> Iterator[Hit]:
    named_by = _named_by(ctx)
    by_host: dict[str, list[SitemapFile]] = defaultdict(list)
    for sitemap in ctx.store.sitemaps.values():
        if not _hosted(sitemap.url):
            continue
        for host in {origin(sitemap.url)} | named_by[sitemap.url]:
            by_host[host].append(sitemap)
    # Hosts with a urlset, all of whose sitemaps were read to the end: a page may hide in the rest.
    complete = {
        host: sorted(s.url for s in files if s.sitemap_kind == "urlset")
        for host, files in by_host.items()
        if any(s.sitemap_kind == "urlset" for s in files) and all(_read_to_the_end(s) for s in files)
    }
    if not complete:
        return
    for url, page in ctx.pages.items():
        if not (page.status == 200 and page.is_html and page.in_scope and page.noindex is None):
            continue
        sitemaps = complete.get(normalised_origin(url))
        if not sitemaps or ctx.canonical_names(url) - {url} or url in ctx.entries_by_url:
            continue
        named = sitemaps[0] + (f" and {len(sitemaps) - 1} more" if len(sitemaps) > 1 else "")
        yield Hit(
            url,
            f"This indexable page is in no sitemap of its host ({named}): add it, or make it noindex or "
            f"canonical to another page if it should not be indexed.",
            source="crawl",
        )


@check(
    "SM003",
    "sitemap-too-large",
    "error",
    why="""
The sitemap protocol limits one file to 50,000 URLs (an index: 50,000 sitemaps) and 52,428,800 bytes
(50 MiB) uncompressed. Search engines reject a larger file or read only its beginning, so the URLs past
the limit are not submitted at all. Qivrora reads such a file only up to the limit, as they do, and
audits the entries before it; the rest is measured (however broken it is) but not read, so the message
says how far the file was read.
""",
    example="""
`https://example.com/sitemap.xml.gz` holds 72,310 `<url>` entries, or inflates to 60 MB because every
entry carries fifty hreflang alternates.
""",
    fix="""
Split the file into several sitemaps of at most 50,000 URLs and 50 MiB each, and list them in a sitemap
index. An index over the limit is split into several indexes, each named in robots.txt (indexes cannot
nest).
""",
    failing="""
<!-- sitemap.xml.gz: 72,310 <url> entries in one file -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
""",
    fixed="""
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://example.com/sitemap-1.xml.gz</loc></sitemap>
  <sitemap><loc>https://example.com/sitemap-2.xml.gz</loc></sitemap>
</sitemapindex>
""",
    precedence="""
The file is read up to the limit, and its entries up to there are judged by the other checks.
""",
    since="0.1.0",
)
def sitemap_too_large(ctx: AuditContext) -> Iterator[Hit]:
    for url, sitemap in sorted(ctx.store.sitemaps.items()):
        if sitemap.via == "probe" and sitemap.sitemap_kind is None:
            continue  # no sitemap at the guessed /sitemap.xml, however large: not a defect (as SM004)
        over_urls = sitemap.url_count > MAX_SITEMAP_URLS
        over_bytes = sitemap.truncated or sitemap.size > MAX_SITEMAP_BYTES
        if not (over_urls or over_bytes):
            continue
        index = sitemap.sitemap_kind == "sitemapindex"
        what = "sitemaps" if index else "URLs"
        said = []
        if over_urls:
            # Counted only in the bytes read: past the byte limit the count is a lower bound.
            said.append(f"lists {'at least ' if over_bytes else ''}{_number(sitemap.url_count)} {what}")
        if over_bytes:
            said.append(f"is larger than {_number(MAX_SITEMAP_BYTES)} bytes uncompressed")
        # Within the bytes read the URL limit came first when both are passed.
        if over_urls:
            limit, read = f" ({_number(MAX_SITEMAP_URLS)} {what})", f"{_number(MAX_SITEMAP_URLS)} {what}"
        else:
            limit, read = "", f"{_number(MAX_SITEMAP_BYTES)} bytes"
        each = f"at most {_number(MAX_SITEMAP_URLS)} {what} and {_number(MAX_SITEMAP_BYTES)} bytes"
        if index:
            fix = f"split it into several sitemap indexes of {each}, and name each in robots.txt"
        else:
            fix = f"split it into sitemaps of {each} each, listed in a sitemap index"
        yield Hit(
            url,
            f"This {'sitemap index' if index else 'sitemap'} {' and '.join(said)}, more than one file may "
            f"hold{limit}, so only its first {read} were read: {fix}.",
            source="sitemap",
        )


#: SM004: the fix for a problem the sitemap reader names, by the words that name it (first match wins).
_FIXES = (
    ("broken gzip", "serve a complete gzip file, or the XML uncompressed"),
    ("entity declarations", "remove the DOCTYPE and its entities, which a sitemap has no use for"),
    ("Qivrora's XML parser", "keep to the few levels of elements and the short names a sitemap needs"),
    ("XML namespace error", "declare every namespace prefix it uses, such as `xmlns:xhtml`"),
    ("XML syntax error", "make it well-formed XML, written by an XML library rather than by joining strings"),
    ("namespace", f'declare the sitemap namespace on the root element: `xmlns="{SITEMAP_NS}"`'),
    ("root element is", "serve the sitemap's XML at this URL, or stop listing it as a sitemap"),
    (NOT_A_SITEMAP, "serve the sitemap's XML at this URL, or stop listing it as a sitemap"),
    ("<loc>", "give every entry exactly one `<loc>`, an absolute http(s) URL"),
    ("lists itself", "remove the index from its own list"),
    ("empty document", "write its entries into it, or stop listing it"),
)
#: The reader's last error when it listed only the first ones.
_OMITTED = re.compile(r"\b([0-9]+) more errors not listed$")


def _fix_for(problem: str) -> str:
    return next(
        (fix for words, fix in _FIXES if words in problem),
        "keep to the elements the sitemap protocol defines, and extensions in their own namespaces",
    )


def _unreadable(sitemap: SitemapFile) -> tuple[list[str], str] | None:
    """Why search engines cannot use the file (what is wrong, first problem first) and the fix of the
    first problem; None when it is fine."""
    parent = sitemap.parent
    if sitemap.error == "private":
        what = "points at an internal address, which the crawl does not fetch and search engines cannot reach"
        return [what], "serve it from a public host"
    if sitemap.error:
        reason = ERRORS.get(sitemap.error, "the download failed")
        fix = "make it answer 200 at this URL, or list it where it does"
        return [f"cannot be fetched because {reason}"], fix
    status = sitemap.status
    if status is not None and status != 200:
        if 300 <= status < 400 and sitemap.errors:
            return sitemap.errors[:1], ""  # "redirects (301) to ...: list the final URL instead"
        if 400 <= status < 500:
            fix = "publish it at this URL, or list it where it is published"
        else:
            fix = "fix the server so that it answers 200" if status >= 500 else "make it answer 200"
        return [f"{answers(status)} instead of 200"], fix
    problems = [f"is invalid: {error}" for error in sitemap.errors]
    if sitemap.sitemap_kind is None and not problems:
        problems.append("is not a sitemap: its root element is neither <urlset> nor <sitemapindex>")
    if sitemap.sitemap_kind == "sitemapindex" and parent:
        problems.append(f"is a sitemap index inside the sitemap index {parent}, and indexes cannot nest")
    if not problems:
        return None
    if problems[0].startswith("is a sitemap index inside"):
        return problems, f"list its sitemaps in {parent} directly"
    return problems, _fix_for(problems[0])


def _more(problems: list[str]) -> str:
    count = sum(int(omitted[1]) if (omitted := _OMITTED.search(p)) else 1 for p in problems) - 1
    return {0: "", 1: " (and 1 more problem)"}.get(count, f" (and {_number(count)} more problems)")


@check(
    "SM004",
    "sitemap-invalid",
    "error",
    why="""
Search engines reject a sitemap that is not well-formed XML, has the wrong root element or namespace,
or that they cannot fetch or decompress, and one that answers anything but 200; an entry without
`<loc>` is skipped, and an index that lists another index is not followed. Every URL of such a file,
and its hreflang annotations, may be lost. The message names the first problem, with its line, and
counts the others.
""",
    example="""
`https://example.com/sitemap.xml` declares `<urlset xmlns="http://www.google.com/schemas/sitemap/0.84">`,
or breaks off with `XML syntax error at line 1203`, or answers `404 Not Found`, or is a `sitemapindex`
listed in another `sitemapindex`.
""",
    fix="""
Serve the file with status 200 as UTF-8 XML whose root is `<urlset>` or `<sitemapindex>` in the
namespace `http://www.sitemaps.org/schemas/sitemap/0.9`, give every entry a `<loc>`, and list only
urlset files in an index. Validate the generator's output against the sitemap schema.
""",
    failing="""
<urlset xmlns="http://www.google.com/schemas/sitemap/0.84">
  <url><loc>https://example.com/</loc></url>
</urlset>
""",
    fixed="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/</loc></url>
</urlset>
""",
    since="0.1.0",
)
def sitemap_invalid(ctx: AuditContext) -> Iterator[Hit]:
    for url, sitemap in sorted(ctx.store.sitemaps.items()):
        if sitemap.via == "probe" and sitemap.sitemap_kind is None:
            continue  # nothing (or no sitemap) at the guessed /sitemap.xml: not a defect
        found = _unreadable(sitemap)
        if found is None:
            continue
        problems, fix = found
        listed = {"index": f", listed in {sitemap.parent},", "robots": ", listed in robots.txt,"}.get(
            sitemap.via, ""
        )
        yield Hit(
            url,
            f"This sitemap{listed} {problems[0]}{_more(problems)}{f': {fix}' if fix else ''}.",
            target=sitemap.parent or "",
            source="sitemap",
        )


@check(
    "SM005",
    "sitemap-url-out-of-scope",
    "warning",
    why="""
A sitemap may list only URLs of its own scheme and host, under the folder it sits in: search engines
ignore the others (sitemaps.org, "Sitemap file location"). A sitemap named in the `Sitemap:` line of a
host's robots.txt is trusted for every URL of that host, including a sitemap on another host
(cross-submission) and the sitemaps of an index so named. Sitemaps submitted in a search engine's
webmaster tools are exempt too, which a crawl cannot see.
""",
    example="""
`https://example.com/blog/sitemap.xml` lists `https://example.com/shop/shoes/` (above its folder), or
`https://example.de/` (another host whose robots.txt does not name this sitemap).
""",
    fix="""
Move the sitemap to the root of the host whose URLs it lists, or name it in that host's robots.txt
(`Sitemap: https://example.com/blog/sitemap.xml`).
""",
    failing="""
<!-- https://example.com/blog/sitemap.xml -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/shop/shoes/</loc></url>
</urlset>
""",
    fixed="""
# https://example.com/robots.txt names the sitemap, which puts every URL of the host in its scope
Sitemap: https://example.com/blog/sitemap.xml
""",
    since="0.1.0",
)
def sitemap_url_out_of_scope(ctx: AuditContext) -> Iterator[Hit]:
    named_by = _named_by(ctx)
    homes: dict[str, tuple[str, str]] = {}  # a sitemap's origin and folder, split once per sitemap
    for (sitemap, url), entry in listed(ctx).items():
        where = normalised_origin(url)
        if where in named_by[sitemap] or not _hosted(sitemap):
            continue
        if sitemap not in homes:
            homes[sitemap] = origin(sitemap), urlsplit(sitemap).path.rpartition("/")[0] + "/"
        home, folder = homes[sitemap]
        if where != home:
            why = (
                "which is on another host or scheme than the sitemap, "
                f"so search engines ignore it unless {where}/robots.txt names the sitemap"
            )
            fix = f"list it in a sitemap of {where}, or add `Sitemap: {sitemap}` to {where}/robots.txt"
        elif not urlsplit(url).path.startswith(folder):
            why = f"which is outside the sitemap's folder {folder}, so search engines ignore it"
            fix = (
                f"move the sitemap to the root of the host, or add `Sitemap: {sitemap}` to {where}/robots.txt"
            )
        else:
            continue
        yield entry_hit(entry, f"{lists(entry)}, {why}: {fix}.")


@check(
    "SM006",
    "sitemap-not-in-robots",
    "warning",
    why="""
Search engines and other crawlers find a host's sitemaps through the `Sitemap:` lines of its robots.txt;
without one they know only the sitemaps submitted by hand to each of them, and a robots.txt `Sitemap:`
line is also what allows a sitemap to list URLs outside its folder or host. A sitemap that another
host's robots.txt names (cross-submission) counts as found; a robots.txt that could not be read (5xx,
no answer) is not judged.
""",
    example="""
`https://example.com/sitemap.xml` exists, but `https://example.com/robots.txt` has no `Sitemap:` line
(or answers 404).
""",
    fix="""
Add a line `Sitemap: https://example.com/sitemap.xml` (the sitemap index, if there is one) to the host's
robots.txt; create the robots.txt if there is none.
""",
    failing="""
# https://example.com/robots.txt
User-agent: *
Disallow: /cart/
""",
    fixed="""
# https://example.com/robots.txt
User-agent: *
Disallow: /cart/
Sitemap: https://example.com/sitemap.xml
""",
    since="0.1.0",
)
def sitemap_not_in_robots(ctx: AuditContext) -> Iterator[Hit]:
    named_by = _named_by(ctx)
    by_host: dict[str, list[SitemapFile]] = defaultdict(list)
    for sitemap in ctx.store.sitemaps.values():
        # A sitemap that another host's robots.txt names (cross-submission) is found all the same.
        if _readable(sitemap) and not named_by[sitemap.url] and _hosted(sitemap.url):
            by_host[origin(sitemap.url)].append(sitemap)
    for host, sitemaps in sorted(by_host.items()):
        robots = ctx.store.robots.get(host)
        if robots is None:
            continue  # robots.txt not asked for: unknown, not absent
        top = min(sitemaps, key=lambda s: (s.parent is not None, s.url)).url
        if robots.exists and not robots.sitemaps:
            problem, fix = "has no `Sitemap:` line", f"add `Sitemap: {top}` to it"
        elif not robots.exists and robots.status is not None and 400 <= robots.status < 500:
            problem, fix = f"does not exist ({answers(robots.status)})", f"create it with `Sitemap: {top}`"
        else:
            continue  # it names sitemaps, or it could not be read (5xx, no answer): not known
        yield Hit(
            robots.url,
            f"{robots.url} {problem}, although {host} has sitemaps: {fix}.",
            target=top,
            source="robots",
        )


@check(
    "SM012",
    "sitemap-url-not-indexable",
    "warning",
    why="""
A sitemap should list the URLs to index and nothing else. A URL that robots.txt disallows cannot be
crawled, a noindex URL is kept out of the index, and a URL that canonicalises elsewhere is not the one
indexed: listing them sends contradictory signals and, in hreflang sitemaps, puts non-canonical URLs
into the clusters.
""",
    example="""
`https://example.com/sitemap.xml` lists `https://example.com/de/?ref=nav`, whose canonical is
`https://example.com/de/`, and `https://example.com/cart/`, which is noindex.
""",
    fix="""
Remove the URL from the sitemap, or list its canonical URL instead; if it is meant to be indexed,
remove the noindex or the robots.txt rule.
""",
    failing="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <!-- its canonical is https://example.com/de/ -->
  <url><loc>https://example.com/de/?ref=nav</loc></url>
</urlset>
""",
    fixed="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/de/</loc></url>
</urlset>
""",
    precedence="""
A listed URL that answers anything but 200 is SM001.
""",
    since="0.1.0",
)
def sitemap_url_not_indexable(ctx: AuditContext) -> Iterator[Hit]:
    for (_, url), entry in listed(ctx).items():
        record = ctx.fetched(url)
        reasons: list[str] = []
        fix = "remove it from the sitemap"
        if record is not None and record.status is None and getattr(record, "not_examined", None) == "robots":
            reasons.append(f"is disallowed by {origin(url)}/robots.txt")
            fix = "remove it from the sitemap, or allow it in robots.txt if it should be indexed"
        elif isinstance(record, Page) and record.status == 200:
            if record.noindex:
                said = "an `X-Robots-Tag` header" if record.noindex == "header" else "a robots meta tag"
                reasons.append(f"is noindex ({said})")
            canonical = ctx.canonical_elsewhere(url)
            named = ctx.canonical_names(url)
            if canonical is not None:
                reasons.append(f"canonicalises to {canonical}")
                fix = f"list {canonical} instead" if not record.noindex else fix
            elif len(named) > 1 and url not in named:
                reasons.append(f"names {len(named)} conflicting canonicals, none of them itself")
        if reasons:
            yield entry_hit(entry, f"{lists(entry)}, which {' and '.join(reasons)}: {fix}.")


@check(
    "SM013",
    "url-in-multiple-sitemaps",
    "notice",
    why="""
A URL listed more than once, in several sitemap files or twice in one, gets whichever `<lastmod>` and
hreflang alternates the search engine read last, and the listings drift apart as they are maintained;
it usually means overlapping generators or sections, or a generator that writes a page once per
category. One row per entry: every listing of such a URL, the first included, is reported in the
sitemap that holds it, and its message names the other listings (their lines in the same file, the
other files).
""",
    example="""
`https://example.com/de/` is listed in both `https://example.com/sitemap-pages.xml` and
`https://example.com/sitemap-de.xml`, or twice in `https://example.com/sitemap.xml` (lines 12 and 480).
""",
    fix="""
List each URL once, in one sitemap file only.
""",
    failing="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/de/</loc></url>
  <url><loc>https://example.com/de/</loc></url>
</urlset>
""",
    fixed="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/de/</loc></url>
</urlset>
""",
    since="0.1.0",
)
def url_in_multiple_sitemaps(ctx: AuditContext) -> Iterator[Hit]:
    for entries in ctx.entries_by_url.values():
        if len(entries) < 2:
            continue
        by_file: dict[str, list[SitemapEntry]] = defaultdict(list)
        for entry in entries:
            by_file[entry.sitemap].append(entry)
        files = sorted(by_file)
        for own, sitemap in enumerate(files):
            listings = by_file[sitemap]
            said = []
            # Where lines do not tell the listings apart (a minified sitemap is one line), their
            # places among the file's entries do: one row per entry, each its own.
            by_position = len({entry.line for entry in listings}) < len(listings) and all(
                entry.position for entry in listings
            )
            if len(listings) > 1:
                places = sorted(entry.position if by_position else entry.line for entry in listings)
                named = name_list(map(str, places), quoted=False)
                at = (
                    f" (entries {named})" if by_position
                    else f" (lines {named})" if all(places) else ""  # hand-made facts lack lines
                )
                said.append(f"it lists {'twice' if len(listings) == 2 else f'{len(listings)} times'}{at}")
            if len(files) > 1:
                said.append(f"is also listed in {_all_but(files, own)}")
            why = f"which {' and which '.join(said)}: list each URL once, in one sitemap only"
            for entry in listings:
                which = f" as entry {entry.position}" if by_position else ""
                yield entry_hit(entry, f"{lists(entry)}{which}, {why}.")


def _all_but(names: list[str], own: int, cap: int = 5) -> str:
    """``names`` without the one at ``own``, as name_list writes them; costs O(cap) however many there
    are, since every sitemap of a site may list its home page."""
    shown = [name for i, name in enumerate(names[: cap + 1]) if i != own][:cap]
    rest = len(names) - 1 - len(shown)
    return f"{', '.join(shown)} and {rest} more" if rest else name_list(shown, quoted=False)
