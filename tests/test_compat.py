"""Each reliance on another library's internals (qivrora_spider/compat/) fails here, by name, when the
library changes under it, and each entry says what it relies on, with what, and when it may go."""

from __future__ import annotations

import ast
import hashlib
import inspect
import subprocess
import sys
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
import pytest_twisted
from scrapy.utils.test import get_crawler

from qivrora_spider import compat

from .conftest import ROOT

COMPAT = ROOT / "qivrora_spider" / "compat"
FIELDS = ("Relies on:", "Tested with:", "Test:", "Remove when:")


def _entries(path) -> list[str]:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return docstring.split("Entry: ")[1:]


@pytest.mark.parametrize("path", sorted(COMPAT.glob("[!_]*.py")), ids=lambda path: path.stem)
def test_every_compat_entry_states_its_reliance_versions_test_and_removal(path):
    entries = _entries(path)
    assert entries, f"{path.name} names no entry"
    tests = {
        f"{test.relative_to(ROOT)}::{node.name}"
        for test in (ROOT / "tests").glob("test_*.py")
        for node in ast.walk(ast.parse(test.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    for entry in entries:
        name = entry.split("\n", 1)[0]
        assert all(field in entry for field in FIELDS), f"{path.name}: {name} lacks one of {FIELDS}"
        test_field = " ".join(entry.split("Test:", 1)[1].split("Remove when:", 1)[0].split())
        named = [word.strip(",.;") for word in test_field.split() if "::" in word]
        assert named and set(named) <= tests, f"{path.name}: {name} names a test that does not exist: {named}"


def test_compat_is_a_package_of_one_module_per_library():
    libraries = {path.stem for path in COMPAT.glob("[!_]*.py")}
    assert libraries == {"cpython", "html_parser", "scrapy", "scrapy_playwright", "scrapy_redis", "twisted"}
    assert compat.__doc__


# -- python: html.parser ---------------------------------------------------------------------------

#: sha256 (first 16 hex digits) of the source of each html.parser function HtmlTokenizer forks or
#: reads around, on the Python the fork was made from (3.11.7).
FORKED = {
    "HTMLParser.goahead": "482555522333534e",
    "HTMLParser.close": "9b868725c1af619a",
    "ParserBase.updatepos": "86f8c2b25942d126",
}


def test_html_parser_reading_loop_is_the_one_forked():
    import _markupbase

    functions = {
        "HTMLParser.goahead": HTMLParser.goahead,
        "HTMLParser.close": HTMLParser.close,
        "ParserBase.updatepos": _markupbase.ParserBase.updatepos,
    }
    found = {
        name: hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]
        for name, function in functions.items()
    }
    assert found == FORKED, (
        "html.parser changed upstream: compare compat/html_parser.py's HtmlTokenizer with the new "
        "goahead/close, port the change, and record the new hashes and the Python version"
    )


# -- twisted ---------------------------------------------------------------------------------------


def test_twisted_pool_private_api_is_there():
    from twisted.internet import reactor
    from twisted.web.client import HTTPConnectionPool

    pool = HTTPConnectionPool(reactor)
    assert callable(HTTPConnectionPool._putConnection)
    assert isinstance(pool._connections, dict) and isinstance(pool._timeouts, dict)
    assert pool._factory is not None


def test_twisted_http_client_parser_bounds_header_lines_by_max_length():
    from twisted.protocols.basic import LineReceiver
    from twisted.web._newclient import HTTPClientParser

    from qivrora_spider.compat.twisted import MAX_HEADER_LINE, allow_long_header_lines

    assert issubclass(HTTPClientParser, LineReceiver) and "MAX_LENGTH" in vars(LineReceiver)
    allow_long_header_lines()
    assert HTTPClientParser.MAX_LENGTH >= MAX_HEADER_LINE


# -- scrapy ----------------------------------------------------------------------------------------


def test_scrapy_http11_handler_keeps_its_pool_in_underscore_pool():
    from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
    from twisted.web.client import HTTPConnectionPool

    handler = HTTP11DownloadHandler(get_crawler(settings_dict={"CONCURRENT_REQUESTS_PER_DOMAIN": 3}))
    assert type(handler._pool) is HTTPConnectionPool
    assert handler._pool.maxPersistentPerHost == 3


def test_scrapy_stats_collector_hooks_every_attribute_lookup():
    from scrapy.statscollectors import MemoryStatsCollector, StatsCollector

    assert "__getattribute__" in StatsCollector.__dict__, "Scrapy dropped it: DirectStatsCollector may go"
    assert MemoryStatsCollector.__getattribute__ is not object.__getattribute__


@pytest.mark.parametrize(
    ("component", "library", "base"),
    [
        ("scrapy.extensions.remote_control.RemoteControl", "aiohttp", "EXTENSIONS_BASE"),
        (
            "scrapy.downloadermiddlewares.cookies.CookiesMiddleware", "tldextract",
            "DOWNLOADER_MIDDLEWARES_BASE",
        ),
    ],
)
def test_scrapy_disabled_components_import_their_libraries(component, library, base):
    """The reproduction: should it fail, the module no longer imports its library and its
    LazyComponent may go."""
    module = component.rpartition(".")[0]
    probe = f"import sys, {module}; print({library!r} in sys.modules)"
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert run.stdout.strip() == "True"
    from scrapy.settings import default_settings

    assert component in getattr(default_settings, base)


@pytest.mark.parametrize("enabled", [False, True])
def test_a_lazy_component_is_scrapys_where_its_setting_enables_it(enabled):
    from scrapy.core.downloader import Downloader
    from scrapy.downloadermiddlewares.cookies import CookiesMiddleware

    from qivrora_spider import settings
    from qivrora_spider.compat.scrapy import downloader_middlewares

    crawler = get_crawler(settings_dict={
        "DOWNLOADER_MIDDLEWARES_BASE": settings.DOWNLOADER_MIDDLEWARES_BASE, "COOKIES_ENABLED": enabled,
    })
    assert "scrapy.downloadermiddlewares.cookies.CookiesMiddleware" not in settings.DOWNLOADER_MIDDLEWARES_BASE

    class Engine:
        downloader = Downloader(crawler)

    built = downloader_middlewares(Engine())  # type: ignore[arg-type]
    assert any(isinstance(middleware, CookiesMiddleware) for middleware in built) is enabled


def test_scrapy_logs_responses_and_items_through_the_log_formatter():
    from scrapy.logformatter import LogFormatter

    formatter = LogFormatter()
    assert inspect.signature(formatter.crawled).parameters.keys() == {"request", "response", "spider"}
    assert inspect.signature(formatter.scraped).parameters.keys() == {"item", "response", "spider"}
    engine = inspect.getsource(__import__("scrapy.core.engine", fromlist=["x"]))
    scraper = inspect.getsource(__import__("scrapy.core.scraper", fromlist=["x"]))
    assert "logformatter.crawled(" in engine and "logformatter.scraped(" in scraper


def test_the_quiet_log_formatter_builds_the_crawled_line_only_where_a_handler_keeps_debug():
    import logging

    from scrapy import Request, Spider
    from scrapy.http import HtmlResponse

    from qivrora_spider.compat.scrapy import QuietLogFormatter

    formatter, spider = QuietLogFormatter(), Spider("probe")
    request = Request("http://127.0.0.1/")
    response = HtmlResponse(request.url, request=request, body=b"<html></html>")
    engine = logging.getLogger("scrapy.core.engine")
    handler = logging.NullHandler()
    # pytest's own capture handlers on the root logger keep everything: the engine's logger stops here.
    level, propagate = engine.level, engine.propagate
    # setLevel, not the attribute: logging caches isEnabledFor per logger, and only setLevel clears it.
    engine.setLevel(logging.DEBUG)
    engine.propagate = False
    try:
        handler.setLevel(logging.INFO)
        engine.addHandler(handler)
        assert formatter.crawled(request, response, spider) is None
        handler.setLevel(logging.DEBUG)
        assert formatter.crawled(request, response, spider)["level"] == logging.DEBUG
    finally:
        engine.removeHandler(handler)
        engine.setLevel(level)
        engine.propagate = propagate


def test_scrapy_downloader_lists_its_built_middlewares():
    from scrapy.core.downloader import Downloader

    from qivrora_spider.compat.scrapy import downloader_middlewares
    from qivrora_spider.downloadermiddlewares.private_guard import PrivateAddressGuard
    from qivrora_spider.settings import DOWNLOADER_MIDDLEWARES

    crawler = get_crawler(settings_dict={"DOWNLOADER_MIDDLEWARES": DOWNLOADER_MIDDLEWARES})

    class Engine:
        downloader = Downloader(crawler)

    built = downloader_middlewares(Engine())  # type: ignore[arg-type]
    assert any(isinstance(middleware, PrivateAddressGuard) for middleware in built)
    assert downloader_middlewares(None) == ()


def test_scrapy_downloader_keeps_its_slots_and_active_requests():
    from scrapy import Request
    from scrapy.core.downloader import Downloader

    from qivrora_spider.compat.scrapy import DownloadWaits, download_waits

    class Engine:
        downloader = Downloader(get_crawler(settings_dict={"DOWNLOAD_DELAY": 0.25}))

    _, slot = Engine.downloader._get_slot(Request("https://example.com/"))
    slot.queue.append((Request("https://example.com/a"), None))
    slot.transferring.add(Request("https://example.com/b"))
    assert download_waits(Engine()) == DownloadWaits({"example.com": 0.25}, 1, 1)  # type: ignore[arg-type]
    assert download_waits(None) == DownloadWaits()


def test_scrapy_engine_asks_an_idle_spider_on_its_slot_heartbeat():
    from scrapy.core.engine import ExecutionEngine

    assert ExecutionEngine._SLOT_HEARTBEAT_INTERVAL == 5.0
    assert "heartbeat.start(self._SLOT_HEARTBEAT_INTERVAL)" in inspect.getsource(ExecutionEngine), (
        "the engine no longer reads its idle heartbeat from _SLOT_HEARTBEAT_INTERVAL"
    )


def test_scrapy_engine_holds_requests_in_progress_in_its_slot():
    from scrapy import Request
    from scrapy.core.engine import ExecutionEngine, _Slot

    from qivrora_spider.compat.scrapy import requests_in_progress

    slot = _Slot(close_if_idle=True, nextcall=SimpleNamespace(schedule=print), scheduler=None)  # type: ignore[arg-type]
    request = Request("https://example.com/")
    slot.add_request(request)
    engine = ExecutionEngine.__new__(ExecutionEngine)
    engine._slot = slot
    assert requests_in_progress(engine) == {request}
    slot.remove_request(request)
    assert requests_in_progress(engine) == set()
    engine._slot = None
    assert requests_in_progress(engine) == set() and requests_in_progress(None) == set()


def test_scrapy_crawl_command_builds_its_crawler_in_create_crawler():
    from scrapy.commands import BaseRunSpiderCommand
    from scrapy.commands.crawl import Command

    assert "_create_crawler" in BaseRunSpiderCommand.__dict__
    assert "_create_crawler(" in inspect.getsource(Command.run), "scrapy crawl builds its crawler there"


def test_scrapy_deprecated_classes_find_their_module_with_inspect_stack():
    """The reliance: should it fail, Scrapy no longer walks the whole stack (or finds the module
    otherwise) and callers_by_frame may go."""
    from scrapy.utils import deprecate

    source = inspect.getsource(deprecate.create_deprecated_class)
    assert "inspect.stack()[1]" in source and "inspect.getmodule(frm[0])" in source
    assert deprecate.inspect is inspect


def test_a_deprecated_class_made_under_callers_by_frame_gets_the_module_scrapy_gives_it(monkeypatch):
    import warnings

    from scrapy.utils import deprecate

    from qivrora_spider.compat.scrapy import callers_by_frame

    class New:
        pass

    by_stack = deprecate.create_deprecated_class("Old", New)

    def walks_the_stack(context: int = 1) -> None:
        raise AssertionError("inspect.stack() called")

    monkeypatch.setattr(inspect, "stack", walks_the_stack)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Scrapy turns a failed lookup into a warning
        with callers_by_frame():
            by_frame = deprecate.create_deprecated_class("Old", New)
    assert by_frame.__module__ == by_stack.__module__ == __name__
    assert deprecate.inspect is inspect, "put back"


@pytest.mark.parametrize("importer", ["qivrora_spider.download_handlers", "qivrora_spider.rendering.handler"])
def test_the_http11_handler_is_imported_without_walking_the_stack(importer):
    """Each of our modules that imports Scrapy's handler (the rendering one through scrapy-playwright's):
    the deprecated classes are in the modules Scrapy puts them in, though inspect.stack() fails."""
    probe = (
        "import inspect\n"
        "inspect.stack = None\n"
        f"import {importer}\n"
        "from scrapy.core.downloader import contextfactory, tls\n"
        "print(contextfactory.ScrapyClientContextFactory.__module__,"
        " contextfactory.AcceptableProtocolsContextFactory.__module__, tls.ScrapyClientTLSOptions.__module__)"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert run.stdout.split() == ["scrapy.core.downloader.contextfactory"] * 2 + ["scrapy.core.downloader.tls"]


# -- scrapy-redis ----------------------------------------------------------------------------------


def test_scrapy_redis_priority_queue_writes_and_reads_through_its_hooks():
    from scrapy_redis.queue import PriorityQueue

    push, pop = inspect.getsource(PriorityQueue.push), inspect.getsource(PriorityQueue.pop)
    assert "self._encode_request(request)" in push, "push no longer encodes through _encode_request"
    assert "self._decode_request(" in pop, "pop no longer decodes through _decode_request"


# -- scrapy-playwright -----------------------------------------------------------------------------


def test_scrapy_playwright_creates_pages_with_request_and_spider():
    from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

    parameters = inspect.signature(ScrapyPlaywrightDownloadHandler._create_page).parameters
    assert list(parameters) == ["self", "request", "spider"]
    assert inspect.iscoroutinefunction(ScrapyPlaywrightDownloadHandler._create_page)


def test_scrapy_announces_each_item_through_send_catch_log_async():
    from scrapy.core.scraper import Scraper

    source = inspect.getsource(Scraper.start_itemproc_async)
    assert "self.signals.send_catch_log_async(" in source and "signal=signals.item_scraped" in source
    assert "self.signals" in inspect.getsource(Scraper.__init__).split("crawler.signals")[0]
    crawler = get_crawler()
    assert inspect.iscoroutinefunction(crawler.signals.send_catch_log_async)


@pytest_twisted.ensureDeferred
async def test_item_receivers_are_called_without_a_task_each_and_their_errors_logged(site, caplog):
    """A plain receiver runs in the task that processes the item, not in one made for it; an
    asynchronous one is still awaited, and one that raises is logged as Scrapy logs it."""
    import asyncio

    from scrapy import signals

    from qivrora_spider.demo.site_server import Route, alternate, html_page

    from .conftest import crawl

    a = site.url
    for path in ("/", "/de/"):
        site.routes[path] = Route(html_page(alternate("en", a("/")), alternate("de", a("/de/"))))
    tasks: list[str] = []
    awaited: list[object] = []

    def plain(item: object) -> None:
        tasks.append(asyncio.current_task().get_coro().__qualname__)  # type: ignore[union-attr]

    async def asynchronous(item: object) -> None:
        await asyncio.sleep(0)
        awaited.append(item)

    def failing(item: object) -> None:
        raise ValueError("a receiver's own error")

    def opened(spider) -> None:
        for receiver in (asynchronous, failing):
            spider.crawler.signals.connect(receiver, signal=signals.item_scraped, weak=False)

    result = await crawl(handlers={signals.item_scraped: plain, signals.spider_opened: opened}, start=a("/"))
    assert len(result.items) == len(tasks) == len(awaited) >= 2
    assert not any("handler" in task for task in tasks), tasks
    errors = [r for r in caplog.records if r.getMessage().startswith("Error caught on signal handler")]
    assert len(errors) == len(result.items) and "a receiver's own error" in errors[0].exc_text


# -- cpython: the exit handlers -------------------------------------------------------------------


def test_cpython_runs_the_exit_handlers_through_atexit_run_exitfuncs(tmp_path):
    script = (
        "import atexit, os, sys\n"
        f"atexit.register(lambda: open({str(tmp_path / 'ran')!r}, 'w').close())\n"
        "atexit._run_exitfuncs()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    assert (tmp_path / "ran").exists()


def test_item_receivers_get_the_arguments_robust_apply_would_give_them():
    """The receivers' accepted names are read once per code object, with robustApply's rules."""
    import types

    from pydispatch.robustapply import robustApply

    from qivrora_spider.compat.scrapy import _apply

    class Receiver:
        def method(self, item, spider=None):
            return ("method", item, spider)

        def __call__(self, item, response=None):
            return ("call", item, response)

    def subset(item, signal=None):
        return ("subset", item, signal)

    def everything(**named):
        return ("everything", sorted(named))

    def keyword_only(item, *, spider=None):
        return ("keyword_only", item, spider)

    def positional(item, extra="unset"):
        return ("positional", item, extra)

    named = {"signal": "item_scraped", "sender": "engine", "item": 1, "response": "r", "spider": "s"}
    receivers = [Receiver().method, Receiver(), subset, everything, keyword_only, positional,
                 types.MethodType(subset, "bound")]  # subset's code, bound this time
    for receiver in receivers * 2:  # the second time from what was read the first
        assert _apply(receiver, named) == robustApply(receiver, **named)
