"""The human side of the audit: report.html and the fixes file. Pure; no Scrapy, no network.

Both the crawl (``AuditExtension``) and ``qivrora hreflang-report`` call ``write_outputs`` with the
settings ``QIVRORA_REPORT`` and ``QIVRORA_FIXES``, so the offline audit writes the same files.
"""

from __future__ import annotations

from typing import Sequence

from .. import DOCS_URL
from ..audit import AuditContext
from ..audit.core.url_segments import Segment
from ..findings import Finding
from .files import write_atomically
from .fixes import ClusterFix, cluster_fixes, write_fixes_jsonl
from .render import render_report

__all__ = ["ClusterFix", "cluster_fixes", "render_report", "write_fixes_jsonl", "write_outputs"]


def write_outputs(
    context: AuditContext,
    findings: list[Finding],
    *,
    report: str | None = "",
    fixes: str | None = "",
    audited: bool = True,
    notes: Sequence[str] = (),
    segments: Sequence[Segment] = (),
    docs_url: str = DOCS_URL,
) -> list[str]:
    """Write the report and/or the fixes where the settings say (empty: not wanted); the paths written.

    Where no audit happened (``audited`` False) the report says so and why (``notes``), and no fixes
    file replaces the previous one: no fix was computed from what the crawl could not see.
    """
    if not (report or fixes):
        return []
    computed = cluster_fixes(context)  # once, for both files
    if fixes and audited:
        write_fixes_jsonl(fixes, computed)
    if report:
        write_atomically(
            report,
            render_report(
                context, findings, computed, audited=audited, notes=notes, segments=segments, docs_url=docs_url
            ),
        )
    return [path for path in (fixes if audited else None, report) if path]
