"""Feed exporters: the findings table for csv/jsonl/json, a JUnit report for xml/junit, the facts for
the `facts` format.

A crawl's items are facts and findings; users asking for ``-O findings.csv`` want the table of
CHECKS.md and nothing else, in its column order. Facts go out only when asked for by format.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable, Iterable

from lxml import etree
from scrapy.exporters import BaseItemExporter, CsvItemExporter, JsonItemExporter, JsonLinesItemExporter

from ..audit import CHECKS, resolve_settings
from ..fact_lines import fact_to_dict
from ..facts import FACT_TYPES
from ..audit.core.url_segments import Segment, parse_segments, segment_of
from ..catalogue import docs_url, page_url
from ..findings import FINDING_FIELDS, Finding, at_or_above, fail_on_level, fail_on_segment
from ..outcome import RunOutcome

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

#: A spreadsheet evaluates a cell that starts with one of these as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: str) -> str:
    """Make a crawled value inert in a spreadsheet (OWASP CSV injection): prefix a quote."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


class _FindingsOnly:
    def __init__(self, file: Any, **kwargs: Any) -> None:
        # Scrapy passes FEED_EXPORT_FIELDS, None by default: the columns are then CHECKS.md's.
        kwargs["fields_to_export"] = kwargs.get("fields_to_export") or list(FINDING_FIELDS)
        super().__init__(file, **kwargs)  # type: ignore[call-arg]

    def export_item(self, item: Any) -> Any:
        if isinstance(item, Finding):
            return super().export_item(item)  # type: ignore[misc]
        return None


def exports_facts(exporter: type) -> bool:
    """Whether a feed exporter writes facts: every one but the findings table's and the JUnit report's."""
    return not issubclass(exporter, (_FindingsOnly, JUnitExporter))


def exported_items(exporter: type) -> tuple[type, ...]:
    """The item classes a feed of this exporter writes (its ``item_classes``), so that the feed gets
    and counts those alone ("Stored csv feed (12 items)"); () for an exporter of another project."""
    if issubclass(exporter, (_FindingsOnly, JUnitExporter)):
        return (Finding,)
    if issubclass(exporter, FactsExporter):
        return FACT_TYPES
    return ()


class FindingsCsvExporter(_FindingsOnly, CsvItemExporter):
    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        value = super().serialize_field(field, name, value)
        return neutralise(value) if isinstance(value, str) else value

    def export_item(self, item: Any) -> Any:
        """A finding's row, built as Scrapy's would be (each field a string, neutralised, none with a
        serializer of its own) but directly: Scrapy's adapter and three calls a field were half the
        time a finding took to reach the feeds at the end of a crawl."""
        columns = self.fields_to_export
        if self._headers_not_written or type(item) is not Finding or not isinstance(columns, list):
            return super().export_item(item)
        try:
            values = [getattr(item, name) for name in columns]
        except AttributeError:  # a column of FEED_EXPORT_FIELDS that is no field of a finding
            return super().export_item(item)
        if not all(type(value) is str for value in values):
            return super().export_item(item)
        self.csv_writer.writerow([neutralise(value) for value in values])
        return None

    def finish_exporting(self) -> None:
        # The columns are the contract: a table with no findings still has them.
        if self._headers_not_written:
            self._headers_not_written = False
            self._write_headers_and_set_fields_to_export(None)
        super().finish_exporting()


class FindingsJsonLinesExporter(_FindingsOnly, JsonLinesItemExporter):
    pass


class FindingsJsonExporter(_FindingsOnly, JsonItemExporter):
    pass


#: What fails a JUnit test case when QIVRORA_FAIL_ON is unset: errors and warnings; notices pass.
JUNIT_FAIL_ON = "warning"
#: Characters XML 1.0 cannot carry, which crawled values (a hostile page's) may hold.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(value: str) -> str:
    """The value with each character XML cannot carry written as an escape (``\\x01``), not dropped."""
    return _NOT_XML.sub(lambda m: repr(m.group())[1:-1], value)


def _line(finding: Finding) -> str:
    """One finding in a test case: severity, where, and the message."""
    where = " -> ".join(part for part in (finding.url, finding.target) if part)
    hreflang = f"hreflang {finding.hreflang}" if finding.hreflang else ""
    detail = ", ".join(part for part in (hreflang, finding.source) if part)
    return _xml_text(f"{finding.severity}: {where}{f' ({detail})' if detail else ''}: {finding.message}")


