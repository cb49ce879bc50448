"""How messages name things: code, lists, a status, a failed fetch, an annotation to add.

Every check words its findings with these, so that one thing is said one way across families.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Iterable


def code(text: str) -> str:
    return f"`{text}`"


def name_list(items: Iterable[str], cap: int = 5, *, quoted: bool = True) -> str:
    """`a`, `b` and `c` -- at most `cap` names, then "and N more" (`quoted=False`: items as given)."""
    names = [code(item) if quoted else item for item in items]
    if len(names) > cap:
        return ", ".join(names[:cap]) + f" and {len(names) - cap} more"
    if len(names) > 1:
        return ", ".join(names[:-1]) + " and " + names[-1]
    return names[0] if names else ""


def suggested_element(source: str, hreflang: str, href: str) -> str:
    """The annotation to add, written as `source` writes it."""
    if source == "header":
        return f'`<{href}>; rel="alternate"; hreflang="{hreflang}"` to its HTTP `Link` header'
    if source == "sitemap":
        return f'`<xhtml:link rel="alternate" hreflang="{hreflang}" href="{href}"/>` to its sitemap entry'
    return f'`<link rel="alternate" hreflang="{hreflang}" href="{href}">` to its <head>'


#: Page.error / TargetStatus.error kinds, as a message says them.
ERRORS = {
    "dns": "its host name does not resolve (DNS lookup failed)",
    "refused": "its server refuses the connection",
    "timeout": "its server did not answer in time",
    "tls": "its TLS (HTTPS) handshake fails",
    "reset": "its server drops the connection",
    "ignored": "its answer could not be read (e.g. a compressed body larger than DOWNLOAD_MAXSIZE)",
}


def failure_reason(kind: str) -> str:
    """Why a URL gave no answer (a Page or TargetStatus ``error`` kind), as a message says it."""
    return ERRORS.get(kind, f"it could not be fetched ({kind})")


def answers(status: int) -> str:
    """`answers 404 Not Found`: a status as a message says it."""
    try:
        return f"answers {status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"answers {status}"
