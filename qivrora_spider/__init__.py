"""Qivrora: an hreflang and sitemap auditor built on Scrapy."""

from __future__ import annotations

#: The one version of Qivrora: the distribution's (pyproject.toml reads it from here), `qivrora
#: version`, and the User-Agent. Kept in the source so that a checkout, which does not install the
#: distribution, knows it too.
__version__ = "0.2.0"

#: The published docs site, where each check has its page (``catalogue.page_url``): the default of
#: QIVRORA_DOCS_URL, which the report and the JUnit output link each check under.
DOCS_URL = "https://qivrora.readthedocs.io/en/latest/"
