"""Ctrl-C audits what the crawl gathered; Ctrl-C twice stops at once and writes nothing.

Scrapy's first Ctrl-C closes the crawl as soon as the requests in flight are done: the audit never
runs, and a crawl that ran for an hour leaves nothing but an empty table. Here the first SIGINT (or
Scrapyd's cancel, SIGTERM) stops fetching instead (``downloadermiddlewares.interrupt``): the crawl
runs dry, the audit runs on the facts gathered so far, and every output is written, marked partial
(HL206 for what was left out, the report's header, a JUnit case in error); the exit status is 130.
A second signal stops at once, writing nothing: the previous outputs stay as they were.

With JOBDIR, Ctrl-C keeps Scrapy's meaning: pause, to resume later from the same JOBDIR. A worker of a
distributed crawl leaves, its work going to the others (the distributed profile turns this off).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.job import job_dir
from scrapy.utils.ossignal import signal_names

from ..feeds.storage import discard_unfinished
from ..outcome import AUDITED_STAT, DISCARDED_STAT, INTERRUPTED, record
from ..signals import crawl_interrupted

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interruption:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.received = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if job_dir(crawler.settings):
            raise NotConfigured("with JOBDIR, Ctrl-C pauses the crawl")
        extension = cls(crawler)
        crawler.signals.connect(extension.engine_started, signal=signals.engine_started)
        return extension

    def engine_started(self) -> None:
        from twisted.internet import reactor  # the one Scrapy installed, never Twisted's default

        # Scrapy installs its own handlers once the reactor has started; a delayed call runs after that.
        reactor.callLater(0, self.install)  # type: ignore[attr-defined]

    def install(self) -> None:
        for number in SIGNALS:
            signal.signal(number, self.signalled)

    def signalled(self, number: int, frame: Any) -> None:
        # Nothing may be logged inside a signal handler: the interrupted code may be writing the log.
        from twisted.internet import reactor

        self.received += 1
        step = self.interrupt if self.received == 1 else self.stop_now
        reactor.callFromThread(step, signal_names.get(number, str(number)))  # type: ignore[attr-defined]

    def interrupt(self, name: str) -> None:
        stats = self.crawler.stats
        assert stats is not None
        if stats.get_value(AUDITED_STAT) is not None:
            logger.warning("Received %s after the audit: the outputs are being written (again to stop at once).", name)
            return
        record(stats, INTERRUPTED, f"the crawl was interrupted ({name}): the audit covers what it had fetched")
        self.crawler.signals.send_catch_log(crawl_interrupted)
        logger.warning(
            "Received %s: no further request is sent; the audit runs on what was gathered, and the outputs "
            "are written marked partial. Send it again to stop at once, writing nothing.",
            name,
        )

    def stop_now(self, name: str) -> None:
        """At once: a closing crawl would wait for the requests in flight (up to DOWNLOAD_TIMEOUT) and
        then write its outputs; this writes nothing and leaves the previous outputs as they were."""
        assert self.crawler.stats is not None
        self.crawler.stats.set_value(DISCARDED_STAT, True)
        discard_unfinished()
        logger.warning("Received %s again: stopping at once; no output replaces the previous one.", name)
        logging.shutdown()
        sys.stderr.write(f"qivrora: the crawl was stopped at once ({name} twice): nothing was written\n")
        sys.stderr.flush()
        os._exit(INTERRUPTED)
