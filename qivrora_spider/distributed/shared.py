"""One distributed crawl as its workers share it in Redis, under one crawl key.

What the workers share: the frontier (scrapy-redis's priority queue, a duplicate filter, and the URLs
asked for, in the order they were queued), the robots.txt rules of each origin, the URLs whose
status is wanted, the facts, and who takes part.
A worker *joins* when it opens (the first one of a crawl clears what an earlier crawl of the key
left), sends a heartbeat every few seconds, is *busy* from joining or taking a request until its
engine is idle again, and *leaves* when it is done or closes.

Every request a worker takes is *held* under a lease until the worker acknowledges it, in the exchange
that stores the facts of its response and queues the requests its callback found (at-least-once, as
Redis's reliable-queue pattern: the move from the queue to the worker's own hash is one step). A
worker counted out hands back what it held: the requests go back to the queue past the duplicate
filter, and a live worker fetches them again. Facts are idempotent (``FactStore``), so a URL
fetched twice is one page in the audit.

The crawl is over when the queue is empty, no worker is busy and no status is pending: the worker
that sees so marks the crawl done. Each worker then *finishes* when it sees the mark, and once all
have, the one that holds the most facts, the auditor, audits the facts of all of them: it has the
fewest to read back while the others are gone. The worker that started the crawl, the *reader*,
keeps its facts and reads the others' as they are stored, so that it is the one, with little left
to read; the others keep none (they audit only if it dies, reading all the facts then). Every
such decision is one Lua script, run by Redis as one step: popping a request marks its worker busy
in the same step, so an empty queue and no busy worker really means that nothing is left to do, and
two workers finishing at once cannot both audit.

A worker that stops its heartbeat for ``QIVRORA_WORKER_TIMEOUT`` seconds (killed, its machine lost)
is counted out, so the others neither wait for it forever nor join a crawl nobody runs any more; what
it held goes back. A worker started again with the same ``QIVRORA_WORKER_ID`` hands back what it
held at once, as it joins. A crawl whose workers all died is resumed by the next worker that joins.

A worker that arrives once the crawl is audited starts a new one on the key, unless its process
started before the audit (``worker_started``): it was started with that crawl and slower to open, so
it belongs to it and ends like any worker that does not audit. Both times are Redis's: the audited
mark carries it, and a worker converts its start with the offset between Redis's clock and its own.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import socket
import threading
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, NamedTuple, Protocol, Sequence
from urllib.parse import urlsplit

from redis import Redis
from redis.backoff import ConstantBackoff
from redis.exceptions import ConnectionError, RedisError, TimeoutError
from redis.retry import Retry
from scrapy_redis.connection import get_redis_from_settings

from ..fact_lines import fact_line, read_facts
from ..facts import CrawlInfo
from ..state.store import history_key

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

#: Every Redis key of a crawl starts with ``qivrora:<crawl key>:``.
PREFIX = "qivrora"
#: Seconds between two tries of a Redis that does not answer (for QIVRORA_REDIS_PATIENCE seconds).
REDIS_RETRY_EVERY = 0.5
#: What a crawl key and a worker id may hold: they are part of Redis keys and of the `--key` users type.
KEY_PATTERN = re.compile(r"[\w.:\[\]-]+")
#: The keys that steer a crawl under way; cleared once it is audited (the facts stay for
#: `hreflang-report --redis`), and with the rest when a new crawl starts on the key.
FRONTIER = (
    "requests", "dupefilter", "asked", "busy", "pending", "robots", "robots-owners", "robots-received", "finished",
    "started", "leases", "gone", "counts",
)
EVERYTHING = (*FRONTIER, "facts", "done", "audited")
#: Facts read back per Redis call. The auditor holds a call's lines while it parses them (about 2 KB
#: a fact) beside the store it builds, and malloc keeps what they took: 500 keep that to 1 MB.
FACTS_PER_CALL = 500
#: Facts and pending statuses a worker keeps at most: they travel with its next exchange of requests
#: (``SharedCrawl.exchange``), or on their own once this many wait, since each round trip blocks the
#: reactor. A worker that dies with some kept has not acknowledged their requests: they are fetched again.
KEPT_AT_MOST = 200

#: URLs asked for by the other workers that one exchange hands a worker at most: a worker joining a
#: long crawl under way gets them over several exchanges, not in one reply of megabytes.
ASKED_AT_MOST = 5000

#: A request taken: its lease (to acknowledge it by) and itself serialised.
Taken = tuple[int, bytes]

#: A request to queue: its fingerprint ('' to queue it unfiltered), its score, itself serialised,
#: and the URL the crawl asks for with it ('' for none), for the other workers to leave alone.
Queued = tuple[str, int, bytes, str]

#: What an idle worker is told: wait for the others, collect the pending statuses, or leave.
WAIT, SETTLE, DONE = "wait", "settle", "done"
#: What a worker leaving a done crawl is told: WAIT for those still working, AUDIT, or it has LEFT.
AUDIT, LEFT = "audit", "left"

#: A crawl built this many seconds after its process started was not started with the process (a
#: service that runs crawls one after another): it counts from when it was built (``worker_started``).
STARTUP_AT_MOST = 60.0
#: When this module was imported: a worker's start where the system does not say when the process did.
IMPORTED = time.time()

#: The Lua scripts, one file each beside this module; those that count out silent workers first
#: start with count_out_silent.lua.
SCRIPTS = Path(__file__).with_name("lua")
_COUNTING_OUT = ("join", "idle", "leave")


def script_source(name: str) -> str:
    """The Lua source of script `name` as Redis runs it."""
    source = (SCRIPTS / f"{name}.lua").read_text()
    if name in _COUNTING_OUT:
        source = (SCRIPTS / "count_out_silent.lua").read_text() + source
    return source


class Exchanged(NamedTuple):
    """What an exchange gives back."""

    #: The requests taken, each with its lease.
    taken: list[Taken]
    #: The places in the requests found of those the duplicate filter had seen: dropped.
    seen: list[int]
    #: URLs the other workers asked for since this worker's last exchange: a worker that leaves them
    #: alone sends no request for them to the duplicate filter, which would drop it.
    asked: list[str]


class Frontier(Protocol):
    """The scheduler, as the shared crawl sees it: what must travel with the facts."""

    def flush(self) -> int:
        """Exchange the requests found and acknowledge those finished, with the facts kept; returns
        how many requests taken are still being worked on."""

    def redis_lost(self, exc: RedisError) -> None:
        """Redis did not answer within QIVRORA_REDIS_PATIENCE: say so once, and stop the worker."""


def worker_id(settings: BaseSettings) -> str:
    """QIVRORA_WORKER_ID (setting or environment variable): a worker started again under it takes back
    at once what it held. Without it each process is a new worker, host:pid:random, and what a dead
    one held goes back only once it is counted out (QIVRORA_WORKER_TIMEOUT)."""
    named = _named(
        "QIVRORA_WORKER_ID", settings.get("QIVRORA_WORKER_ID") or os.environ.get("QIVRORA_WORKER_ID")
    )
    return named or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def process_started() -> float:
    """When this process started, by this machine's clock: Linux says so in /proc (to 10 ms); elsewhere,
    when this module was imported, a second or so later."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return IMPORTED
    started = time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")
    return min(started, IMPORTED)


