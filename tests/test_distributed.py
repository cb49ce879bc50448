"""Distributed crawls: workers on one Redis crawl a site as one crawl, fetch every URL once between
them, and one of them audits the facts of all, exactly as a single crawl would.

A real `redis-server` (Debian's package; .ci/run installs it) runs on 127.0.0.1 on a free port, in
a temporary folder, saving nothing; the workers are `scrapy crawl` processes, as users run them.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Iterator

import pytest
from redis import Redis
from redis.exceptions import NoPermissionError
from scrapy import FormRequest, Request
from scrapy.crawler import AsyncCrawlerRunner
from scrapy.exceptions import StopDownload
from scrapy.http import Headers
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from qivrora_spider.demo.redis_server import RedisMissing, TlsFiles, redis_server, running_redis
from qivrora_spider.demo.site import build_demo_site
from qivrora_spider.demo.site_server import Route, SiteServer, html_page
from qivrora_spider.distributed.extensions import SharedAuditExtension
from qivrora_spider.distributed import shared
from qivrora_spider.distributed.codec import (
    Refused,
    decode_request,
    decode_rules,
    encode_request,
    encode_rules,
    request_dict,
)
from qivrora_spider.distributed.scheduler import SharedScheduler
from qivrora_spider.distributed.shared import (
    AUDIT,
    DONE,
    LEFT,
    SETTLE,
    WAIT,
    SharedCrawl,
    crawl_key,
    facts_from_redis,
)
from qivrora_spider import outcome
from qivrora_spider.fact_lines import fact_line
from qivrora_spider.facts import CrawlInfo, Page, SitemapEntry
from qivrora_spider.settings import QIVRORA_WORKER_TIMEOUT
from qivrora_spider.spiders.hreflang import HreflangSpider

from .conftest import ROOT, project_settings
from .fixture_sites import url_entry, urlset
from .test_false_green import COMMAND, environment

pytestmark = pytest.mark.slow  # every test starts a redis-server

FAST = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "QIVRORA_STATE="]
#: Seconds a test waits for a process at most.
WAIT_AT_MOST = 120


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    try:
        with redis_server(tmp_path) as url:
            yield url
    except RedisMissing:
        pytest.skip("Debian's redis-server package is not installed (.ci/run installs it)")


def shared_crawl(server: Redis, name: str, **options: object) -> SharedCrawl:
    """A worker's view of crawl `name`, counted out as a real one is: after the default timeout."""
    return SharedCrawl(server, name, timeout=QIVRORA_WORKER_TIMEOUT, **options)  # type: ignore[arg-type]


@contextmanager
def two_workers(server: Redis, name: str) -> Iterator[tuple[SharedCrawl, SharedCrawl]]:
    """Two workers of crawl `name`, joined in this order (so the first is the reader), closed after."""
    first, second = shared_crawl(server, name), shared_crawl(server, name)
    first.join()
    second.join()
    try:
        yield first, second
    finally:
        for worker in (first, second):
            worker.close(CrawlInfo(started=""))


@dataclass
class Scrapy:
    """A `scrapy` command running, its log in a file: two workers wait for each other, so neither
    may block on a full pipe while the test reads the other's."""

    process: subprocess.Popen[bytes]
    log: Path

    def finish(self) -> str:
        try:
            self.process.wait(timeout=WAIT_AT_MOST)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"still running after {WAIT_AT_MOST} s:\n{self.tail()}") from None
        log = self.log.read_text()
        assert self.process.returncode == 0, self.tail()
        for sign in ("Traceback", "] ERROR:", "[py.warnings]"):
            assert sign not in log, self.tail()
        return log

    def tail(self) -> str:
        return self.log.read_text()[-3000:]


def scrapy(log: Path, *args: str, env: dict[str, str] | None = None) -> Scrapy:
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "scrapy", *args],
            cwd=ROOT, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=stderr,
        )
    return Scrapy(process, log)


def with_status_rounds(site: SiteServer, other: SiteServer) -> None:
    """The demo plus a sitemap entry that redirects off the site, twice: statuses nobody GETs, taken
    with HEAD in two rounds once the crawl has settled."""
    site.routes["/robots.txt"].body += f"Sitemap: {site.url('/retired.xml')}\n"  # type: ignore[operator]
    retired = urlset(url_entry(site.url("/en/retired/")))
    site.routes["/retired.xml"] = Route(retired, content_type="application/xml")
    site.routes["/en/retired/"] = Route("", status=301, headers=[("Location", other.url("/moved/"))])
    other.routes["/moved/"] = Route("", status=301, headers=[("Location", other.url("/moved-again/"))])
    other.routes["/moved-again/"] = Route(html_page(lang="en"))


