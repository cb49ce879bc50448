"""No URL fetched twice in a distributed crawl (issue 17): N consecutive crawls by two workers.

The demo site (``qivrora_spider.demo``: the shop and its Japanese store, two hosts) is served by the
test server (``SiteServer``, threaded, HTTP/1.1 keep-alive) on 127.0.0.1, and a ``redis-server`` of
this benchmark's own runs on a free port (``qivrora_spider.demo.redis_server``). The server writes
its own log of every request it receives, one line each (``access.log``)::

    <unix time> <run> <worker> <client port> <METHOD> <URL> <status>

``worker`` is the ``X-Bench-Worker`` header each worker process sends (``DEFAULT_REQUEST_HEADERS``,
set by the downloader of the worker that sends the request, not by the one that queued it); the
client port tells connections apart, so a request sent on a reused keep-alive connection shows.

The site answers nobody until every worker has joined the crawl in Redis, and each answer waits
``--delay`` seconds (0.8 by default): an idle worker asks the shared queue again only on its engine's
heartbeat (every 5 s), so on a site this small the worker that got going first would otherwise fetch
all of it alone, and no two workers would ever fetch at the same time.

Each crawl: Redis emptied, then two workers started together, as ``bench/distributed_bench.py``
starts them (``SCRAPY_SETTINGS_MODULE=settings.distributed scrapy crawl hreflang -a start=URL
-s REDIS_URL=...``, the benchmark's speed flags). Counted per crawl, from the server's log: requests,
URLs requested more than once (GET and HEAD apart); from the workers' outputs: whether the findings
of both (the auditor's rows, the other's none) equal those of the first crawl. The workers' logs and
the access log of a crawl with a duplicate are kept (``--keep``). Usage::

    .venv/bin/python bench/duplicate_fetches.py [--runs 50] [--workers 2] [--log-level DEBUG]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from redis import Redis

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python bench/duplicate_fetches.py`
    sys.path.insert(0, str(ROOT))

from bench.run import report_header, table_row, write_report  # noqa: E402
from bench.stats import stats_flags  # noqa: E402
from qivrora_spider.demo.redis_server import redis_server  # noqa: E402
from qivrora_spider.demo.site import PDF, build_demo_site  # noqa: E402
from qivrora_spider.demo.site_server import Route, SiteServer  # noqa: E402

#: The speed flags of bench/distributed_bench.py (issue 17's settings): a race shows more at speed.
FLAGS = (
    "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8",
    "-s", "QIVRORA_STATE=",
)
#: Scrapy's DEFAULT_REQUEST_HEADERS, plus the header that names the worker in the server's log.
SCRAPY_HEADERS = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "Accept-Language": "en"}
WORKER_HEADER = "X-Bench-Worker"
AUDITOR = "this worker audits the facts of all"
#: Seconds a crawl may take before its workers are killed and the benchmark stops.
WAIT_AT_MOST = 300


@dataclass(frozen=True)
class Received:
    """One request as the server received it."""

    at: float
    run: int
    worker: str
    port: int
    method: str
    url: str
    status: int | str

    def line(self) -> str:
        return f"{self.at:.6f} {self.run} {self.worker} {self.port} {self.method} {self.url} {self.status}"


class LoggingSiteServer(SiteServer):
    """The test server, logging each request it receives (time, worker, connection) to a file too."""

    def __init__(self, access_log: Path, lock: threading.Lock) -> None:
        self.access_log = access_log
        self.received: list[Received] = []
        self.run = 0
        self._file_lock = lock
        #: Seconds each answer waits besides (a slower site: both workers stay busy longer).
        self.delay = 0.0
        super().__init__()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        base = super()._handler_class()
        server = self

        class Handler(base):  # type: ignore[misc, valid-type]
            def _answer(self, with_body: bool) -> None:
                # Logged on receipt, before answering: a request the server drops is logged too.
                route = server.routes.get(self.path, server.not_found)
                received = Received(
                    time.time(), server.run, self.headers.get(WORKER_HEADER, "-"), self.client_address[1],
                    self.command, server.base + self.path, "reset" if route.reset else route.status,
                )
                with server._file_lock:
                    server.received.append(received)
                    with server.access_log.open("a", encoding="utf-8") as log:
                        log.write(received.line() + "\n")
                if server.delay:
                    time.sleep(server.delay)
                super()._answer(with_body)

        return Handler


def add_chunked_pdfs(site: LoggingSiteServer, count: int) -> None:
    """`count` PDFs of a few bytes on `site`, served chunked, linked from its home page."""
    if not count:
        return
    paths = [f"/downloads/leaflet-{number}.pdf" for number in range(1, count + 1)]
    site.routes.update({path: Route(PDF, content_type="application/pdf", chunked=True) for path in paths})
    home = site.routes["/"]
    links = "".join(f'<a href="{path}">leaflet</a>\n' for path in paths)
    home.body = str(home.body).replace("</body>", links + "</body>", 1)


@dataclass
class Crawl:
    number: int
    seconds: float
    joined: float  # seconds until all workers had joined
    received: list[Received]
    stats: list[dict[str, Any]]
    audited: list[bool]
    findings: list[str]  # the rows of all workers' feeds, header left out, sorted
    same_findings: bool | None = None
    logs: list[Path] = field(default_factory=list)

    def duplicates(self, method: str) -> dict[str, list[Received]]:
        by_url: defaultdict[str, list[Received]] = defaultdict(list)
        for request in self.received:
            if request.method == method:
                by_url[request.url].append(request)
        return {url: times for url, times in by_url.items() if len(times) > 1}


def crawl(number: int, start: str, redis_url: str, work: Path, servers: list[LoggingSiteServer], args: Any) -> Crawl:
    client = Redis.from_url(redis_url)
    client.flushall()
    for server in servers:
        server.run = number
        server.received.clear()
        server.gate.clear()
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "settings.distributed"}
    extra = tuple(flag for setting in args.set for flag in ("-s", setting))
    processes, logs, outputs, stats_files = [], [], [], []
    started = time.perf_counter()
    for index in range(args.workers):
        name = f"run{number:03d}-worker{index}"
        logs.append(work / f"{name}.log")
        outputs.append(work / f"{name}.csv")
        stats_files.append(work / f"{name}.json")
        headers = json.dumps({**SCRAPY_HEADERS, WORKER_HEADER: str(index)})
        command = [
            sys.executable, "-m", "scrapy", "crawl", "hreflang", "-a", f"start={start}", *FLAGS,
            "-s", f"LOG_LEVEL={args.log_level}", "-s", f"REDIS_URL={redis_url}",
            "-s", f"DEFAULT_REQUEST_HEADERS={headers}", *stats_flags(stats_files[-1], qivrora=True),
            *extra, "-O", str(outputs[-1]),
        ]
        with logs[-1].open("wb") as log:
            processes.append(subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                              stdout=log, stderr=log))
    try:
        # The site answers nobody until every worker has joined the crawl: both share it from its
        # first request, whichever started faster (a worker alone would crawl the small site alone).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and all(p.poll() is None for p in processes):
            if sum(int(client.zcard(key)) for key in client.scan_iter("qivrora:*:workers")) >= args.workers:
                break
            time.sleep(0.01)
        joined = time.perf_counter() - started
        for server in servers:
            server.gate.set()
        for process in processes:
            process.wait(timeout=max(1.0, WAIT_AT_MOST - (time.perf_counter() - started)))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    seconds = time.perf_counter() - started
    for index, (process, log) in enumerate(zip(processes, logs)):
        if process.returncode != 0:
            raise RuntimeError(f"run {number}, worker {index}: exit {process.returncode}\n{log.read_text()[-3000:]}")
    time.sleep(0.05)  # a handler thread may still be writing its line
    received = sorted((r for server in servers for r in server.received), key=lambda r: r.at)
    rows: list[str] = []
    for output in outputs:
        rows += output.read_text(encoding="utf-8").splitlines()[1:]
    return Crawl(
        number, seconds, joined, received,
        [json.loads(path.read_text()) for path in stats_files],
        [AUDITOR in log.read_text(errors="replace") for log in logs],
        sorted(rows), logs=logs,
    )


def report(crawls: list[Crawl], workers: int) -> list[str]:
    lines = [
        table_row("run", "wall s", "all joined at s", "requests received", "requests of each worker (server log)", "auditor",
             "retries (stats)", "URLs requested twice or more: GET", "HEAD", "findings", "same findings as run 1"),
        "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for done in crawls:
        each = Counter(r.worker for r in done.received)
        retries = sum(int(s.get("retry/count", 0)) for s in done.stats)
        lines.append(table_row(
            done.number, f"{done.seconds:.1f}", f"{done.joined:.1f}", len(done.received),
            ", ".join(str(each[str(i)]) for i in range(workers)),
            ", ".join(str(i) for i, a in enumerate(done.audited) if a) or "none",
            retries, len(done.duplicates("GET")), len(done.duplicates("HEAD")), len(done.findings),
            "yes" if done.same_findings else "**no**",
        ))
    total = {method: sum(len(c.duplicates(method)) for c in crawls) for method in ("GET", "HEAD")}
    requests = [len(c.received) for c in crawls]
    lines += [
        "",
        f"{len(crawls)} crawls, {min(requests)}-{max(requests)} requests each ({sum(requests):,} in all); "
        f"URLs requested more than once: GET {total['GET']}, HEAD {total['HEAD']}; "
        f"crawls whose findings differ from run 1's: {sum(not c.same_findings for c in crawls)}.",
    ]
    for done in crawls:
        for method in ("GET", "HEAD"):
            for url, times in done.duplicates(method).items():
                lines.append(f"\nRun {done.number}, {method} {url}, {len(times)} times:")
                lines += [f"- {r.line()}" for r in times]
    return lines


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--delay", type=float, default=0.8,
        help="seconds each answer waits: the demo crawl must outlast an idle worker's 5 s engine heartbeat, "
        "or the worker that got going first fetches every URL alone (0: as fast as it goes)",
    )
    parser.add_argument(
        "--chunked-pdfs", type=int, default=0, metavar="N",
        help="add N small PDFs to the shop, served chunked and linked from its home page: the spider stops "
        "such a download at its headers, which closed a connection Twisted had put back in its pool "
        "(qivrora_spider/download_handlers.py)",
    )
    parser.add_argument("--log-level", default="INFO", help="the workers' LOG_LEVEL (DEBUG logs every request)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a Scrapy setting for every worker alike (repeatable)")
    parser.add_argument("--keep", type=Path, help="keep every crawl's logs, outputs and the access log here "
                        "(default: only those of crawls with a duplicate, in a folder printed at the end)")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "duplicates-last-run.md")
    args = parser.parse_args(argv)
    lines = [
        *report_header("Duplicate fetches", "duplicate_fetches.py", argv),
        f"- {args.workers} workers started together per crawl, on the demo site (two hosts)"
        f"{f' plus {args.chunked_pdfs} small PDFs served chunked' if args.chunked_pdfs else ''}, each answer "
        f"after {args.delay:g} s; duplicates counted from the server's own request log", "",
    ]
    keep = args.keep or Path(tempfile.mkdtemp(prefix="qivrora-duplicates-kept-"))
    keep.mkdir(parents=True, exist_ok=True)
    crawls: list[Crawl] = []
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="qivrora-duplicates-") as folder:
        work = Path(folder)
        access_log = work / "access.log"
        shop, store = LoggingSiteServer(access_log, lock), LoggingSiteServer(access_log, lock)
        with shop, store, redis_server(work) as redis_url:
            build_demo_site(shop, store)
            shop.delay = store.delay = args.delay
            add_chunked_pdfs(shop, args.chunked_pdfs)
            for number in range(1, args.runs + 1):
                done = crawl(number, shop.url("/"), redis_url, work, [shop, store], args)
                done.same_findings = not crawls or done.findings == crawls[0].findings
                crawls.append(done)
                twice = {m: len(done.duplicates(m)) for m in ("GET", "HEAD")}
                print(f"  run {number}: {done.seconds:.1f} s, {len(done.received)} requests, "
                      f"twice {twice}, findings {len(done.findings)}"
                      f"{'' if done.same_findings else ' (DIFFERENT)'}", file=sys.stderr, flush=True)
                if args.keep or any(twice.values()) or not done.same_findings:
                    for path in work.glob(f"run{number:03d}-*"):
                        shutil.copy2(path, keep / path.name)
                for path in work.glob(f"run{number:03d}-*"):
                    path.unlink()
        shutil.copy2(access_log, keep / "access.log")
    lines += report(crawls, args.workers)
    lines += ["", f"Kept (logs of crawls with a duplicate, the access log): `{keep}`"]
    return write_report(lines, args.output)


if __name__ == "__main__":
    main()
