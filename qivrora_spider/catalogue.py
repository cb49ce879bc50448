"""The check catalogue, generated from the registry: the docs site's check pages and their index,
`qivrora explain` and `qivrora checks`.

The registry (``audit.core.registry``, filled by the ``@check`` decorators) is the one place a check
is documented; everything here renders it, so no page or listing is kept by hand. The docs build
writes the pages each time it runs (``docs/_ext/qivrora_docs.py``), so they cannot drift.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from . import DOCS_URL, __version__
from .audit import CHECKS
from .audit.core.registry import Check

#: A family is the hundred of its id, as CHECKS.md groups them. A check in a family missing here fails
#: the docs build (KeyError), so a new family gets its title where the others have theirs.
FAMILIES = {
    "CR0": "CR0xx: the crawl itself",
    "HL0": "HL0xx: hreflang values",
    "HL1": "HL1xx: one page",
    "HL2": "HL2xx: the cluster graph",
    "HL3": "HL3xx: canonical conflicts",
    "HL4": "HL4xx: alternates that cannot serve",
    "HL5": "HL5xx: language signals",
    "HL6": "HL6xx: sources",
    "HL7": "HL7xx: JavaScript rendering",
    "HL8": "HL8xx: pages that change by visitor",
    "SM0": "SM0xx: sitemaps and robots.txt",
}

CHECK_ID = re.compile(r"\b(?:HL|SM|CR)\d{3}\b")


class UnknownCheck(LookupError):
    """An id or name that no registered check has; its message is the one line the CLI prints."""


def anchor(check_id: str) -> str:
    return check_id.lower()


def page_url(check_id: str, docs_url: str = DOCS_URL) -> str:
    """The check's page on the docs site at ``docs_url`` (QIVRORA_DOCS_URL)."""
    return f"{docs_url.rstrip('/')}/checks/{anchor(check_id)}.html"


def docs_url(value: object) -> str:
    """QIVRORA_DOCS_URL, checked: an http(s) URL (a copy of the site on an intranet, a version's own
    site), or the published site where unset; ValueError otherwise, as the report links only http(s)."""
    url = str(value or "").strip() or DOCS_URL
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"QIVRORA_DOCS_URL: {url!r} is not an http(s) URL")
    return url


def ordered() -> list[Check]:
    return sorted(CHECKS.values(), key=lambda c: c.id)


def family_title(check: Check) -> str:
    return FAMILIES[check.id[:3]]


#: What a preview is, as the index of checks and the page of a preview check say it.
PREVIEW = (
    "A check is *preview* in the minor release that added it and *stable* from the next minor release "
    "on; the status is computed from the version the check came in (its *since*) and Qivrora's version. "
    "A preview check keeps its id, name and severity like any other, but it has met fewer sites: what it "
    "reports may still be refined in the next release."
)


def status(check: Check) -> str:
    """``preview`` in the minor release that added the check, ``stable`` from the next one on."""
    return "preview" if _minor(check.since) == _minor(__version__) else "stable"


def _minor(version: str) -> tuple[str, ...]:
    return tuple(version.split(".")[:2])


def related(check: Check) -> list[Check]:
    """Checks its texts name, and checks whose texts name it; else the rest of its family."""
    named = set(CHECK_ID.findall(" ".join((check.why, check.example, check.fix, check.precedence))))
    naming = {
        other.id
        for other in CHECKS.values()
        if check.id in CHECK_ID.findall(" ".join((other.why, other.fix, other.precedence)))
    }
    ids = (named | naming) & CHECKS.keys() - {check.id}
    if not ids:
        ids = {other.id for other in CHECKS.values() if other.id[:3] == check.id[:3]} - {check.id}
    return [CHECKS[i] for i in sorted(ids)]


def _language(snippet: str) -> str:
    """The Pygments lexer of an example: a command, robots.txt or HTTP text, sitemap XML, else HTML."""
    if snippet.startswith("$ "):
        return "console"
    if snippet.startswith(("HTTP/", "# ")) or "Sitemap:" in snippet:
        return "text"
    if "<urlset" in snippet or "<sitemapindex" in snippet:
        return "xml"
    return "html"


