"""The download handler of ``-a render=1``: scrapy-playwright's, with the served HTML kept.

scrapy-playwright's own path navigates the browser to the URL and returns the rendered DOM as the body:
the HTML as served would be lost (or fetched a second time), redirects would be followed, and a PDF
would go through the browser. Here every request is first fetched as Scrapy fetches it (the parent
class hands a request without ``meta["playwright"]`` to Scrapy's HTTP/1.1 handler), and the spider
gets that response as it would without rendering. When the spider marked the request
(``meta["qivrora_render"]``) and it answered 200 with HTML, a browser page in a fresh context is
navigated to the URL and its navigation answered with the very bytes received: the served HTML and the
rendered DOM come from one fetch. The result (``RenderResult``) travels in ``meta["qivrora_rendered"]``.

scrapy-playwright keeps what it is good at: starting Playwright once the engine starts, launching the
browser at the first page, bounding contexts (``PLAYWRIGHT_MAX_CONTEXTS``), its stats, and closing
contexts, browser and driver when the crawl ends or is interrupted.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
import zlib
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from ..compat.scrapy import callers_by_frame, downloader_middlewares, replace_pool
from ..compat.scrapy_playwright import create_page
from ..downloadermiddlewares.private_guard import PrivateAddressGuard
from ..extract.page_facts import is_html
from . import RenderOptions, RenderResult

with callers_by_frame():  # it imports Scrapy's HTTP/1.1 handler
    from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page, Route
    from playwright.async_api import Request as BrowserRequest
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

logger = logging.getLogger(__name__)

#: How often the <head> is compared while waiting for it to settle.
POLL = 0.1
#: Seconds allowed to read the DOM once the wait is over (a page whose scripts never yield fails here).
READ_GRACE = 2.0
#: Headers that describe the bytes on the wire, not the (decoded) body handed to the browser.
HOP_HEADERS = {b"content-length", b"transfer-encoding", b"connection", b"keep-alive", b"content-encoding"}

HEAD_JS = "() => document.head ? document.head.outerHTML : ''"


class RenderingDownloadHandler(ScrapyPlaywrightDownloadHandler):
    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        replace_pool(self)  # Scrapy's fetches go through its pool: ours, which reuses no closing connection
        self.crawler = crawler
        self.options = RenderOptions.from_settings(crawler.settings)
        self.slots = asyncio.Semaphore(self.options.concurrency)
        self.max_size = crawler.settings.getint("DOWNLOAD_MAXSIZE") or 64 * 1024 * 1024
        self._numbers = itertools.count(1)
        self._guard: PrivateAddressGuard | None = None
        self._guard_found = False

    async def download_request(self, request: Request) -> Response:  # type: ignore[override]
        response = await super().download_request(request)  # no meta["playwright"]: Scrapy's handler
        if not request.meta.get("qivrora_render") or response.status != 200:
            return response
        content_type = (response.headers.get(b"Content-Type") or b"").decode("latin-1") or None
        if not is_html(content_type, response.body[:512].decode("latin-1")):
            return response  # a PDF, a feed, an image: fetched as without rendering
        request.meta["qivrora_rendered"] = await self.render(request, response)
        return response

    # --- one page --------------------------------------------------------------------------------

    async def render(self, request: Request, response: Response) -> RenderResult:
        """Never raises: a page that cannot be rendered is a result (HL703), its served facts stand."""
        stats = self.crawler.stats
        assert stats is not None
        # Scrapy decompresses after the handler; a fulfilled navigation is taken as it is given.
        body = decoded(response.body, response.headers.getlist(b"Content-Encoding"), self.max_size)
        if body is None:
            return RenderResult(None, "its Content-Encoding could not be decoded for the browser")
        async with self.slots:
            started = time.monotonic()
            name = f"qivrora-render-{next(self._numbers)}"
            request.meta["playwright_context"] = name
            request.meta["playwright_context_kwargs"] = {
                "user_agent": self.options.user_agent or None,
                "service_workers": "block",  # every request of the page passes the route below
                "accept_downloads": False,
            }
            context: BrowserContext | None = None
            try:
                page = await create_page(self, request, self.crawler.spider)
                context = page.context
                self._phase("open", started)
                result = await asyncio.wait_for(
                    self._render(page, context, request, response, body, started),
                    timeout=self.options.timeout + 3 * READ_GRACE,
                )
            except asyncio.TimeoutError:
                result = RenderResult(None, f"timeout: not readable within {self.options.timeout:g} s")
            except PlaywrightError as exc:
                result = RenderResult(None, _describe(exc))
            finally:
                for key in ("playwright_context", "playwright_context_kwargs"):
                    request.meta.pop(key, None)
                if context is not None:
                    # A fresh context per page: nothing of one page outlives it (memory, storage,
                    # service workers), as Google renders every page with a clean profile.
                    closing = time.monotonic()
                    with suppress(Exception):
                        await asyncio.wait_for(context.close(), timeout=10)
                    self._phase("close", closing)
        seconds = time.monotonic() - started
        result = RenderResult(result.html, result.error, round(seconds, 3), result.settled)
        stats.inc_value("qivrora/render/pages")
        stats.inc_value("qivrora/render/seconds", seconds)
        if result.error:
            stats.inc_value("qivrora/render/failed")
            logger.info("Could not render %s (%s): its served annotations are used (HL703)", request.url, result.error)
        elif not result.settled:
            stats.inc_value("qivrora/render/unsettled")
        return result

    async def _render(
        self,
        page: Page,
        context: BrowserContext,
        request: Request,
        response: Response,
        body: bytes,
        started: float,
    ) -> RenderResult:
        deadline = started + self.options.timeout
        navigated: list[str] = []
        await context.route("**/*", self._router(page, response, body, navigated))
        phase = time.monotonic()
        await page.goto(request.url, wait_until="commit", timeout=self.options.timeout * 1000)
        settled = True
        try:
            await page.wait_for_load_state("load", timeout=max(1.0, deadline - time.monotonic()) * 1000)
        except PlaywrightTimeoutError:
            settled = False  # a subresource that never ends: the DOM is read all the same, at the timeout
        head = await self._head(page)
        if head is None:
            return RenderResult(None, f"timeout: its scripts kept the page busy for {self.options.timeout:g} s")
        phase = self._phase("load", phase)
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < self.options.settle:
            if time.monotonic() >= deadline:
                settled = False  # still changing: read as it is at the timeout
                break
            await asyncio.sleep(POLL)
            now = await self._head(page)
            if now is None:
                return RenderResult(None, f"timeout: its scripts kept the page busy for {self.options.timeout:g} s")
            if now != head:
                head, quiet_since = now, time.monotonic()
        phase = self._phase("settle", phase)
        if navigated:
            return RenderResult(None, f"a script navigates to {navigated[0]}")
        try:
            html = await asyncio.wait_for(page.content(), timeout=READ_GRACE)
        except asyncio.TimeoutError:
            return RenderResult(None, f"timeout: its scripts kept the page busy for {self.options.timeout:g} s")
        self._phase("read", phase)
        return RenderResult(html, settled=settled)

    def _phase(self, name: str, since: float) -> float:
        """Add the seconds since `since` to the stats of one phase (where the time goes); now."""
        now = time.monotonic()
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(f"qivrora/render/seconds/{name}", now - since)
        return now

    async def _head(self, page: Page) -> str | None:
        """The page's <head> as it is now; None when its scripts do not let it be read."""
        try:
            return str(await asyncio.wait_for(page.evaluate(HEAD_JS), timeout=READ_GRACE))
        except asyncio.TimeoutError:
            return None

    def _router(self, page: Page, response: Response, body: bytes, navigated: list[str]) -> Any:
        """Answer the page's own navigation with the served bytes; let subresources pass the guard."""
        answered = False
        headers = _fulfil_headers(response)
        stats = self.crawler.stats
        assert stats is not None

        async def route(route: Route, browser_request: BrowserRequest) -> None:
            nonlocal answered
            try:
                if browser_request.is_navigation_request() and browser_request.frame.parent_frame is None:
                    if browser_request.frame.page is not page:
                        stats.inc_value("qivrora/render/popups_refused")
                        await route.abort("blockedbyclient")  # a popup: no crawl URL, nothing to read
                    elif not answered:
                        answered = True
                        await route.fulfill(status=response.status, headers=headers, body=body)
                    else:
                        # location.href, a meta refresh: this URL's page is gone. Answered "no content",
                        # so the browser stays where it was; the page is HL703.
                        navigated.append(browser_request.url)
                        await route.fulfill(status=204, body=b"")
                    return
                if browser_request.resource_type in self.options.block:
                    stats.inc_value("qivrora/render/blocked")
                    await route.abort("blockedbyclient")
                    return
                guard = self._private_guard()
                if guard is not None and await guard.refuses_browser_request(browser_request.url):
                    await route.abort("addressunreachable")
                    return
                stats.inc_value("qivrora/render/subresources")
                await route.continue_()
            except PlaywrightError:
                pass  # the page closed meanwhile (timeout, end of crawl): nothing left to answer

        return route

    def _private_guard(self) -> PrivateAddressGuard | None:
        """The crawl's own guard (None where it is off: QIVRORA_ALLOW_PRIVATE, an offline audit)."""
        if not self._guard_found:
            self._guard_found = True
            middlewares = downloader_middlewares(self.crawler.engine)
            self._guard = next((m for m in middlewares if isinstance(m, PrivateAddressGuard)), None)
        return self._guard


