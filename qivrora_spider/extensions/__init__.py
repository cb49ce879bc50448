"""The crawl's extensions: the audit when the crawl is done (``audit``), the progress line (``progress``)."""

from __future__ import annotations

from ..deprecated_paths import forward_names

# ``qivrora_spider.extensions`` was the audit extension's module in 0.1.
__getattr__ = forward_names(__name__, f"{__name__}.audit")