def _fenced(snippet: str) -> list[str]:
    return [f"```{_language(snippet)}", snippet, "```"]


def page(check: Check, *, links: bool = True) -> str:
    """The check's page in Markdown (MyST): the docs site builds it; `qivrora explain` prints it
    without links, which mean nothing in a terminal."""

    def name_of(other: Check) -> str:
        if links:
            return f"[{other.id}]({anchor(other.id)}.md) `{other.name}`"
        return f"{other.id} `{other.name}`"

    lines = [
        f"# {check.id} {check.name}",
        "",
        "| id | name | severity | status | since |",
        "|---|---|---|---|---|",
        f"| {check.id} | `{check.name}` | {check.severity} | {status(check)} | {check.since} |",
        "",
        f"Family: {family_title(check)}. The severity is the default; `QIVRORA_SEVERITY` changes it.",
        "",
    ]
    if status(check) == "preview":
        lines += [PREVIEW, ""]
    lines += [
        "## Why it matters",
        "",
        check.why,
        "",
        "## Example",
        "",
        check.example,
    ]
    if check.failing:
        lines += ["", *_fenced(check.failing)]
    lines += ["", "## Fix", "", check.fix]
    if check.fixed:
        lines += ["", *_fenced(check.fixed)]
    if check.precedence:
        lines += ["", "## Precedence", "", check.precedence]
    lines += ["", "## Related checks", ""]
    lines += [f"- {name_of(other)}" for other in related(check)]
    return "\n".join(lines) + "\n"


def explain(check_id: str) -> str:
    """The page of one check, by id (`HL201`, `hl201`) or name (`missing-return-link`)."""
    wanted = check_id.strip()
    for check in CHECKS.values():
        if wanted.upper() == check.id or wanted.lower() == check.name:
            return page(check, links=False)
    raise UnknownCheck(f"no check {wanted!r}: `qivrora checks` lists them")


def listing() -> str:
    """Every check, one line each: id, name, severity, status; columns aligned for a terminal."""
    rows = [("id", "name", "severity", "status")]
    rows += [(c.id, c.name, c.severity, status(c)) for c in ordered()]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths)) + "  " + row[3] + "\n"
        for row in rows
    )


def index() -> str:
    """The docs site's index of checks, by family; its toctree holds every check page."""
    minor = ".".join(_minor(__version__))
    lines = [
        "# Checks",
        "",
        "Every finding carries one of these ids. Each page says why it matters, shows failing markup and "
        "its fix, and how it stands with its neighbours.",
        "",
        f"**Status.** {PREVIEW} In Qivrora {minor}, the checks added in {minor}.x are previews.",
        "",
    ]
    families: dict[str, list[Check]] = {}
    for check in ordered():
        families.setdefault(family_title(check), []).append(check)
    for title, checks in families.items():
        lines += [f"## {title}", "", "| id | name | severity | status |", "|---|---|---|---|"]
        lines += [
            f"| [{c.id}]({anchor(c.id)}.md) | `{c.name}` | {c.severity} | {status(c)} |" for c in checks
        ]
        lines.append("")
    lines += ["```{toctree}", ":hidden:", "", *(anchor(c.id) for c in ordered()), "```"]
    return "\n".join(lines) + "\n"


def write_pages(folder: Path) -> list[Path]:
    """Write the index and one page per check into ``folder`` (the docs build calls it), and remove
    pages of checks no longer registered; a file is rewritten only when its text changes, so that
    Sphinx rebuilds only what changed."""
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {folder / "index.md": index()}
    wanted |= {folder / f"{anchor(c.id)}.md": page(c) for c in ordered()}
    for stale in set(folder.glob("*.md")) - wanted.keys():
        stale.unlink()
    for path, text in wanted.items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    return sorted(wanted)
