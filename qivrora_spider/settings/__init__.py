"""Qivrora's documented defaults. Every one can be overridden with ``-s NAME=VALUE``.

Polite on real sites: a few requests at a time per host, a delay adapted by AutoThrottle, a user
agent that names Qivrora. Fast when asked: ``-s AUTOTHROTTLE_ENABLED=False -s DOWNLOAD_DELAY=0
-s CONCURRENT_REQUESTS_PER_DOMAIN=16``.
"""

from scrapy.settings import default_settings

from qivrora_spider import DOCS_URL, __version__

BOT_NAME = "qivrora"
SPIDER_MODULES = ["qivrora_spider.spiders"]
NEWSPIDER_MODULE = "qivrora_spider.spiders"
COMMANDS_MODULE = "qivrora_spider.commands"

#: Names the tool, its version and where to read about it, so site owners can tell who is knocking.
USER_AGENT = f"Qivrora/{__version__} (hreflang auditor; +https://github.com/qivrora/qivrora)"

# Politeness.
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 4
DOWNLOAD_DELAY = 0.25
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 0.5
AUTOTHROTTLE_MAX_DELAY = 10.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 2.0

#: Our pipelines are synchronous: Scrapy's default of 100 concurrent items only starts 101 asyncio
#: tasks per response, and one keeps findings in order.
CONCURRENT_ITEMS = 1
#: Scrapy's "Crawled" and "Scraped from" lines only where a handler keeps DEBUG: each builds a log record
#: even when the level drops it (qivrora_spider/compat/scrapy.py).
LOG_FORMATTER = "qivrora_spider.compat.scrapy.QuietLogFormatter"
#: Scrapy's stats collector without its per-lookup deprecation hook (qivrora_spider/compat/scrapy.py).
STATS_CLASS = "qivrora_spider.compat.scrapy.DirectStatsCollector"

# Faults: a dead alternate is a finding (HL404), not a reason to wait three minutes.
DOWNLOAD_TIMEOUT = 20
RETRY_TIMES = 2
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]
#: Sitemaps may be 50 MB uncompressed (plus gzip); pages beyond this are not worth an audit.
DOWNLOAD_MAXSIZE = 64 * 1024 * 1024
DOWNLOAD_WARNSIZE = 0

#: Scrapy's HTTP/1.1 handler, with a connection pool that never reuses a connection it is closing: a
#: stopped download closes its connection, and Twisted's pool could hand it to the next request, which
#: the server then received twice (qivrora_spider/compat/twisted.py). -a render=1 routes both
#: schemes through the rendering handler, which uses the same pool.
DOWNLOAD_HANDLERS = {
    "http": "qivrora_spider.download_handlers.HTTP11DownloadHandler",
    "https": "qivrora_spider.download_handlers.HTTP11DownloadHandler",
}

#: Breadth-first, on Scrapy's own queues: pages nearer the start first, so that a budget
#: (-a max_pages) samples the whole site rather than one branch of it (Scrapy's default is LIFO).
DEPTH_PRIORITY = 1
SCHEDULER_DISK_QUEUE = "scrapy.squeues.PickleFifoDiskQueue"
SCHEDULER_MEMORY_QUEUE = "scrapy.squeues.FifoMemoryQueue"

# Redirects are facts, not detours: every 3xx is recorded with its Location and the spider decides.
REDIRECT_ENABLED = False
METAREFRESH_ENABLED = False
# Every status is a fact the audit needs.
HTTPERROR_ALLOW_ALL = True
COOKIES_ENABLED = False
# Googlebot sends no Accept-Language, so neither does the crawl (Scrapy's default sends `en`): a
# locale-adaptive site shows it what search engines see. The opt-in probe (-a locale_probe=1, HL801)
# sends one on purpose.
DEFAULT_REQUEST_HEADERS = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}

