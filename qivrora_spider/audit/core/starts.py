"""Whether the crawl's starts could be used, and so whether an audit happened at all.

A start is any URL the user gave (`-a start=`, every entry of `-a urls=`). It is usable when it
reaches content the crawl can begin from: a page answering 200, at once or at the end of its
redirects on any host, or, where its path names a sitemap or robots.txt, a file that is one. Where no
start is usable no audit happened, and the run says so (``no_usable_start``) instead of "no findings".
"""

from __future__ import annotations

from dataclasses import dataclass

from ...facts import INTERRUPTED, Page
from ...findings import Finding
from .context import MAX_CHAIN, AuditContext, per_audit
from .wording import answers, code, failure_reason

#: Paths that name a sitemap: a start with one of them must be one.
SITEMAP_ENDINGS = (".xml", ".xml.gz")


def _names_sitemap(url: str) -> bool:
    path = url.split("?", 1)[0].split("#", 1)[0].lower()
    return path.endswith(SITEMAP_ENDINGS)


def _names_robots(url: str) -> bool:
    return url.split("?", 1)[0].lower().endswith("/robots.txt") and url.count("/") == 3


def _robots_problem(ctx: AuditContext, start: str) -> str | None:
    origin = start[: -len("/robots.txt")]
    robots = ctx.store.robots.get(origin)
    if robots is None:
        return "the crawl has no record of it"
    if robots.error:
        return failure_reason(robots.error)
    if robots.status != 200:
        return answers(robots.status) if robots.status is not None else "it gave no answer"
    if not robots.exists:
        return "its content is not a robots.txt"
    return None


def _problem(ctx: AuditContext, start: str) -> str | None:
    """Why `start` could not be used, or None when it could."""
    if _names_robots(start):
        return _robots_problem(ctx, start)
    if start in ctx.store.sitemaps:
        return None  # read as a sitemap (a broken one is SM004's)
    chain = ctx.redirect_chain(start)
    final = chain[-1]
    via = f" (after {len(chain) - 1} redirect{'s' if len(chain) > 2 else ''}, at {code(final)})" if len(chain) > 1 else ""
    if len(chain) > 1 and (final in chain[:-1] or len(chain) > MAX_CHAIN):
        return f"its redirects loop or go on past {MAX_CHAIN} hops{via}"
    if final in ctx.store.sitemaps:
        return None
    record = ctx.fetched(final)
    if record is None:
        return f"the crawl has no record of it{via}"
    not_examined = getattr(record, "not_examined", None)
    if not_examined == "robots":
        return f"robots.txt disallows it{via}"
    if not_examined:
        return f"it was not fetched ({not_examined}){via}"
    if record.error:
        return f"{failure_reason(record.error)}{via}"
    if record.status is None:
        return f"it gave no answer{via}"
    if 300 <= record.status < 400:
        return f"it {answers(record.status)} with no Location the crawl could follow{via}"
    if record.status != 200:
        return f"it {answers(record.status)}{via}"
    if _names_sitemap(start) and isinstance(record, Page):
        kind = "HTML" if record.is_html else "a document that is no sitemap"
        return f"its path names a sitemap but it answers {kind}{via}"
    return None


@per_audit
def unusable_starts(ctx: AuditContext) -> dict[str, str]:
    """Each start that could not be used, and why, in the order they were given."""
    found: dict[str, str] = {}
    for crawl in ctx.store.crawls:
        for start in crawl.start_urls:
            if start.startswith("file:") or start in found:
                continue  # a sitemap on disk was read when the arguments were checked
            problem = _problem(ctx, start)
            if problem is not None:
                found[start] = problem
    return found


def no_usable_start(ctx: AuditContext) -> bool:
    """True where the crawl had starts and none of them could be used: no audit happened."""
    starts = {s for crawl in ctx.store.crawls for s in crawl.start_urls if not s.startswith("file:")}
    return bool(starts) and starts <= set(unusable_starts(ctx))


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the facts say of the run itself: whether an audit happened, and whether it is whole.

    ``audited`` is False where no start was usable; ``lines`` say why, or what the audit lacks (an
    interrupted crawl), for the log, the report's header and the JUnit report.
    """

    audited: bool = True
    lines: tuple[str, ...] = ()

    @property
    def partial(self) -> bool:
        return bool(self.lines)

    def handed_out(self, findings: list[Finding]) -> list[Finding]:
        """What the run's outputs hold: every finding, or where no audit happened the CR001 rows alone
        (the rest judged a site the crawl never saw)."""
        return findings if self.audited else [finding for finding in findings if finding.check == "CR001"]


def verdict(ctx: AuditContext) -> Verdict:
    if no_usable_start(ctx):
        starts = unusable_starts(ctx)
        lines = [f"start {start} could not be used: {problem}" for start, problem in starts.items()]
        which = "the start could not" if len(starts) == 1 else f"none of the {len(starts)} starts could"
        return Verdict(False, (f"No audit: {which} be used (CR001).", *lines))
    if INTERRUPTED in ctx.store.limits_reached:
        left = sum(1 for status in ctx.store.statuses.values() if status.not_examined == INTERRUPTED)
        return Verdict(
            True,
            (f"Partial: the crawl was interrupted; {left:,} URLs it had found were left out (HL206).",),
        )
    return Verdict()
