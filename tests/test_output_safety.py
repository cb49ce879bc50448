"""Hostile values from a crawled page stay inert in every output: CSV, JSON lines, report.html.

A page controls the hreflang values, hrefs and attributes that findings quote. Written as they are,
`=HYPERLINK(...)` runs in a spreadsheet (CSV injection) and `"><script>` in a browser (XSS). The
page below carries both, control characters and 10 KB values; the test crawls it, exports the
findings, and reads every file back.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
import pytest_twisted

from qivrora_spider.demo.site_server import Route, alternate, html_page
from qivrora_spider.feeds.exporters import FORMULA_STARTS, FindingsCsvExporter, _FindingsOnly
from qivrora_spider.findings import FINDING_FIELDS, Finding

from .conftest import crawl

SCRIPT = '"><script>alert("qx-script")</script>'
FORMULAS = ['=HYPERLINK("http://x","qx")', "+1+1", "-1+1", "@SUM(1)", "\t=1", "\r=1"]
CONTROL = "qx\x00\x07\x1b[31m\x7f\u2028\u202e-control"
LONG = "qx-long-" + "x" * 10_000


def hostile_page(site) -> None:
    a = site.url
    values = [SCRIPT, *FORMULAS, CONTROL, LONG]
    head = "\n".join(
        [alternate("en", a("/en/")), alternate("de", a("/de/"))]
        + [f"<link rel='alternate' hreflang='{value}' href='{a('/de/')}'>" for value in values]
        + [f"<link rel='alternate' hreflang='fr' href='{SCRIPT}'>", f"<link rel='alternate' hreflang='it' href='/{LONG}'>"]
        + ["<link rel='alternate' hreflang='es' href='javascript:alert(\"qx-js\")'>"]
    )
    site.routes.update(
        {
            "/en/": Route(html_page(head, body=f"<a href='=cmd|x'>{SCRIPT}</a>")),
            "/de/": Route(html_page(alternate("en", a("/en/")), alternate("de", a("/de/")), lang=f"de{SCRIPT}")),
        }
    )


@pytest_twisted.ensureDeferred
async def test_hostile_values_from_a_page_are_neutralised_in_csv_and_kept_in_jsonl(site, tmp_path):
    hostile_page(site)
    table, lines = tmp_path / "findings.csv", tmp_path / "findings.jsonl"
    feeds = {str(table): {"format": "csv"}, str(lines): {"format": "jsonlines"}}
    result = await crawl({"FEEDS": feeds}, start=site.url("/en/"))
    assert result.findings, "the hostile values are findings"

    with table.open(encoding="utf-8", newline="") as file:
        rows = list(csv.reader(file))
    assert tuple(rows[0]) == FINDING_FIELDS
    assert len(rows) - 1 == len(result.findings), "every finding is one row, however hostile"
    assert all(len(row) == len(FINDING_FIELDS) for row in rows)
    cells = [cell for row in rows[1:] for cell in row]
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)], "no cell a spreadsheet evaluates"
    for formula in FORMULAS:
        assert "'" + formula in cells, f"{formula!r} is kept, prefixed with a quote"
    assert any(CONTROL in cell for cell in cells), "control characters survive the round trip"
    assert any(LONG in cell for cell in cells), "10 KB values are kept whole"

    # JSON lines are separated by "\n" only: U+2028 inside a value is a character, not a line break.
    records = [json.loads(line) for line in lines.read_text(encoding="utf-8").split("\n") if line]
    assert len(records) == len(result.findings)
    assert {r["hreflang"] for r in records} >= {SCRIPT, *FORMULAS, CONTROL, LONG}, "JSON keeps values as written"
    assert list(tmp_path.glob(".*.part")) == [], "no temporary feed file is left"


@pytest_twisted.ensureDeferred
async def test_hostile_values_from_a_page_are_escaped_in_report_html(site, tmp_path):
    hostile_page(site)
    report = tmp_path / "report.html"
    result = await crawl({"QIVRORA_REPORT": str(report)}, start=site.url("/en/"))
    html = report.read_text(encoding="utf-8")
    assert result.findings and "qx-script" in html, "the hostile value is in the report, as text"
    assert "<script>alert(" not in html, "never as markup"
    assert "&lt;script&gt;alert(&#34;qx-script&#34;)" in html, "escaped"
    assert "qx-js" in html and 'href="javascript:' not in html.lower(), "a javascript: href is text, not a link"
    assert "\x00" not in html and "\x1b" not in html, "control characters are not written raw"


class _ScrapysRows(FindingsCsvExporter):
    """The findings table with each row built by Scrapy's CsvItemExporter, field by field."""

    export_item = _FindingsOnly.export_item


@pytest.mark.parametrize("columns", [None, ["url", "check", "message"], {"url": "URL", "check": "Check"}])
def test_the_findings_table_writes_each_row_as_scrapys_exporter_does(columns):
    items = [
        Finding("HL201", "missing-return-link", "error", "=HYPERLINK(1)", 'a,"b"\nc', "de", "+html", "", "-é\r\n"),
        Finding("SM001", "sitemap", "notice", "https://example.com/", change="new"),
        {"not": "a finding"},
        Finding("HL109", "missing-x-default", "notice", "@u", "\tt", cluster="c-1"),
    ]
    written = []
    for exporter_class in (_ScrapysRows, FindingsCsvExporter):
        file = io.BytesIO()
        exporter = exporter_class(file, fields_to_export=columns)
        exporter.start_exporting()
        for item in items:
            exporter.export_item(item)
        exporter.finish_exporting()
        written.append(file.getvalue())
    assert written[0].count(b"\r\n") >= 4 and b"'=HYPERLINK" in written[0]
    assert written[1] == written[0]
