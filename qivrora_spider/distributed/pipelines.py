"""Statuses of the URLs the crawl referenced but did not GET, across all workers.

Whether anybody fetched a URL is only known when the whole crawl has nothing left to do, so the URLs
the facts point at are noted in Redis, and the worker that finds the crawl settled collects them all
(``shared.SETTLE``): the HEADs go to the shared queue, and the duplicate filter, keyed on URLs,
drops those that another worker fetched. A worker that dies while collecting them hands them back.
"""

from __future__ import annotations

from typing import Any

from ..pipelines import StatusPipeline, referenced
from .shared import SharedCrawl


class SharedStatusPipeline(StatusPipeline):
    def process_item(self, item: Any) -> Any:
        # Only the URLs this worker has not asked for (it asks for a page's alternates and links
        # before the page reaches here): those it asked for are fetched, by it or by another
        # worker, so settling the crawl asks Redis about a few URLs, not about every one.
        urls = [url for url in referenced(item) if url not in self.spider.memory.seen]
        if urls:
            SharedCrawl.of(self.crawler).note_pending(urls)
        return item

    def crawl_settling(self) -> int:
        """The statuses taken stay this worker's (``take_pending``) until its requests for them are
        queued: should it die before, they go back to the pending ones."""
        shared = SharedCrawl.of(self.crawler)
        self.pending.update(shared.take_pending())
        queued = super().crawl_settling()
        shared.store()
        shared.settled()
        return queued
