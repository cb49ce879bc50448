"""Run the audit's parts in this process and in forked ones, so that idle cores share the audit.

A forked child starts with this process's memory, the facts and the index built from them
included, copy-on-write: nothing is sent to it. The parts to run wait in a pipe, two bytes each;
every process (this one too) takes the next part as it finishes one, so that all finish at about
the same time whatever each part costs. A child hands back its parts' findings, pickled, through
a pipe of its own, and leaves with ``os._exit``: it never returns into the caller's stack, runs no
exit handler, and touches nothing it shares with this process (a reactor, sockets, Redis, log
handlers, open files). Its signals go back to their defaults (Ctrl-C is this process's to handle),
its logging and warnings are off, and its collector leaves the inherited objects alone, so that no
finaliser of an inherited socket or file runs in it.

Fail-safe: a part that no child handed back (a child killed, out of memory, a check that raised in
it) is run again here, after a warning line; a check that raises does so here as it would in one
process. The result never misses a part.
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
import select
import signal
import time
import warnings
from pathlib import Path
from typing import Callable, Iterator, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Bytes of a part's number in the pipe of parts: writes and reads of a pipe up to PIPE_BUF bytes
#: are atomic, so two processes never read halves of one number.
_PART = 2
MAX_PARTS = 256 ** _PART


#: Facts (``len(FactStore)``) below which the audit stays in this process, whatever the processes
#: asked for: a fork costs the page tables of the whole process and, on both sides, a copy of each page
#: the audit then writes to (reference counts), as much CPU as the second process saves at this size,
#: for a few hundredths of a second of wall time (bench/RESULTS.md).
MIN_SHARED_FACTS = 10_000


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: A child is waited for, once this process has run out of parts, twice as long as this process took
#: over its own, and at least this long (``_handed_back``): it then holds one part at most, and no part
#: is near as long as all the others together.
CHILD_GRACE_SECONDS = 60.0


def proc_kib(path: str, fields: tuple[str, ...]) -> dict[str, int]:
    """Fields of a /proc file that counts in kB (``/proc/PID/status``, ``/proc/meminfo``), those present;
    none where the file cannot be read (the process gone, not Linux)."""
    found: dict[str, int] = {}
    try:
        with open(path, encoding="ascii") as lines:
            for line in lines:
                name, _, value = line.partition(":")
                if name in fields:
                    found[name] = int(value.split()[0])
    except (OSError, ValueError):
        pass
    return found


#: Where a memory cgroup sets no limit, the kernel writes "max" (v2) or a number near 2**63 (v1).
_NO_LIMIT = 2**60


def _number(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):  # absent, or "max"
        return None


def cgroup_room_kib(root: Path = Path("/sys/fs/cgroup"), membership: str | None = None) -> int | None:
    """KiB the memory cgroups of this process still allow: the least, along its cgroup and those above
    it, of limit less usage; None where no limit is set or none can be read. A container's limit is
    not in /proc/meminfo, which tells the whole machine's memory: forking a child that copies the
    facts past the limit would have the kernel kill a process of the crawl."""
    if membership is None:
        try:
            membership = Path("/proc/self/cgroup").read_text(encoding="ascii")
        except OSError:
            return None
    room: int | None = None
    for line in membership.splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            base, limit_file, usage_file = root, "memory.max", "memory.current"
        elif "memory" in controllers.split(","):
            base, limit_file, usage_file = root / "memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
        else:
            continue
        folder = base / path.lstrip("/")
        while True:
            limit, usage = _number(folder / limit_file), _number(folder / usage_file)
            if limit is not None and usage is not None and limit < _NO_LIMIT:
                left = max(0, limit - usage) // 1024
                room = left if room is None else min(room, left)
            if folder == base or base not in folder.parents:
                break
            folder = folder.parent
    return room


def children_memory_allows(wanted: int) -> int:
    """How many of `wanted` children the memory left allows. A child shares this process's memory
    until it touches it, and reading the facts touches most of it (reference counts): on the
    20,000-page and 200,000-page audits a child ended with 65 % and 87 % of the parent's memory of its
    own (bench/RESULTS.md). So each child counts as this process's resident size, against what the
    kernel says is available, within the limit of the process's memory cgroup where it has one (a
    container's); where neither is known (not Linux), the memory is not asked."""
    resident = proc_kib("/proc/self/status", ("VmRSS",)).get("VmRSS")
    available = proc_kib("/proc/meminfo", ("MemAvailable",)).get("MemAvailable")
    if not resident or available is None:
        return wanted
    room = cgroup_room_kib()
    if room is not None:
        available = min(available, room)
    allowed = min(wanted, available // resident)
    if allowed < wanted:
        logger.info(
            "The audit is shared with %d forked process%s instead of %d: each may copy up to this "
            "process's %d MiB, and %d MiB are available",
            allowed, "" if allowed == 1 else "es", wanted, resident // 1024, available // 1024,
        )
    return allowed


def run_shared(count: int, run: Callable[[int], T], processes: int) -> list[T]:
    """``[run(part) for part in range(count)]``, with ``processes - 1`` forked children taking parts
    beside this process, as many as the memory left allows (``children_memory_allows``). Falls back
    to this process alone where fork is unavailable."""
    forkable = hasattr(os, "fork") and count <= MAX_PARTS
    children_wanted = children_memory_allows(min(processes, count) - 1) if forkable else 0
    if children_wanted < 1:
        return [run(part) for part in range(count)]
    parts_in, parts_out = os.pipe()
    try:
        os.write(parts_out, b"".join(part.to_bytes(_PART, "big") for part in range(count)))
    finally:
        os.close(parts_out)
    children: dict[int, int] = {}  # pid -> the pipe of its results, until it is reaped
    done: dict[int, T] = {}
    ended: list[str] = []
    # What exists now (the facts, the index) is out of the collector's walks until the audit is
    # done: a full collection here would walk all of it, and write to every object it walks, which
    # copies the pages the children share. Where something froze objects before (a crawl does),
    # it unfreezes them all when it is done, these with them.
    unfreeze = gc.get_freeze_count() == 0
    gc.freeze()
    try:
        started = time.monotonic()
        for _ in range(children_wanted):
            results_in, results_out = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(results_in)
                _child(parts_in, results_out, run)
            os.close(results_out)
            children[pid] = results_in
        for part in _taken(parts_in):
            done[part] = run(part)
        deadline = time.monotonic() + max(CHILD_GRACE_SECONDS, 2 * (time.monotonic() - started))
        for pid in list(children):
            handed, how = _handed_back(pid, children.pop(pid), deadline)
            done.update(handed)
            if how:
                ended.append(f"process {pid} {how}")
    finally:
        if unfreeze:
            gc.unfreeze()
        os.close(parts_in)
        for pid, results_in in children.items():  # only if this process failed: none is left behind
            os.close(results_in)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    missing = [part for part in range(count) if part not in done]
    if missing:
        logger.warning(
            "The audit shared between processes: %s, without handing back %d of its %d parts; this "
            "process runs them itself (the findings are whole, the audit slower)",
            "; ".join(ended) or "a process", len(missing), count,
        )
        for part in missing:
            done[part] = run(part)
    return [done[part] for part in range(count)]


def _taken(parts_in: int) -> Iterator[int]:
    """The parts this process takes from the pipe, one at a time, until it is empty."""
    while len(taken := os.read(parts_in, _PART)) == _PART:
        yield int.from_bytes(taken, "big")


def _child(parts_in: int, results_out: int, run: Callable[[int], T]) -> None:
    """A forked child's whole life: run parts, hand their results back, leave without unwinding."""
    status = 1
    try:
        gc.freeze()  # no inherited object is collected, so none is finalised, here
        logging.disable(logging.CRITICAL)
        warnings.simplefilter("ignore")
        try:
            signal.set_wakeup_fd(-1)  # the parent's event loop's: a signal here must not wake it
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the parent decides, and waits for this
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        except ValueError:  # forked from a thread other than the main one, whose handlers stay its own
            pass
        done = {part: run(part) for part in _taken(parts_in)}
        data = memoryview(pickle.dumps(done, pickle.HIGHEST_PROTOCOL))
        while data:
            data = data[os.write(results_out, data):]
        status = 0
    finally:
        os._exit(status)


def _handed_back(pid: int, results_in: int, deadline: float) -> tuple[dict[int, T], str]:
    """What a child handed back (its parts' results), and how it ended if not well ("" if well). A
    child still silent at `deadline` is stuck (a lock its parent's threads held at the fork, say): it
    is killed, and its parts are run again here, never waited for without end."""
    try:
        chunks = []
        while True:
            if not select.select([results_in], [], [], max(0.0, deadline - time.monotonic()))[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {}, "handed nothing back in time and was stopped"
            chunk = os.read(results_in, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(results_in)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {}, f"was killed by signal {os.WTERMSIG(status)}"
    if os.waitstatus_to_exitcode(status) != 0:
        return {}, f"ended with status {os.waitstatus_to_exitcode(status)}"
    try:
        return pickle.loads(b"".join(chunks)), ""
    except Exception:  # noqa: BLE001  (cannot happen after a clean exit; its parts would run again)
        return {}, "handed back what could not be read"
