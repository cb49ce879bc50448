"""What outlives one crawl: the SQLite state (``store``), what changed since the previous crawl
(``changes``), how a crawl uses both (``history``), and pause and resume (``jobdir``)."""

from __future__ import annotations

from ..deprecated_paths import forward_names

# ``qivrora_spider.state`` was the state file's module in 0.1.
__getattr__ = forward_names(__name__, f"{__name__}.store")
