"""scrapy-playwright: a browser page opened as its handler opens one, without its navigation.

Entry: ``create_page``
    Relies on: ``ScrapyPlaywrightDownloadHandler._create_page(request=, spider=)``, which launches the
    browser at the first call, creates the context named by ``meta["playwright_context"]`` with
    ``meta["playwright_context_kwargs"]`` (bounded by ``PLAYWRIGHT_MAX_CONTEXTS``) and counts its stats.
    Tested with: scrapy-playwright 0.0.48, Playwright 1.65.2.
    Test: tests/test_compat.py::test_scrapy_playwright_creates_pages_with_request_and_spider.
    Remove when: scrapy-playwright lets a handler answer the browser's navigation with the bytes it
    fetched (then the parent's own download path serves), or offers page creation publicly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.async_api import Page
    from scrapy import Request, Spider
    from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler


async def create_page(handler: ScrapyPlaywrightDownloadHandler, request: Request, spider: Spider) -> Page:
    """A page in the context ``request.meta`` names, launched and counted as scrapy-playwright does."""
    return await handler._create_page(request=request, spider=spider)