def test_two_workers_fetch_each_url_once_and_one_of_them_audits_as_a_single_crawl(
    redis_url, site, other_site, tmp_path
):
    build_demo_site(site, other_site)
    with_status_rounds(site, other_site)
    routes = [*site.routes.values(), *other_site.routes.values()]
    for route in routes:
        route.delay = 0.5  # the first worker cannot finish alone while the second one starts
    start = site.url("/")
    distributed = {"SCRAPY_SETTINGS_MODULE": "settings.distributed"}
    worker = ["crawl", "hreflang", "-a", f"start={start}", *FAST, "-s", f"REDIS_URL={redis_url}",
              "-s", "CONCURRENT_REQUESTS=4"]
    redis = Redis.from_url(redis_url)

    def counted(kind: str) -> int:
        return sum(int(redis.zcard(key)) for key in redis.scan_iter(f"qivrora:*:{kind}"))

    def wait_until(condition: Callable[[], bool], why: str) -> None:
        deadline = time.monotonic() + 60
        while not condition():
            assert first.process.poll() is None and time.monotonic() < deadline, why
            time.sleep(0.05)

    first = scrapy(tmp_path / "first.log", *worker, "-O", str(tmp_path / "first.csv"), env=distributed)
    wait_until(lambda: counted("requests") > 0, "the first worker queued nothing")
    second = scrapy(tmp_path / "second.log", *worker, "-O", str(tmp_path / "second.csv"), env=distributed)
    wait_until(lambda: counted("workers") == 2, "the second worker did not join")
    for route in routes:
        route.delay = 0
    logs = [first.finish(), second.finish()]

    requested = {server.base: server.requests() for server in (site, other_site)}
    for base, counts in requested.items():
        assert set(counts.values()) == {1}, f"fetched more than once on {base}: {counts}"
    assert other_site.requests("HEAD") == {"/moved/": 1, "/moved-again/": 1}, "both status rounds"
    for log in logs:
        assert "'downloader/request_count'" in log, "each worker fetched its share"

    auditor = [n for n, log in enumerate(logs) if "this worker audits the facts of all" in log]
    assert len(auditor) == 1, "one audit"
    outputs = [(tmp_path / name).read_text() if (tmp_path / name).exists() else None for name in ("first.csv", "second.csv")]
    assert outputs[1 - auditor[0]] is None, "the other worker did not audit: it writes no findings file"
    kept = {key.decode().rsplit(":", 1)[1] for key in redis.keys("qivrora:*")}
    assert kept == {"audited", "done", "facts"}, "the frontier is cleared, the facts stay"

    for server in (site, other_site):
        server.log.clear()
    scrapy(tmp_path / "single.log", "crawl", "hreflang", "-a", f"start={start}", *FAST,
           "-O", str(tmp_path / "single.csv")).finish()
    single = (tmp_path / "single.csv").read_text()
    assert "HL201" in single and "SM001" in single
    assert outputs[auditor[0]] == single, "the findings of the single-process crawl, row for row"
    assert {server.base: server.requests() for server in (site, other_site)} == requested, "the same URLs"

    by_hand = tmp_path / "by-hand.csv"
    scrapy(tmp_path / "report.log", "hreflang-report", "--redis", redis_url, "-O", str(by_hand)).finish()
    assert by_hand.read_text() == single


def test_a_robots_txt_one_worker_received_for_another_origin_is_taken_once_by_any_worker(redis_url):
    """http:// to https://: the worker that first needs the target's rules, whichever, reads the response
    received rather than fetching the same URL again (test_crawl.py has the single crawl's)."""
    server = Redis.from_url(redis_url)
    a, b = shared_crawl(server, "redirected"), shared_crawl(server, "redirected")
    url = "https://www.a.example/robots.txt"
    a.keep_robots_response(url, b"answer")
    assert a.take_robots_response("https://a.example/robots.txt") is None
    assert b.take_robots_response(url) == b"answer"
    assert a.take_robots_response(url) is None, "taken once: the origin's rules are shared from then on"


def test_an_idle_worker_waits_until_nothing_is_queued_nobody_is_busy_and_no_status_is_pending(redis_url):
    server = Redis.from_url(redis_url)
    info = CrawlInfo(started="2026-11-01T00:00:00+00:00", start_urls=["https://a.example/"])
    with two_workers(server, "protocol") as (a, b):
        server.zadd(a.key("requests"), {b"request": 0})
        assert a.idle() == WAIT, "a request is queued, and b is busy from joining"
        assert b.exchange(take=8) == ([(1, b"request")], [], []), "all there is, under lease 1"
        assert a.idle() == WAIT, "b holds the request"
        b.exchange(acknowledged=[1])
        b.note_pending(["https://a.example/moved/"])
        assert not server.exists(b.key("pending")), "kept by b until it stores them, idle at the latest"
        assert b.idle() == SETTLE, "nothing queued, nobody busy, a status pending: b collects it"
        assert a.idle() == WAIT, "b is busy collecting"
        assert b.take_pending() == ["https://a.example/moved/"]
        assert b.idle() == SETTLE, "taken, but held by b until its requests for them are queued"
        b.take_pending()
        b.settled()
        assert b.idle() == DONE and a.idle() == DONE

        a.add_fact(info)
        a.store()
        assert b.leave(info) == WAIT, "a has not seen the crawl done yet"
        assert b.leave(info) == WAIT, "a has not finished: b cannot know whether it holds more"
        assert a.leave(info) == AUDIT, "a, the reader, holds the most facts: it has the fewest to read back"
        assert b.leave(info) == LEFT
        assert [type(fact) for fact in a.facts()] == [CrawlInfo] * 3, "a's fact, then each worker's CrawlInfo"
        a.depart()
        assert not server.exists(*(a.key(name) for name in ("requests", "dupefilter", "workers", "finished")))

        late = shared_crawl(server, "protocol")
        late.join()
        assert not server.exists(a.key("facts")), "a worker after the end starts a new crawl"
        late.close(info)


