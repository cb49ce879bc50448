"""How a run ended, as the exit status and the stats say it: a run that could not see is not a pass.

A CI gate and a nightly monitor read the exit status, Scrapyd keeps only the stats and the log. So
whatever finds that the run did not see what it should have (no usable start, an outage, a crawl
interrupted, a worker lost with its work) records it here, in the stats, and the command turns the
most serious record into the exit status. Findings decide the status only when the run saw it all.
"""

from __future__ import annotations

from typing import Any

#: Clean, or findings below QIVRORA_FAIL_ON.
CLEAN = 0
#: Findings at or above QIVRORA_FAIL_ON.
FINDINGS_FAILED = 1
#: Wrong arguments or settings (as argparse uses).
USAGE_ERROR = 2
#: Could not audit: no usable start, an outage, or work lost that could not be recovered.
NOT_AUDITED = 3
#: Interrupted (Ctrl-C, SIGTERM): what was gathered was audited and written, marked partial.
INTERRUPTED = 130

#: The stats keys: the exit status the run earned, and why, one line each reason.
STATUS_STAT = "qivrora/exit_status"
REASONS_STAT = "qivrora/exit_reasons"

#: Which record wins where several apply: an interruption says most, then a run that could not audit.
_PRECEDENCE = (INTERRUPTED, NOT_AUDITED)


def record(stats: Any, status: int, reason: str) -> None:
    """Note that the run ends with ``status`` (NOT_AUDITED or INTERRUPTED), and why.

    ``stats`` is a Scrapy stats collector; the most serious status recorded stands.
    """
    if status not in _PRECEDENCE:
        raise ValueError(f"not a status a run records: {status}")
    current = stats.get_value(STATUS_STAT)
    if current is None or _PRECEDENCE.index(status) < _PRECEDENCE.index(current):
        stats.set_value(STATUS_STAT, status)
    reasons = list(stats.get_value(REASONS_STAT) or [])
    if reason not in reasons:
        stats.set_value(REASONS_STAT, [*reasons, reason])


def recorded(stats: dict[str, Any]) -> int | None:
    """The status a run recorded in its stats (a dict, as ``get_stats()`` gives), or None."""
    return stats.get(STATUS_STAT)
