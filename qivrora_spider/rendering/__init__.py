"""Rendering (``-a render=1``): HTML pages also go through headless Chromium, via scrapy-playwright.

Nothing here imports scrapy-playwright or Playwright: the spider names the add-on ``Rendering`` in
``ADDONS`` only when asked to render, the add-on names ``handler.RenderingDownloadHandler`` as the
download handler, and Scrapy imports it then. A crawl without ``render=1`` starts no browser and
never imports them.

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
            concurrency=max(1, settings.getint("QIVRORA_RENDER_CONCURRENCY")),
            timeout=max(1.0, settings.getfloat("QIVRORA_RENDER_TIMEOUT")),
            settle=max(0.0, settings.getfloat("QIVRORA_RENDER_SETTLE")),
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


class Rendering:
    """The add-on of ``-a render=1``: http(s) downloads through the rendering handler, scrapy-playwright
    configured. The spider names it in ``ADDONS`` when asked to render, as the distributed profile names
    ``DistributedCrawl``; Scrapy applies it before the settings are frozen. The handler fetches every
    request as Scrapy does; only requests the spider marks (``meta["qivrora_render"]``) are rendered.
    """

    #: What -a render=1 asks for overrides the project's settings (its download handlers), as a spider's
    #: settings do; the command line (-s) still overrides it.
    PRIORITY = "spider"

    def update_settings(self, settings: BaseSettings) -> None:
        options = RenderOptions.from_settings(settings)
        handlers = dict(settings.getdict("DOWNLOAD_HANDLERS"))
        handlers.update({"http": HANDLER, "https": HANDLER})
        settings.set("DOWNLOAD_HANDLERS", handlers, priority=self.PRIORITY)
        launch: dict[str, object] = {"headless": True, "args": list(CHROMIUM_ARGS)}
        if options.browser:
            launch["executable_path"] = options.browser
        # Playwright runs Chromium without its sandbox unless told otherwise (chromium_sandbox=False),
        # which is what root needs; the pages rendered are the audited site's own.
        launch_options = {**settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS"), **launch}
        settings.set("PLAYWRIGHT_LAUNCH_OPTIONS", launch_options, priority=self.PRIORITY)
        settings.set("PLAYWRIGHT_BROWSER_TYPE", "chromium", priority=self.PRIORITY)
        # One context per page (a fresh profile, as Google renders), so at most `concurrency` at once.
        settings.set("PLAYWRIGHT_MAX_CONTEXTS", options.concurrency, priority=self.PRIORITY)
        settings.set("PLAYWRIGHT_MAX_PAGES_PER_CONTEXT", 1, priority=self.PRIORITY)
        settings.set("PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT", options.timeout * 1000, priority=self.PRIORITY)


@dataclass(frozen=True, slots=True)
class RenderResult:
    """What the browser made of one page: its serialised DOM, or why there is none (HL703)."""

    html: str | None
    error: str | None = None
    seconds: float = 0.0
    settled: bool = True  # False: the <head> still changed when the timeout came, and was read then


__all__ = ["CHROMIUM_ARGS", "HANDLER", "RenderOptions", "RenderResult", "Rendering", "render_problem"]
