"""report.html: one self-contained page a site owner can open, trust and act on (``QIVRORA_REPORT``).

Pure: ``render_report(context, findings)`` reads the audit's context and findings and returns the
page; the same input gives the same bytes (the only date is the crawl's start, from the facts).
This module shapes the data; the template, with autoescaping, writes every character of markup.
Large sites stay light: matrices and pictures for the first clusters by error count, findings capped
per check, and the page says what it left out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial
from itertools import islice
from typing import Sequence

from .. import DOCS_URL
from ..audit import CHECKS, AuditContext, Check
from ..audit.checks.language import content_mismatches, text_reading
from ..audit.core.segments import locale_segments, segment_coverage
from ..audit.core.url_segments import Segment, count_by_segment
from ..catalogue import page_url
from ..extract.text_language import MIN_LETTERS
from ..findings import SEVERITY_RANK, Finding
from .causes import MAX_CAUSES, rank_causes
from .fixes import ClusterFix, cluster_fixes
from .jinja import ENV
from .status import KINDS, UrlStatus, url_status
from .svg import MAX_NODES, Picture, cluster_picture, short_url, spans_hosts

TITLE = "Qivrora hreflang report"
#: Clusters shown in detail (matrix, picture, fix), those with most errors first.
MAX_CLUSTERS = 25
#: Largest matrix drawn: a bigger one is unreadable on a screen and heavy in the page.
MAX_MATRIX_PAGES = 60
MAX_MATRIX_LANGUAGES = 30
#: Findings listed per check; the feeds (findings.csv) have them all.
MAX_ROWS = 500


@dataclass(frozen=True, slots=True)
class Target:
    """One URL a page names for one language."""

    url: str
    label: str  # "" when it is the column's usual URL
    returned: str  # "self", "yes", "no" (examined, no link back) or "unknown" (not examined)
    status: UrlStatus
    rendered: bool = False  # named only after rendering (-a render=1): a script writes it (HL701)


@dataclass(frozen=True, slots=True)
class Cell:
    targets: tuple[Target, ...]
    missing: bool  # the page lists alternates, but none for this language


@dataclass(frozen=True, slots=True)
class Row:
    url: str
    label: str
    status: UrlStatus
    own: str  # the values the page gives itself
    cells: tuple[Cell, ...]
    text: str  # what its main text reads as (HL503), "" where there is none to read
    text_mismatch: bool  # ... and that is not the language the page declares


@dataclass(frozen=True, slots=True)
class Column:
    language: str
    url: str  # the URL most pages name for it
    label: str


@dataclass(frozen=True, slots=True)
class Matrix:
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class LanguageLine:
    """One hreflang value of a cluster too large for a matrix: how its pages stand."""

    language: str
    pages: int  # pages that call themselves by this value
    missing: int  # pages that list alternates but none for this value
    not_returned: int  # annotations naming a page of this value that it does not return


@dataclass(frozen=True, slots=True)
class ClusterView:
    id: str
    name: str  # the first page's URL: what the site owner recognises; the id stays as a label
    checks: tuple[tuple[str, str, int], ...]  # the checks that fired on it: id, name, findings
    members: tuple[str, ...]
    counts: dict[str, int]  # severity -> findings
    languages: tuple[str, ...]
    matrix: Matrix | None  # None: too large, `members` and `languages` say how large
    by_language: tuple[LanguageLine, ...]  # where there is no matrix
    picture: Picture | None  # drawn for clusters of several pages with errors
    fix: ClusterFix | None  # None: the fix joins this cluster to `fix_in`
    fix_in: str


@dataclass(frozen=True, slots=True)
class CheckSection:
    check: Check
    severity: str  # as configured for this run
    count: int
    rows: tuple[Finding, ...]


def render_report(
    context: AuditContext,
    findings: list[Finding],
    fixes: list[ClusterFix] | None = None,
    *,
    audited: bool = True,
    notes: Sequence[str] = (),
    segments: Sequence[Segment] = (),
    docs_url: str = DOCS_URL,
) -> str:
    """The whole page; pass `fixes` when they are already computed (``QIVRORA_FIXES``).

    ``audited`` False: no audit happened (no usable start), and the header says so before anything;
    ``notes``: why the run is not whole (interrupted, an outage, findings unknown), in the header;
    ``segments``: the parts of the site counted apart in the summary.
    ``docs_url``: the docs site each check links its page under (QIVRORA_DOCS_URL).
    """
    fixes = cluster_fixes(context) if fixes is None else fixes
    counts = Counter((f.cluster, f.severity) for f in findings if f.cluster)
    causes = rank_causes(findings)
    fired: dict[str, Counter[str]] = {}
    for finding in findings:
        if finding.cluster:
            fired.setdefault(finding.cluster, Counter())[finding.check] += 1
    ranked = sorted(context.clusters, key=lambda cid: (-counts[cid, "error"], cid))
    fix_by_id = {fix.cluster: fix for fix in fixes}
    fix_of_url = {url: fix.cluster for fix in fixes for url in fix.annotated}
    unclustered = [fix for fix in fixes if fix.cluster not in context.clusters]
    crawls = context.store.crawls
    return ENV.get_template("report.html.j2").render(
        title=TITLE,
        causes=causes[:MAX_CAUSES],
        cause_count=len(causes),
        audited=audited,
        check_page=partial(page_url, docs_url=docs_url),
        notes=[note for note in notes if note],
        started=min((crawl.started for crawl in crawls), default=""),
        start_urls=sorted({url for crawl in crawls for url in crawl.start_urls}),
        limits=context.store.limits_reached,
        fetched=len(context.pages),
        severities={severity: sum(f.severity == severity for f in findings) for severity in SEVERITY_RANK},
        total=len(findings),
        segments=[
            (name, next((s.pattern for s in segments if s.name == name), ""), severities)
            for name, severities in count_by_segment(findings, tuple(segments)).items()
        ] if segments else [],
        checks=_check_sections(findings),
        clusters=[
            _cluster(context, cid, {s: counts[cid, s] for s in SEVERITY_RANK}, fired.get(cid, Counter()), fix_by_id, fix_of_url)
            for cid in islice(ranked, MAX_CLUSTERS)
        ],
        cluster_count=len(ranked),
        clusters_with_errors=sum(1 for cid in ranked if counts[cid, "error"]),
        text_counts=_text_counts(context),
        # Only where segments were learned: a table of one "in no segment" row says nothing.
        coverage=segment_coverage(context) if locale_segments(context) else [],
        unclustered=unclustered[:MAX_CLUSTERS],
        unclustered_count=len(unclustered),
        kinds=KINDS,
        rendered_marks=any(page.rendered for page in context.store.pages.values()),
        max_rows=MAX_ROWS,
        max_nodes=MAX_NODES,
        max_pages=MAX_MATRIX_PAGES,
        max_languages=MAX_MATRIX_LANGUAGES,
    )


def _check_sections(findings: list[Finding]) -> list[CheckSection]:
    """One section per check with findings, in the findings' order (severity, then check)."""
    by_check: dict[str, list[Finding]] = {}
    for finding in findings:
        by_check.setdefault(finding.check, []).append(finding)
    return [
        CheckSection(CHECKS[check_id], found[0].severity, len(found), tuple(found[:MAX_ROWS]))
        for check_id, found in by_check.items()
    ]


