"""A finding: one row of the output table, the product's contract with its users (CHECKS.md)."""

from __future__ import annotations

from dataclasses import dataclass

#: CSV column order and JSON keys, exactly as CHECKS.md lists them.
FINDING_FIELDS = ("check", "name", "severity", "url", "target", "hreflang", "source", "cluster", "message")

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
