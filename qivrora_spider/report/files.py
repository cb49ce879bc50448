"""Writing the report files so that a reader (a browser, a CI step, a web server) never sees half a file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

#: mkstemp creates files only their owner may read; a report is made to be shared and served.
FILE_MODE = 0o644


def write_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) beside `path`, then rename it over `path`: the file is complete or absent."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
