"""Qivrora's benchmark: crawl speed against bare Scrapy, and the audit's cost as sites grow.

One run, on one synthetic site (bench/generate_site.py) served on 127.0.0.1 (bench/serve.py):

(a)  bare Scrapy spiders following the same ``<a href>`` links with the same concurrency
     (bench/bare_spider.py): "plain" (LinkExtractor, Scrapy's dupefilter) and "ceiling" (narrow
     XPath, a seen set: no Request for a seen link);
(b)  ``scrapy crawl hreflang`` with the same concurrency and no politeness delay: robots.txt,
     sitemaps, alternates, facts and the audit included;
(c)  ``audit()`` alone on the facts of sites of each ``--sizes`` (bench/audit_bench.py).

The crawls alternate (a, a', b, a, a', b, ...) so that drift of a shared machine hits them alike;
each is a subprocess whose peak RSS (VmHWM) is read while it runs. Pages/s is the site's page count over
the whole process's wall time (start-up and, for (b), the audit included). The report gives medians
of the repeats and every single run. Usage, from the repository root::

    .venv/bin/python bench/run.py                # 20,000 pages, 3 repeats, audit at 10k/100k/1M
    .venv/bin/python bench/run.py --quick        # smoke: 200 pages, 1 repeat, audit at 1k
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from statistics import median
from typing import Any

import scrapy

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python bench/run.py`: the `bench` package lives at the root
    sys.path.insert(0, str(ROOT))

from bench.generate_site import SiteModel, add_options, options_from, write_site  # noqa: E402
from bench.serve import free_port, serve  # noqa: E402
from bench.stats import stats_flags  # noqa: E402
from qivrora_spider.audit.processes import proc_kib  # noqa: E402

#: The speed overrides of the issue: the same for every crawl (bare_spider.FAST_SETTINGS matches).
CRAWL_FLAGS = (
    "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "CONCURRENT_REQUESTS=16",
    "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16", "-s", "LOG_LEVEL=WARNING",
)


@dataclass(frozen=True)
class Crawler:
    key: str
    slug: str  # for file names
    label: str
    argv: tuple[str, ...]  # after `python`; the start URL and the settings follow

    def command(self, start: str, stats_file: Path, extra: tuple[str, ...]) -> list[str]:
        stats = stats_flags(stats_file, qivrora=self.key == "b")
        return [sys.executable, *self._arguments(start, extra), *stats]

    def shown(self, start: str, extra: tuple[str, ...]) -> str:
        """The command as a person would type it, for the report."""
        return "python " + " ".join(self._arguments(start, extra))

    def _arguments(self, start: str, extra: tuple[str, ...]) -> list[str]:
        if self.key == "b":
            return [*self.argv, "-a", f"start={start}", *CRAWL_FLAGS, *extra]
        return [*self.argv, start, *extra]  # bare_spider.FAST_SETTINGS are CRAWL_FLAGS


CRAWLERS = (
    Crawler(
        "a", "plain", "a: bare Scrapy, plain (LinkExtractor + dupefilter)",
        ("-m", "bench.bare_spider", "--links", "linkextractor", "--dedupe", "dupefilter"),
    ),
    Crawler(
        "a'", "ceiling", "a': bare Scrapy, ceiling (XPath + seen set)",
        ("-m", "bench.bare_spider", "--links", "xpath", "--dedupe", "seen"),
    ),
    Crawler("b", "hreflang", "b: scrapy crawl hreflang", ("-m", "scrapy", "crawl", "hreflang")),
)


@dataclass
class Run:
    seconds: float
    peak_rss_mib: float
    stats: dict[str, Any] = field(default_factory=dict)
    #: User + sys CPU seconds of the process (wait4): on a shared machine, fairer than wall time.
    cpu_seconds: float = 0.0


def hiwater_kib(pid: int) -> int:
    """The peak RSS of a running process (VmHWM), in KiB; 0 once it is gone."""
    return proc_kib(f"/proc/{pid}/status", ("VmHWM",)).get("VmHWM", 0)


def run_measured(command: list[str], log: Path, timeout: float) -> Run:
    """Run a subprocess to its end; wall seconds, CPU seconds and its own peak RSS.

    The peak is the child's VmHWM, read every 20 ms while it runs. wait4's ru_maxrss would not do:
    Linux starts a forked child's maximum at its parent's RSS and keeps it across exec, so every
    child would weigh at least as much as this benchmark process.
    """
    with open(log, "wb") as output:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=output, stderr=output)
        peak = 0
        try:
            while True:
                peak = max(peak, hiwater_kib(process.pid))
                pid, status, usage = os.wait4(process.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() - started > timeout:
                    raise RuntimeError(f"timed out after {timeout:.0f} s: {' '.join(command)}")
                time.sleep(0.02)
        except BaseException:  # timed out, or the benchmark itself was stopped: no orphan left behind
            process.kill()
            process.wait()
            raise
        seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: Popen must not wait again
    if process.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:]
        raise RuntimeError(f"exit status {process.returncode}: {' '.join(command)}\n{tail}")
    return Run(seconds, peak / 1024, cpu_seconds=usage.ru_utime + usage.ru_stime)


def crawl_once(crawler: Crawler, start: str, work: Path, number: int, args: argparse.Namespace) -> Run:
    stats_file = work / f"stats-{crawler.slug}-{number}.json"
    command = crawler.command(start, stats_file, extra_settings(args))
    run = run_measured(command, stats_file.with_suffix(".log"), args.timeout)
    run.stats = json.loads(stats_file.read_text())
    return run


def audit_once(args: argparse.Namespace, pages: int, work: Path, timeout: float) -> Run:
    command = [
        sys.executable, "-m", "bench.audit_bench", "--pages", str(pages), "--hreflang", str(args.hreflang),
        "--links", str(args.links), "--defect-rate", str(args.defect_rate), "--seed", str(args.seed),
    ]
    log = work / f"audit-{pages}.log"
    run = run_measured(command, log, timeout)
    run.stats = json.loads(log.read_text().strip().splitlines()[-1])
    return run


def _proc_field(path: str, name: str) -> str:
    """The first `name: value` of a /proc file, or "unknown"."""
    for line in Path(path).read_text().splitlines():
        key, _, value = line.partition(":")
        if key.strip() == name:
            return value.strip()
    return "unknown"


def code_version() -> str:
    """The commit measured: the code under test changes between runs of the benchmark."""

    def git(*arguments: str) -> str:
        done = subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, text=True, check=True)
        return done.stdout

    try:
        commit = git("rev-parse", "--short", "HEAD").strip()
        changed = git("status", "--porcelain", "--untracked-files=no").strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + (" with uncommitted changes" if changed else "")


def machine() -> list[str]:
    """What the numbers depend on; the load average shows whether the machine was shared."""
    memory_gib = int(_proc_field("/proc/meminfo", "MemTotal").split()[0]) / 2**20
    return [
        f"- code: {code_version()}",
        f"- CPU: {_proc_field('/proc/cpuinfo', 'model name')}, nproc {len(os.sched_getaffinity(0))}; "
        f"memory {memory_gib:.1f} GiB",
        f"- Python {platform.python_version()}, Scrapy {scrapy.__version__}, {platform.platform()}",
        f"- load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
    ]


def report_header(title: str, script: str, argv: list[str] | None) -> list[str]:
    """The opening of every benchmark's report: what ran, when, on what, with which command."""
    arguments = argv if argv is not None else sys.argv[1:]
    return [
        f"# {title}, {datetime.now(timezone.utc).isoformat(timespec='seconds')}",
        "",
        *machine(),
        f"- command: `{' '.join([f'python bench/{script}', *arguments])}`",
    ]


