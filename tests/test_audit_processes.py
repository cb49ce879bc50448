"""The audit shared between processes (``audit.processes``): real forked children, the same findings
as one process, and a child that dies or fails is said and made up for, never a partial audit."""

from __future__ import annotations

import gc
import logging
import os
import signal
import time
from pathlib import Path

import pytest
import pytest_twisted

from bench.audit_bench import build_store
from bench.generate_site import SiteOptions
from qivrora_spider.audit import AuditContext, audit, audit_beside
from qivrora_spider.audit.core.fact_store import FactStore
from qivrora_spider.audit.core.url_segments import site_segments
from qivrora_spider.audit import processes
from qivrora_spider.audit.processes import cgroup_room_kib, run_shared
from qivrora_spider.extensions.audit import audit_processes
from scrapy.settings import Settings

from .conftest import crawl
from .fixture_sites import multilingual_site

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the audit is shared through fork")


#: Forks this process made (os.register_at_fork cannot be undone: the test reads a difference).
_forks: list[int] = []
os.register_at_fork(after_in_parent=lambda: _forks.append(1))


def _wait_for(marker: Path) -> None:
    """Until another process has run a part: it leaves `marker` (10 s at most)."""
    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_forked_child_takes_parts_and_hands_their_results_back_in_order(tmp_path: Path) -> None:
    parent = os.getpid()
    marker = tmp_path / "a-child-ran-a-part"

    def run(part: int) -> tuple[int, int]:
        if os.getpid() == parent:
            _wait_for(marker)  # so that the child surely takes a part, however the two are scheduled
        else:
            marker.touch()
        return part, os.getpid()

    frozen = gc.get_freeze_count()
    results = run_shared(20, run, processes=2)

    assert gc.get_freeze_count() == frozen  # the collector as it was: what the run froze is free again
    assert [part for part, _ in results] == list(range(20))
    pids = {pid for _, pid in results}
    assert pids - {parent}, "no part was run by a forked child"


def test_the_parts_of_a_child_killed_are_run_again_here_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    parent = os.getpid()
    marker = tmp_path / "the-child-is-dying"

    def run(part: int) -> int:
        if os.getpid() != parent:
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        _wait_for(marker)
        return part * part

    with caplog.at_level(logging.WARNING, logger="qivrora_spider.audit.processes"):
        results = run_shared(12, run, processes=2)

    assert results == [part * part for part in range(12)]
    (line,) = [record.getMessage() for record in caplog.records]
    assert f"killed by signal {signal.SIGKILL}" in line and "runs them itself" in line


def test_a_part_that_raises_in_a_child_raises_here_as_in_one_process(tmp_path: Path) -> None:
    parent = os.getpid()
    marker = tmp_path / "the-child-took-part-3"

    def run(part: int) -> int:
        if part == 3:
            marker.touch()
            raise ValueError("a check failed")
        if os.getpid() == parent:
            _wait_for(marker)
        return part

    with pytest.raises(ValueError, match="a check failed"):
        run_shared(8, run, processes=2)


def test_a_child_that_hands_nothing_back_in_time_is_stopped_and_made_up_for(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(processes, "CHILD_GRACE_SECONDS", 0.5)
    parent = os.getpid()
    marker = tmp_path / "the-child-is-stuck"

    def run(part: int) -> int:
        if os.getpid() != parent:
            marker.touch()
            time.sleep(3600)  # a lock its parent's threads held at the fork, say
        _wait_for(marker)
        return part + 1

    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="qivrora_spider.audit.processes"):
        results = run_shared(6, run, processes=2)

    assert results == [part + 1 for part in range(6)]
    assert time.monotonic() - started < 30, "the stuck child was waited for without end"
    (line,) = [record.getMessage() for record in caplog.records]
    assert "handed nothing back in time and was stopped" in line and "runs them itself" in line


