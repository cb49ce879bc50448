"""Memory between crawls: what earlier crawls of a site saw, in one SQLite file (``QIVRORA_STATE``).

Nightly crawls want to know what changed since the last one, and whether a sitemap's `<lastmod>`
moves with the content. So each finished crawl records, in one transaction: the run, its findings,
the membership and languages of its clusters, and for every URL it fetched the content fingerprint,
the `<lastmod>` its sitemap gave it then, and when it was first and last seen.

A crawl is compared with earlier crawls of its *history*: the same start URLs and scope
(``history_key``), so the same command run every night compares with itself, and two sites (or one
site audited from two different starts, which see different parts of it) never mix.

Safe under faults: WAL lets readers and one writer work at once and several writers wait their turn
(``BUSY_TIMEOUT``); a run is written whole or not at all, so a crawl killed at any moment leaves the
state as the previous crawl left it. Pure standard library: no Scrapy, no audit.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..findings import Finding

#: Bumped when the tables change; a file of another version is refused, not misread.
SCHEMA_VERSION = 1
#: Seconds a writer waits for another one to finish its transaction.
BUSY_TIMEOUT = 60.0
#: Runs kept per history: enough to look back a month of nightly crawls, bounded all the same.
KEEP_RUNS = 30

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    history TEXT NOT NULL,
    started TEXT NOT NULL,
    finished TEXT NOT NULL,
    start_urls TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_history ON runs (history, id);
CREATE TABLE IF NOT EXISTS urls (
    history TEXT NOT NULL,
    url TEXT NOT NULL,
    fingerprint TEXT,
    lastmod TEXT,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    PRIMARY KEY (history, url)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS findings (
    run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    check_id TEXT NOT NULL,
    name TEXT NOT NULL,
    severity TEXT NOT NULL,
    url TEXT NOT NULL,
    target TEXT NOT NULL,
    hreflang TEXT NOT NULL,
    source TEXT NOT NULL,
    cluster TEXT NOT NULL,
    message TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS findings_by_run ON findings (run);
CREATE TABLE IF NOT EXISTS clusters (
    run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    cluster TEXT NOT NULL,
    url TEXT NOT NULL,
    languages TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS clusters_by_run ON clusters (run);
"""


class StateError(Exception):
    """The state file cannot be used: unreadable, not SQLite, or of another schema version."""


@dataclass(frozen=True, slots=True)
class Observation:
    """A URL as a crawl saw it: its content fingerprint (None: no content to fingerprint, e.g. an error
    or a PDF), and the `<lastmod>` its sitemap gave it then, as written."""

    fingerprint: str | None
    lastmod: str | None = None


#: Cluster id -> member URL -> the hreflang values (canonical form) the cluster gives that member.
Membership = dict[str, dict[str, list[str]]]


@dataclass(slots=True)
class CrawlRecord:
    """One finished crawl as the state keeps it.

    Loaded as the previous crawl, ``pages`` holds the last observation with content of every URL the
    history has seen (a page that failed last night is compared with what it was before), and
    ``findings`` and ``clusters`` those of the latest run.
    """

    started: str  # ISO 8601, as CrawlInfo.started
    start_urls: list[str] = field(default_factory=list)
    pages: dict[str, Observation] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    clusters: Membership = field(default_factory=dict)


