"""The distributed profile: ``SCRAPY_SETTINGS_MODULE=qivrora_spider.settings.distributed`` (in the
checkout also ``settings.distributed``) on every worker. Qivrora's defaults, plus:

- the add-on that makes the crawl shared (``qivrora_spider.distributed``): scrapy-redis's scheduler
  (``SCHEDULER``) and duplicate filter (``DUPEFILTER_CLASS``), adapted; robots.txt fetched once for
  all workers; statuses collected once the whole crawl has settled; the audit by the worker that holds the most
  facts (the one that started the crawl: it reads the others' facts as they are stored).
  The queue and the duplicate filter belong to the crawl: no worker flushes them when it closes
  (``SCHEDULER_PERSIST`` has no say); the crawl clears them once audited, and when a new crawl starts.
- where Redis is. The crawl's and the workers' own settings (``QIVRORA_CRAWL_KEY``,
  ``QIVRORA_WORKER_TIMEOUT``, ...) are Qivrora's: they hold however the add-on is enabled.

With the default settings module, the same as flags:
``-s 'ADDONS={"qivrora_spider.distributed.DistributedCrawl": 0}' -s REDIS_URL=redis://HOST:6379``.
"""

from qivrora_spider.settings import *  # noqa: F403

ADDONS = {"qivrora_spider.distributed.DistributedCrawl": 0}
#: The Redis that holds the crawl: its queue, duplicate filter, workers, robots.txt rules and facts.
REDIS_URL = "redis://127.0.0.1:6379"
