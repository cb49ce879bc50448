"""Qivrora's own signals (Scrapy signals are plain unique objects)."""

#: A host's robots.txt was fetched and recorded; args: robots (a RobotsTxt fact).
robots_recorded = object()

#: The crawl has nothing left to do; handlers return how many requests they queued, and the audit
#: waits until a round queues none.
crawl_settling = object()

#: The audit's last request arrived (``HreflangSpider.parse_audit``); handlers return a list of the
#: items to hand out. A signal rather than a callback on the extension: with JOBDIR a request is
#: written to disk, so its callback must be a spider method.
audit_items = object()

#: The crawl was interrupted (Ctrl-C, SIGTERM): no further request is sent, and the audit runs on what
#: was gathered. The spider notes it in its CrawlInfo, so the audit and the report say the crawl is
#: partial and why each URL left out was not examined (HL206).
crawl_interrupted = object()