_crawl_built = False


def worker_started() -> float:
    """When the worker a crawl is being built for started, by this machine's clock: its process's
    start for the first crawl the process builds (a worker opens seconds after it is started, and
    an audit may end in between), when each later crawl is built."""
    global _crawl_built
    now = time.time()
    started = process_started()
    first, _crawl_built = not _crawl_built, True
    return started if first and now - started < STARTUP_AT_MOST else now


def _named(setting: str, value: object) -> str:
    """A crawl key or worker id as given ('' for none); ValueError if Redis keys cannot hold it."""
    named = str(value or "").strip()
    if named and not KEY_PATTERN.fullmatch(named):
        raise ValueError(f"{setting}: {named!r} may hold letters, digits and . _ : - [ ] only")
    return named


def check_settings(settings: BaseSettings) -> None:
    """ValueError naming a worker id or crawl key that Redis keys cannot hold: the command checks
    them before the crawl starts, and says so in one line rather than a traceback from the engine."""
    worker_id(settings)
    _named("QIVRORA_CRAWL_KEY", settings.get("QIVRORA_CRAWL_KEY"))


def connect(settings: BaseSettings) -> Redis:
    """scrapy-redis's client (REDIS_URL, REDIS_PARAMS), trying again for QIVRORA_REDIS_PATIENCE seconds
    when Redis does not answer: a Redis restarted with its append-only file is back in seconds, and
    the crawl goes on. Scripts are loaded again by redis-py when the restarted Redis lacks them."""
    server = get_redis_from_settings(settings)
    patience = settings.getfloat("QIVRORA_REDIS_PATIENCE")
    tries = max(1, round(patience / REDIS_RETRY_EVERY))
    server.set_retry(Retry(ConstantBackoff(REDIS_RETRY_EVERY), tries, supported_errors=(ConnectionError, TimeoutError)))
    return server


