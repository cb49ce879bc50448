"""Qivrora: an hreflang and sitemap auditor built on Scrapy."""

from __future__ import annotations

#: The one version of Qivrora: the distribution's (pyproject.toml reads it from here), `qivrora
#: version`, and the User-Agent. Kept in the source so that a checkout, which does not install the
#: distribution, knows it too.
__version__ = "0.2.0"
