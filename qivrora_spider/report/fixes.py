"""The hreflang annotations each cluster should publish, derived from the crawl (``QIVRORA_FIXES``).

A fix reads what the site meant, not only what search engines accept: every annotation whose target
URL is known counts, wherever it sits (outside ``<head>``, relative href) and whatever its value, as
corrected by ``check_hreflang`` (`en-UK` meant `en-GB`). Clusters are the weakly connected
components of that intended graph, named with the audit's ``cluster_id``: the same id as the
audit's cluster, unless an ignored annotation joins two of them.

Members are the URLs that answer 200 and are self-canonical and indexable: an annotated URL that
redirects, or names another URL as its canonical, is replaced by the URL it leads to when that one
qualifies (an `x-default` entry page that redirects each visitor to a version stays: HL408); others
are dropped, with the reason. Each member's language is the value most pages of
the cluster give it (one vote per page and value), ties going to its own self-reference; two members
never share a value (the one with more votes keeps it, the other takes its next value or is dropped).
The x-default is the URL most pages name so, and only where the site names one. A page HL207 finds
(a translation no annotation names) joins the cluster of the member it translates, with the value its
locale segment goes with.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

from ..audit import AuditContext
from ..audit.checks.coverage import unclustered_pages
from ..audit.checks.language import content_mismatches, language_name
from ..audit.core.context import MAX_CHAIN, cluster_id
from ..audit.core.site_index import HreflangGraph
from ..audit.core.statuses import redirects_by_visitor
from ..audit.core.wording import answers
from ..extract.hreflang_values import canonical_hreflang, check_hreflang
from .files import write_atomically
from .jinja import ENV

X_DEFAULT = "x-default"


@dataclass(frozen=True, slots=True)
class Member:
    url: str
    hreflang: str


@dataclass(frozen=True, slots=True)
class Dropped:
    url: str
    reason: str


@dataclass(frozen=True, slots=True)
class Replaced:
    url: str  # as annotated
    by: str  # what to annotate instead
    reason: str


@dataclass(frozen=True, slots=True)
class Conflict:
    """Pages disagree, and the fix had to choose."""

    kind: str  # "language": one URL, several values; "collision": one value, several URLs; "x-default"
    subject: str  # the URL, or the value
    votes: tuple[tuple[str, int], ...]  # each choice and how many pages made it, most first
    chosen: str  # "" when nothing could be chosen

    @property
    def message(self) -> str:
        said = ", ".join(f"{choice} ({count} page{'s' * (count != 1)})" for choice, count in self.votes)
        if self.kind == "language":
            outcome = f"`{self.chosen}` chosen" if self.chosen else "every value is taken by another member"
            return f"{self.subject} is given different values: {said}; {outcome}."
        named = "x-default names" if self.kind == X_DEFAULT else f"`{self.subject}` is claimed by"
        return f"{named} {said}; {self.chosen} kept."


@dataclass(frozen=True, slots=True)
class ClusterFix:
    cluster: str
    members: tuple[Member, ...]  # sorted by value (x-default last), then URL
    dropped: tuple[Dropped, ...]
    replaced: tuple[Replaced, ...]
    conflicts: tuple[Conflict, ...]
    html: str  # the <link> elements every member page puts in its <head>
    sitemap_xml: str  # the <url> elements for a urlset that declares xmlns:xhtml
    annotated: tuple[str, ...]  # every URL the site's annotations name in this cluster

    def to_json(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "members": [{"url": m.url, "hreflang": m.hreflang} for m in self.members],
            "html": self.html,
            "sitemap_xml": self.sitemap_xml,
            "dropped": [{"url": d.url, "reason": d.reason} for d in self.dropped],
            "replaced": [{"url": r.url, "by": r.by, "reason": r.reason} for r in self.replaced],
            "conflicts": [
                {"kind": c.kind, "subject": c.subject, "votes": dict(c.votes), "chosen": c.chosen}
                for c in self.conflicts
            ],
        }


def meant(value: str) -> str | None:
    """The value the site meant: itself when valid and canonical, else the suggestion, if any."""
    problem = check_hreflang(value)
    if problem is None:
        return value
    return canonical_hreflang(problem.suggestion) if problem.suggestion else None


def intent(context: AuditContext) -> HreflangGraph:
    """(page -> target): the values as the site meant them; None where no correction is known (`xx`)."""
    graph = HreflangGraph()
    for url, listed in context.annotations.items():
        for annotation in listed:
            if annotation.url is not None:
                graph.add_edge(url, annotation.url, meant(annotation.hreflang))
    return graph


def cluster_fixes(context: AuditContext) -> list[ClusterFix]:
    """One fix per cluster of the intended graph, sorted by cluster id."""
    declared = intent(context)
    groups = declared.weakly_connected_components()
    joining = _translations_to_join(context)
    return sorted(
        (_fix(context, declared, sorted(group), joining) for group in groups), key=lambda fix: fix.cluster
    )


def _translations_to_join(context: AuditContext) -> dict[str, list[Member]]:
    """HL207's pages, by the cluster member they translate: each joins that member's cluster."""
    joining: dict[str, list[Member]] = defaultdict(list)
    for url, translation in unclustered_pages(context).items():
        if translation is not None:
            value, member, _ = translation
            joining[member].append(Member(url, value))
    return joining


def write_fixes_jsonl(path: str | os.PathLike[str], fixes: Iterable[ClusterFix]) -> None:
    write_atomically(path, "".join(json.dumps(fix.to_json()) + "\n" for fix in fixes))


def _fix(
    context: AuditContext, declared: HreflangGraph, urls: list[str], joining: dict[str, list[Member]]
) -> ClusterFix:
    resolved: dict[str, str | None] = {}
    dropped: dict[str, str] = {}
    replaced: list[Replaced] = []
    for url in urls:
        final, story = _resolve(context, url)
        if final != url and _adaptive_x_default(context, declared, urls, url):
            final, story = url, ""  # HL408: the entry page that chooses a version stays the x-default
        resolved[url] = final
        if final is None:
            dropped[url] = story
        elif final != url:
            replaced.append(Replaced(url, final, story))

    # One vote per page, value and final URL, whichever spellings of the URL the page used.
    ballots: set[tuple[str, str, str]] = set()
    unusable: dict[str, set[str]] = defaultdict(set)
    for page in urls:
        for target, values in declared.declared(page).items():
            final = resolved[target]
            if final is None:
                continue
            ballots.update((page, final, value) for value in values if value is not None)
            if None in values:
                unusable[final].update(
                    a.hreflang
                    for a in context.annotations[page]
                    if a.url == target and meant(a.hreflang) is None
                )
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    own: dict[str, set[str]] = defaultdict(set)
    for page, final, value in ballots:
        votes[final][value] += 1
        if resolved[page] == final:
            own[final].add(value)

    languages, conflicts = _languages(votes, own)
    members = [Member(url, value) for url, value in languages.items()]
    taken = set(languages.values())
    for url in urls:
        for translation in joining.get(url, ()):
            if translation.hreflang not in taken:  # HL207: the translation the cluster does not name
                members.append(translation)
                taken.add(translation.hreflang)
    x_votes = _ranked((url, counted[X_DEFAULT]) for url, counted in votes.items() if counted[X_DEFAULT])
    x_default = x_votes[0][0] if x_votes else None
    if x_default is not None:
        members.append(Member(x_default, X_DEFAULT))
        if len(x_votes) > 1:
            conflicts.append(Conflict(X_DEFAULT, X_DEFAULT, x_votes, x_default))
    listed = {member.url for member in members}
    for final in sorted({url for url in resolved.values() if url is not None} - listed):
        dropped[final] = _why_no_language(votes[final], unusable[final], languages, x_default)

    members.sort(key=lambda m: (m.hreflang == X_DEFAULT, m.hreflang, m.url))
    pages = sorted({member.url for member in members})
    return ClusterFix(
        cluster=cluster_id(set(urls)),
        members=tuple(members),
        dropped=tuple(Dropped(url, reason) for url, reason in sorted(dropped.items())),
        replaced=tuple(replaced),
        conflicts=tuple(conflicts),
        html=ENV.get_template("fix_links.html.j2").render(members=members),
        sitemap_xml=ENV.get_template("fix_sitemap.xml.j2").render(pages=pages, members=members),
        annotated=tuple(urls),
    )


def _adaptive_x_default(context: AuditContext, declared: HreflangGraph, urls: list[str], url: str) -> bool:
    """Is `url` named only as `x-default` and an entry page that redirects each visitor to a version?"""
    given = {value for page in urls for value in declared.declared(page).get(url, ())}
    return given == {X_DEFAULT} and redirects_by_visitor(context, url)


def _languages(
    votes: dict[str, Counter[str]], own: dict[str, set[str]]
) -> tuple[dict[str, str], list[Conflict]]:
    """Each URL's value: the most votes first, its own self-reference breaking ties; no value twice."""
    candidates = sorted(
        (
            (-count, value not in own[url], value, url)
            for url, counted in votes.items()
            for value, count in counted.items()
            if value != X_DEFAULT
        )
    )
    chosen: dict[str, str] = {}
    owner: dict[str, str] = {}
    first_choice: dict[str, str] = {}
    for _, _, value, url in candidates:
        first_choice.setdefault(url, value)
        if url not in chosen and value not in owner:
            chosen[url] = value
            owner[value] = url
    conflicts = []
    for url in sorted(first_choice):
        ranked = _ranked((value, count) for value, count in votes[url].items() if value != X_DEFAULT)
        if len(ranked) > 1:
            conflicts.append(Conflict("language", url, ranked, chosen.get(url, "")))
    for value in sorted(set(first_choice.values())):
        claimants = {url for url, first in first_choice.items() if first == value} | {owner[value]}
        if len(claimants) > 1:
            ranked = _ranked((url, votes[url][value]) for url in claimants)
            conflicts.append(Conflict("collision", value, ranked, owner[value]))
    return dict(sorted(chosen.items())), conflicts


