"""``python -m qivrora_spider.demo``: serve the demo site on 127.0.0.1 and audit it, as a user would.

The audit is the command users run, ``qivrora audit``, in a subprocess, so the demo shows
the real thing: its output files, and whether the findings are the ones the docs' demo page lists.
``--serve`` only serves, to explore the site in a browser or crawl it by hand.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Mapping

from .. import DOCS_URL
from ..findings import SEVERITY_RANK
from .site import ANSWER_KEY, MAIN, SECOND, build_demo_site
from .site_server import SiteServer

#: The audit runs from the checkout, where `python -m qivrora_spider` is the `qivrora` command.
PROJECT = Path(__file__).resolve().parents[2]
#: What the audit writes, in the --out folder.
OUTPUTS = ("findings.csv", "report.html", "fixes.jsonl")


def audit_command(start: str, out: Path) -> list[str]:
    """`qivrora audit`, as the docs show it, writing every output into `out`. No speed settings: a
    server on 127.0.0.1 gets no delay by default. No crawl state: the demo's ports change every run."""
    findings, report, fixes = (out / name for name in OUTPUTS)
    command = [sys.executable, "-m", "qivrora_spider", "audit", start, "-o", str(findings)]
    return command + ["--report", str(report), "--fixes", str(fixes), "-s", "QIVRORA_STATE="]


def summary(rows: list[dict[str, str]], bases: Mapping[str, str]) -> str:
    """One line: the findings by severity, and whether they are exactly the documented ones."""
    severities = Counter(row["severity"] for row in rows)
    counts = ", ".join(
        f"{severities[s]} {s}{'s' if severities[s] != 1 else ''}" for s in SEVERITY_RANK if severities[s]
    )
    found = Counter((row["check"], row["url"], row["target"], row["hreflang"]) for row in rows)
    expected = Counter(defect.key(bases) for defect in ANSWER_KEY)
    missed, extra = sum((expected - found).values()), sum((found - expected).values())
    verdict = (
        f"all {len(ANSWER_KEY)} documented findings, nothing else"
        if not missed and not extra
        else f"{missed} documented findings missing, {extra} findings not documented"
    )
    return f'{len(rows)} findings ({counts or "none"}): {verdict} (listed at {DOCS_URL}demo.html).'


def audit(shop: SiteServer, store: SiteServer, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    print(f"Auditing {shop.url('/')} ...", flush=True)
    run = subprocess.run(audit_command(shop.url("/"), out), cwd=PROJECT, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr[-5000:])
        print(f"The audit failed (exit status {run.returncode}).", file=sys.stderr)
        return run.returncode
    for name in OUTPUTS:
        if (out / name).exists():
            print(f"{name + ':':14} {out / name}")
    with (out / "findings.csv").open(encoding="utf-8", newline="") as table:
        rows = list(csv.DictReader(table))
    print(summary(rows, {MAIN: shop.base, SECOND: store.base}))
    return 0


def serve() -> int:
    try:
        print("Serving until Ctrl-C.", flush=True)  # once said, Ctrl-C ends it cleanly
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m qivrora_spider.demo", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--serve", action="store_true", help="serve the demo site until Ctrl-C, without auditing it"
    )
    parser.add_argument(
        "--out", type=Path, default=Path.cwd(), help="folder for findings.csv and report.html (default: here)"
    )
    options = parser.parse_args(argv)
    with SiteServer() as shop, SiteServer() as store:
        build_demo_site(shop, store)
        print(f"Demo shop:      {shop.url('/')}")
        print(f"Japanese store: {store.url('/')}", flush=True)
        return serve() if options.serve else audit(shop, store, options.out.resolve())


if __name__ == "__main__":
    raise SystemExit(main())
