""""Fix first": the findings grouped by the one thing to change that removes them, most removed first.

A site's findings are rarely independent: one noindex page that many pages name raises an HL406 on
each of them, an SM012 in the sitemap and HL201s where it cannot link back; one template that omits
the self-reference raises an HL108 on every page built with it. The rules, applied in order to each
finding (pure; the findings alone decide):

1. A finding about a page's own canonical (``ABOUT_PAGE``: canonicalised to another page or language)
   belongs to that page, with whatever other findings it causes as a target.
2. A finding about a URL other pages name (``ABOUT_TARGET``: the target does not link back, redirects,
   is gone, blocked, noindex, canonicalised elsewhere) belongs to that URL: fixing the URL (or every
   annotation and sitemap entry naming it) removes them all.
3. A finding a page raises about itself with no target (``PER_PAGE``: no self-reference, no
   x-default, the wrong ``lang``, annotations outside ``<head>``) belongs to its check: the same
   omission on many pages is one template.
4. A sitemap finding belongs to its sitemap file and check, but a page missing from every sitemap
   (SM002) to its check: the generator leaves those pages out.
5. Anything else belongs to its check, and its action is the check's fix.

A URL of rule 1 or 2 that causes fewer than ``OWN_CAUSE`` findings, all in one cluster, is folded with
the other such URLs of its kind (kept out of the index, redirecting, not answering 200, not linking back): many URLs with the
same small problem are one setting (a trailing slash, a noindex in a layout, a sitemap generator), and
one URL that breaks many pages or several clusters stays a cause of its own. A URL only sitemaps name
goes back to its sitemap (rule 4): one generator lists all of them.

Each cause says what to add as well as what to drop, and counts the findings it removes, the pages
and the clusters it touches; causes are ordered by findings removed, then by key, so a report is
stable from run to run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from ..audit import CHECKS
from ..findings import Finding

#: Checks whose finding is caused by the page it sits on: its canonical names another page.
ABOUT_PAGE = frozenset({"HL302", "HL303"})
#: Checks whose finding is caused by its target URL.
ABOUT_TARGET = frozenset(
    {"HL201", "HL202", "HL301", "HL401", "HL402", "HL403", "HL404", "HL405", "HL406", "HL407",
     "SM001", "SM012"}
)
#: Checks a page raises about itself: one template usually raises them on every page it builds.
PER_PAGE = frozenset({"HL105", "HL108", "HL110", "HL109", "HL501", "HL502", "HL503", "HL006", "HL102", "HL101", "SM002"})
#: Checks on a URL's own state that keep it out of the index: the URL itself is to change.
UNINDEXABLE = frozenset({"HL301", "HL303", "HL405", "HL406", "SM012"})
#: Findings from which one URL is a cause of its own, not one of many of its kind.
OWN_CAUSE = 5
#: What a URL cause is about, by the checks among its findings, first match.
KINDS = (
    ("unindexable", UNINDEXABLE | ABOUT_PAGE),
    ("redirects", frozenset({"HL401"})),
    ("not-ok", frozenset({"HL402", "HL403", "HL404", "HL407", "SM001"})),
    ("no-return", frozenset({"HL201", "HL202"})),
)
#: Causes shown in the report.
MAX_CAUSES = 10
#: URLs named per cause.
MAX_EXAMPLES = 5


@dataclass(frozen=True, slots=True)
class Cause:
    key: tuple[str, ...]
    title: str
    action: str
    findings: int
    pages: tuple[str, ...]  # the pages the findings sit on, sorted
    clusters: int
    checks: tuple[tuple[str, int], ...]  # check id and its findings, most first

    @property
    def examples(self) -> tuple[str, ...]:
        return self.pages[:MAX_EXAMPLES]


def _key(finding: Finding) -> tuple[str, ...]:
    if finding.check in ABOUT_PAGE:
        return ("url", finding.url)
    if finding.check in ABOUT_TARGET and finding.target:
        return ("url", finding.target)
    if finding.check in PER_PAGE:
        return ("template", finding.check)
    if finding.check.startswith("SM"):
        return ("sitemap", finding.url, finding.check)
    return ("check", finding.check)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'s' if count != 1 else ''}"


def _kind(checks: Counter[str]) -> str:
    return next((kind for kind, members in KINDS if checks.keys() & members), "no-return")


def _words(key: tuple[str, ...], checks: Counter[str], found: list[Finding]) -> tuple[str, str]:
    """The cause's title and its action: what to change, what to add, what to drop."""
    pages = sorted({f.url for f in found if f.url != key[-1]})
    names = found[0].name if len(checks) == 1 else ", ".join(sorted(checks))
    naming = f"{_plural(len(pages), 'page')} or sitemaps name it" if pages else "nothing else names it"
    if key[0] == "kind":
        many = _plural(len({f.url if f.check in ABOUT_PAGE else f.target for f in found}), "URL")
        return {
            "unindexable": (f"{many} kept out of the index (noindex, canonicalised elsewhere or blocked), yet "
                            "annotated or listed",
                            "Make them indexable and their own canonicals (often one layout or setting), or name the "
                            "URLs they canonicalise to in the annotations and sitemaps instead."),
            "redirects": (f"{many} redirecting, yet annotated or listed",
                          "Name the URLs they redirect to in the annotations and sitemaps (often one setting: a "
                          "trailing slash, http or www), and drop the redirecting ones."),
            "not-ok": (f"{many} not answering 200, yet annotated or listed",
                       "Restore them, or drop them from the annotations and sitemaps that name them."),
            "no-return": (f"{many} not linking back to the pages naming them",
                          "Add to each of them an annotation for every page of its cluster, itself included."),
        }[key[1]]
    if key[0] == "url":
        url = key[1]
        kind = _kind(checks)
        if kind == "unindexable":
            return (
                f"{url} is kept out of the index (noindex, canonicalised elsewhere or blocked); {naming}",
                f"Make {url} indexable and its own canonical, or drop it from the annotations and sitemaps "
                "that name it and add the page it canonicalises to in its place.",
            )
        if kind == "redirects":
            return (f"{url} redirects; {naming}",
                    f"Name the URL {url} redirects to in their annotations instead, and drop {url}.")
        if kind == "not-ok":
            return (f"{url} does not answer 200; {naming}",
                    f"Restore {url}, or drop it from the annotations and sitemaps that name it.")
        return (
            f"{url} does not link back to {_plural(len(pages), 'page')} naming it",
            f"Add to {url} an annotation for each of them ({', '.join(pages[:3])}"
            f"{', ...' if len(pages) > 3 else ''}), and a self-reference.",
        )
    if key[0] == "template":
        example = pages[0] if pages else ""
        action = {
            "HL108": f"Add a self-reference to the template: on {example}, an annotation naming {example}.",
            "HL109": f"Add an x-default annotation to the template, e.g. on {example}.",
            "HL105": "Move the annotations up in the template's <head>, before any element that ends it.",
            "HL501": "Set <html lang> in the template to the page's hreflang value.",
            "HL502": "Add <html lang> to the template, with the page's hreflang value.",
            "HL503": "Translate the main text, or annotate the page with the language it is in.",
            "SM002": "Add these pages to the sitemap, with their alternates.",
        }.get(key[1], CHECKS[key[1]].fix)
        if len(pages) == 1:
            return f"{example}: {names}", action
        return f"{_plural(len(pages), 'page')}: {names}, likely one template", action
    if key[0] == "sitemap":
        listed = {f.target for f in found if f.target}
        if listed:
            return f"{key[1]} lists {_plural(len(listed), 'URL')}: {names}", CHECKS[key[2]].fix
        return f"{key[1]}: {names}", CHECKS[key[2]].fix
    return f"{_plural(len(found), 'finding')}: {names}", CHECKS[key[1]].fix


