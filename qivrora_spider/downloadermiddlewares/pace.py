"""No delay for the user's own servers: loopback and private addresses, and build folders.

Politeness protects other people's servers. A crawl of 127.0.0.1, of a server on one's own network or
of a build folder only waits on itself, so those start hosts get no delay, no AutoThrottle and more
requests at a time. Public hosts keep the polite defaults. A delay given on the command line
(``-s DOWNLOAD_DELAY=...``) is the user's choice and applies everywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.httpobj import urlparse_cached

from .addresses import internal_reason, ip_literal
from .private_guard import start_hosts

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from typing_extensions import Self

#: The download slot of one's own server: no delay, as many requests at a time as the crawl allows.
OWN_SERVER_SLOT = {"delay": 0.0, "concurrency": 16}


def _is_own(host: str) -> bool:
    address = ip_literal(host)
    if address is not None:
        return internal_reason(address) is not None
    return host == "localhost" or host.endswith(".localhost")


def own_servers(settings: BaseSettings, arguments: Any) -> frozenset[str]:
    """The start hosts that are the user's own (a build folder's base host, loopback and private
    addresses, localhost), unless the command line sets a delay. No name is resolved: a public name
    stays public."""
    if arguments is None or settings.getpriority("DOWNLOAD_DELAY") >= SETTINGS_PRIORITIES["cmdline"]:
        return frozenset()
    hosts = start_hosts(arguments)
    if getattr(arguments, "site", None) is not None:
        return hosts  # a build folder: the folder answers for its base (start_hosts includes it)
    return frozenset(host for host in hosts if _is_own(host))


def pace_own_servers(settings: BaseSettings, arguments: Any) -> None:
    """Give the user's own servers download slots without delay (``DOWNLOAD_SLOTS``; slots the
    settings name stay as they are). Called before the settings are frozen."""
    hosts = own_servers(settings, arguments)
    if not hosts:
        return
    slots = {host: dict(slot) for host, slot in settings.getdict("DOWNLOAD_SLOTS").items()}
    for host in hosts:
        slots.setdefault(host, dict(OWN_SERVER_SLOT))
    settings.set("DOWNLOAD_SLOTS", slots, priority="spider")


class OwnServerPace:
    """Keeps AutoThrottle off the user's own servers: it would raise their delay back to DOWNLOAD_DELAY."""

    def __init__(self, hosts: frozenset[str]) -> None:
        self.hosts = hosts

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        hosts = own_servers(crawler.settings, getattr(crawler.spider, "arguments", None))
        if not hosts or not crawler.settings.getbool("AUTOTHROTTLE_ENABLED"):
            raise NotConfigured
        return cls(hosts)

    def process_request(self, request: Request) -> None:
        if (urlparse_cached(request).hostname or "").rstrip(".") in self.hosts:
            request.meta["autothrottle_dont_adjust_delay"] = True