# robots.txt is obeyed by Qivrora's own middleware, which also records it as a fact.
ROBOTSTXT_OBEY = False
DOWNLOADER_MIDDLEWARES = {
    # Once the crawl is interrupted (Ctrl-C), nothing more is sent: what is left is "not examined".
    "qivrora_spider.downloadermiddlewares.interrupt.InterruptMiddleware": 30,
    # -a max_pages, spent as requests leave the queue, before anything else looks at them.
    "qivrora_spider.downloadermiddlewares.budget.BudgetMiddleware": 40,
    # First of all: a request to an internal address (127/8, 10/8, 169.254.169.254, ::1, ... or a host
    # name resolving to one) is not sent unless its host is a start host (QIVRORA_ALLOW_PRIVATE).
    "qivrora_spider.downloadermiddlewares.private_guard.PrivateAddressGuard": 50,
    # The user's own servers (loopback, private addresses, a build folder) get no delay, AutoThrottle none.
    "qivrora_spider.downloadermiddlewares.pace.OwnServerPace": 60,
    "qivrora_spider.downloadermiddlewares.robots.RobotsMiddleware": 100,
    # Only with -a site=FOLDER -a base=URL: the folder answers instead of the network.
    "qivrora_spider.downloadermiddlewares.offline.StaticSiteMiddleware": 950,
}
#: Scrapy's spider middlewares wrap every request and item a callback yields; three serve no audit.
SPIDER_MIDDLEWARES = {
    # Googlebot sends no Referer, so neither does the crawl.
    "scrapy.spidermiddlewares.referer.RefererMiddleware": None,
    # It drops URLs longer than 2,083 characters, which search engines fetch: the audit would call
    # such an alternate not examined (HL206) instead of reading it.
    "scrapy.spidermiddlewares.urllength.UrlLengthMiddleware": None,
    # It warns of meta copied from a response; the spider builds every request's meta itself.
    "scrapy.spidermiddlewares.metacopy.MetaCopyDetectionMiddleware": None,
}
ITEM_PIPELINES = {
    "qivrora_spider.pipelines.StatusPipeline": 100,
}
# Scrapy imports the module of every key of its base dicts, None-valued ones too; these stand in for
# components that are off by default and whose modules import a library (compat.scrapy.LazyComponent).
lazy_components = {
    "scrapy.extensions.remote_control.RemoteControl": "qivrora_spider.compat.scrapy.LazyRemoteControl",
    "scrapy.downloadermiddlewares.cookies.CookiesMiddleware": "qivrora_spider.compat.scrapy.LazyCookies",
}
#: Scrapy's own, but its remote control (off, below) is built, and its module imported with aiohttp,
#: only when turned on. To move or remove it in EXTENSIONS, name
#: ``qivrora_spider.compat.scrapy.LazyRemoteControl``.
EXTENSIONS_BASE = {
    lazy_components.get(name, name): order for name, order in default_settings.EXTENSIONS_BASE.items()
}
#: Scrapy's own, but its cookies middleware (off, COOKIES_ENABLED) is built, and its module imported
#: with tldextract, only when turned on. To move or remove it in DOWNLOADER_MIDDLEWARES, name
#: ``qivrora_spider.compat.scrapy.LazyCookies``.
DOWNLOADER_MIDDLEWARES_BASE = {
    lazy_components.get(name, name): order
    for name, order in default_settings.DOWNLOADER_MIDDLEWARES_BASE.items()
}
EXTENSIONS = {
    # Items reach the receivers of item_scraped by a plain call, not a task each (compat/scrapy.py).
    "qivrora_spider.compat.scrapy.DirectItemSignal": 0,
    "qivrora_spider.extensions.audit.AuditExtension": 500,
    "qivrora_spider.extensions.progress.ProgressLog": 510,
    "qivrora_spider.extensions.garbage_collection.GarbageCollection": 520,
    # Ctrl-C (SIGINT) or SIGTERM audits what was gathered and writes it, marked partial; twice stops at once.
    "qivrora_spider.extensions.interrupt.Interruption": 530,
}

