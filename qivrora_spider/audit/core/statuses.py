"""What follows from how a URL answered: whether its annotations count, whether it may stand as an
alternate, and where its redirects lead.
"""

from __future__ import annotations

from itertools import chain

from ...facts import Page
from .context import MAX_CHAIN, AuditContext, per_audit
from .wording import answers


def is_lister(ctx: AuditContext, url: str) -> bool:
    """Do this URL's annotations count? Not when it answers anything but 200 (unknown counts)."""
    status = ctx.status(url)
    return status is None or status == 200


def may_stand(ctx: AuditContext, url: str) -> bool:
    """Can `url` stand as an alternate, as far as is known? A URL that redirects, fails, is blocked
    by robots.txt, is noindex or canonicalises elsewhere is reported as such by HL3xx and HL4xx,
    and is left out of the cluster checks so that one defect is not reported as several."""
    return url not in _cannot_stand(ctx)


@per_audit
def _cannot_stand(ctx: AuditContext) -> set[str]:
    found = set()
    pages = ctx.pages
    # A URL's page record overrides a status of it (``AuditContext.fetched``).
    statuses = ((url, record) for url, record in ctx.statuses.items() if url not in pages)
    for url, record in chain(pages.items(), statuses):
        status = record.status
        if (
            (status is not None and status != 200)
            or (status is None and record.error)
            or getattr(record, "not_examined", None) == "robots"
        ):
            found.add(url)
        elif status == 200 and isinstance(record, Page):
            canonicals = ctx.canonicals(url)
            if record.noindex or (canonicals and url not in canonicals):
                found.add(url)
    return found


#: Redirects that say "for now, for this visitor": what a locale-adaptive entry page answers.
TEMPORARY_REDIRECTS = frozenset({302, 303, 307})


def redirects_by_visitor(ctx: AuditContext, url: str) -> bool:
    """Does `url` answer a temporary redirect whose chain ends on a page answering 200? Google
    documents such an entry page, sending each visitor to a version, as a proper `x-default` (HL408)."""
    if ctx.status(url) not in TEMPORARY_REDIRECTS:
        return False
    chain = ctx.redirect_chain(url)
    return len(chain) > 1 and chain[-1] not in chain[:-1] and ctx.status(chain[-1]) == 200


def redirect_story(ctx: AuditContext, url: str, use: str = "annotate") -> str:
    """Where a redirecting URL leads, and the fix (`use` the final URL), for a message."""
    record = ctx.fetched(url)
    answer = answers(record.status) if record is not None and record.status else "redirects"
    chain = ctx.redirect_chain(url)
    if len(chain) == 1:
        return f"{answer} without a Location header"
    if chain[-1] in chain[:-1]:
        loop = " → ".join(chain[chain.index(chain[-1]) :])
        return f"redirects in a loop ({loop}) and never reaches a page: fix the redirects"
    final = ctx.fetched(chain[-1])
    if final is not None and final.location:  # redirect_chain stopped following
        return f"redirects more than {MAX_CHAIN} times without reaching a page: fix the redirects"
    hops = len(chain) - 1
    if hops == 1:
        path = f"{answer} and redirects to {chain[-1]}"
    else:
        path = f"goes through a chain of {hops} redirects ({' → '.join(chain)})"
    if final is None or final.status is None:
        state = (
            f"cannot be reached ({final.error})" if final is not None and final.error else "was not examined"
        )
        if getattr(final, "not_examined", None) == "private":
            state = "points at an internal address, which the crawl does not fetch and search engines cannot reach"
        return f"{path}, which {state}: {use} the final URL directly once it answers 200"
    if final.status == 200:
        return f"{path}: {use} {chain[-1]} directly"
    return f"{path}, which {answers(final.status)}: {use} the URL that serves the page"
