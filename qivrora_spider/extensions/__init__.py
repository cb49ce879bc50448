"""The crawl's extensions: the audit when the crawl is done (``audit``), the progress line (``progress``)."""

