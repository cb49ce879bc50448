"""Bytes -> facts, in pure Python: the readers of what a URL answered, and the builders of the facts.

Nothing here imports Scrapy or Twisted (``tests/test_layout.py``), so the spider, ``hreflang-report``
and the tests share one reading of the HTML head, the ``Link`` header and the sitemap XML.
"""
