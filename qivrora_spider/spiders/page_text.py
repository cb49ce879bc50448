"""The text of a fetched page, read only as far as a search engine reads it.

Googlebot considers the first 15 MB of an HTML or text file and drops the rest ("Googlebot and the
15 MB thing", Google Search Central, 2022); annotations and links after that do not exist for it.
Qivrora reads the same prefix, which also bounds what a hostile page costs: html.parser is pure
Python (about 6 s and a few hundred MB for 15 MB of markup would otherwise be 25 s for 64 MB). A cut
page is never silent: the log says so, with the size, and the stat ``qivrora/pages/truncated``
counts them.
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy.http import Response, TextResponse

logger = logging.getLogger(__name__)

#: Bytes of a page that are decoded and parsed (uncompressed, as Google counts them).
MAX_PAGE_BYTES = 15 * 1024 * 1024


def page_text(response: Response, stats: Any = None, limit: int = MAX_PAGE_BYTES) -> str | None:
    """The decoded body (None for a body that is not text), cut after `limit` bytes."""
    if not isinstance(response, TextResponse):
        return None
    size = len(response.body)
    if size <= limit:
        return response.text
    logger.warning(
        "%s is %s bytes: only its first %s bytes are read, as search engines read them (Google: "
        "15 MB); hreflang annotations, canonicals and links after that are not seen",
        response.url,
        f"{size:,}",
        f"{limit:,}",
    )
    if stats is not None:
        stats.inc_value("qivrora/pages/truncated")
    # Decoding the prefix only: the encoding is inferred from it (a full body would be decoded whole).
    return response.replace(body=response.body[:limit]).text  # type: ignore[union-attr]
