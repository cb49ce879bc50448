"""Scrapy: the internals the crawl relies on, and Scrapy's own costs taken off every page.

Entry: ``replace_pool``
    Relies on: the HTTP/1.1 download handler's private ``_pool`` (a Twisted ``HTTPConnectionPool``,
    whose ``_factory`` is copied across).
    Tested with: Scrapy 2.19.0, Twisted 26.10.0.
    Test: tests/test_compat.py::test_scrapy_http11_handler_keeps_its_pool_in_underscore_pool.
    Remove when: ``compat.twisted.ReusableOnlyPool`` goes.

Entry: ``DirectStatsCollector``
    Relies on: ``StatsCollector.__getattribute__`` being only the hook that warns about the deprecated
    ``spider`` argument of the stats methods; the methods themselves are Scrapy's.
    Tested with: Scrapy 2.19.0.
    Test: tests/test_compat.py::test_scrapy_stats_collector_hooks_every_attribute_lookup.
    Remove when: Scrapy drops the ``spider`` argument, and the hook with it.

    Upstream bug, as it would be reported to Scrapy:

        Title: StatsCollector.__getattribute__ makes every stats call ~17 times slower.

        The hook that warns about the deprecated ``spider`` argument runs for every attribute lookup on
        the collector, its own ``self._stats`` included, and first looks for a cached wrapper by raising
        and catching an AttributeError. Scrapy calls the stats about twenty times a response.

            from scrapy.statscollectors import MemoryStatsCollector
            from scrapy.utils.test import get_crawler
            stats = MemoryStatsCollector(get_crawler())
            timeit.timeit(lambda: stats.inc_value("x"), number=100_000)

        Expected: about 0.15 µs a call, as with ``__getattribute__ = object.__getattribute__``.
        Actual: about 2.6 µs a call.

Entry: ``LazyRemoteControl``, ``LazyCookies``
    Relies on: ``scrapy.extensions.remote_control.RemoteControl`` and
    ``scrapy.downloadermiddlewares.cookies.CookiesMiddleware`` being listed in ``EXTENSIONS_BASE`` and
    ``DOWNLOADER_MIDDLEWARES_BASE`` under those paths, and raising NotConfigured unless
    ``REMOTE_CONTROL_ENABLED`` and ``COOKIES_ENABLED``.
    Tested with: Scrapy 2.19.0, aiohttp 3.14.5, tldextract 5.4.0.
    Test: tests/test_compat.py::test_scrapy_disabled_components_import_their_libraries.
    Remove when: those modules no longer import aiohttp and tldextract at import time.

    Upstream bug, as it would be reported to Scrapy:

        Title: a disabled remote control or cookies middleware still imports its library at every
        crawl's start.

        Scrapy imports the module of every component listed in the settings' base dicts before the
        component raises NotConfigured; the remote control's module imports aiohttp at the top, the
        cookies middleware's tldextract (and its file lock).

            python -c "import sys, scrapy.extensions.remote_control; print('aiohttp' in sys.modules)"
            python -c "import sys, scrapy.downloadermiddlewares.cookies; print('tldextract' in sys.modules)"

        Expected: False while the component is off. Actual: True (about 0.14 s and 0.06 s of CPU).

Entry: ``QuietLogFormatter``
    Relies on: Scrapy logging every response ("Crawled") and item ("Scraped from") through
    ``LogFormatter.crawled`` and ``LogFormatter.scraped`` at DEBUG, on the loggers
    ``scrapy.core.engine`` and ``scrapy.core.scraper``.
    Tested with: Scrapy 2.19.0.
    Test: tests/test_compat.py::test_scrapy_logs_responses_and_items_through_the_log_formatter.
    Remove when: Scrapy checks the level before building those records.

Entry: ``downloader_middlewares``
    Relies on: ``engine.downloader.middleware.middlewares``, the built downloader middlewares.
    Tested with: Scrapy 2.19.0.
    Test: tests/test_compat.py::test_scrapy_downloader_lists_its_built_middlewares.
    Remove when: Scrapy offers a public way to reach a built component.

Entry: ``download_waits``
    Relies on: ``engine.downloader.slots`` (slot key -> ``Slot`` with ``delay``, ``queue``: the
    requests waiting on the delay, and ``transferring``), as AutoThrottle reads them.
    Tested with: Scrapy 2.19.0.
    Test: tests/test_compat.py::test_scrapy_downloader_keeps_its_slots_and_active_requests.
    Remove when: Scrapy offers a public view of its download slots.

Entry: ``DirectItemSignal``
    Relies on: the scraper announcing each item with ``crawler.signals.send_catch_log_async(
    signal=item_scraped, ...)`` (``Scraper.start_itemproc_async``), and on how
    ``scrapy.utils.signal`` calls a receiver (pydispatch's ``robustApply``, whose rule for the
    arguments a function or method accepts ``_apply`` applies from a cache) and logs its error.
    Tested with: Scrapy 2.19.0.
    Test: tests/test_compat.py::test_scrapy_announces_each_item_through_send_catch_log_async.
    Remove when: Scrapy calls a plain receiver without a task of its own.

    Upstream bug, as it would be reported to Scrapy:

        Title: send_catch_log_async makes an asyncio task of every receiver, plain functions too.

        ``item_scraped`` is sent for every item through ``send_catch_log_async``, which wraps each
        receiver in a coroutine and gathers them, though most receivers (the core stats, the feed
        exporter) are plain functions that return None.

            sm = SignalManager(); [sm.connect(f, signals.item_scraped) for f in four_plain_receivers]
            await sm.send_catch_log_async(signal=signals.item_scraped, item=1, response=None, spider=None)

        Expected: about the 15 µs of ``send_catch_log`` with four receivers. Actual: about 47 µs.

Entry: ``set_idle_heartbeat``
    Relies on: ``ExecutionEngine._SLOT_HEARTBEAT_INTERVAL``, the seconds after which the engine asks an
    idle spider for more work (read when the spider opens, ``open_spider``).
    Tested with: Scrapy 2.19.0.
    Test: tests/test_compat.py::test_scrapy_engine_asks_an_idle_spider_on_its_slot_heartbeat.
    Remove when: Scrapy makes the interval a setting.

Entry: ``requests_in_progress``
    Relies on: ``ExecutionEngine._slot.inprogress``, the requests the engine holds from their download
    until their callback's output is handled.
    Tested with: Scrapy 2.19.0.
    Test: tests/test_compat.py::test_scrapy_engine_holds_requests_in_progress_in_its_slot.
    Remove when: Scrapy offers a public view of the requests in progress.

Entry: ``callers_by_frame``
    Relies on: ``scrapy.utils.deprecate.create_deprecated_class`` finding the module that calls it with
    ``inspect.stack()[1]`` and ``inspect.getmodule`` of that frame, looked up on the ``inspect`` its
    module imported; ``scrapy.core.downloader.contextfactory`` and ``.tls`` creating three deprecated
    classes when the HTTP/1.1 handler is imported.
    Tested with: Scrapy 2.19.0, Python 3.11.7.
    Test: tests/test_compat.py::test_scrapy_deprecated_classes_find_their_module_with_inspect_stack.
    Remove when: ``create_deprecated_class`` reads its caller's frame alone.

    Upstream bug, as it would be reported to Scrapy:

        Title: importing the HTTP/1.1 download handler spends most of its time in inspect.stack().

        ``create_deprecated_class`` sets the new class's ``__module__`` from ``inspect.stack()[1]``.
        ``inspect.stack()`` reads the source line of every frame of the stack and resolves each
        frame's module by scanning ``sys.modules`` (CPython issue 92041); the stack of an import is
        deep, and ``contextfactory`` and ``tls`` create three classes so.

            python -X importtime -c "import scrapy.crawler, scrapy.core.downloader.handlers.http11" \
                2>&1 | grep -E "contextfactory|downloader.tls$"

        Expected: a few ms (``sys._getframe(1).f_globals["__name__"]`` names the same module).
        Actual: 44 to 46 ms with 608 modules loaded, about 70 ms in a crawl's process (1,024).

Entry: ``KeepsCrawler``
    Relies on: ``BaseRunSpiderCommand._create_crawler(spidercls)``, through which ``scrapy crawl``
    builds its crawler.
    Tested with: Scrapy 2.19.0.
    Test: tests/test_compat.py::test_scrapy_crawl_command_builds_its_crawler_in_create_crawler.
    Remove when: the command exposes the crawler it ran.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import CodeType, FrameType, FunctionType, ModuleType
from typing import TYPE_CHECKING, Any, Iterator

from pydispatch.dispatcher import getAllReceivers, liveReceivers
from pydispatch.robustapply import robustApply
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.logformatter import LogFormatter
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils import deprecate
from scrapy.utils.asyncio import is_asyncio_available
from scrapy.utils.defer import ensure_awaitable
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy.utils.python import global_object_name
from twisted.internet.defer import Deferred

from .twisted import ReusableOnlyPool

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
    from scrapy.core.engine import ExecutionEngine
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.logformatter import LogFormatterResult
    from twisted.python.failure import Failure


def replace_pool(handler: HTTP11DownloadHandler) -> None:
    """Give a handler built on Scrapy's HTTP/1.1 handler (scrapy-playwright's too) the pool of
    ``compat.twisted``, set up as Scrapy set up its own (``CONCURRENT_REQUESTS_PER_DOMAIN`` connections
    kept per host, its lenient protocol factory). Called from ``__init__``, before any connection."""
    from twisted.internet import reactor

    old = handler._pool
    pool = ReusableOnlyPool(reactor, persistent=old.persistent)
    pool.maxPersistentPerHost = old.maxPersistentPerHost
    pool.cachedConnectionTimeout = old.cachedConnectionTimeout
    pool.retryAutomatically = old.retryAutomatically
    pool._factory = old._factory
    handler._pool = pool


class DirectStatsCollector(MemoryStatsCollector):
    """Scrapy's in-memory stats collector without the per-lookup hook; only its deprecation warning
    about the ``spider`` argument is not given."""

    __getattribute__ = object.__getattribute__


class LazyComponent:
    """Stands in a Scrapy component's place in its settings' base dict, and builds the component only
    when its setting enables it: until then its module, and the library it imports, stay unloaded."""

    #: The component's import path, and the setting that enables it.
    path: str
    enabled_by: str

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Any:
        if not crawler.settings.getbool(cls.enabled_by):
            raise NotConfigured
        return build_from_crawler(load_object(cls.path), crawler)


class LazyRemoteControl(LazyComponent):
    path = "scrapy.extensions.remote_control.RemoteControl"
    enabled_by = "REMOTE_CONTROL_ENABLED"


class LazyCookies(LazyComponent):
    path = "scrapy.downloadermiddlewares.cookies.CookiesMiddleware"
    enabled_by = "COOKIES_ENABLED"


#: The loggers of Scrapy's "Crawled" and "Scraped from" lines (logging hands out one object a name).
_CRAWLED = logging.getLogger("scrapy.core.engine")
_SCRAPED = logging.getLogger("scrapy.core.scraper")


def keeps_debug(logger: logging.Logger | None) -> bool:
    """Whether a DEBUG record of `logger` reaches a handler that keeps it, as logging decides.

    Asked on every line rather than once: Scrapy installs its root handler after the formatter is
    built, and an embedding program may configure logging at any time.
    """
    if logger is None or not logger.isEnabledFor(logging.DEBUG):
        return False
    while logger is not None:
        if any(handler.level <= logging.DEBUG for handler in logger.handlers):
            return True
        logger = logger.parent if logger.propagate else None
    return False  # logging's last resort handler shows WARNING and above


class QuietLogFormatter(LogFormatter):
    """Scrapy's log formatter, without the DEBUG lines of every response and item that no handler
    keeps: the logging module builds a full record for each (the caller's frame, the time, thread and
    process names) before the handler drops it for its level. Where a handler keeps DEBUG, the lines
    are Scrapy's, unchanged."""

    def crawled(self, request: Request, response: Response, spider: Spider) -> LogFormatterResult | None:
        return super().crawled(request, response, spider) if keeps_debug(_CRAWLED) else None

    def scraped(
        self, item: Any, response: Response | Failure | None, spider: Spider
    ) -> LogFormatterResult | None:
        return super().scraped(item, response, spider) if keeps_debug(_SCRAPED) else None


