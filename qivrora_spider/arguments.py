"""The spider's arguments, checked before any request: a bad one stops the run with one line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from .urls import InvalidURL, netloc, normalize_url


class ArgumentError(ValueError):
    """One line naming the argument and what is wrong with it."""


@dataclass(frozen=True)
class CrawlArguments:
    start: tuple[str, ...] = ()  # normalised
    urls: tuple[str, ...] = ()  # list mode: exactly these URLs and their alternates
    max_pages: int | None = None
    max_depth: int | None = None
    hosts: frozenset[str] = field(default_factory=frozenset)  # crawled in full besides the start hosts

    @property
    def list_mode(self) -> bool:
        return bool(self.urls)


KNOWN = ("start", "urls", "max_pages", "max_depth", "hosts")


def _url(argument: str, raw: str) -> str:
    try:
        return normalize_url(raw)
    except InvalidURL as exc:
        raise ArgumentError(f"{argument}: {raw.strip()!r} is not a usable URL: {exc}") from None


def _limit(argument: str, raw: str | None) -> int | None:
    if raw is None or str(raw).strip() == "":
        return None
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ArgumentError(f"{argument}: {raw!r} is not a whole number") from None
    if value < 0 or (argument == "max_pages" and value == 0):
        raise ArgumentError(f"{argument}: {raw!r} must be {'positive' if argument == 'max_pages' else '0 or more'}")
    return value


def _read_url_list(path: str) -> tuple[str, ...]:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ArgumentError(f"urls: cannot read {path!r}: {reason}") from None
    found: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        found.append(_url(f"urls ({path}, line {number})", line))
    if not found:
        raise ArgumentError(f"urls: {path!r} lists no URL")
    return tuple(dict.fromkeys(found))


def parse_arguments(raw: Mapping[str, object]) -> CrawlArguments:
    unknown = sorted(set(raw) - set(KNOWN))
    if unknown:
        raise ArgumentError(f"{unknown[0]}: unknown argument; the arguments are {', '.join(KNOWN)}")
    start_raw = str(raw.get("start") or "")
    start = tuple(
        dict.fromkeys(_url("start", part) for part in start_raw.split(",") if part.strip())
    )
    urls = _read_url_list(str(raw["urls"])) if raw.get("urls") else ()
    if not start and not urls:
        raise ArgumentError("start: missing; give -a start=URL (a page, sitemap or robots.txt) or -a urls=FILE")
    if start and urls:
        raise ArgumentError("urls: give either start or urls, not both")
    hosts = frozenset(
        part.strip().lower().rstrip(".") for part in str(raw.get("hosts") or "").split(",") if part.strip()
    )
    for host in hosts:
        if "/" in host or " " in host:
            raise ArgumentError(f"hosts: {host!r} is not a host name (write a.example or a.example:8080)")
    return CrawlArguments(
        start=start,
        urls=urls,
        max_pages=_limit("max_pages", raw.get("max_pages")),  # type: ignore[arg-type]
        max_depth=_limit("max_depth", raw.get("max_depth")),  # type: ignore[arg-type]
        hosts=hosts,
    )


class Scope:
    """Which URLs are crawled in full (links followed); everything else is examined one hop."""

    def __init__(self, arguments: CrawlArguments) -> None:
        self._netlocs = {netloc(url) for url in arguments.start or arguments.urls}
        self._hosts = {h for h in arguments.hosts if ":" not in h}
        self._netlocs |= {h for h in arguments.hosts if ":" in h}

    def __contains__(self, url: str) -> bool:
        where = netloc(url)
        return where in self._netlocs or where.rsplit(":", 1)[0] in self._hosts or where in self._hosts

    def describe(self) -> list[str]:
        return sorted(self._netlocs | self._hosts)
