"""Qivrora's documented defaults. Every one can be overridden with ``-s NAME=VALUE``.

Polite on real sites: a few requests at a time per host, a delay adapted by AutoThrottle, a user
agent that names Qivrora. Fast when asked: ``-s AUTOTHROTTLE_ENABLED=False -s DOWNLOAD_DELAY=0
-s CONCURRENT_REQUESTS_PER_DOMAIN=16``.
"""

BOT_NAME = "qivrora"
SPIDER_MODULES = ["qivrora_spider.spiders"]
NEWSPIDER_MODULE = "qivrora_spider.spiders"
COMMANDS_MODULE = "qivrora_spider.commands"

#: Names the tool and where to read about it, so site owners can tell who is knocking.
USER_AGENT = "Qivrora/0.1 (hreflang auditor; +https://github.com/qivrora/qivrora)"

# Politeness.
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 4
DOWNLOAD_DELAY = 0.25
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 0.5
AUTOTHROTTLE_MAX_DELAY = 10.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 2.0

# Faults: a dead alternate is a finding (HL404), not a reason to wait three minutes.
DOWNLOAD_TIMEOUT = 20
RETRY_TIMES = 2
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]
#: Sitemaps may be 50 MB uncompressed (plus gzip); pages beyond this are not worth an audit.
DOWNLOAD_MAXSIZE = 64 * 1024 * 1024
DOWNLOAD_WARNSIZE = 0

# Redirects are facts, not detours: every 3xx is recorded with its Location and the spider decides.
REDIRECT_ENABLED = False
METAREFRESH_ENABLED = False
# Every status is a fact the audit needs.
HTTPERROR_ALLOW_ALL = True
COOKIES_ENABLED = False

# robots.txt is obeyed by Qivrora's own middleware, which also records it as a fact.
ROBOTSTXT_OBEY = False
DOWNLOADER_MIDDLEWARES = {
    "qivrora_spider.robots.RobotsMiddleware": 100,
    # Only with -a site=FOLDER -a base=URL: the folder answers instead of the network.
    "qivrora_spider.offline.StaticSiteMiddleware": 950,
}
ITEM_PIPELINES = {
    "qivrora_spider.pipelines.StatusPipeline": 100,
}
EXTENSIONS = {
    "qivrora_spider.extensions.AuditExtension": 500,
    "qivrora_spider.progress.ProgressLog": 510,
}

# Feeds: -O findings.csv / findings.jsonl carry the findings table only; `-o facts.jsonl:facts`
# exports the facts the audit was computed from (read back by `scrapy hreflang-report`).
FEED_EXPORTERS = {
    "csv": "qivrora_spider.exporters.FindingsCsvExporter",
    "jsonlines": "qivrora_spider.exporters.FindingsJsonLinesExporter",
    "jsonl": "qivrora_spider.exporters.FindingsJsonLinesExporter",
    "jl": "qivrora_spider.exporters.FindingsJsonLinesExporter",
    "json": "qivrora_spider.exporters.FindingsJsonExporter",
    "facts": "qivrora_spider.exporters.FactsExporter",
}
FEED_EXPORT_ENCODING = "utf-8"

# Qivrora's own settings.
#: Per-check severity overrides, e.g. {"HL109": "warning"} or -s QIVRORA_SEVERITY='{"HL109":"warning"}'.
QIVRORA_SEVERITY: dict[str, str] = {}
#: Checks to skip, e.g. -s QIVRORA_DISABLE=HL203,SM002.
QIVRORA_DISABLE: list[str] = []
#: Seconds between progress lines in the log (0: none).
QIVRORA_PROGRESS_INTERVAL = 10.0

TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
