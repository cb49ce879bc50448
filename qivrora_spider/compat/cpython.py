"""CPython: ending the process without the interpreter's teardown.

Entry: ``quick_exit``
    Relies on: ``atexit._run_exitfuncs()``, which runs the exit handlers (logging's flush and
    close, ``weakref.finalize`` objects, those of other libraries) as the interpreter does at exit,
    last registered first, and clears them.
    Tested with: CPython 3.11.7.
    Test: tests/test_compat.py::test_cpython_runs_the_exit_handlers_through_atexit_run_exitfuncs;
    the exit itself, tests/test_cli.py::test_the_command_exits_after_its_exit_handlers_without_tearing_down.
    Remove when: CPython frees a large heap at exit in a blink, or offers the same as a public call.

After a crawl the process holds every fact, index and finding of it, in millions of objects. A
normal exit frees them one by one (module teardown, a last collection): 1 to 1.5 s after a
20,000-page crawl (bench/RESULTS.md), in the wall time of every run, for nothing the user sees.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` gives: None is 0, an int itself, anything else printed and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def quick_exit(code: object) -> NoReturn:
    """Exit as ``sys.exit(code)`` would, after the exit handlers (files, logs and streams flushed
    and closed), without freeing the heap. Where a thread that is not a daemon still runs, the
    interpreter must wait for it: a plain ``sys.exit``."""
    if any(thread.is_alive() and not thread.daemon for thread in threading.enumerate()
           if thread is not threading.main_thread()):
        sys.exit(code)
    status = exit_status(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed or replaced: nothing left to write
            pass
    os._exit(status)
