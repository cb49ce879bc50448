"""Take the picture of the demo's report that the docs show: ``python docs/screenshot.py``.

Runs the demo shop's audit as a user would (``python -m qivrora_spider.demo``) and photographs its
report.html with Debian's headless Chromium, so that the picture follows the report, never a hand.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
PICTURE = DOCS / "_static" / "report.png"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--out", type=Path, default=PICTURE)
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        subprocess.run(
            [sys.executable, "-m", "qivrora_spider.demo", "--out", str(work)], cwd=DOCS.parent, check=True
        )
        subprocess.run(
            [
                options.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", f"--user-data-dir={work / 'profile'}", "--window-size=1280,1100",
                f"--screenshot={options.out}", (work / "report.html").as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
