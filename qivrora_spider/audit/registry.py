"""The check catalogue, generated from the code: each check registers its id, name, severity and docs.

A check is a generator function over the audit context that yields ``Hit``s; the registry turns a hit
into a ``Finding`` with the check's id, name and (configured) severity, so no check repeats them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:
    from .context import AuditContext

SEVERITIES = ("error", "warning", "notice")


@dataclass(frozen=True, slots=True)
class Hit:
    """What a check found; the registry adds id, name, severity and (by default) the cluster."""

    url: str
    message: str
    target: str = ""
    hreflang: str = ""
    source: str = ""
    cluster: str | None = None  # None: the cluster of `url`, if it has one


CheckFunction = Callable[["AuditContext"], Iterable[Hit]]


@dataclass(frozen=True, slots=True)
class Check:
    id: str
    name: str
    severity: str
    family: str
    why: str
    example: str
    fix: str
    run: CheckFunction


CHECKS: dict[str, Check] = {}


def check(
    id: str,
    name: str,
    severity: str,
    *,
    why: str,
    example: str,
    fix: str,
) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check; its family is the module it lives in (``values``, ``graph``, ...)."""
    if severity not in SEVERITIES:
        raise ValueError(f"{id}: unknown severity {severity!r}")

    def register(function: CheckFunction) -> CheckFunction:
        if id in CHECKS:
            raise ValueError(f"check {id} registered twice")
        family = function.__module__.rsplit(".", 1)[-1]
        CHECKS[id] = Check(
            id, name, severity, family, why.strip(), example.strip(), fix.strip(), function
        )
        return function

    return register