def test_an_exchange_stores_the_facts_queues_what_the_filter_has_not_seen_and_takes_the_lowest_scores(
    redis_url,
):
    server = Redis.from_url(redis_url)
    info = CrawlInfo(started="2026-11-01T00:00:00+00:00")
    with two_workers(server, "exchange") as (a, b):
        a.add_fact(info)
        a.note_pending(["https://a.example/gone/"])
        assert a.exchange([("fp-x", 0, b"x", ""), ("fp-y", -1, b"y", "")]) == ([], [], []), "nothing taken when none asked"
        assert list(a.facts()) == [info] and server.smembers(a.key("pending")) == {b"https://a.example/gone/"}
        assert b.idle() == WAIT and a.idle() == WAIT, "two requests queued"

        found = [("fp-x", 0, b"x again", ""), ("", 0, b"unfiltered", ""), ("fp-z", 5, b"z", ""), ("fp-z", 5, b"z twice", "")]
        taken, seen, _ = b.exchange(found, take=3)
        assert seen == [0, 3], "the places of the requests already seen, in one exchange or an earlier one"
        assert taken == [(1, b"y"), (2, b"unfiltered"), (3, b"x")], "the lowest scores first (scrapy-redis: -priority)"
        assert a.idle() == WAIT, "b is busy: it took requests"
        assert b.exchange(take=3) == ([(4, b"z")], [], [])
        assert b.exchange(take=3, acknowledged=[1, 2, 3, 4]) == ([], [], [])
        assert b.idle() == SETTLE, "nothing queued, nobody busy, a status pending"


def test_an_exchange_hands_a_worker_the_urls_the_others_asked_for_since_its_last_one(redis_url):
    """Only those queued, never its own, as many at a time as it asks for; storing facts leaves them."""
    server = Redis.from_url(redis_url)
    info = CrawlInfo(started="2026-11-01T00:00:00+00:00")
    with two_workers(server, "asked") as (a, b):
        found = [("fp-1", 0, b"1", "https://a.example/1/"), ("fp-2", 0, b"2", "https://a.example/2/")]
        assert a.exchange(found).asked == [], "its own are not handed back to it"
        b.add_fact(info)
        b.store()
        again = [("fp-2", 0, b"2 again", "https://a.example/2/"), ("", 0, b"unfiltered", "")]
        assert b.exchange([*again, ("fp-3", 0, b"3", "https://a.example/3/")]).asked == [
            "https://a.example/1/", "https://a.example/2/"
        ], "what a queued, read before storing the facts, and before b's own are listed"
        assert a.exchange().asked == ["https://a.example/3/"], "b's request queued, not the one dropped"
        assert a.exchange().asked == [] and b.exchange().asked == []

        many = [(f"fp-{n}", 0, b"r", f"https://a.example/{n}/") for n in range(10, 15)]
        a.exchange(many)
        assert b.exchange(asked=2).asked == ["https://a.example/10/", "https://a.example/11/"], "two at a time"
        b.exchange([("fp-20", 0, b"r", "https://a.example/20/")], asked=2)
        assert b.exchange().asked == ["https://a.example/14/", "https://a.example/20/"], (
            "a worker with more to read than it may reads its own among them"
        )


def test_a_worker_asks_for_no_url_another_worker_has_queued(redis_url):
    """The scheduler hands the URLs of an exchange to its spider, which claims them: it builds no
    request for them, so none reaches the shared filter."""

    def worker() -> tuple[HreflangSpider, SharedScheduler]:
        crawler = AsyncCrawlerRunner(project_settings(
            ADDONS={"qivrora_spider.distributed.DistributedCrawl": 0}, REDIS_URL=redis_url, QIVRORA_CRAWL_KEY="handed",
        )).create_crawler(HreflangSpider)
        crawler.spider = crawler._create_spider(start="https://a.example/")
        crawler._apply_settings()
        crawler.engine = crawler._create_engine()  # built, not started: the scheduler sets its heartbeat
        scheduler = SharedScheduler.from_crawler(crawler)
        scheduler.open(crawler.spider)
        scheduler.join()
        return crawler.spider, scheduler  # type: ignore[return-value]

    (first, first_scheduler), (second, second_scheduler) = worker(), worker()
    try:
        for request in first.document("https://a.example/en/", depth=1):
            first_scheduler.enqueue_request(request)
        first_scheduler.exchange(0)
        assert list(second.document("https://a.example/de/", depth=1)), "a URL nobody asked for"
        second_scheduler.exchange(0)
        assert not list(second.document("https://a.example/en/", depth=1)), "the first worker queued it"
        assert first.memory.seen == {"https://a.example/en/"}, "not handed back its own"
    finally:
        for scheduler in (first_scheduler, second_scheduler):
            scheduler.shared.close(CrawlInfo(started=""))