def _cluster(
    context: AuditContext,
    cid: str,
    counts: dict[str, int],
    fired: Counter[str],
    fix_by_id: dict[str, ClusterFix],
    fix_of_url: dict[str, str],
) -> ClusterView:
    members = context.clusters[cid]
    graph = context.graph
    languages = sorted(
        {language for url in members for values in graph.declared(url).values() for language in values},
        key=lambda language: (language == "x-default", language),
    )
    fits = len(members) <= MAX_MATRIX_PAGES and len(languages) <= MAX_MATRIX_LANGUAGES
    fix = fix_by_id.get(cid)
    return ClusterView(
        id=cid,
        name=members[0],
        checks=tuple((check, CHECKS[check].name, fired[check]) for check in sorted(fired, key=lambda c: (-fired[c], c))),
        members=tuple(members),
        counts=counts,
        languages=tuple(languages),
        matrix=_matrix(context, members, languages) if fits else None,
        by_language=() if fits else _by_language(context, members, languages),
        picture=cluster_picture(context, members) if counts["error"] and len(members) > 1 else None,
        fix=fix,
        fix_in="" if fix is not None else fix_of_url[members[0]],
    )


def _matrix(context: AuditContext, members: list[str], languages: list[str]) -> Matrix:
    """Rows: the cluster's pages; columns: its languages; a cell: what the page names, returned or not."""
    graph = context.graph
    with_host = spans_hosts(members)
    named = {
        url: {
            language: sorted(target for target, values in graph.declared(url).items() if language in values)
            for language in languages
        }
        for url in members
    }
    columns = []
    for language in languages:
        usual = Counter(target for url in members for target in named[url][language])
        main = min(usual, key=lambda target: (-usual[target], target))
        columns.append(Column(language, main, short_url(main, with_host=with_host)))
    rows = []
    for url in members:
        lists = graph.out_degree(url) > 0
        cells = tuple(
            Cell(
                tuple(
                    Target(
                        target,
                        "" if target == column.url else short_url(target, with_host=with_host),
                        _returned(context, url, target),
                        url_status(context, target),
                        _only_rendered(context, url, target),
                    )
                    for target in named[url][column.language]
                ),
                lists and not named[url][column.language],
            )
            for column in columns
        )
        own = " ".join(sorted(graph.declared(url).get(url, ())))
        rows.append(
            Row(
                url, short_url(url, with_host=with_host), url_status(context, url), own, cells,
                *_text_language(context, url),
            )
        )
    # Grouped by language: the pages that call themselves `de` together, in the columns' order.
    order = {column.language: index for index, column in enumerate(columns)}
    rows.sort(key=lambda row: (min((order.get(v, len(order)) for v in row.own.split()), default=len(order)), row.url))
    return Matrix(tuple(columns), tuple(rows))


