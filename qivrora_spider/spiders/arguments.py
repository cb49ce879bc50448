"""The spider's arguments, checked before any request: a bad one stops the run with one line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping
from urllib.parse import unquote

from ..extract.sitemap_parse import sniff_sitemap
from ..extract.urls import InvalidURL, netloc, normalize_url


class ArgumentError(ValueError):
    """One line naming the argument and what is wrong with it."""


@dataclass(frozen=True)
class CrawlArguments:
    start: tuple[str, ...] = ()  # normalised
    urls: tuple[str, ...] = ()  # list mode: exactly these URLs and their alternates
    max_pages: int | None = None
    max_depth: int | None = None
    hosts: frozenset[str] = field(default_factory=frozenset)  # crawled in full besides the start hosts
    site: Path | None = None  # a static build folder served as if deployed at `base`
    base: str | None = None
    live: bool = False  # with `site`: URLs outside `base` go to the network
    pretty_urls: bool = True  # with `site`: /page serves page.html
    render: bool = False  # HTML pages also go through a headless browser (qivrora_spider.rendering)
    #: Each HTML page that carries annotations is requested once more with the Accept-Language of
    #: another value of its cluster (HL801).
    locale_probe: bool = False

    @property
    def list_mode(self) -> bool:
        return bool(self.urls)


KNOWN = (
    "start", "urls", "max_pages", "max_depth", "hosts", "site", "base", "live", "pretty", "render", "locale_probe"
)
#: What Scrapyd adds to every job's arguments (the job id, the egg version): accepted, not used.
SCRAPYD = ("_job", "_version")


def _url(argument: str, raw: str) -> str:
    try:
        return normalize_url(raw)
    except InvalidURL as exc:
        raise ArgumentError(f"{argument}: {raw.strip()!r} is not a usable URL: {exc}") from None


def _start(raw: str) -> str:
    """A start URL, or a sitemap file on disk (a path or file:// URL) as a file:// URL."""
    raw = raw.strip()
    local = Path(unquote(raw[len("file://"):])) if raw.startswith("file://") else Path(raw)
    if "://" not in raw and not local.exists():
        raise ArgumentError(f"start: {raw!r} is neither an http(s) URL nor an existing sitemap file")
    if raw.startswith("file://") or "://" not in raw:
        try:
            with local.open("rb") as file:
                head = file.read(64 * 1024)
        except OSError as exc:
            raise ArgumentError(f"start: cannot read {raw!r}: {exc.strerror or exc}") from None
        if not sniff_sitemap(head):
            raise ArgumentError(f"start: {raw!r} is not a sitemap (no <urlset> or <sitemapindex>)")
        return local.resolve().as_uri()
    return _url("start", raw)


def _flag(argument: str, raw: object, default: bool) -> bool:
    if raw is None or str(raw).strip() == "":
        return default
    value = str(raw).strip().lower()
    if value not in ("1", "0", "true", "false", "yes", "no"):
        raise ArgumentError(f"{argument}: {raw!r} is not 1 or 0")
    return value in ("1", "true", "yes")


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
    unknown = sorted(set(raw) - set(KNOWN) - set(SCRAPYD))
    if unknown:
        raise ArgumentError(f"{unknown[0]}: unknown argument; the arguments are {', '.join(KNOWN)}")
    start_raw = str(raw.get("start") or "")
    start = tuple(dict.fromkeys(_start(part) for part in start_raw.split(",") if part.strip()))
    urls = _read_url_list(str(raw["urls"])) if raw.get("urls") else ()
    site = base = None
    if raw.get("site") or raw.get("base"):
        if not raw.get("site") or not raw.get("base"):
            raise ArgumentError("site: give both -a site=FOLDER and -a base=URL (where the folder is deployed)")
        site = Path(str(raw["site"]))
        if not site.is_dir():
            raise ArgumentError(f"site: {str(site)!r} is not a folder")
        base = _url("base", str(raw["base"]))
        start = start or (base,)
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
        site=site,
        base=base,
        live=_flag("live", raw.get("live"), False),
        pretty_urls=_flag("pretty", raw.get("pretty"), True),
        render=_render(raw.get("render"), site),
        locale_probe=_locale_probe(raw.get("locale_probe"), site),
    )


def _locale_probe(raw: object, site: Path | None) -> bool:
    probe = _flag("locale_probe", raw, False)
    if probe and site is not None:
        raise ArgumentError(
            "locale_probe: not available with -a site= (a build folder answers every visitor alike)"
        )
    return probe


def _render(raw: object, site: Path | None) -> bool:
    render = _flag("render", raw, False)
    if render and site is not None:
        # The build folder answers before any download handler, so no browser would see a page.
        raise ArgumentError("render: not available with -a site= (a build folder is audited as served)")
    return render


class Scope:
    """Which URLs are crawled in full (links followed); everything else is examined one hop."""

    def __init__(self, arguments: CrawlArguments) -> None:
        starts = [u for u in arguments.start or arguments.urls if not u.startswith("file:")]
        self._netlocs = {netloc(url) for url in starts}
        self._hosts = {h for h in arguments.hosts if ":" not in h}
        self._netlocs |= {h for h in arguments.hosts if ":" in h}

    def __contains__(self, url: str) -> bool:
        if not url.startswith(("http://", "https://")):
            return False
        where = netloc(url)
        return where in self._netlocs or where.rsplit(":", 1)[0] in self._hosts or where in self._hosts

    def add(self, url: str) -> None:
        """Crawl `url`'s host in full too (where a start redirected)."""
        self._netlocs.add(netloc(url))

    def describe(self) -> list[str]:
        return sorted(self._netlocs | self._hosts)
