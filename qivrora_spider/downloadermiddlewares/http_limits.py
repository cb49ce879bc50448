"""How long a response header line may be: long enough for a `Link` header that lists many alternates.

Twisted's HTTP client reads response headers line by line and drops the connection on a line longer
than 16 KiB (``LineReceiver.MAX_LENGTH``). A `Link` header carrying the hreflang alternates of a
site in 150 languages is longer than that, and the audit would report a server that "drops the
connection" (HL404) where a browser reads the page fine. Chrome accepts 256 KiB of response headers,
so a line is read up to that; a longer one still ends the connection, as it does in a browser.

The limit is a class attribute of Twisted's parser, so raising it applies to the whole process (a
crawl is one process under ``scrapy crawl`` and Scrapyd alike); it is only ever raised, never lowered.
"""

from __future__ import annotations

from twisted.web import _newclient

#: Longest response header line read, in bytes.
MAX_HEADER_LINE = 256 * 1024


def allow_long_header_lines(limit: int = MAX_HEADER_LINE) -> None:
    parser = _newclient.HTTPClientParser
    if parser.MAX_LENGTH < limit:
        parser.MAX_LENGTH = limit
