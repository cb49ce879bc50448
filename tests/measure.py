"""Time and peak memory of a block of a test, for the hostile-input crawl tests.

Two measures, because neither sees everything: ``tracemalloc`` counts every Python allocation in the
process (the crawl and the fixture server alike; not libxml2's or zlib's C buffers) but slows
allocation-heavy code down a lot, so it is optional; the resident set size, sampled every 10 ms from
/proc, sees C allocations too, but only its growth above what the process already holds (memory freed
by earlier tests is reused without growing it), so it can only under-report.
"""

from __future__ import annotations

import resource
import threading
import time
import tracemalloc
from pathlib import Path
from types import TracebackType
from typing import Callable

MB = 1024 * 1024
_STATM = Path("/proc/self/statm")
_PAGE = resource.getpagesize()


def _rss() -> int | None:
    try:
        return int(_STATM.read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return None


class Measure:
    """``with Measure(trace=True) as m: ...``, then ``m.seconds``, ``m.python_peak``, ``m.rss_growth``
    (bytes; None where not measured) and ``str(m)`` for the report."""

    def __init__(self, trace: bool = True) -> None:
        self.trace = trace
        self.seconds = 0.0
        self.python_peak: int | None = None
        self.rss_growth: int | None = None
        self._stop = threading.Event()
        self._peak_rss = 0
        self._sampler = threading.Thread(target=self._sample, name="rss-sampler", daemon=True)
        self._started_tracing = False

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self._peak_rss = max(self._peak_rss, _rss() or 0)

    def __enter__(self) -> Measure:
        self._base_rss = _rss()
        self._peak_rss = self._base_rss or 0
        if self._base_rss is not None:
            self._sampler.start()
        if self.trace:
            if tracemalloc.is_tracing():
                tracemalloc.reset_peak()
            else:
                tracemalloc.start()
                self._started_tracing = True
            self._base_traced = tracemalloc.get_traced_memory()[0]
        self._started = time.perf_counter()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.seconds = time.perf_counter() - self._started
        if self.trace:
            self.python_peak = tracemalloc.get_traced_memory()[1] - self._base_traced
            if self._started_tracing:
                tracemalloc.stop()
        if self._base_rss is not None:
            self._stop.set()
            self._sampler.join()
            self._peak_rss = max(self._peak_rss, _rss() or 0)
            self.rss_growth = self._peak_rss - self._base_rss

    def __str__(self) -> str:
        parts = [f"{self.seconds:.1f} s"]
        if self.python_peak is not None:
            parts.append(f"Python peak {self.python_peak / MB:.0f} MB")
        if self.rss_growth is not None:
            parts.append(f"RSS growth {self.rss_growth / MB:.0f} MB")
        return ", ".join(parts)


#: What ``growth`` may give for linear work: 8 times the input, at most 32 times the CPU time. Linear
#: work gives about 8, more where other processes share the CPU's caches; quadratic work 64 or more.
LINEAR = 32


def growth(run: Callable[[int], object], small: int, factor: int = 8, repeats: int = 7) -> float:
    """How many times the CPU time of ``run(small * factor)`` is that of ``run(small)``, the best of
    `repeats` runs each, the two sizes in turn: about `factor` for linear work and `factor` squared
    for quadratic. CPU time, not wall time, so that other processes on the machine count little,
    where a bound in seconds is either loose or flaky. `run` should do only the work measured: build
    its input beforehand."""
    best = {small: float("inf"), small * factor: float("inf")}
    for _ in range(repeats):
        for size in best:
            started = time.process_time()
            run(size)
            best[size] = min(best[size], time.process_time() - started)
    return best[small * factor] / best[small]
