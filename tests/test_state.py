"""The crawl state (SQLite): what it keeps, per history, and two writers on one file."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import pytest

from qivrora_spider.findings import Finding
from qivrora_spider.state.changes import cluster_changes, compare
from qivrora_spider.state.store import (
    KEEP_RUNS,
    CrawlRecord,
    Observation,
    StateError,
    StateStore,
    history_key,
)

from .conftest import ROOT

A, B = "https://a.example", "https://b.example"


def finding(check: str, url: str, message: str = "m", cluster: str = "") -> Finding:
    return Finding(check, "name", "error", url, cluster=cluster, message=message)


def test_the_previous_crawl_is_the_latest_of_its_history_only(tmp_path):
    store = StateStore(tmp_path / "state.sqlite")
    site_a, site_b = history_key([f"{A}/"], ["a.example"]), history_key([f"{B}/"], ["b.example"])
    assert site_a != site_b and store.previous(site_a) is None
    store.save(
        site_a, CrawlRecord("2026-11-01T00:00:00+00:00", [f"{A}/"], findings=[finding("HL201", A)]), "x"
    )
    store.save(
        site_b, CrawlRecord("2026-11-02T00:00:00+00:00", [f"{B}/"], findings=[finding("HL109", B)]), "x"
    )
    record = CrawlRecord(
        "2026-11-03T00:00:00+00:00",
        [f"{A}/"],
        pages={f"{A}/en/": Observation("f1", "2026-11-01"), f"{A}/doc.pdf": Observation(None)},
        findings=[finding("HL202", A)],
        clusters={"c-1": {f"{A}/en/": ["en"], f"{A}/de/": ["de", "de-at"]}},
    )
    store.save(site_a, record, "x")

    previous = store.previous(site_a)
    assert previous is not None
    assert (previous.started, previous.start_urls) == (record.started, record.start_urls)
    assert [f.check for f in previous.findings] == ["HL202"]
    assert previous.clusters == record.clusters
    assert previous.pages == {f"{A}/en/": Observation("f1", "2026-11-01")}, "only observations with content"
    assert [f.check for f in store.previous(site_b).findings] == ["HL109"]  # type: ignore[union-attr]


def test_an_observation_without_content_keeps_the_last_one_with_content(tmp_path):
    store, key, url = StateStore(tmp_path / "state.sqlite"), "k", f"{A}/en/"
    store.save(key, CrawlRecord("2026-11-01", pages={url: Observation("f1", "2026-10-01")}), "x")
    store.save(key, CrawlRecord("2026-11-02", pages={url: Observation(None)}), "x")  # it failed that night
    assert store.previous(key).pages == {url: Observation("f1", "2026-10-01")}  # type: ignore[union-attr]
    with sqlite3.connect(tmp_path / "state.sqlite") as db:
        assert db.execute("SELECT first_seen, last_seen FROM urls").fetchall() == [
            ("2026-11-01", "2026-11-02")
        ]


def test_old_runs_are_pruned_per_history(tmp_path):
    store = StateStore(tmp_path / "state.sqlite")
    for night in range(KEEP_RUNS + 3):
        store.save("k", CrawlRecord(f"night {night}", findings=[finding("HL201", A)]), "x")
    store.save("other", CrawlRecord("once"), "x")
    with sqlite3.connect(tmp_path / "state.sqlite") as db:
        assert db.execute("SELECT history, count(*) FROM runs GROUP BY 1 ORDER BY 1").fetchall() == [
            ("k", KEEP_RUNS),
            ("other", 1),
        ]
        assert db.execute("SELECT count(*) FROM findings").fetchone() == (KEEP_RUNS,), (
            "pruned with their runs"
        )


def test_a_file_that_is_not_a_state_is_refused(tmp_path):
    path = tmp_path / "state.sqlite"
    path.write_text("not a database, " * 100)
    with pytest.raises(StateError, match="state.sqlite"):
        StateStore(path).previous("k")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StateError, match="schema version 99"):
        StateStore(other).previous("k")


def test_findings_are_new_persisting_or_resolved_whatever_their_message_or_cluster():
    previous = CrawlRecord(
        "2026-11-01",
        findings=[
            finding("HL201", A, message="line 3", cluster="c-old"),
            finding("HL202", A),
            finding("HL202", A, "again"),
        ],
    )
    now = [finding("HL201", A, message="line 4", cluster="c-new"), finding("HL203", A)]
    changes = compare(previous, now, {})
    assert [f.change for f in now] == ["persisting", "new"]
    assert [(f.check, f.change) for f in changes.resolved] == [("HL202", "resolved")], "one row per defect"
    assert changes.counts == {"new": 1, "persisting": 1, "resolved": 1, "unknown": 0}
    first = compare(None, now, {})
    assert [f.change for f in now] == ["new", "new"] and first.resolved == [] and first.previous is None


def test_cluster_changes_follow_a_cluster_whose_id_changed():
    before = {"c-1": {f"{A}/de/": ["de"], f"{A}/en/": ["en"]}, "c-2": {f"{B}/x/": ["fr"]}}
    now = {
        "c-9": {f"{A}/en/": ["en"], f"{A}/it/": ["it"]},  # lost /de/, its smallest URL: a new id
        "c-3": {f"{B}/y/": ["ja"]},
    }
    changes = {c.cluster: c for c in cluster_changes(before, now)}
    assert changes["c-9"].change == "changed" and changes["c-9"].previous == "c-1"
    assert changes["c-9"].added == {f"{A}/it/": ["it"]} and changes["c-9"].removed == {f"{A}/de/": ["de"]}
    assert changes["c-3"].change == "new" and changes["c-2"].change == "gone"
    relabelled = cluster_changes(before, {**before, "c-2": {f"{B}/x/": ["fr-ca"]}})
    assert [(c.cluster, c.relabelled) for c in relabelled] == [("c-2", {f"{B}/x/": (["fr"], ["fr-ca"])})]
    assert "is now [fr-ca], was [fr]" in relabelled[0].describe()


WRITER = textwrap.dedent(
    """
    import sys
    from qivrora_spider.findings import Finding
    from qivrora_spider.state.store import CrawlRecord, Observation, StateStore

    path, name, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = StateStore(path)
    for night in range(runs):
        seen = Observation(f"{name}-{night}", "2026-11-01")
        pages = {f"https://shared.example/{n}": seen for n in range(200)}
        findings = [Finding("HL201", "n", "error", f"https://shared.example/{n}") for n in range(200)]
        for key in ("shared", name):
            store.save(key, CrawlRecord(f"{name} {night}", pages=pages, findings=findings), "x")
            assert store.previous(key) is not None
    """
)


def test_two_processes_writing_one_state_file_neither_fail_nor_corrupt_it(tmp_path):
    path, runs = tmp_path / "state.sqlite", 15
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, str(runs)], cwd=ROOT, stderr=subprocess.PIPE
        )
        for name in ("one", "two")
    ]
    for writer in writers:
        _, errors = writer.communicate(timeout=120)
        assert writer.returncode == 0, errors.decode()[-2000:]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT history, count(*) FROM runs GROUP BY 1 ORDER BY 1").fetchall() == [
            ("one", runs),
            ("shared", 2 * runs),
            ("two", runs),
        ]
        assert db.execute("SELECT count(*) FROM findings").fetchone() == (4 * runs * 200,), "every run whole"
        # Every run of the shared history replaced the 200 observations together, never half of them.
        assert db.execute(
            "SELECT count(DISTINCT fingerprint) FROM urls WHERE history = 'shared'"
        ).fetchone() == (1,)