def test_the_auditor_keeping_a_state_warns_of_pages_fetched_by_workers_without_fingerprints(tmp_path, caplog):
    """Workers fingerprint only where they keep a state, as a single crawl does."""
    stateful, stateless = (
        SharedAuditExtension(get_crawler(settings_dict={"QIVRORA_SEVERITY": {}, "QIVRORA_AUDIT_PROCESSES": 1, "QIVRORA_STATE": state, "QIVRORA_OUTAGE_SHARE": 0.5}))
        for state in (str(tmp_path / "state.sqlite"), "")
    )
    for extension in (stateful, stateless):
        for number, fingerprint in enumerate(("f0", None, None)):
            url = f"https://a.example/{number}/"
            extension.store.add(Page(url, url, status=200, is_html=True, fingerprint=fingerprint))
        extension.store.add(Page("https://a.example/gone/", "https://a.example/gone/", status=404))
    stateless.warn_of_pages_without_fingerprint()
    assert "keep no crawl state" not in caplog.text, "no state to compare with: nothing to warn of"
    stateful.warn_of_pages_without_fingerprint()
    assert "2 pages were fetched by workers that keep no crawl state" in caplog.text


def test_the_reader_lacks_only_the_facts_of_the_others_and_any_other_worker_all_of_them(redis_url):
    server = Redis.from_url(redis_url)
    with two_workers(server, "own") as (a, b):
        facts = [CrawlInfo(started=f"2026-11-0{day}T00:00:00+00:00") for day in range(1, 7)]
        for worker, some in ((a, facts[0:2]), (b, facts[2:3]), (a, facts[3:4]), (a, facts[4:5]), (b, facts[5:6])):
            for fact in some:
                worker.add_fact(fact)
            worker.exchange()
        assert list(a.facts()) == list(b.facts()) == facts
        assert list(a.lacking_facts()) == [facts[2], facts[5]], "the reader keeps its own"
        assert list(b.lacking_facts()) == facts, "the others keep none"


def test_when_the_reader_is_gone_another_worker_audits_and_reads_every_fact(redis_url):
    server = Redis.from_url(redis_url)
    info = CrawlInfo(started="2026-11-01T00:00:00+00:00")
    facts = [CrawlInfo(started=f"2026-11-0{day}T00:00:00+00:00") for day in range(1, 3)]
    other = shared_crawl(server, "orphaned")
    # The reader started the crawl and stored a fact, then died.
    server.zadd(other.key("workers"), {b"reader:1:x": int(time.time())})
    server.rpush(other.key("facts"), fact_line(facts[0]))
    other.join()
    try:
        assert not other.reader
        other.add_fact(facts[1])
        other.store()
        server.zadd(other.key("workers"), {b"reader:1:x": 1})  # nothing heard since 1970
        assert other.idle() == DONE
        assert other.leave(info) == AUDIT, "the only worker left, holding nothing"
        assert list(other.lacking_facts()) == [*facts, info], "its own included, then its CrawlInfo"
        other.depart()
    finally:
        other.close(info)


def test_the_worker_that_started_the_crawl_reads_the_others_facts_as_they_come_and_so_audits(
    redis_url, monkeypatch
):
    """The reader takes the others' facts a call at a time, up to the length its last exchange saw;
    holding its own and those, it audits, and reads only the rest."""
    monkeypatch.setattr(shared, "FACTS_PER_CALL", 2)
    server = Redis.from_url(redis_url)
    info = CrawlInfo(started="2026-11-01T00:00:00+00:00")
    facts = [CrawlInfo(started=f"2026-11-0{day}T00:00:00+00:00") for day in range(1, 8)]
    with two_workers(server, "reading") as (reader, other):
        assert reader.reader and not other.reader
        for fact in facts[0:4]:
            other.add_fact(fact)
        other.store()
        assert not reader.others_waiting(), "its last exchange saw none of them"
        reader.add_fact(facts[4])
        reader.store()
        assert reader.others_waiting() and not other.others_waiting()
        assert list(reader.lacking_facts(listed=True)) == facts[0:4]
        assert not reader.others_waiting()

        other.add_fact(facts[5])
        reader.add_fact(facts[6])
        other.store()
        reader.store()
        assert reader.idle() == WAIT and other.idle() == DONE
        assert other.leave(info) == WAIT, "reader has not finished"
        assert reader.leave(info) == AUDIT, "it holds its 2 facts and the 4 it read; other keeps none"
        assert other.leave(info) == LEFT
        rest = list(reader.lacking_facts())
        assert rest == [facts[5], info, info], "what it had not read, then the CrawlInfo of each"
        reader.depart()