class JUnitExporter(BaseItemExporter):
    """The findings as a JUnit XML report, which GitLab, Jenkins and GitHub's test-report actions show.

    One ``<testsuite>`` per check, one ``<testcase>`` per check and cluster (per URL where a finding has
    no cluster), so a CI lists what to fix where. A case fails when its check's severity is at or above
    QIVRORA_FAIL_ON (unset: warning), with the findings and the check's fix; below it, it passes with
    them in ``<system-out>``. A check without findings is one passing case, a disabled check one
    skipped case. Where no audit ran (no usable start, a crawl stopped before it), the report is one
    erring case: a result that is unknown is not a pass. Where the run is partial (interrupted, an
    outage), an erring case says so beside the checks. With segments (``QIVRORA_SEGMENTS``, or those
    learned), a case is per check, segment and cluster, its class named ``SEGMENT.CHECK``, so that a CI
    shows each market apart; QIVRORA_FAIL_ON=de:error fails the cases of that segment only. Written
    whole at the end, as it counts its cases first.
    """

    def __init__(
        self,
        file: IO[bytes],
        *,
        settings: Any = None,
        outcome: Callable[[], RunOutcome] = lambda: RunOutcome(),
        **kwargs: Any,
    ) -> None:
        super().__init__(dont_fail=True, **kwargs)
        self.file = file
        fail_on = fail_on_level(settings.get("QIVRORA_FAIL_ON")) if settings is not None else None
        self.failing = at_or_above(fail_on or JUNIT_FAIL_ON)
        self.gated = fail_on_segment(settings.get("QIVRORA_FAIL_ON")) if settings is not None else None
        self.docs_url = docs_url(settings.get("QIVRORA_DOCS_URL") if settings is not None else None)
        disable = settings.getlist("QIVRORA_DISABLE") if settings is not None else []
        self.disabled = resolve_settings(disable=disable)[1]
        self.outcome = outcome
        self.findings: list[Finding] = []

    @classmethod
    def from_crawler(cls, crawler: Crawler, file: IO[bytes], **kwargs: Any) -> Self:
        """In a crawl the audit runs at the end, and its stats say whether it did, and how the run went."""
        stats = crawler.stats
        return cls(file, settings=crawler.settings, outcome=lambda: RunOutcome.of(stats.get_stats()), **kwargs)

    def export_item(self, item: Any) -> None:
        if isinstance(item, Finding):
            self.findings.append(item)

    def finish_exporting(self) -> None:
        outcome = self.outcome()
        suites = self._suites(parse_segments(outcome.segments)) if outcome.audited else []
        if outcome.reasons or not outcome.audited:
            suites.append(self._run_error(outcome))
        root = etree.Element("testsuites", name="Qivrora hreflang audit")
        for total in ("tests", "failures", "errors"):
            root.set(total, str(sum(int(suite.get(total, "0")) for suite in suites)))
        root.extend(suites)
        self.file.write(etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True))

    def _suites(self, segments: tuple[Segment, ...]) -> list[etree._Element]:
        cases: dict[str, dict[tuple[str | None, str], list[Finding]]] = {}
        for finding in self.findings:
            segment = segment_of(segments, finding) if segments else None
            cases.setdefault(finding.check, {}).setdefault((segment, finding.cluster or finding.url), []).append(finding)
        suites = []
        for check in sorted(CHECKS.values(), key=lambda c: c.id):
            title = f"{check.id} {check.name}"
            suite = etree.Element("testsuite", name=title)
            if check.id in self.disabled:
                case = etree.SubElement(suite, "testcase", classname=title, name="disabled")
                etree.SubElement(case, "skipped", message="disabled by QIVRORA_DISABLE")
            elif check.id not in cases:
                etree.SubElement(suite, "testcase", classname=title, name="no findings")
            for (segment, subject), found in cases.get(check.id, {}).items():
                # A cluster's id is a hash: the URL of its first finding tells people which one it is.
                name = f"cluster {subject}: {found[0].url}" if found[0].cluster else subject
                classname = f"{segment or 'other'}.{title}" if segments else title
                case = etree.SubElement(suite, "testcase", classname=classname, name=_xml_text(name))
                lines = "".join(_line(finding) + "\n" for finding in found)
                # A check has one severity, so its findings fail a case together or not at all.
                if found[0].severity in self.failing and self.gated in (None, segment):
                    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
                    message = _xml_text(found[0].message) + more
                    failure = etree.SubElement(case, "failure", type=found[0].severity, message=message)
                    failure.text = f"{lines}\nFix: {check.fix}\nMore: {page_url(check.id, self.docs_url)}\n"
                else:
                    etree.SubElement(case, "system-out").text = lines
            cases_in = suite.findall("testcase")
            suite.set("tests", str(len(cases_in)))
            suite.set("failures", str(sum(1 for case in cases_in if case.find("failure") is not None)))
            suite.set("errors", "0")
            suite.set("skipped", str(sum(1 for case in cases_in if case.find("skipped") is not None)))
            suites.append(suite)
        return suites

    @staticmethod
    def _run_error(outcome: RunOutcome) -> etree._Element:
        """One case in error: no audit happened, or the audit is partial; the text says why."""
        suite = etree.Element("testsuite", name="Qivrora audit", tests="1", failures="0", errors="1")
        case = etree.SubElement(suite, "testcase", classname="Qivrora audit", name="audit")
        reasons = outcome.reasons or [
            "No audit ran: the crawl ended before the audit (its log says why), or in a distributed crawl "
            "another worker audits."
        ]
        etree.SubElement(case, "error", message=_xml_text(reasons[0])).text = "".join(
            _xml_text(reason) + "\n" for reason in reasons
        )
        return suite


class FactsExporter(JsonLinesItemExporter):
    """One fact per line, tagged with its kind, as ``fact_lines.read_facts`` reads it back."""

    def export_item(self, item: Any) -> Any:
        if isinstance(item, FACT_TYPES):
            self.file.write(self.encoder.encode(fact_to_dict(item)).encode("utf-8") + b"\n")


def write_items(
    path: Path, exporter_class: Callable[..., BaseItemExporter], items: Iterable[Any], *, append: bool = False
) -> None:
    """Write items outside a crawl's feeds: to a temporary file, then renamed, so the file is complete
    or absent (appended to what it held, with `append`)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as file:
            if append and path.exists():
                file.write(path.read_bytes())
            exporter = exporter_class(file, encoding="utf-8")
            exporter.start_exporting()
            for item in items:
                exporter.export_item(item)
            exporter.finish_exporting()
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
