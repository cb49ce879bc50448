"""The entries of the sitemaps as the SM checks name them: the first entry of each listed URL, where a
finding about it points, and how a message says it.
"""

from __future__ import annotations

from ...facts import SitemapEntry
from .context import AuditContext, per_audit
from .registry import Hit


@per_audit
def listed(ctx: AuditContext) -> dict[tuple[str, str], SitemapEntry]:
    """(sitemap, URL) -> its first entry there, for every entry whose loc is a URL; four checks ask."""
    found: dict[tuple[str, str], SitemapEntry] = {}
    for entry in ctx.store.entries:
        if entry.url is not None:
            known = found.setdefault((entry.sitemap, entry.url), entry)
            if (entry.line or 0) < (known.line or 0):
                found[(entry.sitemap, entry.url)] = entry
    return dict(sorted(found.items()))


def lists(entry: SitemapEntry) -> str:
    line = f" (line {entry.line})" if entry.line else ""
    return f"The sitemap lists {entry.loc}{line}"


def entry_hit(entry: SitemapEntry, message: str) -> Hit:
    return Hit(entry.sitemap, message, target=entry.url or "", source="sitemap")