def test_no_child_is_forked_where_the_memory_left_would_not_hold_its_copy(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured = {"VmRSS": 2_000_000, "MemAvailable": 3_000_000}  # KiB: room for one copy, not three
    monkeypatch.setattr(processes, "proc_kib", lambda path, fields: {f: measured[f] for f in fields})
    with caplog.at_level(logging.INFO, logger="qivrora_spider.audit.processes"):
        assert processes.children_memory_allows(3) == 1
    assert "with 1 forked process instead of 3" in caplog.text and "2929 MiB are available" in caplog.text
    measured["MemAvailable"] = 1_500_000
    before = len(_forks)
    assert run_shared(4, lambda part: part, processes=2) == [0, 1, 2, 3]
    assert len(_forks) == before, "a child was forked without the memory for it"


def test_the_room_a_container_leaves_is_its_memory_cgroups_least(tmp_path: Path) -> None:
    def cgroup(folder: Path, limit: str, usage: int, v1: bool) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        names = ("memory.limit_in_bytes", "memory.usage_in_bytes") if v1 else ("memory.max", "memory.current")
        (folder / names[0]).write_text(limit + "\n")
        (folder / names[1]).write_text(f"{usage}\n")

    gib = 2**30
    cgroup(tmp_path, "max", 50 * gib, v1=False)  # the machine: no limit
    cgroup(tmp_path / "kubepods" / "pod1", str(8 * gib), 5 * gib, v1=False)  # the pod: 3 GiB left
    cgroup(tmp_path / "kubepods" / "pod1" / "crawler", "max", 5 * gib, v1=False)
    assert cgroup_room_kib(tmp_path, "0::/kubepods/pod1/crawler\n") == 3 * 2**20
    assert cgroup_room_kib(tmp_path, "0::/\n") is None, "no limit set: the machine's memory decides"

    v1 = tmp_path / "v1"
    cgroup(v1 / "memory", "9223372036854771712", 40 * gib, v1=True)
    cgroup(v1 / "memory" / "docker" / "abc", str(4 * gib), 3 * gib, v1=True)
    assert cgroup_room_kib(v1, "4:memory:/docker/abc\n3:cpuset:/\n") == 2**20


@pytest.fixture(scope="module")
def store() -> FactStore:
    """600 pages with 10 % defects: findings of site checks of several families and of cluster checks."""
    return build_store(SiteOptions(pages=600, defect_rate=0.1, links=3))


@pytest.fixture
def shared_at_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Audits of a few facts shared as large ones are, so that a test's small site is."""
    monkeypatch.setattr(processes, "MIN_SHARED_FACTS", 0)


def test_the_findings_of_two_processes_are_those_of_one(store: FactStore, shared_at_any_size: None) -> None:
    alone = audit(AuditContext(store), processes=1)
    before = len(_forks)
    shared = audit(AuditContext(store), processes=2)
    assert len(_forks) - before == 1
    assert len({finding.check for finding in alone}) >= 4
    assert any(finding.cluster for finding in alone)
    assert shared == alone


def test_what_is_derived_beside_the_audit_is_what_is_derived_after_it(
    store: FactStore, shared_at_any_size: None
) -> None:
    findings, (segments,) = audit_beside(
        AuditContext(store), (lambda context: site_segments(context, ()),), processes=2
    )
    context = AuditContext(store)
    assert findings == audit(context)
    assert segments == site_segments(context, ()) and len(segments) == 5


def test_an_audit_of_fewer_facts_than_pay_for_a_fork_stays_in_one_process(
    store: FactStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(store) < processes.MIN_SHARED_FACTS
    before = len(_forks)
    small = audit(AuditContext(store), processes=2)
    assert len(_forks) == before
    monkeypatch.setattr(processes, "MIN_SHARED_FACTS", len(store))
    assert audit(AuditContext(store), processes=2) == small
    assert len(_forks) == before + 1


@pytest.mark.parametrize("value", ["0", "-1", "two", ""])
def test_a_wrong_number_of_audit_processes_is_an_error(value: str) -> None:
    with pytest.raises(ValueError, match="QIVRORA_AUDIT_PROCESSES"):
        audit_processes(Settings({"QIVRORA_AUDIT_PROCESSES": value}))


def test_audit_processes_are_at_most_the_cores_this_process_may_use() -> None:
    assert audit_processes(Settings({"QIVRORA_AUDIT_PROCESSES": 10_000})) == len(os.sched_getaffinity(0))
    assert audit_processes(Settings({"QIVRORA_AUDIT_PROCESSES": 1})) == 1


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one core: the audit stays in one process")
@pytest_twisted.ensureDeferred
async def test_a_crawl_shares_its_audit_with_a_forked_child_and_finds_the_same(
    site, other_site, shared_at_any_size
) -> None:
    multilingual_site(site, other_site)
    found = {}
    for processes in (1, 2):
        before = len(_forks)
        result = await crawl({"QIVRORA_AUDIT_PROCESSES": processes}, start=site.url("/"))
        found[processes] = (result.findings, len(_forks) - before)
    assert len(found[1][0]) >= 5
    assert found[2][0] == found[1][0]
    assert found[1][1] == 0 and found[2][1] == 1  # one child beside the crawl's process
