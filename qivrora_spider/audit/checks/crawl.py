"""CR001: the crawl itself. A start that could not be used is said, never audited as an empty site."""

from __future__ import annotations

from typing import Iterator

from ..core.context import AuditContext
from ..core.registry import Hit, check
from ..core.starts import unusable_starts
from ..core.wording import code


@check(
    "CR001",
    "start-unusable",
    "error",
    why="""
A start the crawl could not use leaves nothing to audit from it: an audit of an unreachable site, a
404 or an HTML page where a sitemap was named is not a clean site. Where every start fails, no audit
happened: the run exits with status 3 and these rows are all the feeds hold.
""",
    example="""
`qivrora audit https://example.com/sitemap.xml` where `/sitemap.xml` answers 200 with the site's
HTML home page; or a start whose server refuses the connection.
""",
    fix="""
Give a start that answers 200 (follow its redirects to the final URL), or the sitemap's real URL
(robots.txt's `Sitemap:` lines name it); check that the site is up and reachable from where the
crawl runs.
""",
    failing="""
$ qivrora audit https://example.com/sitemap.xml
# /sitemap.xml answers 200 with the HTML home page: not a sitemap
""",
    fixed="""
$ qivrora audit https://example.com/sitemap_index.xml
# the sitemap robots.txt names (Sitemap: https://example.com/sitemap_index.xml)
""",
    precedence="""
Where every start fails, no other check runs: these rows are all the feeds hold, and the run exits
with status 3. A start file on disk that is not a sitemap is an argument error (exit status 2), not
CR001.
""",
    since="0.2.0",
)
def start_unusable(ctx: AuditContext) -> Iterator[Hit]:
    for start, problem in unusable_starts(ctx).items():
        yield Hit(start, f"The start {code(start)} could not be used: {problem}.", cluster="")
