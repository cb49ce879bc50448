"""The audit of a distributed crawl: once, by one worker, over the facts of all workers.

Each worker stores its facts in Redis, a batch at a time and all of them before it is idle. The
worker that started the crawl, the reader, also keeps them in its store as a single crawl does, and
reads the others' facts into it as they are stored, a call's worth at a time: read at the end, when
the other workers are gone and their cores idle, they made the end of a 20,000-page crawl 1.5 s
longer. The other workers keep no store: its memory and its CPU would be spent for an audit they
make only if the reader dies. An idle worker does not audit what it has: it asks the crawl
(``SharedCrawl.idle``) whether to wait for the others, to collect the statuses nobody fetched, or to
leave. Once all have finished, the one that holds the most facts (the reader, unless it died) reads
those it lacks and audits them all as a single crawl does: its feeds, report and fixes carry the
findings of the whole crawl, and those of the others none. So no worker ever reports the part of
the graph it happened to see.

Before it audits, the auditor checks that every URL the crawl asked for has its facts, and every
sitemap entry its sitemap's. Requests held by a worker that died went back to the queue and were
fetched again, so none should lack them; any that does (a Redis that lost writes, an entry
refused) is said: one ERROR line with the count, HL206 with the reason for each, and exit status 3
(``outcome.NOT_AUDITED``), never a silent pass. Entries whose sitemap is missing are left out of the
audit, rather than judged without it (SM005).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError
from scrapy.exceptions import DontCloseSpider

from ..extensions.audit import AuditExtension
from .. import outcome
from ..facts import FACT_TYPES, PAGE_STATUS, TargetStatus
from .shared import DONE, LEFT, WAIT, SharedCrawl

if TYPE_CHECKING:
    from scrapy import Spider

logger = logging.getLogger(__name__)


class SharedAuditExtension(AuditExtension):
    @property
    def shared(self) -> SharedCrawl:
        return SharedCrawl.of(self.crawler)

    def item_scraped(self, item: Any) -> None:
        # Not once the worker has left: the auditor's hand-out repeats its CrawlInfo, stored already.
        if isinstance(item, FACT_TYPES) and not self.shared.left:
            self.shared.add_fact(item)
            if self.shared.reader:
                self.store.add(item)
                if self.shared.others_waiting():
                    self.store.add_all(self.shared.lacking_facts(listed=True))

    def spider_idle(self, spider: Spider) -> None:
        if self.findings is not None or self.shared.left:
            return  # audited and handed out, or another worker audits: this one may close
        try:
            self._finish(spider)
        except RedisError as exc:
            if self.shared.frontier is None:
                raise
            self.shared.frontier.redis_lost(exc)

    def _finish(self, spider: Spider) -> None:
        while (verdict := self.shared.idle()) != DONE:
            if verdict == WAIT or self.settle():
                # The engine asks again on its next heartbeat (every few seconds).
                raise DontCloseSpider
        outcome = self.shared.leave(spider.crawl_info)  # type: ignore[attr-defined]
        if outcome == WAIT:
            raise DontCloseSpider  # for the workers that have yet to see the crawl done
        if outcome == LEFT:
            logger.info("The crawl is done: the worker that holds the most facts audits it.")
            return
        logger.info("The crawl is done and this worker audits the facts of all: it holds the most of them.")
        kept = len(self.store)
        try:
            self.store.add_all(self.shared.lacking_facts())
            logger.info("Read the %d facts this worker lacked from Redis", len(self.store) - kept)
            self.check_complete()  # before departing, which clears the URLs asked for
        finally:
            self.shared.depart()
        self.warn_of_pages_without_fingerprint()
        self.run_audit(spider)
        raise DontCloseSpider

    def check_complete(self) -> None:
        """Every URL asked for has its facts, every entry its sitemap's; what lacks them is said."""
        handed_back = self.shared.handed_back()
        self.crawler.stats.set_value("qivrora/distributed/handed_back", handed_back)
        if handed_back:
            logger.info(
                "%d requests went back to the queue from workers that stopped or died, and were fetched "
                "again where they had been already (one page each in the audit)", handed_back,
            )
        store = self.store
        missing = [
            url for url in dict.fromkeys(self.shared.asked_for())
            if url not in store.pages and url not in store.statuses and url not in store.sitemaps
        ]
        orphans = [entry for entry in store.entries if entry.sitemap not in store.sitemaps]
        if not missing and not orphans:
            return
        gone = self.shared.counted_out()
        reason = f"lost with worker {', '.join(gone)}" if gone else "lost: no worker stored its facts"
        for url in missing:
            store.add(TargetStatus(url=url, not_examined=reason))
        if orphans:
            store.drop_entries(lambda entry: entry.sitemap in store.sitemaps)
        sitemaps = len({entry.sitemap for entry in orphans})
        line = (
            f"{len(missing)} URLs the crawl asked for have no facts ({reason}): HL206 for the alternates "
            f"among them; {len(orphans)} sitemap entries of {sitemaps} sitemaps whose own facts are "
            "missing are left out of the audit"
        )
        logger.error("The crawl is not complete: %s", line)
        outcome.record(self.crawler.stats, outcome.NOT_AUDITED, f"incomplete distributed crawl: {line}")

    def warn_of_pages_without_fingerprint(self) -> None:
        """A worker fingerprints its pages only where it keeps a crawl state (or a JOBDIR, a facts
        feed, QIVRORA_FINGERPRINTS), as a single crawl does. Pages that another worker fetched without
        state cannot be compared with the state this one keeps (SM010, SM011): say so, not nothing."""
        if self.history.store is None:
            return
        unmarked = sum(
            1 for page in self.store.pages.values()
            if page.status == PAGE_STATUS and page.is_html and page.fingerprint is None
        )
        if unmarked:
            logger.warning(
                "%d pages were fetched by workers that keep no crawl state: SM010 and SM011 do not "
                "judge them. Start every worker with the same QIVRORA_STATE (or QIVRORA_FINGERPRINTS=True).",
                unmarked,
            )

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.findings is not None:
            super().spider_closed(spider, reason)
        elif reason != "finished" and self.shared.joined:
            logger.warning(
                "This worker stopped (%s) before the crawl was done: the workers still in it go on and "
                "one of them audits; if none is left, a worker started again resumes the crawl, or "
                "`scrapy hreflang-report --redis URL --key %s` audits the facts gathered so far.",
                reason, self.shared.name,
            )
