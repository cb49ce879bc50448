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
