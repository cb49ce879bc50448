"""A distributed crawl loses nothing when a worker dies, or when Redis restarts: each scenario gives the
single-process crawl's findings, every URL of the site fetched.

Real parts: redis-server (with its append-only file where it restarts), `scrapy crawl` worker
processes with the distributed profile, a generated site on loopback. Kill points come from the crawl's
progress in Redis (the facts stored, the requests a worker holds), never from a sleep.
"""

from __future__ import annotations

import csv
import os
import pickle
import signal
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest
from redis import Redis

from qivrora_spider.demo.redis_server import RedisMissing, RedisServer, running_redis
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page

from .fixture_sites import url_entry, urlset
from .test_distributed import FAST, WAIT_AT_MOST, scrapy

pytestmark = pytest.mark.slow

#: Items of the generated site, each an English and a German page (and a sitemap entry).
ITEMS = 120
#: A dead worker is counted out after this many seconds without a heartbeat.
TIMEOUT = 3
Finding = tuple[str, str, str, str]


def generated_site(site: SiteServer) -> None:
    """Pairs of pages linked in a chain, listed in a sitemap; every 7th German page does not link
    back (HL201), every 11th English page names a French one that is missing (HL4xx): findings that
    need the whole graph, so that a lost page shows."""
    site.routes["/robots.txt"] = Route(f"User-agent: *\nSitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    # The start: a home page (a start that answers 404 is no audit, CR001).
    site.routes["/"] = Route(html_page(body=f'<a href="{site.url("/en/p0/")}">start</a>'))
    entries = []
    for item in range(ITEMS):
        en, de, fr = (site.url(f"/{lang}/p{item}/") for lang in ("en", "de", "fr"))
        following = site.url(f"/en/p{(item + 1) % ITEMS}/")
        english = [alternate("en", en), alternate("de", de)] + ([alternate("fr", fr)] if item % 11 == 0 else [])
        german = [alternate("de", de)] + ([] if item % 7 == 0 else [alternate("en", en)])
        link = f'<a href="{following}">next</a>'
        site.routes[f"/en/p{item}/"] = Route(html_page(*english, body=link, lang="en"), delay=0.02)
        site.routes[f"/de/p{item}/"] = Route(html_page(*german, body=link, lang="de"), delay=0.02)
        entries.append(url_entry(en))
    site.routes["/sitemap.xml"] = Route(urlset(*entries), content_type="application/xml", delay=0.3)


class Worker:
    """A `scrapy crawl` worker process with the distributed profile, its log in a file."""

    def __init__(self, folder: Path, name: str, start: str, redis_url: str, *extra: str) -> None:
        self.name = name
        self.findings = folder / f"{name}.csv"
        self.scrapy = scrapy(
            folder / f"{name}.log", "crawl", "hreflang", "-a", f"start={start}", *FAST,
            "-s", f"REDIS_URL={redis_url}", "-s", "CONCURRENT_REQUESTS=4",
            "-s", f"QIVRORA_WORKER_ID={name}", "-O", str(self.findings), *extra,
            env={"SCRAPY_SETTINGS_MODULE": "settings.distributed"},
        )
        self.process, self.log = self.scrapy.process, self.scrapy.log

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def finish(self) -> str:
        return self.scrapy.finish()

    def tail(self) -> str:
        return self.scrapy.tail()


def findings(path: Path) -> set[Finding]:
    with path.open(newline="") as rows:
        return {(row["check"], row["url"], row["target"], row["hreflang"]) for row in csv.DictReader(rows)}


@pytest.fixture(scope="module")
def generated() -> Iterator[SiteServer]:
    with SiteServer() as site:
        generated_site(site)
        yield site


@pytest.fixture(scope="module")
def single(generated: SiteServer, tmp_path_factory: pytest.TempPathFactory) -> set[Finding]:
    """The single-process crawl's findings: what every scenario must give."""
    folder = tmp_path_factory.mktemp("single")
    out = folder / "single.csv"
    scrapy(folder / "single.log", "crawl", "hreflang", "-a", f"start={generated.url('/')}", *FAST, "-O", str(out)).finish()
    found = findings(out)
    assert {"HL201", "HL402"} <= {check for check, *_ in found}
    assert not any(check == "HL206" for check, *_ in found), "the whole site is examined"
    return found


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    try:
        with running_redis(tmp_path, appendonly=True) as server:
            yield server
    except RedisMissing:
        pytest.skip("Debian's redis-server package is not installed (.ci/run installs it)")


def wait_until(condition: Callable[[], bool], why: str, *alive: Worker) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        for worker in alive:
            assert worker.process.poll() is None, f"{why}: {worker.name} exited\n{worker.tail()}"
        assert time.monotonic() < deadline, why
        time.sleep(0.02)


class Crawl:
    """Workers on one Redis and the generated site; progress read from Redis."""

    def __init__(self, site: SiteServer, redis: RedisServer, folder: Path, *, timeout: float = TIMEOUT) -> None:
        self.site, self.redis, self.folder, self.timeout = site, redis, folder, timeout
        self.client = Redis.from_url(redis.url)
        site.log.clear()

    def worker(self, name: str) -> Worker:
        return Worker(
            self.folder, name, self.site.url("/"), self.redis.url, "-s", f"QIVRORA_WORKER_TIMEOUT={self.timeout:g}"
        )

    def count(self, kind: str) -> int:
        return sum(int(self.client.llen(key)) for key in self.client.scan_iter(f"qivrora:*:{kind}"))

    def holds(self, name: str) -> bool:
        return any(self.client.hlen(key) for key in self.client.scan_iter(f"qivrora:*:held:{name}"))

    def started(self) -> tuple[Worker, Worker]:
        """w1 starts the crawl (it reads and audits), w2 joins once requests are queued."""
        first = self.worker("w1")
        wait_until(lambda: any(self.client.scan_iter("qivrora:*:requests")), "w1 queued nothing", first)
        second = self.worker("w2")
        return first, second

    def midway(self, victim: str, *alive: Worker) -> None:
        """A fifth of the pages stored, and `victim` holding requests it has not acknowledged."""
        wait_until(lambda: self.count("facts") >= ITEMS * 2 // 5 and self.holds(victim), f"{victim} midway", *alive)

    def check(self, workers: list[Worker], logs: list[str], expected: set[Finding]) -> None:
        """One of `workers` (their `logs`) audited, and found what the single crawl found, every
        path of the site fetched."""
        auditors = [worker for worker, log in zip(workers, logs) if "this worker audits the facts of all" in log]
        assert len(auditors) == 1, "one audit"
        assert findings(auditors[0].findings) == expected, "the single-process crawl's findings"
        fetched = set(self.site.requests())
        assert {path for path in self.site.routes if path != "/"} <= fetched, "no URL missing"


def test_a_non_auditing_worker_killed_midway_loses_nothing(generated, single, redis, tmp_path):
    crawl = Crawl(generated, redis, tmp_path)
    first, second = crawl.started()
    crawl.midway("w2", first, second)
    second.kill()
    log = first.finish()
    assert "Worker w2 gave no sign of life" in log
    assert "requests went back to the queue from workers that stopped or died" in log
    crawl.check([first], [log], single)


def test_a_killed_worker_restarted_with_its_identity_takes_its_requests_back_at_once(generated, single, redis, tmp_path):
    """A timeout longer than the test may take: only the reclaim lets the crawl end."""
    crawl = Crawl(generated, redis, tmp_path, timeout=WAIT_AT_MOST * 2)
    first, second = crawl.started()
    crawl.midway("w2", first, second)
    second.kill()
    again = crawl.worker("w2")
    logs = [first.finish(), again.finish()]
    assert "Worker w2 held" in logs[1] and "go back to the queue" in logs[1], "reclaimed as it joined"
    assert not any("gave no sign of life" in log for log in logs), "not waiting to be counted out"
    crawl.check([first, again], logs, single)


def test_the_worker_that_started_the_crawl_killed_midway_loses_nothing(generated, single, redis, tmp_path):
    crawl = Crawl(generated, redis, tmp_path)
    first, second = crawl.started()
    crawl.midway("w1", first, second)
    first.kill()
    log = second.finish()
    assert "Worker w1 gave no sign of life" in log
    crawl.check([second], [log], single)


def test_both_workers_killed_and_two_new_ones_finish_the_crawl(generated, single, redis, tmp_path):
    crawl = Crawl(generated, redis, tmp_path)
    first, second = crawl.started()
    crawl.midway("w2", first, second)
    first.kill()
    second.kill()
    third, fourth = crawl.worker("w3"), crawl.worker("w4")
    logs = [third.finish(), fourth.finish()]
    assert all("joins crawl" in log for log in logs), "the crawl under way is resumed, not started again"
    crawl.check([third, fourth], logs, single)


def test_a_redis_restart_midway_is_waited_for(generated, single, redis, tmp_path):
    """The heartbeat timeout exceeds the time Redis is gone, as docs/distributed.md says it must: otherwise the
    workers count each other out once it is back, and fetch what the other held again."""
    crawl = Crawl(generated, redis, tmp_path, timeout=30)
    first, second = crawl.started()
    crawl.midway("w2", first, second)
    redis.restart(gone=5)
    crawl.check([first, second], [first.finish(), second.finish()], single)


def test_a_redis_gone_for_longer_than_the_patience_ends_the_worker_with_one_line_and_status_3(
    generated, redis, tmp_path
):
    crawl = Crawl(generated, redis, tmp_path)
    worker = Worker(tmp_path, "w1", generated.url("/"), redis.url, "-s", "QIVRORA_REDIS_PATIENCE=2")
    wait_until(lambda: crawl.count("facts") >= 20, "w1 midway", worker)
    redis.stop()
    worker.process.wait(timeout=WAIT_AT_MOST)
    log = worker.log.read_text()
    assert worker.process.returncode == 3, worker.tail()
    assert log.count("] ERROR:") == 1 and "Redis did not answer for 2 s (QIVRORA_REDIS_PATIENCE)" in log, worker.tail()
    assert "Traceback" not in log, worker.tail()


class Touch:
    """A pickle that creates a file when it is loaded: what a crafted queue entry would run."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.path}",))


def test_a_pickle_in_the_queue_or_the_robots_rules_runs_nothing_and_the_crawl_goes_on(single, generated, redis, tmp_path):
    """The entries are written before the worker starts, into a crawl marked as under way, so that the
    worker resumes it rather than clearing it: it reads both."""
    crawl = Crawl(generated, redis, tmp_path)
    ran = tmp_path / "ran"
    crafted = pickle.dumps(Touch(ran))
    crawl.client.set("qivrora:crafted:started", "w0")
    crawl.client.zadd("qivrora:crafted:requests", {crafted: -1000})
    crawl.client.hset("qivrora:crafted:robots", generated.base, crafted)
    worker = Worker(tmp_path, "w1", generated.url("/"), redis.url, "-s", "QIVRORA_CRAWL_KEY=crafted")
    worker.process.wait(timeout=WAIT_AT_MOST)
    log = worker.log.read_text()
    assert worker.process.returncode == 0, worker.tail()
    assert not ran.exists(), "the pickle was not loaded"
    assert log.count("] ERROR:") == 2, worker.tail()
    assert "Refused an entry of qivrora:crafted:requests (lease 1): not JSON" in log, worker.tail()
    assert f"Refused the entry '{generated.base}' of qivrora:crafted:robots: not JSON" in log, worker.tail()
    assert findings(worker.findings) == single, "the crawl went on"