# Feeds: -O findings.csv / findings.jsonl carry the findings table only; -O findings.xml (or
# FILE:junit) a JUnit report for CI; `-o facts.jsonl:facts` exports the facts the audit was computed
# from (read back by `qivrora hreflang-report`). `.xml` is JUnit's, not Scrapy's XML of every item: a
# CI step's `-O hreflang.xml` then needs no format name.
FEED_EXPORTERS = {
    "csv": "qivrora_spider.feeds.exporters.FindingsCsvExporter",
    "jsonlines": "qivrora_spider.feeds.exporters.FindingsJsonLinesExporter",
    "jsonl": "qivrora_spider.feeds.exporters.FindingsJsonLinesExporter",
    "jl": "qivrora_spider.feeds.exporters.FindingsJsonLinesExporter",
    "json": "qivrora_spider.feeds.exporters.FindingsJsonExporter",
    "xml": "qivrora_spider.feeds.exporters.JUnitExporter",
    "junit": "qivrora_spider.feeds.exporters.JUnitExporter",
    "facts": "qivrora_spider.feeds.exporters.FactsExporter",
}
FEED_EXPORT_ENCODING = "utf-8"
#: Local feeds are written to a temporary file renamed over the target when complete: a killed crawl
#: leaves the previous file (or none), never half of one.
FEED_STORAGES = {
    "": "qivrora_spider.feeds.storage.AtomicFileFeedStorage",
    "file": "qivrora_spider.feeds.storage.AtomicFileFeedStorage",
}

# Qivrora's own settings.
#: Per-check severity overrides, e.g. {"HL109": "warning"} or -s QIVRORA_SEVERITY='{"HL109":"warning"}'.
QIVRORA_SEVERITY: dict[str, str] = {}
#: Checks to skip, e.g. -s QIVRORA_DISABLE=HL203,SM002.
QIVRORA_DISABLE: list[str] = []
#: The lowest severity that fails the run (exit status 1) and a JUnit test case: error, warning or notice;
#: "" fails on none (the JUnit report then fails on errors and warnings). SEGMENT:LEVEL (de:error) fails
#: on the findings of one segment only (QIVRORA_SEGMENTS).
QIVRORA_FAIL_ON = ""
#: Named parts of the site, NAME=PATTERN each (de=/de/, de=de., de=.de, a glob with *), e.g.
#: -s QIVRORA_SEGMENTS=de=/de/,fr=/fr/: the summary, the report and JUnit count by them, and
#: QIVRORA_FAIL_ON=de:error gates one. Empty: the locale segments learned from the clusters.
QIVRORA_SEGMENTS: list[str] = []
#: Path of report.html, written right after the audit (also by `qivrora hreflang-report`); "" writes none.
#: One self-contained page for people: summary, a matrix and a picture per cluster, fixes, findings.
QIVRORA_REPORT = ""
#: The docs site under which the report and the JUnit output link each check's page
#: (`<QIVRORA_DOCS_URL>/checks/hl201.html`): the published one by default; a copy of your own
#: (`make docs`, then any web server) for a network that cannot reach it.
QIVRORA_DOCS_URL = DOCS_URL
#: Path of the fixes file, one JSON line per cluster: the annotations the site should publish; "" writes none.
QIVRORA_FIXES = ""
#: Print the audit's summary after the crawl's last log line, whatever the log level, instead of logging
#: it (`qivrora audit` sets it: the summary is what its user reads last).
QIVRORA_SUMMARY_LAST = False
#: Seconds between progress lines in the log (0: none).
QIVRORA_PROGRESS_INTERVAL = 10.0
#: The crawl state (SQLite): what earlier crawls of each site saw, for SM010/SM011 and the findings'
#: `change` column (new, persisting); relative to the working directory; "" keeps no state.
QIVRORA_STATE = ".qivrora/state.sqlite"
#: Keep each page's content fingerprint even where nothing of the crawl compares it (a pipeline of your
#: own); the state, a facts feed and JOBDIR keep it regardless.
QIVRORA_FINGERPRINTS = False
#: Where to write the findings resolved since the previous crawl (.csv, .jsonl or .json); "": nowhere.
QIVRORA_RESOLVED = ""
#: Where to write the clusters changed since the previous crawl, one JSON line each; "": nowhere.
QIVRORA_CLUSTER_CHANGES = ""
#: With a crawl state: where this share or more of the pages with content at earlier crawls that the
#: crawl asked for could not be fetched (no answer, a 5xx), the crawl is an outage: exit status 3, its
#: findings there are `unknown` rather than resolved, and the state keeps the previous baseline.
QIVRORA_OUTAGE_SHARE = 0.5
#: Fetch URLs on internal addresses (loopback, private networks, link-local, ...) on any host, not only
#: on the start hosts. Off by default: a crawled site must not make Qivrora reach into its network.
QIVRORA_ALLOW_PRIVATE = False
#: Net allocations between two collections of Python's youngest generation while a crawl runs (the
#: default is 700); the start-up heap is frozen meanwhile (qivrora_spider.extensions.garbage_collection).
#: 0 leaves the garbage collector alone.
QIVRORA_GC_THRESHOLD = 10_000
#: Processes that share the audit (this one and forked children, at most one per core it may use):
#: the audit runs at the end, when the crawl leaves the other cores idle. 2 by default: most of what
#: two give (the audit's shared index is built once, before the fork); each child may copy most of
#: the facts' memory as it reads them, so no more are forked than the memory available holds
#: (``audit.processes``), and none for an audit of fewer than 10,000 facts (``MIN_SHARED_FACTS``).
#: 1 audits in this process alone.
QIVRORA_AUDIT_PROCESSES = 2

