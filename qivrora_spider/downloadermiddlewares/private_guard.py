"""Let no site in: requests to internal addresses are not sent (server-side request forgery).

Run as a service (Scrapyd), Qivrora fetches whatever URLs the crawled site names: alternates, sitemap
entries, redirect destinations, links. A hostile site can name ``http://169.254.169.254/`` (a cloud
metadata service), ``http://localhost:6800/`` (Scrapyd itself) or a host name whose DNS answers with
such an address. This downloader middleware runs first for every request, robots.txt fetches and
HEADs included; redirects are never followed automatically (each Location is a request of its own),
so every hop passes here too.

A request is refused when its host is not one of the crawl's own start hosts (the host names of
``-a start``, ``-a urls`` and ``-a base``, and of the URLs a sitemap on disk lists; any port) and the host is, or resolves to, an internal
address (``addresses.internal_reason``; one internal address among those it resolves to is enough).
``QIVRORA_ALLOW_PRIVATE=True`` turns the guard off, for auditing an intranet. A refused URL is not
fetched; a fact records why (``TargetStatus(not_examined="private")``, a ``SitemapFile`` with
``error="private"`` for a sitemap), which the audit reports (HL206, SM001, SM004, HL401's chain),
and the log says so once per host.

DNS rebinding: the host is resolved here, and the download handler resolves it again to connect. A
name server that answers a public address first and an internal one next could slip through between
the two lookups. The check narrows that window: besides ``getaddrinfo`` (every address), the host is
resolved through the reactor's resolver, which with Scrapy's default ``CachingThreadedResolver``
caches the answer that the connection then uses, so the address connected to is the one checked
(pinned). The residual risk: with the DNS cache off (``DNSCACHE_ENABLED=False``), evicted
(``DNSCACHE_SIZE``), or another resolver configured, the second lookup is not pinned.
"""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from urllib.request import getproxies, proxy_bypass, url2pathname

from scrapy import Request
from scrapy.exceptions import NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.error import DNSLookupError
from twisted.internet.threads import deferToThread

from ..extract.sitemap_parse import SitemapReader
from ..facts import SitemapFile, TargetStatus
from .addresses import internal_reason, ip_literal
from .fetch_errors import RefusalRecorded

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

logger = logging.getLogger(__name__)


class InternalAddressRefused(RefusalRecorded):
    """The request was not sent: its host is, or resolves to, an internal address."""


def _listed_in_local_sitemap(url: str) -> list[str]:
    """The <loc>s of a sitemap on disk (``-a start=public/sitemap.xml``): the operator's own list."""
    try:
        body = Path(url2pathname(urlsplit(url).path)).read_bytes()
    except OSError:
        return []
    return [entry.loc.strip() for entry in SitemapReader(body).entries()]


def start_hosts(arguments: Any) -> frozenset[str]:
    """The host names (no port, lower case) of the crawl's own start URLs: never refused. A sitemap
    on disk has no host; the hosts of the URLs it lists are the site it describes."""
    urls = [*getattr(arguments, "start", ()), *getattr(arguments, "urls", ())]
    base = getattr(arguments, "base", None)
    if base:
        urls.append(base)
    for url in list(urls):
        if url.startswith("file:"):
            urls += _listed_in_local_sitemap(url)
    hosts = set()
    for url in urls:
        if url.startswith(("http://", "https://")):
            host = urlsplit(url).hostname
            if host:
                hosts.add(host.rstrip("."))
    return frozenset(hosts)


