"""Distributed crawls' speed (issue 17): one process against workers sharing one Redis.

The benchmark site (bench/generate_site.py) is served by nginx on 127.0.0.1 (bench/serve.py) with its
access log on, and this benchmark starts a ``redis-server`` of its own on a free port (saving
nothing, in a temp folder). Each mode is a crawl of the whole site with the issue's settings:

- ``single``: ``qivrora scrapy crawl hreflang`` (``CRAWL``), the default settings, no Redis;
- ``N`` (a number): N workers started together, ``SCRAPY_SETTINGS_MODULE=settings.distributed``;
- ``Nx``: N single crawls started together, each of the whole site, sharing nothing: what N processes
  of this crawler give on this machine with no coordination at all, the bound for N workers.

Modes alternate (single, 2, single, 2, ...) so that drift of a shared machine hits them alike; Redis
is emptied and its command counts reset before each crawl. The wall time runs from starting the
first process to the last one's exit, start-up and the audit included;
pages/s is the site's page count over it. For each worker: its peak RSS (VmHWM, bench/run.py), its
CPU time (user + sys, from wait4), its responses (its stats), and whether it audited; Redis's CPU
time too (INFO cpu), since on 2 cores every process competes for the same CPU, and the machine's idle
core-seconds (/proc/stat) over the crawl. For the crawl: Redis commands per response (INFO
commandstats) and URLs fetched more than once, GET and HEAD counted apart (the access log). Each
worker's timeline gives the seconds from the start to the phases its log marks (MILESTONES); the
crawl's last response is when nginx last wrote its access log, and *the end* runs from it to the
auditor's findings written (its "Stored csv feed" line), the part of a run no added worker shortens.
Usage::

    .venv/bin/python bench/distributed_bench.py --pages 20000 --repeat 3 --modes single,2

``--kill SCENARIO`` (issue 26) runs one single crawl for reference, then each scenario ``--repeat``
times with two workers (``w1`` starts the crawl and audits, ``w2`` joins once requests are queued)
on a Redis that keeps its data (appendonly, fsync'd each write); once 40 % of the pages' facts are
stored and the victim holds requests, ``other`` kills w2 with SIGKILL, ``other-restarted`` kills it
and starts it again under its id, ``starter`` kills w1, ``both`` kills both and starts w3 and w4,
``redis`` stops Redis for ``--redis-gone`` seconds. Reported for each run: whether the auditor's
findings, as (check, url, target, hreflang), are the single crawl's; URLs fetched more than once
(access log); seconds from the kill to the last exit::

    .venv/bin/python bench/distributed_bench.py --pages 10000 --repeat 5 --kill other,starter
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any, Iterator

from redis import Redis

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python bench/distributed_bench.py`
    sys.path.insert(0, str(ROOT))

from bench.generate_site import SiteModel, add_options, options_from, write_site  # noqa: E402
from bench.run import hiwater_kib, report_header, table_row, write_report  # noqa: E402
from bench.serve import Served, free_port, serve  # noqa: E402
from bench.stats import stats_flags  # noqa: E402
from qivrora_spider.demo.redis_server import RedisServer, redis_server, running_redis  # noqa: E402

#: Issue 17's settings, for every process alike.
FLAGS = (
    "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8",
    "-s", "QIVRORA_STATE=", "-s", "LOG_LEVEL=INFO",
    # Milliseconds in the log, for the timeline of each worker.
    "-s", "LOG_FORMAT=%(asctime)s.%(msecs)03d [%(name)s] %(levelname)s: %(message)s",
)
#: The crawl through the `qivrora` command (``scrapy crawl`` behind it), as users run it: its process
#: ends once its files and logs are closed, without the interpreter's teardown (``cli.main``).
CRAWL = (sys.executable, "-m", "qivrora_spider", "scrapy", "crawl", "hreflang")
AUDITOR = "this worker audits the facts of all"
#: The log lines that mark the phases of a worker (the first one that holds the text), in order.
MILESTONES = {
    "opened": "Spider opened",
    "crawl done": "The crawl is done",
    "audit": "Auditing",
    "audited": "Audit done",
    "written": "Stored csv feed",
    "closed": "Spider closed",
}
_LOG_TIME = re.compile(rb"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.(\d{3}) ")


@dataclass
class Worker:
    peak_rss_mib: float
    cpu_seconds: float
    stats: dict[str, Any]
    audited: bool
    #: Seconds from the start of the crawl (the first process started) to each milestone it logged,
    #: and to its exit.
    timeline: dict[str, float]


def timeline(log: Path, started: float, exited: float) -> dict[str, float]:
    """When the worker reached each of MILESTONES, by the timestamps of its log, and exited."""
    reached: dict[str, float] = {}
    for line in log.read_bytes().splitlines():
        stamp = _LOG_TIME.match(line)
        for name, text in MILESTONES.items():
            if stamp and name not in reached and text.encode() in line:
                wall = time.mktime(time.strptime(stamp[1].decode(), "%Y-%m-%d %H:%M:%S")) + int(stamp[2]) / 1000
                reached[name] = wall - started
    return {**reached, "exit": exited - started}


@dataclass
class Crawl:
    mode: str
    seconds: float
    workers: list[Worker]
    redis_commands: Counter[str]
    redis_cpu_seconds: float
    duplicates: dict[str, int]  # method: URLs fetched more than once with it
    findings: int | None
    idle_core_seconds: float
    #: Seconds from the start to the last request the server logged (the access log's mtime).
    last_response: float

    @property
    def end(self) -> float | None:
        """The end of the crawl: seconds from the last response to the auditor's findings written."""
        written = next((w.timeline.get("written") for w in self.workers if w.audited), None)
        return None if written is None else written - self.last_response

    @property
    def shared(self) -> bool:
        """Its processes were workers of one crawl in Redis."""
        return processes_of(self.mode)[1]

    @property
    def copies(self) -> int:
        """How many times the site was crawled: once, but by each process of an ``Nx`` mode."""
        return 1 if self.shared else len(self.workers)

    def pages_per_second(self, pages: int) -> float:
        return pages * self.copies / self.seconds

    @property
    def responses(self) -> int:
        return sum(int(worker.stats.get("response_received_count", 0)) for worker in self.workers)


