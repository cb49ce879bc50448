"""SM007 to SM011: the `<lastmod>` of sitemap entries, the recrawl hint search engines trust only while it
is true.

SM007 and SM008 judge each entry's own `<lastmod>`; SM009 a sitemap whose entries share one date. SM010
and SM011 compare an entry with the previous crawl of the site (``ctx.previous``, read from the crawl
state before the audit); without a previous crawl they find nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date, datetime, timedelta, timezone
from typing import Iterator

from ...extract.sitemap_parse import parse_w3c_datetime
from ...facts import SitemapEntry
from ..core.context import AuditContext
from ..core.registry import Hit, check
from ..core.sitemap_entries import entry_hit, listed, lists


#: SM009: the share of a sitemap's dated entries that one date may not reach, and the least entries.
BULK_SHARE = 0.9
BULK_MIN_ENTRIES = 10
#: SM008: the time zone where a day begins first; a date alone is in the future while it has begun nowhere.
EARLIEST_ZONE = timezone(timedelta(hours=14))


@check(
    "SM007",
    "lastmod-invalid",
    "error",
    why="""
`<lastmod>` must be a W3C Datetime: `YYYY-MM-DD`, or a date and time with a time zone such as
`2024-05-01T09:30:00+02:00`. Search engines ignore a value in any other form (`01/05/2024`,
`2024-05-01 09:30:00`, a time without a time zone), and a sitemap full of them loses the recrawl hint.
""",
    example="""
`<lastmod>2024-05-01 09:30:00</lastmod>`, `<lastmod>Wed, 01 May 2024</lastmod>`,
`<lastmod>2024-05-01T09:30:00</lastmod>` (no time zone).
""",
    fix="""
Write the date as `YYYY-MM-DD`, or the date and time in ISO 8601 with a time zone designator
(`2024-05-01T09:30:00Z`).
""",
    failing="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/</loc><lastmod>2024-05-01 09:30:00</lastmod></url>
</urlset>
""",
    fixed="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/</loc><lastmod>2024-05-01T09:30:00Z</lastmod></url>
</urlset>
""",
    since="0.1.0",
)
def lastmod_invalid(ctx: AuditContext) -> Iterator[Hit]:
    for entry in ctx.store.entries:
        if entry.lastmod is not None and parse_w3c_datetime(entry.lastmod) is None:
            yield entry_hit(
                entry,
                f"{lists(entry)} with `<lastmod>{entry.lastmod}</lastmod>`, which is not a W3C Datetime: "
                f"write `YYYY-MM-DD` or a date and time with a time zone, such as `2024-05-01T09:30:00Z`.",
            )


def _local_date(value: str) -> date | None:
    parsed = parse_w3c_datetime(value)
    return parsed.date() if parsed is not None else None  # in the time zone the value is written in


def _in_future(value: str, now: datetime) -> bool:
    """Whether a lastmod's calendar day has not begun yet where it is written (a date alone: anywhere).

    Day precision is deliberate: a crawl takes time, servers' clocks drift, and a date stamped "today"
    in a time zone ahead of the crawler's is right.
    """
    parsed = parse_w3c_datetime(value)
    if parsed is None:
        return False
    if now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)
    zone = parsed.tzinfo if "T" in value else EARLIEST_ZONE
    return parsed.date() > now.astimezone(zone).date()


@check(
    "SM008",
    "lastmod-in-future",
    "warning",
    why="""
A `<lastmod>` after the time of the crawl cannot be true: it shows a generator that stamps expected
publication dates, a wrong time zone or a broken clock, and search engines learn to distrust the
sitemap's dates. A date of the current day anywhere on Earth is accepted, as servers and crawlers
may be in different time zones.
""",
    example="""
Crawled on 2024-05-01, `https://example.com/sitemap.xml` has `<lastmod>2024-06-15</lastmod>`.
""",
    fix="""
Set `<lastmod>` to the time the page's content last changed, from the server's clock with its time zone.
""",
    failing="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <!-- crawled on 2024-05-01 -->
  <url><loc>https://example.com/</loc><lastmod>2024-06-15</lastmod></url>
</urlset>
""",
    fixed="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/</loc><lastmod>2024-04-28</lastmod></url>
</urlset>
""",
    since="0.1.0",
)
def lastmod_in_future(ctx: AuditContext) -> Iterator[Hit]:
    for entry in ctx.store.entries:
        if entry.lastmod is not None and _in_future(entry.lastmod, ctx.now):
            yield entry_hit(
                entry,
                f"{lists(entry)} with `<lastmod>{entry.lastmod}</lastmod>`, after the crawl on "
                f"{ctx.now.date().isoformat()}: set it to when the page's content last changed.",
            )


@check(
    "SM009",
    "lastmod-bulk-stamped",
    "warning",
    why="""
When nearly every entry of a sitemap carries the same `<lastmod>` date, the generator stamps the date
of publishing rather than of each page's last change. Search engines then learn that the dates say
nothing and ignore them for the whole site. Judged on the entries with a valid `<lastmod>`, when at
least 10 have one and one calendar date (as written) is shared by at least 90% of them.
""",
    example="""
All 2,400 entries of `https://example.com/sitemap.xml` have `<lastmod>2024-05-01</lastmod>`, the day
the sitemap was last generated.
""",
    fix="""
Take each `<lastmod>` from the page's own last content change (the CMS's modification date), not the
time the sitemap is generated; leave `<lastmod>` out where that date is unknown.
""",
    failing="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/a/</loc><lastmod>2024-05-01</lastmod></url>
  <url><loc>https://example.com/b/</loc><lastmod>2024-05-01</lastmod></url>
  <!-- … and so on for every entry: the day the sitemap was generated -->
</urlset>
""",
    fixed="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/a/</loc><lastmod>2023-11-14</lastmod></url>
  <url><loc>https://example.com/b/</loc><lastmod>2024-02-03</lastmod></url>
