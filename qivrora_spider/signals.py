"""Qivrora's own signals (Scrapy signals are plain unique objects)."""

#: A host's robots.txt was fetched and recorded; args: robots (a RobotsTxt fact).
robots_recorded = object()

#: The crawl has nothing left to do; handlers return how many requests they queued, and the audit
#: waits until a round queues none.
crawl_settling = object()
