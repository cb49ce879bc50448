"""Local feeds written whole or not at all: complete, or absent, never half written.

Scrapy's ``FileFeedStorage`` writes into the target as items arrive, so a crawl killed halfway (an
out-of-memory kill, a Scrapyd job cancelled, a CI timeout) leaves a truncated ``findings.csv`` that
looks like a result. This storage writes into a hidden temporary file beside the target
(``.findings.csv.<pid>.<random>.part``, same folder so the rename never crosses file systems), flushes
it to disk, and renames it over the target with ``os.replace`` when the feed is complete: readers see
the previous file or the new one, nothing in between. ``-o`` (append) keeps its meaning: the existing
file is copied into the temporary one first. A killed crawl leaves its ``.part`` file behind (it cannot
clean up after SIGKILL); the target is untouched.

A complete feed is not always a result: a crawl closed before its audit (a JOBDIR pause, a worker
that does not audit) has an empty findings table, and a crawl stopped at once (Ctrl-C twice) asked
for nothing to be written. Neither replaces the previous file (``outcome.may_replace_outputs``); the
facts a crawl gathered are kept whenever it ends by itself.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import stat
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from scrapy.extensions.feedexport import FileFeedStorage
from scrapy.utils.misc import load_object

from ..outcome import may_replace_outputs
from .exporters import exports_facts

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from twisted.internet.defer import Deferred
    from typing_extensions import Self

logger = logging.getLogger(__name__)


#: The temporary files of the feeds being written, for a run stopped at once (``discard_unfinished``).
_UNFINISHED: set[Path] = set()


def discard_unfinished() -> None:
    """Remove the temporary files of every feed not stored yet: a run stopped at once writes nothing."""
    for temporary in list(_UNFINISHED):
        temporary.unlink(missing_ok=True)
        _UNFINISHED.discard(temporary)


class AtomicFileFeedStorage(FileFeedStorage):
    def __init__(
        self,
        uri: str,
        *,
        feed_options: dict[str, Any] | None = None,
        stats: StatsCollector | None = None,
        findings: bool = False,
    ) -> None:
        super().__init__(uri, feed_options=feed_options)
        self._temporary: Path | None = None
        #: The crawl's stats say whether it may replace the target; None (outside a crawl): always.
        self.stats = stats
        #: The feed holds findings (the table, JUnit), which only an audit gives, not facts.
        self.findings = findings

    @classmethod
    def from_crawler(cls, crawler: Crawler, uri: str, *, feed_options: dict[str, Any] | None = None) -> Self:
        format = (feed_options or {}).get("format")
        exporter = crawler.settings.getdict("FEED_EXPORTERS").get(format) if format else None
        findings = exporter is not None and not exports_facts(load_object(exporter))
        return cls(uri, feed_options=feed_options, stats=crawler.stats, findings=findings)

    def open(self, spider: Spider) -> IO[bytes]:
        target = Path(self.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
        file = temporary.open("xb")  # created with the permissions a new file gets (umask)
        self._temporary = temporary
        _UNFINISHED.add(temporary)
        if self.write_mode == "ab" and target.exists():
            with target.open("rb") as existing:
                shutil.copyfileobj(existing, file)
            shutil.copymode(target, temporary)
        return file

    def store(self, file: IO[bytes]) -> Deferred[None] | None:
        temporary = self._temporary
        if temporary is None:  # never opened: nothing to store
            return None
        self._temporary = None
        _UNFINISHED.discard(temporary)
        if self.stats is not None and not may_replace_outputs(self.stats, findings=self.findings):
            file.close()
            temporary.unlink(missing_ok=True)
            logger.warning("%s was not written: the run did not audit, and the previous file stays", self.path)
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
        return None