def rank_causes(findings: Iterable[Finding]) -> list[Cause]:
    """Every cause of the findings, the one that removes most first."""
    groups: dict[tuple[str, ...], list[Finding]] = {}
    for finding in findings:
        groups.setdefault(_key(finding), []).append(finding)
    small = [
        key for key, found in groups.items()
        if key[0] == "url" and len(found) < OWN_CAUSE and len({f.cluster for f in found if f.cluster}) <= 1
    ]
    for key in small:
        found = groups.pop(key)
        if all(f.check.startswith("SM") for f in found):
            for finding in found:
                groups.setdefault(("sitemap", finding.url, finding.check), []).append(finding)
        else:
            groups.setdefault(("kind", _kind(Counter(f.check for f in found))), []).extend(found)
    causes = []
    for key, found in groups.items():
        checks = Counter(f.check for f in found)
        title, action = _words(key, checks, found)
        causes.append(
            Cause(
                key=key,
                title=title,
                action=action,
                findings=len(found),
                pages=tuple(sorted({f.url for f in found})),
                clusters=len({f.cluster for f in found if f.cluster}),
                checks=tuple(sorted(checks.items(), key=lambda item: (-item[1], item[0]))),
            )
        )
    return sorted(causes, key=lambda cause: (-cause.findings, cause.key))
