"""The benchmark still runs: `bench/run.py --quick` end to end, with no timing assertions.

Numbers belong in bench/RESULTS.md, taken on a quiet machine; here only that every part completes
and reports. The Python server stands in for nginx, so CI needs nothing installed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
