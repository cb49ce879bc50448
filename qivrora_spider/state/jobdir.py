"""Pause and resume (`-s JOBDIR=DIR`): what the crawl keeps in memory is kept in the job directory too.

Scrapy keeps the pending requests there (they call back spider methods, so they can be written to
disk) and pickles ``spider.state`` on close (its SpiderState extension). Qivrora adds what it learns
along the way: the spider's and the status pipeline's bookkeeping live in ``spider.state`` (``kept``),
and the facts are appended to ``facts.jsonl`` as they arrive (``FactLog``), so a crawl stopped with
Ctrl-C and started again with the same JOBDIR ends with the findings an uninterrupted crawl gives.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any, Iterator, TypeVar

from ..fact_lines import fact_line, read_facts

T = TypeVar("T")

#: The facts of the crawl so far, one JSON line each, as the `facts` feed format writes them.
FACTS_FILE = "facts.jsonl"


def kept(spider: object, key: str, value: T) -> T:
    """`value`, or what a paused crawl saved under `key`; from now on saved with the spider's state.

    Call it once the spider is open (SpiderState loads the state at spider_opened) and keep the
    returned object, mutating it in place: the state is pickled as it is when the crawl closes.
    Without JOBDIR there is no state and `value` is returned as it is.
    """
    state = getattr(spider, "state", None)
    if state is None:
        return value
    return state.setdefault(key, value)  # type: ignore[no-any-return]


class FactLog:
    """The facts of a crawl in ``JOBDIR/facts.jsonl``: appended as they arrive, read back on resume."""

    def __init__(self, jobdir: str | Path) -> None:
        self.path = Path(jobdir) / FACTS_FILE
        self._file: IO[bytes] | None = None

    def load(self) -> Iterator[Any]:
        """The facts a paused crawl gathered (none the first time)."""
        if not self.path.exists():
            return
        complete = 0

        def whole_lines(file: IO[bytes]) -> Iterator[str]:
            nonlocal complete
            for line in file:
                if not line.endswith(b"\n"):
                    return
                complete += len(line)
                yield line.decode("utf-8")

        with self.path.open("rb") as file:
            yield from read_facts(whole_lines(file), str(self.path))
        # A line cut short (the process was killed while writing it) is dropped, so that the facts
        # appended from now on start on a line of their own.
        if complete < self.path.stat().st_size:
            os.truncate(self.path, complete)

    def append(self, fact: Any) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("ab")
        self._file.write(fact_line(fact) + b"\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