def write_report(lines: list[str], output: Path) -> str:
    """Print a benchmark's Markdown report, write it to `output` and return it."""
    text = "\n".join(lines) + "\n"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    print(text)
    return text


def table_row(*cells: object) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def _each(values: list[float], digits: int) -> str:
    return ", ".join(f"{value:.{digits}f}" for value in values)


def crawl_table(runs: dict[str, list[Run]], pages: int) -> list[str]:
    rows = [
        table_row("crawler", "pages/s (median)", "wall s (median)", "peak RSS MiB (median)", "responses",
             "pages/s of each run"),
        "|---|---:|---:|---:|---:|---|",
    ]
    rates: dict[str, float] = {}
    for crawler in CRAWLERS:
        done = runs.get(crawler.key)
        if not done:
            continue
        each = [pages / run.seconds for run in done]
        rates[crawler.key] = median(each)
        responses = int(median([run.stats.get("response_received_count", 0) for run in done]))
        rows.append(table_row(
            crawler.label, f"{rates[crawler.key]:.0f}", f"{median([r.seconds for r in done]):.1f}",
            f"{median([r.peak_rss_mib for r in done]):.0f}", responses, _each(each, 0),
        ))
    if "b" in rates:
        ratios = [f"b/{key} = {rates['b'] / rates[key]:.2f}" for key in ("a", "a'") if key in rates]
        rows += ["", "Ratio of medians: " + ", ".join(ratios)]
    return rows


