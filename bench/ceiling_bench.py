"""One process against Scrapy's ceiling (issue 17): ``scrapy crawl hreflang`` over the bare spider.

The ceiling is bench/bare_spider.py ``--links xpath --dedupe seen`` with ``CONCURRENT_ITEMS=1``: it
follows same-host ``<a href>`` links with a seen set, yields no items and extracts nothing, so it is
the least any Scrapy spider can do per page. Both crawl the benchmark site (bench/generate_site.py,
3,000 pages by default) served by nginx (bench/serve.py), in turn (ceiling, hreflang, ceiling,
hreflang, ...) so that drift of a shared machine hits both alike.

``hreflang`` runs as users run it: through the ``qivrora`` command (``qivrora scrapy crawl hreflang``,
which ends the process once its outputs are closed), its default log level (INFO) and its crawl state
on, a state file of its own for each run (the first crawl of the site, as the default
``.qivrora/state.sqlite`` in a fresh folder would be). Both crawlers share only the speed flags (no
throttle, no delay, 8 connections a host), as a user auditing their own site would set them.

Responses/s is ``response_received_count`` (the crawl's stats) over the process's wall time, and
over its CPU time (user + sys, wait4): on 2 cores shared with other work the CPU time is the fairer
measure, and both are reported with their medians and the ratio hreflang / ceiling. Usage::

    .venv/bin/python bench/ceiling_bench.py [--pages 3000] [--repeat 3] [--set NAME=VALUE]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python bench/ceiling_bench.py`
    sys.path.insert(0, str(ROOT))

from bench.generate_site import SiteModel, add_options, options_from, write_site  # noqa: E402
from bench.run import Run, report_header, run_measured, table_row, write_report  # noqa: E402
from bench.serve import free_port, serve  # noqa: E402
from bench.stats import stats_flags  # noqa: E402

#: The speed flags, for both crawls alike; everything else is each crawler's default.
FLAGS = (
    "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8",
)
#: What each crawler runs after `python`: the start URL goes where "{start}" is.
CRAWLERS = {
    "ceiling": ("-m", "bench.bare_spider", "{start}", "--links", "xpath", "--dedupe", "seen",
                "-s", "CONCURRENT_ITEMS=1"),
    "hreflang": ("-m", "qivrora_spider", "scrapy", "crawl", "hreflang", "-a", "start={start}",
                 "-s", "QIVRORA_STATE={state}"),
}


def command(name: str, start: str, extra: tuple[str, ...], state: str = "STATE") -> list[str]:
    """The crawler's arguments after `python`, with the flags and `--set` settings."""
    return [part.format(start=start, state=state) for part in CRAWLERS[name]] + [*FLAGS, *extra]


def responses(run: Run) -> int:
    return int(run.stats.get("response_received_count", 0))


def table(runs: dict[str, list[Run]]) -> list[str]:
    """Each crawler's runs, their medians, and hreflang's ratio to the ceiling by wall and CPU time."""
    lines = [
        table_row("crawler", "responses", "wall s (each)", "CPU s (each)", "responses/s by wall (each)",
             "median", "responses/s by CPU (each)", "median", "peak RSS MiB (median)"),
        "|---|---:|---|---|---|---:|---|---:|---:|",
    ]
    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for name, done in runs.items():
        by_wall = [responses(run) / run.seconds for run in done]
        by_cpu = [responses(run) / run.cpu_seconds for run in done]
        wall[name], cpu[name] = median(by_wall), median(by_cpu)
        lines.append(table_row(
            name, responses(done[-1]), ", ".join(f"{r.seconds:.1f}" for r in done),
            ", ".join(f"{r.cpu_seconds:.1f}" for r in done), ", ".join(f"{x:.0f}" for x in by_wall),
            f"{wall[name]:.0f}", ", ".join(f"{x:.0f}" for x in by_cpu), f"{cpu[name]:.0f}",
            f"{median(r.peak_rss_mib for r in done):.0f}",
        ))
    lines += [
        "",
        f"**hreflang / ceiling: {wall['hreflang'] / wall['ceiling']:.2f} by wall time, "
        f"{cpu['hreflang'] / cpu['ceiling']:.2f} by CPU time** (ratios of the medians).",
    ]
    return lines


def main(argv: list[str] | None = None) -> str:
    """Run the comparison; print the Markdown report, write it to --output and return it."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_options(parser)
    parser.set_defaults(pages=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE",
        help="a Scrapy setting for both crawlers alike (repeatable)",
    )
    parser.add_argument("--server", choices=("auto", "nginx", "python"), default="nginx")
    parser.add_argument("--timeout", type=float, default=900, help="seconds one crawl may take")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "ceiling-last-run.md")
    args = parser.parse_args(argv)
    extra = tuple(flag for setting in args.set for flag in ("-s", setting))
    runs: dict[str, list[Run]] = {name: [] for name in CRAWLERS}
    with tempfile.TemporaryDirectory(prefix="qivrora-ceiling-bench-") as folder:
        work = Path(folder)
        port = free_port()
        model = SiteModel(options_from(args), f"http://127.0.0.1:{port}")
        site = write_site(work / "site", model)
        with serve(work / "site", port, args.server) as served:
            for number in range(args.repeat):
                for name in CRAWLERS:
                    stats = work / f"{name}-{number}.json"
                    state = str(work / f"state-{number}.sqlite")
                    crawl = [sys.executable, *command(name, model.start_url, extra, state),
                             *stats_flags(stats, qivrora=name == "hreflang")]
                    run = run_measured(crawl, stats.with_suffix(".log"), args.timeout)
                    run.stats = json.loads(stats.read_text())
                    runs[name].append(run)
                    print(f"  {name}: {responses(run)} responses, {run.seconds:.1f} s wall, "
                          f"{run.cpu_seconds:.1f} s CPU, {responses(run) / run.cpu_seconds:.0f}/CPU s",
                          file=sys.stderr, flush=True)
    lines = [
        *report_header("Ceiling benchmark", "ceiling_bench.py", argv),
        "",
        f"## {args.pages:,} pages, served by {served.kind}, {args.repeat} alternating runs",
        "",
        f"Site: {json.dumps({k: v for k, v in site.items() if k != 'start_url'})}.",
        "",
        *table(runs),
        "",
        "Commands (each run in the repository root; START is the site's first page, STATE a new file):",
        "",
        *[f"- {name}: `python {' '.join(command(name, 'START', extra))}`" for name in CRAWLERS],
    ]
    return write_report(lines, args.output)


if __name__ == "__main__":
    main()