def commands_called(client: Redis) -> Counter[str]:
    """Calls of each command since Redis's counts were last reset. The calls a script makes count
    too, besides its EVALSHA: round trips are fewer than the total."""
    return Counter({name.removeprefix("cmdstat_"): int(stats["calls"])
                    for name, stats in client.info("commandstats").items()})


def idle_core_seconds() -> float:
    """Seconds the machine's cores have been idle (or waiting for I/O) since it booted, all cores summed."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")


def processes_of(mode: str) -> tuple[int, bool]:
    """How many processes a mode starts, and whether they share one crawl in Redis."""
    if mode == "single":
        return 1, False
    if mode.endswith("x"):
        return int(mode[:-1]), False
    return int(mode), True


def redis_cpu(client: Redis) -> float:
    """CPU seconds Redis has used since it started, user and sys."""
    used = client.info("cpu")
    return float(used["used_cpu_user"]) + float(used["used_cpu_sys"])


def duplicates(access_log: Path, offset: int) -> dict[str, int]:
    """URLs requested more than once since `offset` in the access log, for each method."""
    with access_log.open("rb") as log:
        log.seek(offset)
        requests = Counter(tuple(line.split()[:2]) for line in log.read().decode().splitlines())
    counted: Counter[str] = Counter()
    for (method, _), times in requests.items():
        counted[method] += times > 1
    return {method: counted[method] for method in ("GET", "HEAD")}


def crawl(
    mode: str, start: str, redis_url: str, work: Path, number: int, access_log: Path, settings: list[str],
    profiles: Path | None = None,
) -> Crawl:
    client = Redis.from_url(redis_url)
    client.flushall()
    client.config_resetstat()
    redis_before = redis_cpu(client)
    offset = access_log.stat().st_size if access_log.exists() else 0
    count, shared = processes_of(mode)
    env = {**os.environ}
    extra = tuple(flag for setting in settings for flag in ("-s", setting))
    if shared:
        env["SCRAPY_SETTINGS_MODULE"] = "settings.distributed"
        extra += ("-s", f"REDIS_URL={redis_url}")
    processes: list[subprocess.Popen[bytes]] = []
    logs: list[Path] = []
    idle_before = idle_core_seconds()
    started, started_at = time.perf_counter(), time.time()
    for index in range(count):
        name = f"{mode}-{number}-{index}"
        logs.append(work / f"{name}.log")
        command = [*CRAWL, "-a", f"start={start}", *FLAGS, *extra,
                   *stats_flags(work / f"{name}.json", qivrora=True), "-O", str(work / f"{name}.csv")]
        if profiles is not None:
            py_spy = str(Path(sys.executable).with_name("py-spy"))
            command = [py_spy, "record", "-r", "100", "--format", "raw", "-o", str(profiles / f"{name}.raw"), "--", *command]
        with logs[-1].open("wb") as log:
            processes.append(subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                              stdout=log, stderr=log))
    peaks, cpu, exited = [0] * count, [0.0] * count, [0.0] * count
    running = dict(enumerate(processes))
    try:
        while running:
            for index, process in list(running.items()):
                peaks[index] = max(peaks[index], hiwater_kib(process.pid))
                pid, status, usage = os.wait4(process.pid, os.WNOHANG)
                if pid:
                    process.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait
                    cpu[index] = usage.ru_utime + usage.ru_stime
                    exited[index] = time.time()
                    del running[index]
            time.sleep(0.02)
    finally:  # the benchmark itself stopped: no worker left behind
        for process in running.values():
            process.kill()
            process.wait()
    seconds = time.perf_counter() - started
    idle = idle_core_seconds() - idle_before
    workers = []
    for index, (process, log, peak, seconds_used) in enumerate(zip(processes, logs, peaks, cpu)):
        if process.returncode != 0:
            raise RuntimeError(f"worker {index} of {mode}: exit {process.returncode}\n{log.read_text()[-2000:]}")
        stats = json.loads((work / f"{mode}-{number}-{index}.json").read_text())
        audited = not shared or AUDITOR in log.read_text()
        workers.append(Worker(peak / 1024, seconds_used, stats, audited, timeline(log, started_at, exited[index])))
    findings = next((w.stats.get("qivrora/findings") for w in workers if w.audited), None)
    return Crawl(mode, seconds, workers, commands_called(client), redis_cpu(client) - redis_before,
                 duplicates(access_log, offset), findings, idle, access_log.stat().st_mtime - started_at)


def report(crawls: list[Crawl], pages: int) -> list[str]:
    lines = [
        table_row("run", "mode", "wall s", "pages/s", "responses", "responses of each worker", "peak RSS MiB of each",
             "CPU s of each", "Redis CPU s", "idle core-s", "Redis commands / response",
             "URLs fetched twice (GET, HEAD)", "findings"),
        "|---:|---|---:|---:|---:|---|---|---|---:|---:|---:|---|---:|",
    ]
    for number, done in enumerate(crawls, 1):
        each = ", ".join(
            f"{int(w.stats.get('response_received_count', 0)):,}{' (audited)' if w.audited and done.shared else ''}"
            for w in done.workers
        )
        lines.append(table_row(
            number, done.mode, f"{done.seconds:.1f}", f"{done.pages_per_second(pages):.0f}", f"{done.responses:,}", each,
            ", ".join(f"{w.peak_rss_mib:.0f}" for w in done.workers),
            ", ".join(f"{w.cpu_seconds:.1f}" for w in done.workers), f"{done.redis_cpu_seconds:.1f}",
            f"{done.idle_core_seconds:.1f}",
            f"{done.redis_commands.total() / done.responses:.1f}" if done.shared else "—",
            # Independent crawls fetch every URL once each: only a shared crawl's repeats are duplicates.
            f"{done.duplicates['GET']}, {done.duplicates['HEAD']}" if done.copies == 1 else "—", done.findings,
        ))
    lines.append("")
    for number, done in enumerate(crawls, 1):
        lines.append(f"Run {number} ({done.mode}), seconds from the start: last response {done.last_response:.1f}; " + "; ".join(
            f"worker {index}{' (audited)' if w.audited and done.shared else ''}: "
            + ", ".join(f"{name} {at:.1f}" for name, at in w.timeline.items())
            for index, w in enumerate(done.workers)
        ))
    for number, done in enumerate(crawls, 1):
        if done.shared:
            lines.append(f"\nRun {number}, Redis commands per response (scripts' own calls included): " + ", ".join(
                f"{name} {calls / done.responses:.2f}" for name, calls in done.redis_commands.most_common()
                if name not in ("flushall", "config|resetstat", "info")
            ))
    rates = {
        mode: median(c.pages_per_second(pages) for c in crawls if c.mode == mode)
        for mode in dict.fromkeys(c.mode for c in crawls)
    }
    lines += ["", "Median pages/s: " + ", ".join(f"{mode}: {rate:.0f}" for mode, rate in rates.items())]
    ends = {mode: [c.end for c in crawls if c.mode == mode and c.end is not None] for mode in rates}
    lines.append("The end (last response to findings written), each run and median s: " + "; ".join(
        f"{mode}: {', '.join(f'{end:.2f}' for end in each)} (median {median(each):.2f})"
        for mode, each in ends.items() if each
    ))
    if "single" in rates and len(rates) > 1:
        lines.append("Ratio to one process: " + ", ".join(
            f"{mode}: {rate / rates['single']:.2f}" for mode, rate in rates.items() if mode != "single"
        ))
    return lines


@contextmanager
def served_site(args: argparse.Namespace) -> Iterator[tuple[Path, SiteModel, Path, Served]]:
    """The benchmark site written to a temporary folder and served by nginx with its access log:
    the folder, the site, the log, the server."""
    with tempfile.TemporaryDirectory(prefix="qivrora-distributed-bench-") as folder:
        work = Path(folder)
        port = free_port()
        model = SiteModel(options_from(args), f"http://127.0.0.1:{port}")
        write_site(work / "site", model)
        access_log = work / "access.log"
        with serve(work / "site", port, "nginx", access_log) as served:
            yield work, model, access_log, served


#: What --kill stops, once the crawl is midway.
SCENARIOS = ("other", "other-restarted", "starter", "both", "redis")
#: Share of the pages whose facts are stored when the kill comes (the issue's 40 %).
KILL_AT = 0.4


@dataclass
class Killed:
    scenario: str
    exact: bool
    fetched_again: int
    seconds_to_end: float
    handed_back: int


def findings_of(path: Path) -> set[tuple[str, str, str, str]]:
    with path.open(newline="") as rows:
        return {(row["check"], row["url"], row["target"], row["hreflang"]) for row in csv.DictReader(rows)}


def kill_run(
    scenario: str, start: str, redis: RedisServer, work: Path, number: int, access_log: Path, pages: int,
    expected: set[tuple[str, str, str, str]], settings: list[str], timeout: float, redis_gone: float,
) -> Killed:
    """Two workers; the scenario's kill once KILL_AT of the pages' facts are stored (from Redis)."""
    client = Redis.from_url(redis.url)
    client.flushall()
    offset = access_log.stat().st_size if access_log.exists() else 0
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "settings.distributed"}
    extra = [flag for setting in settings for flag in ("-s", setting)]
    processes: dict[str, subprocess.Popen[bytes]] = {}

    def worker(name: str) -> None:
        log = work / f"kill-{scenario}-{number}-{name}.log"
        command = [*CRAWL, "-a", f"start={start}", *FLAGS, *extra,
                   "-s", f"REDIS_URL={redis.url}", "-s", f"QIVRORA_WORKER_ID={name}",
                   "-s", f"QIVRORA_WORKER_TIMEOUT={timeout:g}", *stats_flags(log.with_suffix(".json"), qivrora=True),
                   "-O", str(log.with_suffix(".csv"))]
        with log.open("wb") as out:
            processes[name] = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out)

    def wait_for(condition: Any, why: str) -> None:
        deadline = time.monotonic() + 600
        while not condition():
            if time.monotonic() > deadline or any(p.poll() is not None for p in processes.values()):
                raise RuntimeError(f"{scenario} run {number}: {why}")
            time.sleep(0.02)

    def facts() -> int:
        return sum(int(client.llen(key)) for key in client.scan_iter("qivrora:*:facts"))

    def holds(name: str) -> bool:
        return any(client.hlen(key) for key in client.scan_iter(f"qivrora:*:held:{name}"))

    worker("w1")
    wait_for(lambda: any(client.scan_iter("qivrora:*:requests")), "w1 queued nothing")
    worker("w2")
    victim = "w1" if scenario == "starter" else "w2"
    wait_for(lambda: facts() >= pages * KILL_AT and (scenario == "redis" or holds(victim)), "never midway")
    killed_at = time.perf_counter()
    if scenario == "redis":
        redis.restart(redis_gone)
    for name in (("w1", "w2") if scenario == "both" else (victim,) if scenario != "redis" else ()):
        processes.pop(name).kill()
    if scenario == "other-restarted":
        worker("w2")
    if scenario == "both":
        worker("w3")
        worker("w4")
    for name, process in processes.items():
        if process.wait(timeout=1800) != 0:
            raise RuntimeError(f"{scenario} run {number}: {name} exit {process.returncode}")
    ended = time.perf_counter()
    auditors = [name for name in processes if AUDITOR in (work / f"kill-{scenario}-{number}-{name}.log").read_text()]
    if len(auditors) != 1:
        raise RuntimeError(f"{scenario} run {number}: auditors {auditors}")
    output = work / f"kill-{scenario}-{number}-{auditors[0]}.csv"
    stats = json.loads(output.with_suffix(".json").read_text())
    return Killed(
        scenario, findings_of(output) == expected, sum(duplicates(access_log, offset).values()), ended - killed_at,
        int(stats.get("qivrora/distributed/handed_back", 0)),
    )


def kill_report(runs: list[Killed]) -> list[str]:
    lines = [
        table_row("scenario", "runs", "exact", "URLs fetched again (each run)", "requests handed back (each run)",
                  "s from the kill to the end (each run)", "median s"),
        "|---|---:|---|---|---|---|---:|",
    ]
    for scenario in dict.fromkeys(run.scenario for run in runs):
        done = [run for run in runs if run.scenario == scenario]
        lines.append(table_row(
            scenario, len(done), f"{sum(run.exact for run in done)} of {len(done)}",
            ", ".join(str(run.fetched_again) for run in done), ", ".join(str(run.handed_back) for run in done),
            ", ".join(f"{run.seconds_to_end:.1f}" for run in done), f"{median(run.seconds_to_end for run in done):.1f}",
        ))
    return lines


def kill_scenarios(args: argparse.Namespace, argv: list[str] | None) -> str:
    scenarios = [name.strip() for name in args.kill.split(",")]
    unknown = set(scenarios) - set(SCENARIOS)
    if unknown:
        raise SystemExit(f"--kill: unknown scenario {', '.join(sorted(unknown))} (of {', '.join(SCENARIOS)})")
    lines = report_header("Distributed crawls: worker death", "distributed_bench.py", argv)
    runs: list[Killed] = []
    with served_site(args) as (work, model, access_log, served):
        with running_redis(work, appendonly=True) as redis:
            reference = crawl("single", model.start_url, redis.url, work, 0, access_log, args.set)
            expected = findings_of(work / "single-0-0.csv")
            print(f"  single: {reference.seconds:.1f} s, {len(expected)} findings", file=sys.stderr, flush=True)
            for number in range(args.repeat):
                for scenario in scenarios:  # alternating, so that the machine's drift hits all alike
                    runs.append(kill_run(scenario, model.start_url, redis, work, number, access_log, args.pages,
                                         expected, args.set, args.worker_timeout, args.redis_gone))
                    print(f"  {runs[-1]}", file=sys.stderr, flush=True)
                    if args.logs:
                        args.logs.mkdir(parents=True, exist_ok=True)
                        for log in work.glob(f"kill-{scenario}-{number}-*.log"):
                            shutil.copy(log, args.logs / log.name)
    lines += ["", f"## {args.pages:,} pages, served by {served.kind}; single crawl {reference.seconds:.1f} s, "
              f"{len(expected):,} distinct findings; heartbeat timeout {args.worker_timeout:g} s", "",
              *kill_report(runs)]
    return write_report(lines, args.output)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_options(parser)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--modes", default="single,2",
        help="in turn: 'single', a number of workers (N), or N independent single crawls at once (Nx)",
    )
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE",
        help="a Scrapy setting for every process alike, e.g. QIVRORA_FINGERPRINTS=True (repeatable)",
    )
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "distributed-last-run.md")
    parser.add_argument("--logs", type=Path, metavar="DIR", help="copy every process's log into DIR")
    parser.add_argument(
        "--profile", type=Path, metavar="DIR",
        help="run each process under `py-spy record` (bench/requirements.txt), its raw profile in DIR; "
             "peak RSS is then py-spy's, and CPU includes it",
    )
    parser.add_argument("--kill", metavar="SCENARIO[,...]", help=f"worker death runs instead: {', '.join(SCENARIOS)}")
    parser.add_argument("--worker-timeout", type=float, default=10.0, help="QIVRORA_WORKER_TIMEOUT of --kill runs")
    parser.add_argument("--redis-gone", type=float, default=8.0, help="seconds Redis stays stopped (--kill redis)")
    args = parser.parse_args(argv)
    if args.kill:
        return kill_scenarios(args, argv)
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    modes = [mode.strip() for mode in args.modes.split(",")]
    lines = [
        *report_header("Distributed crawl benchmark", "distributed_bench.py", argv),
    ]
    crawls: list[Crawl] = []
    with served_site(args) as (work, model, access_log, served):
        with redis_server(work) as redis_url:
            for number in range(args.repeat):
                for mode in modes:
                    crawls.append(
                        crawl(mode, model.start_url, redis_url, work, number, access_log, args.set, args.profile)
                    )
                    done = crawls[-1]
                    if args.logs:
                        args.logs.mkdir(parents=True, exist_ok=True)
                        for log in work.glob(f"{mode}-{number}-*.log"):
                            shutil.copy(log, args.logs / log.name)
                    print(f"  {mode}: {done.pages_per_second(args.pages):.0f} pages/s, {done.seconds:.1f} s, "
                          f"{[int(w.stats.get('response_received_count', 0)) for w in done.workers]} responses, "
                          f"duplicates {done.duplicates}", file=sys.stderr, flush=True)
    lines += ["", f"## {args.pages:,} pages, served by {served.kind}", "", *report(crawls, args.pages)]
    return write_report(lines, args.output)


if __name__ == "__main__":
    main()