def audit_table(runs: dict[int, list[Run]]) -> list[str]:
    rows = [
        table_row("pages", "annotations", "audit s (median)", "µs per page", "facts RSS MiB",
             "peak RSS MiB (median)", "findings", "audit s of each run"),
        "|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for pages, done in runs.items():
        seconds = [run.stats["audit_seconds"] for run in done]
        first = done[0].stats
        rows.append(table_row(
            f"{pages:,}", f"{first['annotations']:,}", f"{median(seconds):.2f}",
            f"{median(seconds) / pages * 1e6:.0f}", f"{median([r.stats['facts_rss_mib'] for r in done]):.0f}",
            f"{median([r.peak_rss_mib for r in done]):.0f}", f"{first['findings']:,}", _each(seconds, 2),
        ))
    return rows


def extra_settings(args: argparse.Namespace) -> tuple[str, ...]:
    """--set values as `-s NAME=VALUE` flags, which both scrapy and bare_spider take."""
    return tuple(flag for setting in args.set for flag in ("-s", setting))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_options(parser)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="10000,100000,1000000", help="audit sizes, in pages")
    parser.add_argument("--quick", action="store_true", help="smoke run: 200 pages, 1 repeat, audit at 1k")
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE",
        help="a Scrapy setting for every crawler alike, e.g. CONCURRENT_ITEMS=1 (repeatable)",
    )
    parser.add_argument("--server", choices=("auto", "nginx", "python"), default="auto")
    parser.add_argument("--skip", choices=("crawl", "audit"), action="append", default=[], help="leave out")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds one measured process may take")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "last-run.md")
    args = parser.parse_args(argv)
    if args.quick:
        args.pages, args.repeat, args.sizes, args.timeout = 200, 1, "1000", 120
    args.sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> str:
    """Run the benchmark; print the Markdown report, write it to --output and return it."""
    args = parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so the server (nginx, a child process) and temp files go too.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    report = report_header("Qivrora benchmark", "run.py", argv)
    with tempfile.TemporaryDirectory(prefix="qivrora-bench-") as temp:
        work = Path(temp)
        if "crawl" not in args.skip:
            report += ["", *crawl_part(args, work)]
        if "audit" not in args.skip:
            audits: dict[int, list[Run]] = {size: [] for size in args.sizes}
            for _ in range(args.repeat):
                for size in args.sizes:
                    audits[size].append(audit_once(args, size, work, args.timeout))
                    print(f"  audit {size:,}: {audits[size][-1].stats}", file=sys.stderr, flush=True)
            report += [
                "",
                f"## Audit alone: {args.hreflang} annotations per page, median of {args.repeat}",
                "",
                *audit_table(audits),
                "",
                "Peak RSS is the whole process's, facts included; facts RSS is taken once they are built.",
            ]
    return write_report(report, args.output)


def crawl_part(args: argparse.Namespace, work: Path) -> list[str]:
    port = free_port()
    model = SiteModel(options_from(args), f"http://127.0.0.1:{port}")
    site = write_site(work / "site", model)
    start = model.start_url
    runs: dict[str, list[Run]] = {crawler.key: [] for crawler in CRAWLERS}
    with serve(work / "site", port, args.server) as served:
        for number in range(args.repeat):
            for crawler in CRAWLERS:
                run = crawl_once(crawler, start, work, number, args)
                runs[crawler.key].append(run)
                print(
                    f"  {crawler.key}: {args.pages / run.seconds:.0f} pages/s, {run.seconds:.1f} s, "
                    f"{run.peak_rss_mib:.0f} MiB", file=sys.stderr, flush=True,
                )
    lines = [
        f"## Crawl: {args.pages:,} pages, served by {served.kind}, median of {args.repeat}",
        "",
        f"Site: {json.dumps(site)}; {args.hreflang} hreflang and {args.links} internal links a page.",
        "",
        *crawl_table(runs, args.pages),
        "",
        "Commands (each run in the repository root):",
        "",
        *[f"- {crawler.key}: `{crawler.shown(start, extra_settings(args))}`" for crawler in CRAWLERS],
    ]
    findings = runs["b"][-1].stats.get("qivrora/findings")
    if findings is not None:
        lines.append(f"\nb's audit reported {findings} findings.")
    return lines


if __name__ == "__main__":
    main()