def _by_language(context: AuditContext, members: list[str], languages: list[str]) -> tuple[LanguageLine, ...]:
    """A large cluster by hreflang value: how many pages have it, miss it, or are not named back."""
    graph = context.graph
    declared = {url: graph.declared(url) for url in members}
    lines = []
    for language in languages:
        own = [url for url in members if language in declared[url].get(url, ())]
        missing = sum(
            1 for url in members
            if graph.out_degree(url) > 0 and not any(language in values for values in declared[url].values())
        )
        not_returned = sum(
            1 for url in members for target, values in declared[url].items()
            if language in values and target != url and _returned(context, url, target) == "no"
        )
        lines.append(LanguageLine(language, len(own), missing, not_returned))
    return tuple(lines)


def _only_rendered(context: AuditContext, url: str, target: str) -> bool:
    """Whether `url` names `target` only in its rendered HTML: the served page does not."""
    sources = {a.source for a in context.usable_annotations(url) if a.url == target}
    return sources == {"rendered"}


def _text_language(context: AuditContext, url: str) -> tuple[str, bool]:
    """What the page's main text reads as, for the matrix, and whether HL503 found it wrong."""
    page = context.page(url)
    if page is None or page.status != 200 or not page.is_html:
        return "", False
    reading = text_reading(context, url)
    letters = reading.letters if reading is not None else 0
    if reading is None or letters < MIN_LETTERS:
        return f"text too short to judge ({letters} letters)", False
    if reading.majority() is None:
        return f"text's language unclear: {reading.described()}", False
    return f"text reads {reading.described()}", url in content_mismatches(context)


def _text_counts(context: AuditContext) -> tuple[int, int]:
    """Pages whose main text was read with confidence, and pages with too little text to judge."""
    judged = short = 0
    for url, page in context.pages.items():
        if page.status == 200 and page.is_html:
            reading = text_reading(context, url)
            if reading is None or reading.letters < MIN_LETTERS:
                short += 1
            elif reading.majority() is not None:
                judged += 1
    return judged, short


def _returned(context: AuditContext, url: str, target: str) -> str:
    if target == url:
        return "self"
    if context.graph.has_edge(target, url):
        return "yes"
    return "no" if context.examined(target) else "unknown"