def history_key(start_urls: list[str], scope: list[str]) -> str:
    """Which crawls compare with each other: those with the same start URLs and scope (hosts)."""
    canonical = json.dumps({"start": sorted(start_urls), "scope": sorted(scope)}, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


class StateStore:
    """``StateStore(path).previous(key)`` before the audit, ``.save(key, record, finished)`` after it.

    Each call opens its own short connection, so a long crawl holds no lock and no file handle.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE), not sqlite3's guesses.
            with closing(sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)) as db:
                db.execute("PRAGMA foreign_keys = ON")
                _switch_to_wal(db)
                self._migrate(db)
                yield db
        except (sqlite3.DatabaseError, OSError) as exc:
            raise StateError(f"{self.path}: {exc}") from exc

    def _migrate(self, db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version != 0:
            raise StateError(
                f"{self.path}: state of schema version {version}, this Qivrora reads {SCHEMA_VERSION}"
            )
        with _transaction(db):
            # Two first crawls may race to create the tables: the second one finds them made.
            if db.execute("PRAGMA user_version").fetchone()[0] == 0:
                # executescript() would commit: the statements run one by one inside the transaction.
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def previous(self, key: str) -> CrawlRecord | None:
        """The latest finished crawl of this history, or None for its first crawl."""
        # One read transaction: a snapshot, whatever another crawl commits meanwhile.
        with self._connect() as db, _transaction(db, "BEGIN"):
            row = db.execute(
                "SELECT id, started, start_urls FROM runs WHERE history = ? ORDER BY id DESC LIMIT 1", (key,)
            ).fetchone()
            if row is None:
                return None
            run, started, start_urls = row
            record = CrawlRecord(started=started, start_urls=json.loads(start_urls))
            for url, fingerprint, lastmod in db.execute(
                "SELECT url, fingerprint, lastmod FROM urls WHERE history = ? AND fingerprint IS NOT NULL",
                (key,),
            ):
                record.pages[url] = Observation(fingerprint, lastmod)
            record.findings = [
                Finding(*values)
                for values in db.execute(
                    "SELECT check_id, name, severity, url, target, hreflang, source, cluster, message "
                    "FROM findings WHERE run = ? ORDER BY rowid",
                    (run,),
                )
            ]
            for cluster, url, languages in db.execute(
                "SELECT cluster, url, languages FROM clusters WHERE run = ? ORDER BY rowid", (run,)
            ):
                record.clusters.setdefault(cluster, {})[url] = languages.split()
            return record

    def save(self, key: str, record: CrawlRecord, finished: str) -> int:
        """Record a finished crawl, in one transaction; returns its run id."""
        with self._connect() as db, _transaction(db):
            run = db.execute(
                "INSERT INTO runs (history, started, finished, start_urls) VALUES (?, ?, ?, ?)",
                (key, record.started, finished, json.dumps(record.start_urls)),
            ).lastrowid
            db.executemany(
                "INSERT INTO findings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    (
                        run,
                        f.check,
                        f.name,
                        f.severity,
                        f.url,
                        f.target,
                        f.hreflang,
                        f.source,
                        f.cluster,
                        f.message,
                    )
                    for f in record.findings
                ),
            )
            db.executemany(
                "INSERT INTO clusters VALUES (?, ?, ?, ?)",
                (
                    (run, cluster, url, " ".join(languages))
                    for cluster, members in record.clusters.items()
                    for url, languages in members.items()
                ),
            )
            # The fingerprint and the lastmod are one observation: both are replaced together, and
            # only by a crawl that saw content, so that they are never compared across two crawls.
            db.executemany(
                """
                INSERT INTO urls (history, url, fingerprint, lastmod, first_seen, last_seen)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (history, url) DO UPDATE SET
                    last_seen = excluded.last_seen,
                    lastmod = CASE WHEN excluded.fingerprint IS NULL THEN lastmod ELSE excluded.lastmod END,
                    fingerprint = coalesce(excluded.fingerprint, fingerprint)
                """,
                (
                    (key, url, seen.fingerprint, seen.lastmod, record.started, record.started)
                    for url, seen in record.pages.items()
                ),
            )
            db.execute(
                "DELETE FROM runs WHERE history = ? AND id NOT IN "
                "(SELECT id FROM runs WHERE history = ? ORDER BY id DESC LIMIT ?)",
                (key, key, KEEP_RUNS),
            )
            assert run is not None
            return run


def _switch_to_wal(db: sqlite3.Connection) -> None:
    """Switching a new file to WAL needs it to itself, and SQLite answers "locked" at once rather than
    waiting the busy timeout when another process is creating it too: retry until the timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@contextmanager
def _transaction(db: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> Iterator[None]:
    """A write takes the lock up front (BEGIN IMMEDIATE): a second writer waits (busy timeout) instead
    of failing halfway, as it could when a read transaction tries to become a write one."""
    db.execute(begin)
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
