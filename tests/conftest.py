"""Crawl tests: a real HTTP server on 127.0.0.1 port 0, a real crawl in the asyncio reactor."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator, Mapping

import pytest
from scrapy import signals
from scrapy.crawler import AsyncCrawlerRunner
from scrapy.settings import Settings
from twisted.internet.defer import Deferred

from qivrora_spider.demo.site_server import SiteServer
from qivrora_spider.facts import FACT_TYPES
from qivrora_spider.findings import Finding
from qivrora_spider.spiders.hreflang import HreflangSpider

ROOT = Path(__file__).resolve().parents[1]
#: What a developer's checkout holds that is no part of the project.
NOT_SOURCE = (
    ".venv",
    ".git",
    "__pycache__",
    "build",
    "*.egg-info",
    ".qivrora",
    ".pytest_cache",
    ".hypothesis",
)


def docs_extension() -> ModuleType:
    """The docs build's extension (docs/_ext/qivrora_docs.py), which generates the tables the docs show
    from the package: the tests read what the site will show without building it."""
    spec = importlib.util.spec_from_file_location("qivrora_docs", ROOT / "docs" / "_ext" / "qivrora_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def copy_checkout(destination: Path) -> Path:
    """The project's files, to build from: builds write into the source folder (build/, *.egg-info)."""
    shutil.copytree(ROOT, destination, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    return destination

#: Crawl settings for tests: fast, the rest as shipped.
FAST = {
    "AUTOTHROTTLE_ENABLED": False,
    "DOWNLOAD_DELAY": 0,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
    "LOG_LEVEL": "INFO",
    "DOWNLOAD_TIMEOUT": 5,
    "RETRY_TIMES": 1,
    # No crawl state: each test crawl stands alone (tests of the state give it a file of their own).
    "QIVRORA_STATE": "",
}


def project_settings(**overrides: Any) -> Settings:
    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", "settings")
    settings = Settings()
    settings.setmodule("settings", priority="project")
    settings.update({**FAST, **overrides}, priority="cmdline")
    return settings


@dataclass
class CrawlResult:
    items: list[Any] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    spider: HreflangSpider | None = None

    @property
    def facts(self) -> list[Any]:
        return [i for i in self.items if isinstance(i, FACT_TYPES)]

    @property
    def findings(self) -> list[Finding]:
        return [i for i in self.items if isinstance(i, Finding)]

    def of(self, cls: type) -> list[Any]:
        return [i for i in self.items if isinstance(i, cls)]

    def page(self, url: str) -> Any:
        from qivrora_spider.facts import Page

        found = [p for p in self.of(Page) if p.url == url]
        assert len(found) == 1, f"{len(found)} Page facts for {url}"
        return found[0]

    def checks(self) -> set[str]:
        return {f.check for f in self.findings}


async def crawl(
    settings: dict[str, Any] | None = None,
    *,
    handlers: Mapping[object, Callable[..., object]] | None = None,
    **arguments: Any,
) -> CrawlResult:
    """Run the hreflang spider to the end in this reactor; collect its items and stats. ``handlers``
    (signal: callable) are connected to the crawler's signals, to look at the process mid-crawl."""
    runner = AsyncCrawlerRunner(project_settings(**(settings or {})))
    crawler = runner.create_crawler(HreflangSpider)
    result = CrawlResult()
    crawler.signals.connect(lambda item: result.items.append(item), signal=signals.item_scraped, weak=False)
    for signal, handler in (handlers or {}).items():
        crawler.signals.connect(handler, signal=signal, weak=False)
    await Deferred.fromFuture(runner.crawl(crawler, **arguments))
    result.stats = crawler.stats.get_stats()
    result.spider = crawler.spider  # type: ignore[assignment]
    return result


@pytest.fixture
def site() -> Iterator[SiteServer]:
    with SiteServer() as server:
        yield server


@pytest.fixture
def other_site() -> Iterator[SiteServer]:
    """A second host (another port) for cross-host clusters."""
    with SiteServer() as server:
        yield server


__all__ = ["copy_checkout", "crawl", "CrawlResult", "project_settings", "ROOT"]
