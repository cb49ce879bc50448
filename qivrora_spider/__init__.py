"""Qivrora: an hreflang and sitemap auditor built on Scrapy."""

from __future__ import annotations

from . import deprecated_paths

deprecated_paths.install()