def test_the_readers_store_takes_the_others_facts_as_its_own_arrive_and_the_others_keep_none(
    redis_url, monkeypatch
):
    monkeypatch.setattr(shared, "FACTS_PER_CALL", 2)
    server = Redis.from_url(redis_url)
    with two_workers(server, "store") as (reader, other):
        extension, others_extension = (
            SharedAuditExtension(get_crawler(HreflangSpider, {"QIVRORA_SEVERITY": {}, "QIVRORA_AUDIT_PROCESSES": 1, "QIVRORA_STATE": "", "QIVRORA_OUTAGE_SHARE": 0.5}))
            for _ in range(2)
        )
        monkeypatch.setitem(SharedCrawl._of, extension.crawler, reader)
        monkeypatch.setitem(SharedCrawl._of, others_extension.crawler, other)
        theirs = [Page(f"https://a.example/{n}/", f"https://a.example/{n}/", status=200) for n in range(3)]
        for page in theirs:
            others_extension.item_scraped(page)
        other.store()
        assert len(others_extension.store) == 0 and len(list(other.facts())) == 3, "stored, not kept"
        mine = Page("https://a.example/mine/", "https://a.example/mine/", status=200)
        extension.item_scraped(mine)
        assert set(extension.store.pages) == {mine.url}, "kept; the others' are not listed to it yet"
        reader.store()
        extension.item_scraped(Page("https://a.example/also/", "https://a.example/also/", status=200))
        assert set(extension.store.pages) >= {page.url for page in theirs} | {mine.url}


def test_requests_are_serialised_as_scrapy_serialises_them():
    spider = HreflangSpider(start="https://a.example/")
    requests = [
        *spider.document("https://a.example/en/", depth=1),
        *spider.sitemap("https://a.example/sitemap.xml", via="robots"),
        spider.status("https://a.example/moved/"),
        FormRequest("https://a.example/search", formdata={"q": "x"}, callback=spider.parse_status),
    ]
    assert len(requests) == 4
    for request in requests:
        assert request_dict(request, spider) == request.to_dict(spider=spider)
    with pytest.raises(ValueError, match="not an instance method"):
        request_dict(Request("https://a.example/", callback=lambda response: None), spider)
    for request in requests:
        entry = encode_request(request, spider)
        assert entry.startswith(b"{"), "JSON"
        assert decode_request(entry, spider).to_dict(spider=spider) == request.to_dict(spider=spider)


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        (pickle.dumps({"url": "https://a.example/"}), "not JSON"),
        (b'["https://a.example/"]', "not a request"),
        (b'{"url": "https://a.example/", "callback": "closed", "headers": {}, "body": ""}', "unknown callback 'closed'"),
        (b'{"url": "https://a.example/", "errback": "__init__", "headers": {}, "body": ""}', "unknown errback"),
        (b'{"url": "https://a.example/", "_class": "os.system", "headers": {}, "body": ""}', "not a request class"),
        (b'{"url": "https://a.example/", "headers": [], "body": ""}', "not a request"),
    ],
)
def test_a_queue_entry_this_crawl_did_not_write_is_refused_unrun(entry, why):
    with pytest.raises(Refused, match=why):
        decode_request(entry, HreflangSpider(start="https://a.example/"))


def test_shared_robots_rules_are_json_parsed_again_and_a_pickle_is_refused():
    parser, status = decode_rules(encode_rules(200, "User-agent: *\nDisallow: /private/\n"))
    assert status == 200 and parser is not None
    assert not parser.can_fetch("https://a.example/private/x", "qivrora") and parser.can_fetch("https://a.example/", "q")
    assert decode_rules(encode_rules(404, None)) == (None, 404)
    with pytest.raises(Refused, match="not JSON"):
        decode_rules(pickle.dumps((None, 200)))
    with pytest.raises(Refused, match="not robots.txt rules"):
        decode_rules(b'{"status": "200", "rules": 1}')


def test_the_worker_that_holds_the_most_facts_audits_though_it_finished_first(redis_url):
    server = Redis.from_url(redis_url)
    info = CrawlInfo(started="2026-11-01T00:00:00+00:00")
    most, fewer = shared_crawl(server, "most"), shared_crawl(server, "most")
    for worker, count in ((most, 3), (fewer, 1)):
        worker.join()
        for _ in range(count):
            worker.add_fact(info)
        worker.store()
    try:
        assert most.idle() == WAIT and fewer.idle() == DONE
        assert most.leave(info) == WAIT, "fewer has not finished"
        assert fewer.leave(info) == WAIT, "most audits: fewer waits until it has seen so"
        assert most.leave(info) == AUDIT, "on its next look"
        assert fewer.leave(info) == LEFT

    finally:
        most.close(info)
        fewer.close(info)


def test_a_dead_worker_is_counted_out_after_its_heartbeat_stops(redis_url, caplog):
    server = Redis.from_url(redis_url)
    info = CrawlInfo(started="")
    alive = shared_crawl(server, "silence")
    alive.join()
    try:
        server.zadd(alive.key("workers"), {b"dead:1:x": int(time.time())})
        server.hset(alive.key("robots-owners"), "https://a.example", b"dead:1:x")
        assert alive.idle() == DONE
        assert alive.leave(info) == WAIT, "dead:1:x still counts: its last heartbeat is recent"
        assert alive.robots("https://a.example") is False, "dead:1:x is fetching it"

        server.zadd(alive.key("workers"), {b"dead:1:x": 1})  # nothing heard since 1970
        assert alive.robots("https://a.example") is True, "another worker fetches it"
        other = shared_crawl(server, "silence")
        other.join()
        assert other.robots("https://a.example") is False, "alive is fetching it"
        alive.share_robots("https://a.example", b"rules")
        assert other.robots("https://a.example") == b"rules"
        other.close(info)

        assert alive.leave(info) == AUDIT, "not waiting for a worker that died"
        assert "dead:1:x gave no sign of life" in caplog.text
    finally:
        alive.close(info)