def crawl_key(settings: BaseSettings, crawl: CrawlInfo) -> str:
    """QIVRORA_CRAWL_KEY, or one made of the start URLs and scope: the same command on every machine
    names the same crawl, and two sites crawled with one Redis never share one."""
    named = _named("QIVRORA_CRAWL_KEY", settings.get("QIVRORA_CRAWL_KEY"))
    if named:
        return named
    host = urlsplit(crawl.start_urls[0]).hostname if crawl.start_urls else None
    return f"{host or 'crawl'}-{history_key(crawl.start_urls, crawl.scope)[:12]}"


class SharedCrawl:
    """This worker's view of the crawl: ``SharedCrawl.of(crawler)``, one per crawler."""

    _of: weakref.WeakKeyDictionary[Crawler, SharedCrawl] = weakref.WeakKeyDictionary()

    def __init__(
        self,
        server: Redis,
        name: str,
        *,
        timeout: float,
        worker: str | None = None,
        started: float | None = None,
    ) -> None:
        self.server = server
        self.name = name
        self.timeout = timeout
        self.worker = worker or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        #: When this worker started (time.time() of this machine): a crawl audited since is not its own.
        self.started = time.time() if started is None else started
        #: The scheduler, once it is built: idle() and leave() flush through it, so that requests
        #: found and leases finished travel with the facts.
        self.frontier: Frontier | None = None
        #: This worker takes part in the crawl, and has left it (done, or closing).
        self.joined = self.left = False
        #: Its crawl was audited while it started: it takes part in none (``join``), and has left.
        self.too_late = False
        #: This worker started the crawl: it keeps its own facts and reads the others' as they are
        #: stored. The others keep none.
        self.reader = False
        self._stopping = threading.Event()
        #: Fact lines and URLs whose status is wanted, not yet stored (``store``).
        self._facts: list[bytes] = []
        self._pending: list[str] = []
        #: Where the reader's own facts are in the crawl's list, which it keeps and need not read back:
        #: ranges of places, start included. Empty in the other workers, which keep no facts.
        self._own: list[tuple[int, int]] = []
        #: The length of the crawl's list at this worker's last exchange; the places up to which it
        #: has read the facts it lacks, and how many those were.
        self._listed = self._read = self._read_count = 0
        #: How many of the URLs asked for (``exchange``) this worker has read.
        self._asked_read = 0
        self._scripts = {
            name: server.register_script(script_source(name))
            for name in ("join", "idle", "leave", "exchange", "robots", "heartbeat")
        }

    @classmethod
    def of(cls, crawler: Crawler) -> SharedCrawl:
        shared = cls._of.get(crawler)
        if shared is None:
            settings = crawler.settings
            crawl = crawler.spider.crawl_info  # type: ignore[union-attr]
            shared = cls._of[crawler] = cls(
                connect(settings),
                crawl_key(settings, crawl),
                timeout=settings.getfloat("QIVRORA_WORKER_TIMEOUT"),
                worker=worker_id(settings),
                started=worker_started(),
            )
        return shared

    def key(self, name: str) -> str:
        return f"{PREFIX}:{self.name}:{name}"

    def _run(self, script: str, keys: Iterable[str], *args: Any) -> Any:
        return self._scripts[script](keys=[self.key(k) for k in keys], args=[self.worker, *args])

    def _count_out(self, gone: list[Any]) -> None:
        """`gone`: each worker counted out, then how many requests it held (now queued again)."""
        for worker, held in zip(gone[::2], gone[1::2]):
            logger.warning(
                "Worker %s gave no sign of life for %g s: it is counted out of the crawl, and the %d "
                "requests it held go back to the queue", worker.decode(), self.timeout, held,
            )

    # --- taking part -------------------------------------------------------------------------

    def join(self) -> bool:
        """Take part in the crawl: True; False where it was audited after this worker started (it
        belongs to that crawl, which is over: it says so, and takes no part in any)."""
        cleared = [key for key in EVERYTHING if key not in ("started", "audited")]
        new, gone, reclaimed, auditor = self._run(
            "join", ("workers", "busy", "started", "audited", *cleared), self.timeout,
            f"{self.by_redis_clock(self.started):.6f}",
        )
        self._count_out(gone)
        if new == b"audited":
            logger.warning(
                "Crawl %r was audited by worker %s while this worker was starting: its findings are with "
                "that worker (or `qivrora report --redis URL --key %s`). This worker fetches nothing, and "
                "writes no findings.", self.name, auditor.decode(), self.name,
            )
            self.too_late = self.left = True
            return False
        self.joined = True
        self.reader = new == b"starts"
        logger.info("Worker %s %s crawl %r in Redis", self.worker, new.decode(), self.name)
        if reclaimed:
            logger.warning(
                "Worker %s held %d requests when it stopped before: they go back to the queue",
                self.worker, reclaimed,
            )
        threading.Thread(target=self._beat, name="qivrora-heartbeat", daemon=True).start()
        return True

    def by_redis_clock(self, moment: float) -> float:
        """`moment`, a time.time() of this machine, by Redis's clock: to within the round trip."""
        before = time.time()
        seconds, microseconds = self.server.time()
        return moment + seconds + microseconds / 1e6 - (before + time.time()) / 2

    def _beat(self) -> None:
        """In a thread of its own: a worker busy in a long callback is alive all the same."""
        while not self._stopping.wait(self.timeout / 6):
            try:
                self._run("heartbeat", ("workers",))
            except RedisError as exc:  # the reactor's own calls say so once they give up
                logger.debug("The heartbeat did not reach Redis: %s", exc)

    def idle(self) -> str:
        """This worker has nothing to do: WAIT for the others, SETTLE (collect the pending statuses),
        or DONE (leave the crawl)."""
        holding = self.store()  # first: the crawl must not settle or end on what a worker still keeps
        verdict, gone = self._run(
            "idle", ("workers", "busy", "requests", "pending", "done"), self.timeout, holding
        )
        self._count_out(gone)
        return verdict.decode()  # type: ignore[no-any-return]

    def leave(self, crawl: CrawlInfo) -> str:
        """The crawl is done: WAIT (workers still in it have not finished, or the auditor has not
        seen so yet), AUDIT (this worker holds the most facts: it reads the others' it lacks, then
        ``depart()``s), or LEFT (another one audits)."""
        outcome = self._leave("done", crawl)
        self.left = outcome != WAIT
        return outcome

    def depart(self) -> None:
        """The auditor has read the facts: the frontier is cleared once nobody is left, the facts stay."""
        self._leave("depart")

    def close(self, crawl: CrawlInfo) -> None:
        """The worker closes: if it had not left (interrupted), it leaves now, without auditing."""
        self._stopping.set()
        if self.joined and not self.left:
            self.left = True
            try:
                self._leave("stop", crawl)
            except RedisError as exc:  # said already by whatever found Redis gone
                logger.debug("Leaving the crawl did not reach Redis: %s", exc)

    def _leave(self, why: str, crawl: CrawlInfo | None = None) -> str:
        self.store()
        line = fact_line(crawl) if crawl is not None else b""
        keys = ("workers", "busy", "facts", "finished", "audited", *FRONTIER)
        held = self._read_count + sum(end - start for start, end in self._own)
        outcome, gone = self._run("leave", keys, self.timeout, line, why, held)
        self._count_out(gone)
        return outcome.decode()  # type: ignore[no-any-return]

    # --- the frontier, robots.txt, statuses, facts ------------------------------------------------

    def exchange(
        self,
        requests: Sequence[Queued] = (),
        take: int = 0,
        *,
        asked: int = ASKED_AT_MOST,
        acknowledged: Sequence[int] = (),
    ) -> Exchanged:
        """Store the facts and pending statuses this worker keeps, queue `requests` unless the
        duplicate filter has seen them, release the leases `acknowledged` (requests whose facts and
        found requests are in this exchange or an earlier one), and take up to `take` queued requests
        under new leases (marking this worker busy), all in one round trip; read up to `asked` URLs
        the others asked for, 0 to leave them for a later exchange."""
        args: list[Any] = [
            take, len(self._facts), len(self._pending), self._asked_read, asked, len(acknowledged),
            *acknowledged, *self._facts, *self._pending,
        ]
        for queued in requests:
            args += queued
        keys = ("facts", "pending", "dupefilter", "requests", "busy", "asked", "workers", f"held:{self.worker}", "leases")
        pairs, seen, self._listed, urls, self._asked_read = self._run("exchange", keys, *args)
        taken = [(int(pairs[i]), pairs[i + 1]) for i in range(0, len(pairs), 2)]
        if self._facts and self.reader:
            self._note_own(self._listed - len(self._facts), self._listed)
        self._facts.clear()
        self._pending.clear()
        return Exchanged(taken, seen, [url.decode() for url in urls])

    def robots(self, origin: str) -> bytes | bool:
        """The shared rules of an origin, or True: this worker fetches them (``share_robots``
        when it has), or False: another worker is fetching them."""
        answer = self._run("robots", ("robots", "robots-owners", "workers"), origin, self.timeout)
        return answer[1] if answer[0] == b"known" else answer[0] == b"fetch"  # type: ignore[no-any-return]

    def share_robots(self, origin: str, rules: bytes) -> None:
        self.server.hset(self.key("robots"), origin, rules)

    def keep_robots_response(self, url: str, answer: bytes) -> None:
        """Another origin's robots.txt, received on the way to one's own: for whoever needs it."""
        self.server.hset(self.key("robots-received"), url, answer)

    def take_robots_response(self, url: str) -> bytes | None:
        """The robots.txt at `url` if a worker received it already (once: it is taken)."""
        with self.server.pipeline() as pipe:
            pipe.hget(self.key("robots-received"), url)
            pipe.hdel(self.key("robots-received"), url)
            answer, _ = pipe.execute()
        return answer  # type: ignore[no-any-return]

    def note_pending(self, urls: list[str]) -> None:
        self._pending += urls
        self._store_when_full()

    def take_pending(self) -> list[str]:
        """The statuses pending, moved to this worker's own set until ``settled()``: should it die
        before its requests for them are queued, they go back (``hand_back``)."""
        settling = self.key(f"settling:{self.worker}")
        with self.server.pipeline() as pipe:  # MULTI: one step
            pipe.smembers(self.key("pending"))
            pipe.sunionstore(settling, [settling, self.key("pending")])
            pipe.delete(self.key("pending"))
            urls, _, _ = pipe.execute()
        return [url.decode() for url in urls]

    def settled(self) -> None:
        """The requests for the statuses taken are queued (``flush``): they are no longer held."""
        self.server.delete(self.key(f"settling:{self.worker}"))

    def add_fact(self, fact: Any) -> None:
        self._facts.append(fact_line(fact))
        self._store_when_full()

    def _store_when_full(self) -> None:
        if len(self._facts) + len(self._pending) >= KEPT_AT_MOST:
            self.store()

    def store(self) -> int:
        """Store the facts and pending statuses this worker keeps, with the requests it found and the
        leases it finished (through its scheduler, when it has one). Done before it says it is idle
        and before it leaves, so that all of them are in Redis by the time the crawl settles or the
        auditor reads the facts. Returns how many requests it took are still being worked on."""
        if self.frontier is not None:
            return self.frontier.flush()
        if self._facts or self._pending:
            self.exchange(asked=0)  # left for the scheduler's exchanges, which hand them to the spider
        return 0

    def _note_own(self, start: int, end: int) -> None:
        if self._own and self._own[-1][1] == start:
            start = self._own.pop()[0]
        self._own.append((start, end))

    def asked_for(self) -> list[str]:
        """Every URL the crawl asked for (queued with its URL), in the order they were queued."""
        return [url.decode() for url in self.server.lrange(self.key("asked"), 0, -1)]

    def counted_out(self) -> list[str]:
        """The workers counted out of the crawl so far."""
        return sorted(worker.decode() for worker in self.server.smembers(self.key("gone")))

    def handed_back(self) -> int:
        """How many requests went back to the queue from a worker that died or stopped: each is a URL
        that may have been fetched twice."""
        return int(self.server.hget(self.key("counts"), "handed back") or 0)

    def facts(self) -> Iterator[Any]:
        return stored_facts(self.server, self.name)

    def others_waiting(self) -> bool:
        """The reader has a call's worth of the others' facts to read, as of its last exchange."""
        return self.reader and self._listed - self._read >= FACTS_PER_CALL

    def lacking_facts(self, *, listed: bool = False) -> Iterator[Any]:
        """The facts this worker's store lacks and it has not read yet: those of the other workers
        for the reader, which keeps its own (``SharedAuditExtension``), all of them for any other.
        All there are, or those its last exchange saw listed (no round trip to learn the length)."""
        start, end = self._read, self._listed if listed else self.server.llen(self.key("facts"))
        self._read = end
        for fact in stored_facts(self.server, self.name, skip=self._own, start=start, end=end):
            self._read_count += 1
            yield fact