</urlset>
""",
    since="0.1.0",
)
def lastmod_bulk_stamped(ctx: AuditContext) -> Iterator[Hit]:
    dates: dict[str, list[date]] = defaultdict(list)
    for entry in ctx.store.entries:
        day = _local_date(entry.lastmod) if entry.lastmod is not None else None
        if day is not None:
            dates[entry.sitemap].append(day)
    for sitemap, days in sorted(dates.items()):
        if len(days) < BULK_MIN_ENTRIES:
            continue
        day, count = Counter(days).most_common(1)[0]
        if count >= BULK_SHARE * len(days):
            yield Hit(
                sitemap,
                f"{count} of the {len(days)} dated entries of this sitemap ({count * 100 // len(days)}%) "
                f"have the lastmod date {day.isoformat()}: take each `<lastmod>` from the page's last "
                "content change, not from the time the sitemap is generated.",
                source="sitemap",
            )


def _compared(ctx: AuditContext) -> Iterator[tuple[SitemapEntry, str, bool, bool]]:
    """Entries to judge against the previous crawl: (entry, lastmod then, content changed, lastmod advanced).

    Only where both crawls saw the page answer 200 with content and both `<lastmod>`s are valid: a page
    that failed, or a date that cannot be read (SM007), says nothing about honesty.
    """
    if ctx.previous is None:
        return
    for (_, url), entry in listed(ctx).items():
        page, before = ctx.pages.get(url), ctx.previous.pages.get(url)
        if page is None or page.status != 200 or not page.fingerprint or before is None or not before.lastmod:
            continue
        now_date = parse_w3c_datetime(entry.lastmod) if entry.lastmod else None
        then_date = parse_w3c_datetime(before.lastmod)
        if now_date is not None and then_date is not None:
            yield entry, before.lastmod, page.fingerprint != before.fingerprint, now_date > then_date


def _previous_crawl(ctx: AuditContext) -> str:
    assert ctx.previous is not None
    return f"the previous crawl ({ctx.previous.started[:10]})"


@check(
    "SM010",
    "lastmod-without-change",
    "warning",
    why="""
Search engines use `<lastmod>` to decide which pages to crawl again, and only as long as it proves true.
A `<lastmod>` that advances while the page stays the same (a generator that stamps the build time)
sends crawlers to unchanged pages, wastes crawl budget, and teaches search engines to ignore the
sitemap's dates, including the true ones. Judged against the previous crawl: the page's content
fingerprint (its text and attribute values, ignoring scripts, styles, dates, times and tokens that
change on every request) is compared with what it was then.
""",
    example="""
At the previous crawl `https://example.com/de/` was listed with `<lastmod>2024-05-01</lastmod>`; tonight
it is listed with `<lastmod>2024-05-02</lastmod>`, and its content is the same.
""",
    fix="""
Take `<lastmod>` from the time the page's main content last changed (the CMS's modification date), not
from the time the sitemap or the page is generated.
""",
    failing="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <!-- previous crawl: 2024-05-01; the page's content has not changed since -->
  <url><loc>https://example.com/de/</loc><lastmod>2024-05-02</lastmod></url>
</urlset>
""",
    fixed="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/de/</loc><lastmod>2024-05-01</lastmod></url>
</urlset>
""",
    since="0.1.0",
)
def lastmod_without_change(ctx: AuditContext) -> Iterator[Hit]:
    for entry, then, changed, advanced in _compared(ctx):
        if advanced and not changed:
            yield entry_hit(
                entry,
                f"{lists(entry)} with `<lastmod>{entry.lastmod}</lastmod>`, later than the `{then}` it had at "
                f"{_previous_crawl(ctx)}, but the page's content has not changed since: advance `<lastmod>` "
                "only when the content changes.",
            )


@check(
    "SM011",
    "change-without-lastmod",
    "notice",
    why="""
A page whose content changed while its `<lastmod>` stayed the same (or went back) waits for search
engines to come back by chance: the sitemap tells them nothing new is there, so the change, a new
language version or corrected hreflang annotations included, reaches the index late. Judged against
the previous crawl: the page's content fingerprint (its text and attribute values, ignoring scripts,
styles, dates, times and tokens that change on every request) is compared with what it was then.
""",
    example="""
At the previous crawl `https://example.com/fr/` was listed with `<lastmod>2024-05-01</lastmod>`; since
then its text and its hreflang annotations changed, and the sitemap still says `2024-05-01`.
""",
    fix="""
Update `<lastmod>` whenever the page's main content changes: generate it from the page's modification
date rather than keeping it by hand.
""",
    failing="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <!-- the page's text and annotations changed since the previous crawl -->
  <url><loc>https://example.com/fr/</loc><lastmod>2024-05-01</lastmod></url>
</urlset>
""",
    fixed="""
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/fr/</loc><lastmod>2024-05-09</lastmod></url>
</urlset>
""",
    since="0.1.0",
)
def change_without_lastmod(ctx: AuditContext) -> Iterator[Hit]:
    for entry, then, changed, advanced in _compared(ctx):
        if changed and not advanced:
            how = "the same as" if entry.lastmod == then else "not later than"
            yield entry_hit(
                entry,
                f"{lists(entry)} with `<lastmod>{entry.lastmod}</lastmod>`, {how} the `{then}` it had at "
                f"{_previous_crawl(ctx)}, although the page's content has changed since: set `<lastmod>` to "
                "the time of that change.",
            )