def test_what_a_dead_worker_held_goes_back_past_the_filter_and_an_acknowledged_request_does_not(redis_url, caplog):
    server = Redis.from_url(redis_url)
    with two_workers(server, "leases") as (a, b):
        a.exchange([("fp-1", 0, b"one", "https://a.example/1/"), ("fp-2", 5, b"two", "https://a.example/2/")])
        assert b.exchange(take=2).taken == [(1, b"one"), (2, b"two")]
        b.exchange(acknowledged=[1])
        b.note_pending(["https://a.example/gone/"])
        b.store()
        assert b.take_pending() == ["https://a.example/gone/"]
        server.zadd(a.key("workers"), {b.worker.encode(): 1})  # nothing heard from b since 1970
        assert a.idle() == WAIT, "b's request is queued again"
        assert "counted out of the crawl, and the 1 requests it held go back" in caplog.text
        assert server.zrange(a.key("requests"), 0, -1, withscores=True) == [(b"two", 5.0)], "with its score"
        assert server.smembers(a.key("pending")) == {b"https://a.example/gone/"}, "the statuses it was collecting"
        assert a.exchange([("fp-2", 5, b"two again", "")]).seen == [0], "the filter still knows its URL"
        assert a.handed_back() == 1 and a.counted_out() == [b.worker]


def test_a_worker_started_again_with_its_identity_hands_back_what_it_held_as_it_joins(redis_url, caplog):
    server = Redis.from_url(redis_url)
    info = CrawlInfo(started="")
    first = shared_crawl(server, "again", worker="w1")
    first.join()
    first.exchange([("fp-1", 0, b"one", "")])
    assert first.exchange(take=1).taken == [(1, b"one")]
    # Killed: it never acknowledges. Started again under the same identity, before any timeout.
    again = shared_crawl(server, "again", worker="w1")
    again.join()
    try:
        assert "Worker w1 held 1 requests when it stopped before" in caplog.text
        assert not again.reader, "the crawl under way goes on: it is not started again"
        assert again.exchange(take=1).taken == [(2, b"one")]
    finally:
        again.close(info)
    assert not server.exists(again.key("held:w1")), "a worker that stops hands back what it took"
    assert server.zrange(again.key("requests"), 0, -1) == [b"one"]


def test_the_next_worker_resumes_a_crawl_whose_workers_all_died_and_starts_afresh_after_an_audit(redis_url):
    server = Redis.from_url(redis_url)
    info = CrawlInfo(started="")
    dead = shared_crawl(server, "resumed", worker="dead")
    dead.join()
    dead.exchange([("fp-1", 0, b"one", "https://a.example/1/")])
    server.zadd(dead.key("workers"), {b"dead": 1})
    late = shared_crawl(server, "resumed")
    late.join()
    assert not late.reader and server.zrange(late.key("requests"), 0, -1) == [b"one"], "resumed"
    assert late.exchange(take=1).taken == [(1, b"one")]
    late.exchange(acknowledged=[1])
    assert late.idle() == DONE and late.leave(info) == AUDIT
    late.depart()
    fresh = shared_crawl(server, "resumed")
    fresh.join()
    try:
        assert fresh.reader and not server.exists(fresh.key("facts")), "audited: a new crawl"
    finally:
        fresh.close(info)


def test_a_worker_started_before_the_audit_takes_part_in_no_crawl_and_one_started_after_starts_anew(
    redis_url, monkeypatch, caplog
):
    server = Redis.from_url(redis_url)
    info = CrawlInfo(started="")
    slow = shared_crawl(server, "late", worker="slow")  # started now, opens once the crawl is audited
    auditor = shared_crawl(server, "late", worker="w1")
    auditor.join()
    auditor.add_fact(info)
    auditor.store()
    assert auditor.idle() == DONE and auditor.leave(info) == AUDIT
    auditor.depart()
    facts = server.lrange(auditor.key("facts"), 0, -1)

    assert slow.join() is False, "it belongs to the crawl audited while it started"
    slow.close(info)
    assert "Crawl 'late' was audited by worker w1 while this worker was starting" in caplog.text
    assert not server.exists(slow.key("workers")) and not server.exists(slow.key("busy")), "not registered"
    assert server.lrange(slow.key("facts"), 0, -1) == facts, "the audited crawl's facts stay, nothing added"

    # A machine whose clock is an hour behind Redis's: started after the audit all the same.
    monkeypatch.setattr(shared, "time", SimpleNamespace(time=lambda: time.time() - 3600))
    behind = shared_crawl(server, "late")
    try:
        assert behind.join() and behind.reader and not server.exists(behind.key("facts")), "a new crawl"
    finally:
        behind.close(info)
    monkeypatch.undo()

    server.set(slow.key("audited"), "w1")  # as written before the mark had its time
    server.delete(slow.key("workers"))
    old = shared_crawl(server, "late", started=1.0)
    try:
        assert old.join() and old.reader, "a mark without its time: a new crawl, as before"
    finally:
        old.close(info)