def stored_facts(
    server: Redis, name: str, skip: Sequence[tuple[int, int]] = (), start: int = 0, end: int | None = None
) -> Iterator[Any]:
    """The facts of a crawl, as its workers stored them, at places from `start` to `end` (the last
    one, if None), but those at the places `skip` (sorted ranges, start included, end not), which
    are not even parsed."""
    key = f"{PREFIX}:{name}:facts"

    def lines() -> Iterator[str]:
        skipped = iter(skip)
        ahead = next(skipped, None)
        stop = server.llen(key) if end is None else end
        for first in range(start, stop, FACTS_PER_CALL):
            last = min(first + FACTS_PER_CALL, stop) - 1
            for place, line in enumerate(server.lrange(key, first, last), first):
                while ahead is not None and place >= ahead[1]:
                    ahead = next(skipped, None)
                if ahead is None or place < ahead[0]:
                    yield line.decode("utf-8")

    yield from read_facts(lines(), f"Redis {key}")


def crawls(server: Redis) -> list[str]:
    """The crawl keys that have facts in this Redis."""
    names = (key.decode()[len(PREFIX) + 1 : -len(":facts")] for key in server.scan_iter(f"{PREFIX}:*:facts"))
    return sorted(names)


def facts_from_redis(url: str, name: str | None) -> Iterator[Any]:
    """The facts of crawl `name` in the Redis at `url` (`name` may be left out when it holds one
    crawl): what `scrapy hreflang-report --redis URL [--key KEY]` audits. OSError when Redis cannot
    be reached, ValueError when the crawl is not there."""
    try:
        server = Redis.from_url(url, socket_connect_timeout=30, socket_timeout=30)
        names = crawls(server)
        if name is None:
            if len(names) != 1:
                held = f"several crawls ({', '.join(names)}): name one with --key" if names else "no crawl"
                raise ValueError(f"Redis at {url} holds {held}")
            name = names[0]
        elif name not in names:
            held = ", ".join(names) or "none"
            raise ValueError(f"Redis at {url} holds no facts of crawl {name!r} (it holds: {held})")
        yield from stored_facts(server, name)
    except RedisError as exc:
        raise OSError(f"Redis at {url}: {exc}") from None
