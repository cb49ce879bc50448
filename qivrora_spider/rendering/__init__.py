"""Rendering (``-a render=1``): HTML pages also go through headless Chromium, via scrapy-playwright.

Nothing here imports scrapy-playwright or Playwright: the spider calls ``enable_rendering`` only when
asked to render, which names ``handler.RenderingDownloadHandler`` as the download handler, and Scrapy
imports it then. A crawl without ``render=1`` starts no browser and never imports them.

How a page is rendered, once (``handler``): Scrapy's own HTTP handler fetches the URL, so status,
headers, timeouts, size limits and errors are those of every other request, and that body is the HTML
as served. Only a 200 HTML answer then goes to the browser, whose navigation is answered with those
bytes (no second fetch); its scripts, style sheets and the other subresources it needs load from the
network, each passing the private-address guard. The DOM is read after the load event and a settle
time in which the ``<head>`` stops changing.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

HANDLER = "qivrora_spider.rendering.handler.RenderingDownloadHandler"

#: Chromium switches: no background connections of its own (the closed network refuses them and a
#: crawl has no use for them), no first-run work, no GPU in a headless crawl.
CHROMIUM_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-gpu",
    "--disable-dev-shm-usage",  # containers give /dev/shm 64 MB, too little for several renderers
)


@dataclass(frozen=True, slots=True)
class RenderOptions:
    browser: str  # path of the Chromium executable; "" for Playwright's own
    concurrency: int
    timeout: float  # seconds for the load event and the settle time together
    settle: float  # seconds the <head> must stay unchanged
    block: frozenset[str]  # Playwright resource types not fetched
    user_agent: str

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> RenderOptions:
        block = settings.getlist("QIVRORA_RENDER_BLOCK")
        return cls(
            browser=str(settings.get("QIVRORA_RENDER_BROWSER") or ""),
            concurrency=max(1, settings.getint("QIVRORA_RENDER_CONCURRENCY", 4)),
            timeout=max(1.0, settings.getfloat("QIVRORA_RENDER_TIMEOUT", 15.0)),
            settle=max(0.0, settings.getfloat("QIVRORA_RENDER_SETTLE", 0.5)),
            block=frozenset(part.strip().lower() for part in block if part.strip()),
            user_agent=str(settings.get("USER_AGENT") or ""),
        )


def render_problem(settings: BaseSettings) -> str | None:
    """Why a render crawl cannot run here, in one line; None when it can. Checked before any request."""
    try:
        missing = [name for name in ("scrapy_playwright", "playwright") if importlib.util.find_spec(name) is None]
    except (ImportError, ValueError):  # a broken install
        missing = ["scrapy_playwright"]
    if missing:
        return "render: needs scrapy-playwright and playwright (pip install -r requirements.txt)"
    browser = str(settings.get("QIVRORA_RENDER_BROWSER") or "")
    if browser and not (os.path.isfile(browser) and os.access(browser, os.X_OK)):
        found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        hint = f"; -s QIVRORA_RENDER_BROWSER={found}" if found else " (apt-get install chromium)"
        return (
            f"render: no Chromium at {browser}{hint}, or -s QIVRORA_RENDER_BROWSER= for Playwright's own "
            "browser (playwright install chromium, PLAYWRIGHT_BROWSERS_PATH)"
        )
    return None


def enable_rendering(settings: BaseSettings) -> None:
    """Route http(s) downloads through the rendering handler, and configure scrapy-playwright.

    Called from the spider's ``from_crawler``, before the settings are frozen. The handler fetches every
    request as Scrapy does; only requests the spider marks (``meta["qivrora_render"]``) are rendered.
    """
    options = RenderOptions.from_settings(settings)
    handlers = dict(settings.getdict("DOWNLOAD_HANDLERS"))
    handlers.update({"http": HANDLER, "https": HANDLER})
    settings.set("DOWNLOAD_HANDLERS", handlers, priority="spider")
    launch: dict[str, object] = {"headless": True, "args": list(CHROMIUM_ARGS)}
    if options.browser:
        launch["executable_path"] = options.browser
    # Playwright runs Chromium without its sandbox unless told otherwise (chromium_sandbox=False), which
    # is what root needs; the pages rendered are the audited site's own.
    settings.set("PLAYWRIGHT_LAUNCH_OPTIONS", {**settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS"), **launch},
                 priority="spider")
    settings.set("PLAYWRIGHT_BROWSER_TYPE", "chromium", priority="spider")
    # One context per page (a fresh profile, as Google renders), so at most `concurrency` at once.
    settings.set("PLAYWRIGHT_MAX_CONTEXTS", options.concurrency, priority="spider")
    settings.set("PLAYWRIGHT_MAX_PAGES_PER_CONTEXT", 1, priority="spider")
    settings.set("PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT", options.timeout * 1000, priority="spider")


@dataclass(frozen=True, slots=True)
class RenderResult:
    """What the browser made of one page: its serialised DOM, or why there is none (HL703)."""

    html: str | None
    error: str | None = None
    seconds: float = 0.0
    settled: bool = True  # False: the <head> still changed when the timeout came, and was read then


__all__ = ["CHROMIUM_ARGS", "HANDLER", "RenderOptions", "RenderResult", "enable_rendering", "render_problem"]