def test_a_worker_slower_to_open_than_the_crawl_lasts_fetches_nothing_and_a_later_one_crawls_again(
    redis_url, site, other_site, tmp_path
):
    """Two workers started together, one of them opening only once the other has crawled and audited
    the whole site (bench/RESULTS.md, 50 two-worker crawls): the slow one fetches nothing. A worker
    started after the audit, as a user running the crawl again, starts a new one."""
    build_demo_site(site, other_site)
    distributed = {"SCRAPY_SETTINGS_MODULE": "settings.distributed"}
    worker = ["crawl", "hreflang", "-a", f"start={site.url('/')}", *FAST, "-s", f"REDIS_URL={redis_url}"]
    slow = scrapy(tmp_path / "slow.log", *worker, "-O", str(tmp_path / "slow.csv"), env=distributed)
    slow.process.send_signal(signal.SIGSTOP)  # started, and held before it opens
    try:
        first_log = scrapy(tmp_path / "first.log", *worker, "-O", str(tmp_path / "first.csv"), env=distributed).finish()
    finally:
        slow.process.send_signal(signal.SIGCONT)
    assert "this worker audits the facts of all" in first_log
    fetched = {server.base: server.requests() for server in (site, other_site)}
    assert all(set(counts.values()) == {1} for counts in fetched.values())

    slow_log = slow.finish()
    assert "while this worker was starting: its findings are with that worker" in slow_log
    assert "starts crawl" not in slow_log and "joins crawl" not in slow_log
    assert {server.base: server.requests() for server in (site, other_site)} == fetched, "fetched nothing"
    assert not (tmp_path / "slow.csv").exists(), "no findings of its own, as any worker that did not audit"

    again_log = scrapy(tmp_path / "again.log", *worker, "-O", str(tmp_path / "again.csv"), env=distributed).finish()
    assert "starts crawl" in again_log and "this worker audits the facts of all" in again_log
    assert {server.base: server.requests() for server in (site, other_site)} == {
        base: counts + counts for base, counts in fetched.items()
    }, "every URL fetched again, once"
    assert (tmp_path / "again.csv").read_text() == (tmp_path / "first.csv").read_text()


def test_the_auditor_says_which_urls_asked_for_lack_facts_and_leaves_out_entries_without_their_sitemap(
    redis_url, monkeypatch, caplog
):
    server = Redis.from_url(redis_url)
    extension = SharedAuditExtension(get_crawler(HreflangSpider, {"QIVRORA_SEVERITY": {}, "QIVRORA_AUDIT_PROCESSES": 1, "QIVRORA_STATE": ""}))
    worker = shared_crawl(server, "complete")
    monkeypatch.setitem(SharedCrawl._of, extension.crawler, worker)
    asked = ["https://a.example/", "https://a.example/lost/", "https://a.example/sitemap.xml"]
    server.rpush(worker.key("asked"), *asked)
    server.sadd(worker.key("gone"), "w2")
    extension.store.add(Page(asked[0], asked[0], status=200))
    extension.store.add(SitemapEntry(sitemap=asked[2], loc=asked[0], url=asked[0]))
    extension.check_complete()
    lost = extension.store.statuses[asked[1]]
    assert lost.not_examined == "lost with worker w2", "HL206 says why"
    assert extension.store.statuses[asked[2]].not_examined == "lost with worker w2"
    assert extension.store.entries == [], "an entry without its sitemap is not judged (SM005)"
    assert extension.crawler.stats.get_value(outcome.STATUS_STAT) == outcome.NOT_AUDITED
    errors = [record for record in caplog.records if record.levelname == "ERROR"]
    assert len(errors) == 1 and "2 URLs the crawl asked for have no facts" in errors[0].getMessage()

    complete = SharedAuditExtension(get_crawler(HreflangSpider, {"QIVRORA_SEVERITY": {}, "QIVRORA_AUDIT_PROCESSES": 1, "QIVRORA_STATE": ""}))
    monkeypatch.setitem(SharedCrawl._of, complete.crawler, worker)
    for url in asked:
        complete.store.add(Page(url, url, status=200))
    complete.check_complete()
    assert complete.crawler.stats.get_value(outcome.STATUS_STAT) is None


def test_crawl_keys_name_the_site_and_hreflang_report_asks_for_one_when_redis_holds_several(redis_url):
    one = CrawlInfo(started="", start_urls=["https://example.com/"], scope=["example.com"])
    other = CrawlInfo(started="", start_urls=["https://example.org/"], scope=["example.org"])
    settings = Settings()
    assert crawl_key(settings, one) == crawl_key(settings, one) != crawl_key(settings, other)
    assert crawl_key(settings, one).startswith("example.com-")
    assert crawl_key(Settings({"QIVRORA_CRAWL_KEY": "shop"}), one) == "shop"
    with pytest.raises(ValueError, match="QIVRORA_CRAWL_KEY"):
        crawl_key(Settings({"QIVRORA_CRAWL_KEY": "a b"}), one)

    server = Redis.from_url(redis_url)
    for name, info in (("com", one), ("org", other)):
        shared = shared_crawl(server, name)
        shared.add_fact(info)
        assert not server.exists(shared.key("facts")), "kept by the worker until it stores them"
        shared.store()
    with pytest.raises(ValueError, match=r"several crawls \(com, org\): name one with --key"):
        list(facts_from_redis(redis_url, None))
    assert list(facts_from_redis(redis_url, "org")) == [other]


