"""What the crawl learnt about one URL, as the report says it: a short text and a kind to colour by."""

from __future__ import annotations

from dataclasses import dataclass

from ..audit import AuditContext

#: Status kinds, in legend order: the legend's words and the colour of matrix text and picture nodes.
KINDS = {
    "ok": ("200, indexable", "#2e7d32"),
    "not-indexable": ("200, but noindex or canonical elsewhere", "#e65100"),
    "redirect": ("redirect (3xx)", "#b28704"),
    "client-error": ("client error (4xx)", "#c62828"),
    "server-error": ("server error (5xx)", "#6a1b9a"),
    "other": ("other status", "#5d4037"),
    "failed": ("unreachable", "#263238"),
    "blocked": ("blocked by robots.txt", "#ad1457"),
    "unknown": ("not examined", "#9e9e9e"),
}


@dataclass(frozen=True, slots=True)
class UrlStatus:
    kind: str  # a key of KINDS
    text: str  # "200", "301", "dns", "robots.txt", "not examined"


def url_status(context: AuditContext, url: str) -> UrlStatus:
    record = context.fetched(url)
    if record is None:
        return UrlStatus("unknown", "not examined")
    status = record.status
    if status is None:
        if record.error:
            return UrlStatus("failed", record.error)
        if getattr(record, "not_examined", None) == "robots":
            return UrlStatus("blocked", "robots.txt")
        return UrlStatus("unknown", "not examined")
    if 300 <= status < 400:
        return UrlStatus("redirect", str(status))
    if 400 <= status < 500:
        return UrlStatus("client-error", str(status))
    if status >= 500:
        return UrlStatus("server-error", str(status))
    if status != 200:
        return UrlStatus("other", str(status))
    page = context.page(url)
    if page is not None and page.noindex:
        return UrlStatus("not-indexable", "200 noindex")
    if context.canonical_elsewhere(url):
        return UrlStatus("not-indexable", "200 canonical elsewhere")
    return UrlStatus("ok", "200")
