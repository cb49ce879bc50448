"""Name why a URL gave no response, in the words HL404 uses: dns, refused, timeout, tls, reset."""

from __future__ import annotations

from scrapy import exceptions as scrapy_errors
from scrapy.exceptions import IgnoreRequest
from twisted.internet import error as net
from twisted.python.failure import Failure
from twisted.web.client import ResponseFailed, ResponseNeverReceived


class RefusalRecorded(IgnoreRequest):
    """A request Qivrora chose not to send (robots.txt, an internal address, outside -a base),
    whose reason a middleware already recorded as a fact: the errback adds nothing."""


_KINDS: tuple[tuple[tuple[type[BaseException], ...], str], ...] = (
    ((scrapy_errors.CannotResolveHostError, net.DNSLookupError), "dns"),
    ((scrapy_errors.DownloadConnectionRefusedError, net.ConnectionRefusedError), "refused"),
    ((scrapy_errors.DownloadTimeoutError, net.TimeoutError, net.TCPTimedOutError), "timeout"),
    (
        (scrapy_errors.ResponseDataLossError, net.ConnectionLost, net.ConnectionDone, ConnectionResetError),
        "reset",
    ),
)


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception, what it wraps (Twisted's reasons, Python's causes), outermost first."""
    found: list[BaseException] = []
    todo = [exc]
    while todo and len(found) < 20:
        current = todo.pop(0)
        found.append(current)
        if isinstance(current, (ResponseFailed, ResponseNeverReceived)):
            todo += [r.value for r in current.reasons if isinstance(r, Failure)]
        for inner in (current.__cause__, current.__context__):
            if inner is not None and inner not in found:
                todo.append(inner)
    return found


def describe_failure(failure: Failure | BaseException) -> tuple[str, str]:
    """(kind, detail) for a download failure; kind is one of dns/refused/timeout/tls/reset/error."""
    exc = failure.value if isinstance(failure, Failure) else failure
    detail = f"{type(exc).__name__}: {exc}".rstrip(": ")
    if isinstance(exc, IgnoreRequest):
        return "ignored", detail  # e.g. a compressed body over DOWNLOAD_MAXSIZE
    for candidate in _causes(exc):
        name = type(candidate).__name__
        if "SSL" in name or "TLS" in name or "Certificate" in name or type(candidate).__module__.startswith("OpenSSL"):
            return "tls", detail
        for classes, kind in _KINDS:
            if isinstance(candidate, classes):
                return kind, detail
    return "error", detail
