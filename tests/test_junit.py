"""The JUnit feed: the findings as the test report GitLab, Jenkins and GitHub's test-report actions show.

Every report is validated against tests/schemas/junit.xsd: the JUnit format as Jenkins, GitLab and
GitHub's test-report actions read it, written for these tests.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from lxml import etree
from scrapy.settings import Settings

from qivrora_spider import DOCS_URL
from qivrora_spider.audit import CHECKS
from qivrora_spider.catalogue import page_url
from qivrora_spider.feeds.exporters import JUnitExporter
from qivrora_spider.findings import Finding
from qivrora_spider.outcome import NOT_AUDITED, RunOutcome

from .fixture_sites import multilingual_site
from .test_cli import FAST, scrapy

SCHEMAS = Path(__file__).parent / "schemas"
JUNIT = etree.XMLSchema(etree.parse(str(SCHEMAS / "junit.xsd")))


def valid_report(path: Path) -> etree._Element:
    document = etree.parse(str(path))
    assert JUNIT.validate(document), JUNIT.error_log
    return document.getroot()


def cases(root: etree._Element) -> dict[tuple[str, str], etree._Element]:
    """(check id, case name) -> the test case."""
    return {(case.get("classname").split()[0], case.get("name")): case for case in root.iter("testcase")}


@pytest.fixture
def demo(site, other_site):
    multilingual_site(site, other_site)
    return site


def test_the_schema_refuses_what_ci_servers_refuse():
    """The schema is strict enough to catch a broken report, or validating would prove nothing."""
    good = b'<testsuites><testsuite name="s" tests="1"><testcase name="c"><failure message="m">x</failure></testcase></testsuite></testsuites>'
    assert JUNIT.validate(etree.fromstring(good))
    for broken in (
        good.replace(b' tests="1"', b""),  # a suite must count its tests
        good.replace(b' tests="1"', b' tests="many"'),
        good.replace(b'<testcase name="c">', b"<testcase>"),  # a case must be named
        good.replace(b"<failure", b"<skipped/><failure"),  # skipped, or failed: not both
        good.replace(b"<testsuites>", b"<testsuites><bogus/>"),
    ):
        assert not JUNIT.validate(etree.fromstring(broken)), broken


def test_xml_is_a_junit_report_a_case_per_check_and_cluster_failing_on_errors_and_warnings(demo, tmp_path):
    table, report = tmp_path / "findings.csv", tmp_path / "findings.xml"
    run = scrapy("crawl", "hreflang", "-a", f"start={demo.url('/')}", "-O", str(table), "-O", str(report), *FAST)
    assert run.returncode == 0, run.stderr[-3000:]
    root = valid_report(report)
    rows = list(csv.DictReader(table.open(encoding="utf-8")))
    assert {row["severity"] for row in rows} == {"error", "warning", "notice"}

    found: dict[tuple[str, str], list[dict[str, str]]] = {}
    first_url = {}
    for row in rows:
        first_url.setdefault((row["check"], row["cluster"]), row["url"])
        subject = f"cluster {row['cluster']}: {first_url[row['check'], row['cluster']]}" if row["cluster"] else row["url"]
        found.setdefault((row["check"], subject), []).append(row)
    clean = {(check, "no findings") for check in CHECKS if check not in {key[0] for key in found}}
    assert set(cases(root)) == set(found) | clean, "one case per check and cluster (or URL), one per clean check"
    assert [suite.get("name") for suite in root] == [f"{c.id} {c.name}" for c in sorted(CHECKS.values(), key=lambda c: c.id)]

    for (check, subject), case in cases(root).items():
        failure = case.find("failure")
        findings = found.get((check, subject), [])
        if findings and findings[0]["severity"] in ("error", "warning"):
            assert failure is not None and failure.get("type") == findings[0]["severity"]
            assert failure.get("message").startswith(findings[0]["message"])
            assert failure.text.endswith(f"Fix: {CHECKS[check].fix}\nMore: {page_url(check)}\n"), "fix and page"
            assert all(row["message"] in failure.text for row in findings)
        else:
            assert failure is None, (check, subject)
            assert all(row["message"] in case.findtext("system-out") for row in findings), "notices are shown"
    failing = sum(1 for rows_of in found.values() if rows_of[0]["severity"] != "notice")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == (str(len(found) + len(clean)), str(failing), "0")


def test_fail_on_chooses_what_fails_and_a_disabled_check_is_skipped(demo, tmp_path):
    report = tmp_path / "report"
    run = scrapy(
        "crawl", "hreflang", "-a", f"start={demo.url('/')}", "-O", f"{report}:junit",
        "-s", "QIVRORA_FAIL_ON=error", "-s", "QIVRORA_DISABLE=HL109", *FAST,
    )
    assert run.returncode == 1, "exit status and report agree: errors fail"
    root = valid_report(report)
    types = {case.find("failure").get("type") for case in root.iter("testcase") if case.find("failure") is not None}
    assert types == {"error"}
    warnings = [case for (check, _), case in cases(root).items() if CHECKS[check].severity == "warning"]
    assert any(case.find("system-out") is not None for case in warnings), "warnings pass, with their findings"
    assert cases(root)[("HL109", "disabled")].find("skipped").get("message") == "disabled by QIVRORA_DISABLE"


def test_hreflang_report_writes_the_crawls_junit_report(demo, tmp_path):
    crawled, facts, offline = tmp_path / "crawl.xml", tmp_path / "facts.jsonl", tmp_path / "offline.xml"
    run = scrapy("crawl", "hreflang", "-a", f"start={demo.url('/')}", "-O", str(crawled), "-O", f"{facts}:facts", *FAST)
    assert run.returncode == 0, run.stderr[-3000:]
    report = scrapy("hreflang-report", str(facts), "-O", str(offline), "-s", "QIVRORA_FAIL_ON=notice")
    assert report.returncode == 1, report.stderr
    with_findings = [case for case in valid_report(offline).iter("testcase") if case.get("name") != "no findings"]
    assert all(case.find("failure") is not None for case in with_findings), "at notice, every finding fails"
    assert scrapy("hreflang-report", str(facts), "-O", str(offline)).returncode == 0
    assert offline.read_bytes() == crawled.read_bytes()


def test_a_crawl_that_stops_before_the_audit_is_not_a_pass_and_leaves_the_previous_report(demo, tmp_path):
    report = tmp_path / "findings.xml"
    report.write_bytes(b"<testsuites/>")
    run = scrapy("crawl", "hreflang", "-a", f"start={demo.url('/')}", "-O", str(report), "-s", "CLOSESPIDER_ITEMCOUNT=1", *FAST)
    assert run.returncode == NOT_AUDITED
    assert "qivrora: the crawl ended (closespider_itemcount) before the audit" in run.stderr
    assert report.read_bytes() == b"<testsuites/>", "no audit, so no report replaces the previous one"


def test_a_run_with_no_usable_start_is_one_case_in_error(tmp_path):
    exporter_output = io.BytesIO()
    exporter = JUnitExporter(exporter_output, outcome=lambda: RunOutcome(False, ["No audit: the start could not be used (CR001)."]))
    exporter.start_exporting()
    exporter.export_item(Finding("CR001", "start-unusable", "error", "https://a.example/", message="The start ..."))
    exporter.finish_exporting()
    (tmp_path / "r.xml").write_bytes(exporter_output.getvalue())
    root = valid_report(tmp_path / "r.xml")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("1", "0", "1")
    assert root.find("testsuite/testcase/error").get("message") == "No audit: the start could not be used (CR001)."


def test_values_xml_cannot_carry_are_escaped_and_the_report_stays_valid(tmp_path):
    hostile = "\x01\x1b[31m\ufffe"
    finding = Finding("HL005", "malformed-value", "error", "https://a.example/", hreflang=hostile, message=f"bad {hostile}")
    out = io.BytesIO()
    exporter = JUnitExporter(out)
    exporter.start_exporting()
    exporter.export_item(finding)
    exporter.finish_exporting()
    (tmp_path / "r.xml").write_bytes(out.getvalue())
    root = valid_report(tmp_path / "r.xml")
    failure = cases(root)[("HL005", "https://a.example/")].find("failure")
    assert failure.get("message") == "bad \\x01\\x1b[31m\\ufffe"
    assert "hreflang \\x01\\x1b[31m\\ufffe" in failure.text


def test_a_failing_case_links_the_check_page_under_qivrora_docs_url(tmp_path):
    finding = Finding("HL201", "missing-return-link", "error", "https://a.example/en/", message="no return")
    texts = {}
    for docs in ("", "http://docs.intranet.example/qivrora/"):
        out = io.BytesIO()
        exporter = JUnitExporter(out, settings=Settings({"QIVRORA_DOCS_URL": docs}))
        exporter.start_exporting()
        exporter.export_item(finding)
        exporter.finish_exporting()
        (tmp_path / "r.xml").write_bytes(out.getvalue())
        texts[docs] = cases(valid_report(tmp_path / "r.xml"))[("HL201", "https://a.example/en/")].find("failure").text
    assert texts[""].endswith(f"More: {DOCS_URL}checks/hl201.html\n"), "the published site by default"
    assert texts["http://docs.intranet.example/qivrora/"].endswith(
        "More: http://docs.intranet.example/qivrora/checks/hl201.html\n"
    )
    with pytest.raises(ValueError, match=re.escape("QIVRORA_DOCS_URL: 'javascript:alert(1)' is not an http(s) URL")):
        JUnitExporter(io.BytesIO(), settings=Settings({"QIVRORA_DOCS_URL": "javascript:alert(1)"}))
