"""Distributed crawls: any number of workers, one frontier in Redis (scrapy-redis), one audit.

``DistributedCrawl`` is a Scrapy add-on that switches a crawl to the shared components of this
package; the distributed profile (``qivrora_spider/settings/distributed.py``) enables it, and so does
``-s 'ADDONS={"qivrora_spider.distributed.DistributedCrawl": 0}'`` with the default settings.
How the workers share the crawl and agree on its end: ``shared``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..downloadermiddlewares.robots import RobotsMiddleware
from ..extensions.audit import AuditExtension
from ..extensions.interrupt import Interruption
from ..pipelines import StatusPipeline
from .extensions import SharedAuditExtension
from .pipelines import SharedStatusPipeline
from .robots import SharedRobotsMiddleware
from .scheduler import SharedDupeFilter, SharedScheduler
from .shared import check_settings

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


class DistributedCrawl:
    """The scheduler and duplicate filter of scrapy-redis (adapted), robots.txt fetched once for all
    workers, statuses collected once the whole crawl has settled, and the audit by one worker."""

    def update_settings(self, settings: BaseSettings) -> None:
        settings.set("SCHEDULER", SharedScheduler, "addon")
        settings.set("DUPEFILTER_CLASS", SharedDupeFilter, "addon")
        for name, single, shared in (
            ("DOWNLOADER_MIDDLEWARES", RobotsMiddleware, SharedRobotsMiddleware),
            ("ITEM_PIPELINES", StatusPipeline, SharedStatusPipeline),
            ("EXTENSIONS", AuditExtension, SharedAuditExtension),
        ):
            settings.replace_in_component_priority_dict(name, single, shared)
        # Ctrl-C makes a worker leave, its work going to the others, not audit what it alone gathered.
        settings.set_in_component_priority_dict("EXTENSIONS", Interruption, None)

    @staticmethod
    def check_settings(settings: BaseSettings) -> None:
        """The worker id and crawl key, checked by the command before the crawl starts (ValueError)."""
        check_settings(settings)
