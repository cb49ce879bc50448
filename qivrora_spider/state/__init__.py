"""What outlives one crawl: the SQLite state (``store``), what changed since the previous crawl
(``changes``), how a crawl uses both (``history``), and pause and resume (``jobdir``)."""

