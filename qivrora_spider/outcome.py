"""How a run ended, as the exit status and the stats say it: a run that could not see is not a pass.

A CI gate and a nightly monitor read the exit status, Scrapyd keeps only the stats and the log. So
whatever finds that the run did not see what it should have (no usable start, an outage, a crawl
interrupted, a worker lost with its work) records it here, in the stats, and the command turns the
most serious record into the exit status. Findings decide the status only when the run saw it all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
#: Set when the run was stopped at once (a second Ctrl-C): no output replaces the previous one.
DISCARDED_STAT = "qivrora/outputs_discarded"
#: Set once the audit ran: the findings feeds hold a result, and may replace the previous ones.
AUDITED_STAT = "qivrora/findings"
#: Set where no start could be used: the findings are the CR001 rows alone, and nothing was audited.
NO_START_STAT = "qivrora/no_usable_start"

#: The audit's summary (counts per severity and check), which `qivrora audit` prints last.
SUMMARY_STAT = "qivrora/summary"

#: The segments the audit counted by (``NAME=PATTERN`` each), and its findings per segment and severity
#: (``qivrora/findings/segment/de/error``), which QIVRORA_FAIL_ON=de:error reads.
SEGMENTS_STAT = "qivrora/segments"
SEGMENT_COUNT_STAT = "qivrora/findings/segment"

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


def reasons(stats: dict[str, Any]) -> list[str]:
    """Why the run recorded its status, one line each."""
    return list(stats.get(REASONS_STAT) or [])


def may_replace_outputs(stats: Any, *, findings: bool) -> bool:
    """Whether an output may replace the previous one: never after a run stopped at once, and the
    findings' outputs only from a run that audited (an empty table is no result)."""
    if stats.get_value(DISCARDED_STAT):
        return False
    return not findings or stats.get_value(AUDITED_STAT) is not None


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How a run went, for what it writes (the JUnit report): whether an audit happened, why the run is
    not whole (each reason a line; none: a whole audit), and the segments it counted by."""

    audited: bool = True
    reasons: list[str] = field(default_factory=list)
    segments: list[str] = field(default_factory=list)  # NAME=PATTERN each

    @classmethod
    def of(cls, stats: dict[str, Any]) -> RunOutcome:
        """From a crawl's stats: no audit where it never ran or no start could be used."""
        audited = stats.get(AUDITED_STAT) is not None and not stats.get(NO_START_STAT)
        return cls(audited, reasons(stats), list(stats.get(SEGMENTS_STAT) or []))
