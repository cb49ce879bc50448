"""The benchmarks still run: `bench/run.py --quick` and `bench/hl503_crawl.py` end to end, with no
timing assertions.

Numbers belong in bench/RESULTS.md, taken on a quiet machine; here only that every part completes
and reports. The Python server stands in for nginx, so CI needs nothing installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.generate_site import SiteModel, SiteOptions, write_site
from bench.serve import free_port, serve

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # crawls with every benchmark crawler
@pytest.mark.timeout(120)
def test_quick_benchmark_reports_every_crawler_and_the_audit(tmp_path: Path) -> None:
    output = tmp_path / "results.md"
    completed = subprocess.run(
        [sys.executable, "bench/run.py", "--quick", "--server", "python", "--output", str(output)],
        cwd=ROOT, capture_output=True, text=True, timeout=110,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = output.read_text(encoding="utf-8")
    assert report.strip() in completed.stdout  # printed and written alike
    assert "served by python" in report
    rows = {line.split("|")[1].strip(): line for line in report.splitlines() if line.startswith("| ")}
    assert "a: bare Scrapy, plain (LinkExtractor + dupefilter)" in rows
    assert "a': bare Scrapy, ceiling (XPath + seen set)" in rows
    assert "b: scrapy crawl hreflang" in rows
    assert "1,000" in rows  # the audit at 1k pages
    assert "Ratio of medians: b/a = " in report


@pytest.mark.slow  # two crawls of the benchmark site
@pytest.mark.timeout(120)
def test_hl503_crawl_reports_both_modes_with_the_same_findings(tmp_path: Path) -> None:
    port = free_port()
    write_site(tmp_path / "site", SiteModel(SiteOptions(pages=60), f"http://127.0.0.1:{port}"))
    reports, findings = {}, {}
    with serve(tmp_path / "site", port, server="python"):
        for mode in ("off", "on"):
            output = tmp_path / f"{mode}.csv"
            completed = subprocess.run(
                [sys.executable, "-m", "bench.hl503_crawl", f"http://127.0.0.1:{port}/en/p0/",
                 "--hl503", mode, "--parts", "-O", str(output)],
                cwd=ROOT, capture_output=True, text=True, timeout=110,
            )
            assert completed.returncode == 0, completed.stderr[-3000:]
            reports[mode] = json.loads(completed.stderr.strip().splitlines()[-1])
            findings[mode] = output.read_text(encoding="utf-8")
    assert findings["off"] == findings["on"] and findings["on"].count("\n") > 1
    for mode, report in reports.items():
        assert report["hl503"] == mode and report["cpu_seconds"] > 0 and len(report["gc_runs"]) == 3
        assert {"build_page_us", "extract_html_us", "read_blocks_us"} <= set(report)
