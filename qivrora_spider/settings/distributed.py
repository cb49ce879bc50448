"""The distributed profile: ``SCRAPY_SETTINGS_MODULE=qivrora_spider.settings.distributed`` (in the
checkout also ``settings.distributed``) on every worker. Qivrora's defaults, plus:

- the add-on that makes the crawl shared (``qivrora_spider.distributed``): scrapy-redis's scheduler
  (``SCHEDULER``) and duplicate filter (``DUPEFILTER_CLASS``), adapted; robots.txt fetched once for
  all workers; statuses collected once the whole crawl has settled; the audit by the worker that holds the most
  facts (the one that started the crawl: it reads the others' facts as they are stored).
  The queue and the duplicate filter belong to the crawl: no worker flushes them when it closes
  (``SCHEDULER_PERSIST`` has no say); the crawl clears them once audited, and when a new crawl starts.
- where Redis is, and which crawl in it the workers share.

With the default settings module, the same as flags:
``-s 'ADDONS={"qivrora_spider.distributed.DistributedCrawl": 0}' -s REDIS_URL=redis://HOST:6379``.
"""

from qivrora_spider.settings import *  # noqa: F403

ADDONS = {"qivrora_spider.distributed.DistributedCrawl": 0}
#: The Redis that holds the crawl: its queue, duplicate filter, workers, robots.txt rules and facts.
REDIS_URL = "redis://127.0.0.1:6379"
#: Names the crawl in Redis, so that several sites can be crawled with one Redis. "" makes one of the
#: start URLs and scope (`example.com-<hash>`): workers run with the same command share one crawl.
QIVRORA_CRAWL_KEY = ""
#: Seconds without a heartbeat after which a worker counts as gone (killed, its machine lost): the
#: others stop waiting for it, and the requests it held go back to the queue for them. What a death
#: costs: the live workers finish at most this long (plus a few seconds) after it.
QIVRORA_WORKER_TIMEOUT = 60.0
#: This worker's identity in the crawl. "" makes a new one each run (host:pid:random). A worker
#: started again under the identity it had takes back at once what it held, without waiting for
#: QIVRORA_WORKER_TIMEOUT. Also read from the environment variable of the same name.
QIVRORA_WORKER_ID = ""
#: Seconds a worker keeps trying a Redis that does not answer (restarting) before it stops, with one
#: line and exit status 3. Redis must keep its data across the restart (appendonly yes).
QIVRORA_REDIS_PATIENCE = 20.0
#: Seconds between the looks of a worker with nothing to do at the queue and at the other workers: the
#: workers agree that the crawl is done within a few of them; each is one small Redis script.
QIVRORA_IDLE_POLL = 0.05