def test_a_body_short_enough_to_be_complete_is_read_rather_than_stopped():
    """Stopping such a download closed a connection Twisted had put back in its pool already: the
    next request on it was lost and sent again, a URL fetched twice (seen first across workers)."""
    spider = HreflangSpider(start="https://a.example/")
    pdf = Request("https://a.example/guide.pdf", callback=spider.parse_document)
    headers = Headers({"Content-Type": "application/pdf"})
    spider.headers_received(headers, 40_000, pdf, spider)
    head = Request("https://a.example/", method="HEAD", meta={"qivrora_headers_only": True})
    spider.headers_received(headers, 0, head, spider)
    with pytest.raises(StopDownload):
        spider.headers_received(headers, 5_000_000, pdf, spider)


def test_a_render_crawl_runs_with_the_distributed_profile(redis_url, site, tmp_path):
    """-a render=1 on a worker: it renders the pages it fetches with its own browser."""
    pair = [("en", site.url("/en/")), ("de", site.url("/de/"))]
    site.routes["/en/"] = Route(html_page("<script>" + "".join(
        f"document.head.insertAdjacentHTML('beforeend', '<link rel=\"alternate\" hreflang=\"{lang}\" href=\"{href}\">');"
        for lang, href in pair
    ) + "</script>"))
    site.routes["/de/"] = Route(html_page(*(f'<link rel="alternate" hreflang="{lang}" href="{href}">' for lang, href in pair), lang="de"))
    findings = tmp_path / "findings.csv"
    worker = scrapy(
        tmp_path / "worker.log", "crawl", "hreflang", "-a", f"start={site.url('/en/')}", "-a", "render=1",
        *FAST, "-s", "QIVRORA_RENDER_TIMEOUT=60", "-s", f"REDIS_URL={redis_url}", "-O", str(findings),
        env={"SCRAPY_SETTINGS_MODULE": "settings.distributed"},
    )
    log = worker.finish()
    assert "this worker audits the facts of all" in log
    rows = findings.read_text().splitlines()
    assert [row.split(",")[:1] + row.split(",")[3:4] for row in rows if row.startswith("HL7")] == [
        ["HL701", site.url("/en/")]
    ]
    assert not [row for row in rows if row.startswith(("HL108", "HL201"))], "the graph follows the rendered page"


def test_a_worker_reaches_redis_over_tls_as_a_user_limited_to_its_crawls_keys(site, tmp_path):
    """Debian's redis-server is built with TLS: rediss:// with the CA file in the URL, and an ACL user
    that may touch `qivrora:<key>:*` only (docs/distributed.md)."""
    pair = [("en", site.url("/en/")), ("de", site.url("/de/"))]
    for lang, url in pair:
        site.routes[f"/{lang}/"] = Route(html_page(*(f'<link rel="alternate" hreflang="{l}" href="{u}">' for l, u in pair), lang=lang))
    if shutil.which("redis-server") is None:
        pytest.skip("Debian's redis-server package is not installed (.ci/run installs it)")
    with running_redis(tmp_path, tls=TlsFiles.make(tmp_path)) as server:
        admin = Redis.from_url(server.url)
        admin.acl_setuser("crawler", enabled=True, passwords=["+s3cret"], keys=["qivrora:shop:*"], commands=["+@all", "-@dangerous"])
        url = server.url.replace("rediss://", "rediss://crawler:s3cret@")
        with pytest.raises(NoPermissionError):
            Redis.from_url(url).set("qivrora:other:facts", "x")
        findings = tmp_path / "findings.csv"
        worker = scrapy(
            tmp_path / "worker.log", "crawl", "hreflang", "-a", f"start={site.url('/en/')}", *FAST,
            "-s", f"REDIS_URL={url}", "-s", "QIVRORA_CRAWL_KEY=shop", "-O", str(findings),
            env={"SCRAPY_SETTINGS_MODULE": "settings.distributed"},
        )
        assert "this worker audits the facts of all" in worker.finish()
        assert admin.exists("qivrora:shop:facts") and findings.read_text().startswith("check,")


@pytest.mark.parametrize(
    ("flags", "variables", "named"),
    [(["-s", "QIVRORA_WORKER_ID=w 1"], {}, "w 1"), ([], {"QIVRORA_WORKER_ID": "w/1"}, "w/1")],
    ids=["setting", "environment"],
)
def test_a_worker_id_redis_keys_cannot_hold_stops_the_command_with_one_line_and_status_2(
    flags, variables, named, tmp_path
):
    run = subprocess.run(
        [*COMMAND, "scrapy", "crawl", "hreflang", "-a", "start=http://127.0.0.1:9/", *flags,
         "-s", "REDIS_URL=redis://127.0.0.1:9"],
        cwd=tmp_path, capture_output=True, text=True, timeout=WAIT_AT_MOST,
        env={**environment(), "SCRAPY_SETTINGS_MODULE": "qivrora_spider.settings.distributed", **variables},
    )
    assert run.returncode == outcome.USAGE_ERROR
    assert run.stderr.splitlines() == [
        f"qivrora: QIVRORA_WORKER_ID: {named!r} may hold letters, digits and . _ : - [ ] only"
    ]
