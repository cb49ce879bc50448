"""Local feeds written whole or not at all: complete, or absent, never half written.

Scrapy's ``FileFeedStorage`` writes into the target as items arrive, so a crawl killed halfway (an
out-of-memory kill, a Scrapyd job cancelled, a CI timeout) leaves a truncated ``findings.csv`` that
looks like a result. This storage writes into a hidden temporary file beside the target
(``.findings.csv.<pid>.<random>.part``, same folder so the rename never crosses file systems), flushes
it to disk, and renames it over the target with ``os.replace`` when the feed is complete: readers see
the previous file or the new one, nothing in between. ``-o`` (append) keeps its meaning: the existing
file is copied into the temporary one first. A killed crawl leaves its ``.part`` file behind (it cannot
clean up after SIGKILL); the target is untouched.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from scrapy.extensions.feedexport import FileFeedStorage

if TYPE_CHECKING:
    from scrapy import Spider
    from twisted.internet.defer import Deferred


class AtomicFileFeedStorage(FileFeedStorage):
    def __init__(self, uri: str, *, feed_options: dict[str, Any] | None = None) -> None:
        super().__init__(uri, feed_options=feed_options)
        self._temporary: Path | None = None

    def open(self, spider: Spider) -> IO[bytes]:
        target = Path(self.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
        file = temporary.open("xb")  # created with the permissions a new file gets (umask)
        self._temporary = temporary
        if self.write_mode == "ab" and target.exists():
            with target.open("rb") as existing:
                shutil.copyfileobj(existing, file)
            shutil.copymode(target, temporary)
        return file

    def store(self, file: IO[bytes]) -> Deferred[None] | None:
        temporary = self._temporary
        if temporary is None:  # never opened: nothing to store
            return None
        if not file.closed:
            file.flush()
            os.fsync(file.fileno())
            file.close()
        else:  # closed by a post-processing plugin: make its bytes durable all the same
            descriptor = os.open(temporary, os.O_RDONLY)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
        target = Path(self.path)
        if target.exists() and self.write_mode == "wb":
            # Overwriting keeps the target's permissions, as writing in place did.
            os.chmod(temporary, stat.S_IMODE(target.stat().st_mode))
        os.replace(temporary, target)
        self._temporary = None
        return None