_SIGNAL_LOGGER = logging.getLogger("scrapy.utils.signal")


class DirectItemSignal:
    """An extension in name only: each item is announced by calling the receivers of
    ``item_scraped`` one after the other, and only what one of them returns to be awaited is awaited
    (together, as Scrapy does). An error of a receiver is logged as Scrapy logs it, and the crawl goes
    on. Other signals, and any signal where asyncio is not the loop, go through Scrapy."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DirectItemSignal:
        manager = crawler.signals
        send_async = manager.send_catch_log_async

        async def send_catch_log_async(signal: Any, **kwargs: Any) -> list[tuple[Any, Any]]:
            if signal is not signals.item_scraped or not is_asyncio_available():
                return await send_async(signal, **kwargs)
            return await _send_directly(signal, kwargs.pop("sender", manager.sender), kwargs)

        manager.send_catch_log_async = send_catch_log_async  # type: ignore[method-assign]
        return cls()


#: What a receiver's code accepts of the named arguments (None: all, it takes ``**kwargs``), as
#: robustApply works it out from the code object on every call: a few µs a receiver and an item.
_ACCEPTED: dict[tuple[CodeType, int], tuple[str, ...] | None] = {}


def _apply(receiver: Any, named: dict[str, Any]) -> Any:
    """``robustApply(receiver, **named)``: for a function or a method, the accepted names are read
    once per code object; any other callable goes through robustApply."""
    function = getattr(receiver, "__func__", receiver)
    code = getattr(function, "__code__", None)
    if not isinstance(code, CodeType) or not isinstance(function, FunctionType):
        return robustApply(receiver, **named)
    first = 1 if function is not receiver else 0  # a method's first argument is bound already
    try:
        accepted = _ACCEPTED[code, first]
    except KeyError:
        takes_all = bool(code.co_flags & inspect.CO_VARKEYWORDS)
        accepted = _ACCEPTED[code, first] = None if takes_all else code.co_varnames[first:code.co_argcount]
    if accepted is None:
        return receiver(**named)
    return receiver(**{name: value for name, value in named.items() if name in accepted})


async def _send_directly(signal: Any, sender: Any, named: dict[str, Any]) -> list[tuple[Any, Any]]:
    spider = named.get("spider")
    results: list[tuple[Any, Any]] = []
    waiting: list[int] = []
    arguments = {"signal": signal, "sender": sender, **named}
    for receiver in liveReceivers(getAllReceivers(sender, signal)):
        try:
            result = _apply(receiver, arguments)
        except Exception as exc:
            _log_receiver_error(receiver, spider)
            result = exc
        else:
            if isinstance(result, Deferred) or inspect.isawaitable(result):
                waiting.append(len(results))
                result = _awaited(receiver, result, spider)
        results.append((receiver, result))
    if waiting:
        done = await asyncio.gather(*(results[at][1] for at in waiting))
        for at, result in zip(waiting, done):
            results[at] = (results[at][0], result)
    return results


async def _awaited(receiver: Any, result: Any, spider: Any) -> Any:
    try:
        return await ensure_awaitable(result, _warn=global_object_name(receiver))
    except Exception as exc:
        _log_receiver_error(receiver, spider)
        return exc


def _log_receiver_error(receiver: Any, spider: Any) -> None:
    _SIGNAL_LOGGER.error(
        "Error caught on signal handler: %(receiver)s",
        {"receiver": receiver},
        exc_info=True,
        extra={"spider": spider},
    )


def downloader_middlewares(engine: ExecutionEngine | None) -> tuple[Any, ...]:
    """The downloader middlewares the crawl built, in order; none before the engine exists."""
    return tuple(engine.downloader.middleware.middlewares) if engine is not None else ()


@dataclass(frozen=True, slots=True)
class DownloadWaits:
    """What the downloader holds: each host's delay (where it has one), the requests waiting on it, and
    the requests sent and not yet answered."""

    delays: dict[str, float] = field(default_factory=dict)
    delayed: int = 0
    transferring: int = 0


def download_waits(engine: ExecutionEngine | None) -> DownloadWaits:
    """What the downloader holds now; nothing before the engine exists."""
    if engine is None:
        return DownloadWaits()
    slots = engine.downloader.slots.items()
    return DownloadWaits(
        {key: slot.delay for key, slot in slots if slot.delay > 0},
        sum(len(slot.queue) for _, slot in slots),
        sum(len(slot.transferring) for _, slot in slots),
    )


def set_idle_heartbeat(engine: ExecutionEngine, seconds: float) -> None:
    """Have `engine` ask its idle spider again every `seconds` (Scrapy's is 5 s), from the spider's
    opening on: a worker of a shared crawl learns of new work, and of the crawl's end, only so."""
    engine._SLOT_HEARTBEAT_INTERVAL = seconds


def requests_in_progress(engine: ExecutionEngine | None) -> set[Request]:
    """The requests `engine` holds from their download until their callback's output is handled; none
    before the spider opens or after it closes."""
    slot = engine._slot if engine is not None else None
    return slot.inprogress if slot is not None else set()


class KeepsCrawler:
    """Mixed into a ``scrapy crawl`` command: ``self._crawler`` is the crawler it ran, for the exit status."""

    _crawler: Crawler | None = None

    def _create_crawler(self, spidercls: type[Spider] | str) -> Crawler:
        self._crawler = super()._create_crawler(spidercls)  # type: ignore[misc]
        return self._crawler


class _CallerFrame:
    """``inspect`` as ``create_deprecated_class`` uses it, answering for its caller's frame alone."""

    def __getattr__(self, name: str) -> Any:
        return getattr(inspect, name)

    @staticmethod
    def stack(context: int = 1) -> list[tuple[FrameType]]:
        # As inspect.stack() lists them from create_deprecated_class: itself, then its caller.
        return [(sys._getframe(1),), (sys._getframe(2),)]

    @staticmethod
    def getmodule(frame: FrameType) -> ModuleType | None:
        return sys.modules.get(frame.f_globals.get("__name__", ""))


@contextmanager
def callers_by_frame() -> Iterator[None]:
    """While Scrapy's modules are imported inside it, a deprecated class Scrapy creates takes its
    module from its caller's frame, as ``inspect.stack()`` would have found it, without that cost."""
    deprecate.inspect = _CallerFrame()  # type: ignore[assignment]
    try:
        yield
    finally:
        deprecate.inspect = inspect
