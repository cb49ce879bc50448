"""A finding: one row of the output table, the product's contract with its users (CHECKS.md)."""

from __future__ import annotations

from dataclasses import dataclass

#: CSV column order and JSON keys: CHECKS.md's, then `change` (since the previous crawl of the site).
FINDING_FIELDS = ("check", "name", "severity", "url", "target", "hreflang", "source", "cluster", "message", "change")

#: Values of `change`: the finding was not there at the previous crawl, was there, was there and is
#: gone (a resolved finding is listed apart, never among the findings), or was there on pages this
#: crawl could not fetch, so whether it is gone is unknown (listed among the findings). Empty without a
#: crawl state.
CHANGES = ("new", "persisting", "resolved", "unknown")

SEVERITY_RANK = {"error": 0, "warning": 1, "notice": 2}


@dataclass(slots=True)
class Finding:
    check: str
    name: str
    severity: str
    url: str
    target: str = ""
    hreflang: str = ""
    source: str = ""
    cluster: str = ""
    message: str = ""
    change: str = ""

    def sort_key(self) -> tuple[int, str, str, str, str, str, str]:
        """Severity, check, url, target, hreflang: two crawls of one site give identical files."""
        return (
            SEVERITY_RANK.get(self.severity, len(SEVERITY_RANK)),
            self.check,
            self.url,
            self.target,
            self.hreflang,
            self.source,
            self.message,
        )


def at_or_above(level: str) -> set[str]:
    """The severities that QIVRORA_FAIL_ON=`level` fails on."""
    return {severity for severity, rank in SEVERITY_RANK.items() if rank <= SEVERITY_RANK[level]}


def fail_on_level(value: object) -> str | None:
    """QIVRORA_FAIL_ON's severity (None when unset); ValueError when it names none. ``SEGMENT:LEVEL``
    gates one segment (``fail_on_segment``): a market's team on its own part of the site."""
    level = str(value or "").strip().rpartition(":")[2].strip().lower()
    if level and level not in SEVERITY_RANK:
        raise ValueError(
            f"QIVRORA_FAIL_ON: {level!r} is not one of {', '.join(SEVERITY_RANK)} (or SEGMENT:LEVEL)"
        )
    return level or None


def fail_on_segment(value: object) -> str | None:
    """The segment QIVRORA_FAIL_ON gates (``de:error``), None where it gates the whole site."""
    segment, colon, _ = str(value or "").strip().rpartition(":")
    return segment.strip() or None if colon else None