# Rendering (-a render=1): HTML pages also go through headless Chromium (qivrora_spider.rendering).
#: The Chromium to run: Debian's by default; "" runs Playwright's own download (PLAYWRIGHT_BROWSERS_PATH).
QIVRORA_RENDER_BROWSER = "/usr/bin/chromium"
#: Browser pages at once. Each is a renderer process busy with the page's scripts: 4 keeps 2 cores busy
#: while the pages wait for their settle time (bench/RESULTS.md).
QIVRORA_RENDER_CONCURRENCY = 4
#: Seconds a page may take to reach its load event and settle; one that never settles is read then, one
#: that cannot be read by then is HL703 (its served annotations are used).
QIVRORA_RENDER_TIMEOUT = 15.0
#: Seconds the <head> must stay unchanged after the load event: hydrating frameworks add tags after
#: DOMContentLoaded (0.5 catches one added 300 ms after it; raise it for slower sites).
QIVRORA_RENDER_SETTLE = 0.5
#: Resource types the browser does not fetch: nothing in them changes a <head>. "" loads everything.
QIVRORA_RENDER_BLOCK = ["image", "media", "font"]

# Distributed crawls: read by the add-on qivrora_spider.distributed.DistributedCrawl, which the
# distributed profile (qivrora_spider.settings.distributed) enables, as -s ADDONS=... does.
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

# No endpoint inside the crawl. Scrapy's telnet console and its remote control (an HTTP server, on by
# default in Scrapy 2.19, that runs any Python code sent with a token it writes into a job file in
# the user's profile) let whoever reaches the port, or reads the file, run code as the crawl: nobody
# expects that of an auditor on a Scrapyd host or a shared CI runner. -s REMOTE_CONTROL_ENABLED=True
# turns the remote control back on.
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False
LOG_LEVEL = "INFO"
# Scrapy parses the source of a generator callback with `ast` to warn of a `return value` in it, and
# caches the answer by bound method: a method bound anew for each request misses the cache, so each
# response cost a parse. No callback of ours returns a value (tests/test_crawl.py).
WARN_ON_GENERATOR_RETURN_VALUE = False
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
