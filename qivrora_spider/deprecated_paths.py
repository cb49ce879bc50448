"""Import paths of 0.1's modules, which moved when the package was regrouped by kind; kept for one release.

A user's settings or code may name an old path (``qivrora_spider.robots.RobotsMiddleware`` in
``DOWNLOADER_MIDDLEWARES``, ``from qivrora_spider.urls import normalize_url``). Each old name
imports the module at its new place, under both names, and warns once with both; nothing is copied,
so the old and the new path give the very same classes.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType
from typing import Callable

#: Old module path (0.1) -> its place now.
MOVED = {
    f"qivrora_spider.{old}": f"qivrora_spider.{new}"
    for old, new in {
        "urls": "extract.urls",
        "hreflang_values": "extract.hreflang_values",
        "html_extract": "extract.html_extract",
        "linkheader": "extract.linkheader",
        "sitemap_parse": "extract.sitemap_parse",
        "page_facts": "extract.page_facts",
        "sitemap_facts": "extract.sitemap_facts",
        "fact_store": "audit.core.fact_store",
        "changes": "state.changes",
        "history": "state.history",
        "jobdir": "state.jobdir",
        "exporters": "feeds.exporters",
        "feed_storage": "feeds.storage",
        "robots": "downloadermiddlewares.robots",
        "private_guard": "downloadermiddlewares.private_guard",
        "addresses": "downloadermiddlewares.addresses",
        "offline": "downloadermiddlewares.offline",
        "static_site": "downloadermiddlewares.static_site",
        "http_limits": "downloadermiddlewares.http_limits",
        "fetch_errors": "downloadermiddlewares.fetch_errors",
        "progress": "extensions.progress",
        "site_server": "demo.site_server",
        "page_text": "spiders.page_text",
        "arguments": "spiders.arguments",
    }.items()
}


class QivroraDeprecationWarning(Warning):
    """A Qivrora path or setting that goes in the next release (shown by default, unlike
    DeprecationWarning, so that a scheduled crawl's log says it)."""


def warn_moved(old: str, new: str) -> None:
    warnings.warn(
        f"{old} has moved to {new}; the old path goes in the next release", QivroraDeprecationWarning, stacklevel=3
    )


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warn_moved(spec.name, new)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """The module at its new place is already executed."""


def install() -> None:
    if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModules())


def forward_names(package: str, module: str) -> Callable[[str], object]:
    """A ``__getattr__`` for a module that became a package: an old name is read from `module`."""

    def __getattr__(name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            value = getattr(importlib.import_module(module), name)
        except AttributeError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        warn_moved(f"{package}.{name}", f"{module}.{name}")
        return value

    return __getattr__
