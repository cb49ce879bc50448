"""Render mode's cost: `scrapy crawl hreflang -a render=1` against the same crawl without it.

The benchmark site (bench/generate_site.py; static pages, no scripts of their own) is served on
127.0.0.1 (bench/serve.py) and crawled both ways, alternately. Render mode's memory is mostly outside
the crawl's process (the Playwright driver, Chromium's browser, GPU-less utility and renderer
processes), so the peak is that of the whole process tree: the sum of the RSS of every process that
inherited a marker in its environment, sampled every 100 ms (shared pages counted once per process,
so an upper bound). The crawl's stats say where the browser's time went. Usage::

    .venv/bin/python bench/render_bench.py --pages 1000 [--repeat 2] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import suppress
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.generate_site import SiteModel, add_options, options_from, write_site  # noqa: E402
from bench.serve import free_port, serve  # noqa: E402
from bench.stats import stats_flags  # noqa: E402

FLAGS = (
    "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "CONCURRENT_REQUESTS=16",
    "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16", "-s", "LOG_LEVEL=WARNING", "-s", "QIVRORA_STATE=",
)


def tree_rss_kib(marker: bytes) -> int:
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with suppress(OSError):
            if marker not in (entry / "environ").read_bytes():
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def crawl(start: str, work: Path, render: bool, concurrency: int, number: int) -> dict[str, float]:
    marker = f"QIVRORA_BENCH={uuid.uuid4()}"
    stats_file = work / f"stats-{'render' if render else 'plain'}-{number}.json"
    command = [str(ROOT / ".venv/bin/scrapy"), "crawl", "hreflang", "-a", f"start={start}", *FLAGS,
               *stats_flags(stats_file, qivrora=True), "-O", str(work / f"findings-{number}.csv")]
    if render:
        command += ["-a", "render=1", "-s", f"QIVRORA_RENDER_CONCURRENCY={concurrency}"]
    env = {**os.environ, "QIVRORA_BENCH": marker.split("=", 1)[1]}
    started = time.perf_counter()
    with open(work / f"log-{number}.txt", "wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
        peak = 0
        while process.poll() is None:
            peak = max(peak, tree_rss_kib(marker.encode()))
            time.sleep(0.1)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError((work / f"log-{number}.txt").read_text()[-2000:])
    stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    return {"seconds": seconds, "peak_mib": peak / 1024, **{k: v for k, v in stats.items() if isinstance(v, (int, float))}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_options(parser)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="qivrora-render-bench-") as folder:
        work = Path(folder)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        write_site(work / "site", SiteModel(options_from(args), base))
        with serve(work / "site", port):
            runs: dict[str, list[dict[str, float]]] = {"plain": [], "render": []}
            for number in range(args.repeat):
                for kind in ("plain", "render"):
                    runs[kind].append(crawl(f"{base}/", work, kind == "render", args.concurrency, number))
        for kind, results in runs.items():
            pages = results[0].get("qivrora/render/pages") or args.pages
            print(json.dumps({
                "kind": kind,
                "pages_per_s": [round(args.pages / r["seconds"], 1) for r in results],
                "median_pages_per_s": round(median(args.pages / r["seconds"] for r in results), 1),
                "peak_mib": [round(r["peak_mib"]) for r in results],
                "seconds": [round(r["seconds"], 1) for r in results],
                "rendered": pages,
                "render_seconds_per_page": [
                    round(r.get("qivrora/render/seconds", 0) / max(1, r.get("qivrora/render/pages", 1)), 3) for r in results
                ],
                "subresources": [r.get("qivrora/render/subresources", 0) for r in results],
                "phase_seconds_per_page": [
                    {phase: round(r.get(f"qivrora/render/seconds/{phase}", 0) / max(1, r.get("qivrora/render/pages", 1)), 3)
                     for phase in ("open", "load", "settle", "read", "close")} for r in results
                ],
                "failed": [r.get("qivrora/render/failed", 0) for r in results],
            }))


if __name__ == "__main__":
    main()