def _ranked(votes: Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """Most votes first, then in name order: ties are settled the same way every time."""
    return tuple(sorted(votes, key=lambda vote: (-vote[1], vote[0])))


def _why_no_language(
    counted: Counter[str], unusable: set[str], languages: dict[str, str], x_default: str | None
) -> str:
    claimed = sorted(value for value in counted if value != X_DEFAULT)
    if claimed:
        taken = ", ".join(f"`{value}` by {url}" for url, value in languages.items() if value in claimed)
        return f"every value pages give it is taken by a member with more votes: {taken}"
    if counted[X_DEFAULT]:
        return f"more pages name {x_default} as x-default"
    if unusable:
        values = ", ".join(f"`{value}`" for value in sorted(unusable))
        return f"no page gives it a valid hreflang value ({values} cannot be corrected)"
    return "no page gives it a language, not even itself"


def _resolve(context: AuditContext, url: str) -> tuple[str | None, str]:
    """The URL to annotate for `url` and how it was reached, or None and why no URL can be."""
    current, story, seen = url, [], {url}
    while True:
        record = context.fetched(current)
        if record is not None and record.location and 300 <= (record.status or 0) < 400:
            story.append(f"redirects to {record.location}")
            current = record.location
        elif (canonical := context.canonical_elsewhere(current)) is not None:
            story.append(f"names {canonical} as its canonical")
            current = canonical
        else:
            problem = _unusable(context, current)
            if problem:
                return None, ", which ".join([*story, problem])
            return current, ", which ".join(story)
        if current in seen or len(story) > MAX_CHAIN:
            return None, ", which ".join([*story, "leads back in a loop"])
        seen.add(current)


def _unusable(context: AuditContext, url: str) -> str | None:
    """Why `url` cannot be a member as it stands, or None when it answers 200 and may be indexed."""
    record = context.fetched(url)
    if record is None:
        return "was not examined by the crawl"
    if record.status is None:
        if record.error:
            return f"could not be fetched ({record.error})"
        if getattr(record, "not_examined", None) == "robots":
            return "is disallowed by robots.txt"
        return f"was not examined ({getattr(record, 'not_examined', None) or 'no answer'})"
    if record.status != 200:
        return answers(record.status) + (" without a Location" if 300 <= record.status < 400 else "")
    page = context.page(url)
    if page is not None and page.noindex:
        return "is noindex"
    mismatch = content_mismatches(context).get(url)
    if mismatch is not None:  # HL503: publish it in the cluster once it is translated
        read = language_name(mismatch.read)
        return f"is not translated yet: its main text reads as {read}, not `{mismatch.declared}`"
    return None