class PrivateAddressGuard:
    def __init__(self, crawler: Crawler, allowed: frozenset[str]) -> None:
        self.crawler = crawler
        self.allowed = allowed
        self.dns_timeout = crawler.settings.getfloat("DNS_TIMEOUT") or 60.0
        #: Proxies from the environment (as HttpProxyMiddleware reads them): a proxy resolves for itself.
        self.proxies = getproxies() if crawler.settings.getbool("HTTPPROXY_ENABLED") else {}
        #: host -> why it is refused (None: it is not); failed lookups are not kept.
        self._verdicts: dict[str, str | None] = {}
        self._logged: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if crawler.settings.getbool("QIVRORA_ALLOW_PRIVATE"):
            raise NotConfigured
        arguments = getattr(crawler.spider, "arguments", None)
        if arguments is not None and getattr(arguments, "site", None) is not None and not arguments.live:
            raise NotConfigured  # an offline audit: the build folder answers, nothing reaches the network
        return cls(crawler, start_hosts(arguments))

    async def process_request(self, request: Request) -> Response | None:
        parts = urlparse_cached(request)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return None
        host = parts.hostname
        if host.rstrip(".") in self.allowed:
            return None
        if host in self._verdicts:
            reason = self._verdicts[host]
        else:
            proxied = bool(request.meta.get("proxy")) or (parts.scheme in self.proxies and not proxy_bypass(host))
            reason = self._verdicts[host] = await self._judge(host, proxied)
        if reason is None:
            return None
        await self._refuse(request, host, reason)
        raise InternalAddressRefused(f"{request.url}: {reason}")

    async def refuses_browser_request(self, url: str) -> str | None:
        """Why the browser may not fetch `url` (a script, style sheet, XHR of a rendered page), or None.

        The same decision as for the crawl's own requests, made before the browser sends it; no fact
        is recorded (a subresource is no crawl URL), the log says so once per host. Chromium resolves
        the name again to connect, so the DNS pinning of ``process_request`` does not hold here.
        """
        parts = urlsplit(url)
        host = parts.hostname
        if parts.scheme not in ("http", "https") or not host or host.rstrip(".") in self.allowed:
            return None
        if host not in self._verdicts:
            try:
                self._verdicts[host] = await self._judge(host)
            except DNSLookupError:
                return None  # the browser's own lookup fails too: nothing is sent
        reason = self._verdicts[host]
        if reason is not None:
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value("qivrora/private/refused_browser")
            if f"browser {host}" not in self._logged:
                self._logged.add(f"browser {host}")
                logger.warning(
                    "Not letting the browser fetch %s: %s. Internal addresses are only fetched on the "
                    "crawl's start hosts (set QIVRORA_ALLOW_PRIVATE=True to allow them).",
                    url, reason,
                )
        return reason

    async def _judge(self, host: str, proxied: bool = False) -> str | None:
        """Why `host` may not be fetched, or None; DNSLookupError when it does not resolve at all
        (unless a proxy fetches it, which resolves the name itself)."""
        literal = ip_literal(host)
        if literal is not None:
            reason = internal_reason(literal)
            return f"{literal} is {reason}" if reason else None
        addresses: list[str] = []
        try:
            lookup = deferToThread(socket.getaddrinfo, host, None, proto=socket.IPPROTO_TCP)
            lookup.addTimeout(self.dns_timeout, _reactor())
            infos = await maybe_deferred_to_future(lookup)
            addresses += [str(info[4][0]) for info in infos]
        except Exception:  # gaierror, UnicodeError, TimeoutError: judged by the lookup below
            pass
        try:
            # The connection's own lookup: with Scrapy's caching resolver this answer is what it uses.
            addresses.append(str(await maybe_deferred_to_future(_reactor().resolve(host))))
        except Exception:
            if not addresses:
                if proxied:
                    return None
                # Nothing known of where it leads: fail as the download would, never send it blind.
                raise DNSLookupError(host) from None
        for address in dict.fromkeys(addresses):
            try:
                reason = internal_reason(address)
            except ValueError:
                continue
            if reason is not None:
                return f"{host} resolves to {address}, {reason}"
        return None

    async def _refuse(self, request: Request, host: str, reason: str) -> None:
        stats = self.crawler.stats
        assert stats is not None
        stats.inc_value("qivrora/private/refused")
        if host not in self._logged:
            self._logged.add(host)
            logger.warning(
                "Not fetching %s: %s. Internal addresses are only fetched on the crawl's start hosts "
                "(set QIVRORA_ALLOW_PRIVATE=True to allow them).",
                request.url,
                reason,
            )
        if request.meta.get("dont_obey_robotstxt"):
            return  # a robots.txt (or the engine's own request): no fact of its own
        url = request.meta.get("qivrora_url", request.url)
        fact: SitemapFile | TargetStatus
        if "qivrora_via" in request.meta:  # a sitemap the spider asked for
            fact = SitemapFile(
                url=url, via=request.meta["qivrora_via"], parent=request.meta.get("qivrora_parent"), error="private"
            )
        else:
            fact = TargetStatus(url=url, not_examined="private")
        await self.crawler.engine.scraper.start_itemproc_async(fact, response=None)


def _reactor() -> Any:
    from twisted.internet import reactor

    return reactor