def _fulfil_headers(response: Response) -> dict[str, str]:
    """The served headers, one string each (Playwright's form), as the browser would have received them."""
    found: dict[str, str] = {}
    for name, values in response.headers.items():
        if name.lower() in HOP_HEADERS:
            continue
        key = name.decode("latin-1").lower()
        joiner = "\n" if key == "set-cookie" else ", "
        found[key] = joiner.join(v.decode("latin-1") for v in values)
    return found


def decoded(body: bytes, encodings: list[bytes], limit: int) -> bytes | None:
    """The body without its Content-Encoding (gzip, deflate; br and zstd where their modules are
    installed), at most `limit` bytes; None where it cannot be decoded."""
    names = [part.strip().lower() for value in encodings for part in value.decode("latin-1").split(",")]
    for name in reversed([n for n in names if n and n != "identity"]):
        try:
            if name in ("gzip", "x-gzip", "deflate"):
                wbits = 16 + zlib.MAX_WBITS if name != "deflate" else zlib.MAX_WBITS
                try:
                    body = zlib.decompressobj(wbits).decompress(body, limit)
                except zlib.error:
                    if name != "deflate":
                        raise
                    body = zlib.decompressobj(-zlib.MAX_WBITS).decompress(body, limit)  # raw deflate
            elif name == "br":
                import brotli  # type: ignore[import-not-found]

                body = brotli.decompress(body)
            elif name == "zstd":
                import zstandard  # type: ignore[import-not-found]

                body = zstandard.ZstdDecompressor().decompress(body, max_output_size=limit)
            else:
                return None
        except Exception:  # zlib.error, ImportError, the modules' own errors
            return None
    return body


def _describe(exc: PlaywrightError) -> str:
    """One line for HL703: the browser's own words, without Playwright's call log."""
    message = (exc.message or str(exc)).strip().splitlines()[0] if (exc.message or str(exc)).strip() else ""
    if "crash" in message.lower():
        return "the browser page crashed"
    return f"browser error: {message[:200]}" if message else f"browser error: {type(exc).__name__}"
