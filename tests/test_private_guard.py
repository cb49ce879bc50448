"""Let no site in: a crawled site cannot make Qivrora fetch internal addresses (SSRF).

The decision is tested as a unit on addresses, without connecting. The crawl tests start at
127.0.0.1 and point every kind of URL at 127.0.0.2, 127.0.0.3 and `localhost` (a name for 127.0.0.1
that is not the start host's name), whose servers count what reaches them: nothing may. Nothing here
points at any other private or public address, so even a broken guard reaches only loopback.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from types import SimpleNamespace

import pytest
import pytest_twisted
from scrapy.settings import Settings
from twisted.internet import defer
from twisted.internet.error import DNSLookupError

from qivrora_spider.demo.site_server import Route, alternate, html_page
from qivrora_spider.downloadermiddlewares import private_guard
from qivrora_spider.downloadermiddlewares.addresses import internal_reason, ip_literal
from qivrora_spider.downloadermiddlewares.private_guard import PrivateAddressGuard, start_hosts
from qivrora_spider.facts import Page, SitemapFile, TargetStatus

from .conftest import crawl
from .fixture_sites import sitemap_index, url_entry, urlset
from .traps import SECRET, trap, trap3  # noqa: F401 (fixtures)

INTERNAL = [
    "127.0.0.1", "127.255.255.254", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255",
    "192.168.0.1", "192.168.255.255", "169.254.169.254", "169.254.0.1", "0.0.0.0", "0.1.2.3",
    "100.64.0.1", "100.127.255.255", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
    "192.0.2.1", "198.18.0.1", "::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "fe80::1%eth0",
    "fec0::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254",
    "::127.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1", "2002:a9fe:a9fe::1", "2001:db8::1", "[::1]",
]
PUBLIC = [
    "8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "172.15.255.255", "100.128.0.1", "11.0.0.1",
    "192.169.0.1", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808",
]


@pytest.mark.parametrize("address", INTERNAL)
def test_internal_addresses_are_refused(address):
    reason = internal_reason(address)
    assert reason, address


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_are_allowed(address):
    assert internal_reason(address) is None


@pytest.mark.parametrize(
    "address, words",
    [
        ("169.254.169.254", "metadata"), ("127.0.0.2", "loopback"), ("10.0.0.1", "private"),
        ("fc00::1", "unique local"), ("::ffff:127.0.0.1", "carried in the IPv6 address"),
        ("100.64.0.1", "carrier-grade NAT"), ("fe80::1", "link-local"),
    ],
)
def test_the_reason_names_the_kind_of_address(address, words):
    assert words in internal_reason(address)


def test_every_address_of_the_special_ranges_is_judged_alike():
    for network in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "169.254.0.0/16", "100.64.0.0/10"):
        net = ipaddress.ip_network(network)
        for address in (net[0], net[1], net[-1], net[net.num_addresses // 2]):
            assert internal_reason(address), address
        assert internal_reason(net[-1] + 1) is None, net[-1] + 1  # the next address is public


@pytest.mark.parametrize(
    "host, literal",
    [("127.0.0.1", "127.0.0.1"), ("[::1]", "::1"), ("::1", "::1"), ("127.1", None), ("2130706433", None),
     ("localhost", None), ("example.com", None), ("0x7f.1", None)],
)
def test_ip_literals_and_host_names(host, literal):
    found = ip_literal(host)
    assert (str(found) if found is not None else None) == literal


def test_a_host_name_is_no_address():
    with pytest.raises(ValueError):
        internal_reason("localhost")


def test_start_hosts_are_the_host_names_of_start_urls_and_base(tmp_path):
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset(url_entry("http://listed.example:8000/a/")))
    arguments = SimpleNamespace(
        start=("http://127.0.0.1:8000/", "https://Example.COM./x", sitemap.as_uri()),
        urls=("http://[::1]:9000/",),
        base="https://build.example/docs/",
    )
    assert start_hosts(arguments) == {"127.0.0.1", "example.com", "::1", "build.example", "listed.example"}


# --- resolution, with a stand-in resolver (no lookup leaves the machine) ---------------------------


def _guard(monkeypatch, answers: list[str] | None, pinned: str | None) -> PrivateAddressGuard:
    """A guard whose getaddrinfo answers `answers` and whose reactor resolver answers `pinned`
    (None: the lookup fails)."""

    def getaddrinfo(host, port, *args, **kwargs):
        if answers is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0)) for a in answers]

    resolver = SimpleNamespace(
        resolve=lambda host: defer.succeed(pinned) if pinned else defer.fail(DNSLookupError(host))
    )
    monkeypatch.setattr(private_guard.socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(private_guard, "_reactor", lambda: _RealReactor(resolver))
    return PrivateAddressGuard(SimpleNamespace(settings=Settings({"HTTPPROXY_ENABLED": False})), frozenset())


async def judge(guard: PrivateAddressGuard, host: str, proxied: bool = False) -> str | None:
    """Run the guard's coroutine as Scrapy does, as an asyncio task."""
    return await defer.Deferred.fromFuture(asyncio.ensure_future(guard._judge(host, proxied)))


class _RealReactor:
    """The reactor for timeouts, a stand-in for name resolution."""

    def __init__(self, resolver):
        from twisted.internet import reactor

        self._reactor, self.resolve = reactor, resolver.resolve

    def __getattr__(self, name):
        return getattr(self._reactor, name)


@pytest_twisted.ensureDeferred
async def test_a_name_is_refused_when_any_of_its_addresses_is_internal(monkeypatch):
    guard = _guard(monkeypatch, ["93.184.216.34", "10.0.0.7"], "93.184.216.34")
    assert "resolves to 10.0.0.7, a private network address" in await judge(guard, "intranet.example")


@pytest_twisted.ensureDeferred
async def test_the_address_the_connection_will_use_is_checked_too(monkeypatch):
    """DNS rebinding: a public answer first, an internal one for the connection's own lookup."""
    guard = _guard(monkeypatch, ["93.184.216.34"], "169.254.169.254")
    assert "metadata" in await judge(guard, "rebind.example")


@pytest_twisted.ensureDeferred
async def test_a_public_name_passes(monkeypatch):
    guard = _guard(monkeypatch, ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"], "93.184.216.34")
    assert await judge(guard, "example.com") is None


@pytest_twisted.ensureDeferred
async def test_a_name_that_does_not_resolve_is_not_sent_blind(monkeypatch):
    guard = _guard(monkeypatch, None, None)
    with pytest.raises(DNSLookupError):
        await judge(guard, "nowhere.example")
    assert await judge(guard, "nowhere.example", proxied=True) is None, "a proxy resolves for itself"


# --- crawls -----------------------------------------------------------------------------------------


def hostile_site(site, trap, trap3) -> dict[str, str]:  # noqa: F811
    """A start site pointing every kind of URL at internal addresses; returns them by kind."""
    a = site.url
    port = site.base.rsplit(":", 1)[1]
    internal = {
        "alternate": trap.url("/de/"),
        "alternate-3": trap3.url("/de/"),
        "alternate-localhost": f"http://localhost:{port}/via-localhost/",
        "alternate-decimal": f"http://2130706433:{port}/via-decimal/",  # 127.0.0.1 written as a number
        "redirect": trap.url("/redirected/"),
        "sitemap-entry": trap.url("/listed/"),
        "sitemap-child": trap3.url("/sitemap.xml"),
        "robots-sitemap": trap.url("/sitemap.xml"),
        "link": trap.url("/linked/"),
    }
    cluster = [("en", a("/en/")), ("fr", a("/fr/")), ("de", internal["alternate"]), ("it", internal["alternate-3"]),
               ("es", internal["alternate-localhost"]), ("pt", internal["alternate-decimal"]), ("nl", a("/go/"))]
    head = "\n".join(alternate(h, u) for h, u in cluster)
    site.routes.update(
        {
            "/robots.txt": Route(
                f"Sitemap: {a('/sitemap_index.xml')}\nSitemap: {internal['robots-sitemap']}\n", content_type="text/plain"
            ),
            "/en/": Route(html_page(head, body=f'<a href="{internal["link"]}">internal</a> <a href="/fr/">fr</a>')),
            "/fr/": Route(html_page(head, lang="fr")),
            "/go/": Route("", status=301, headers=[("Location", internal["redirect"])]),
            "/sitemap_index.xml": Route(
                sitemap_index(a("/sitemap.xml"), internal["sitemap-child"]), content_type="application/xml"
            ),
            "/sitemap.xml": Route(
                urlset(url_entry(a("/en/"), *cluster), url_entry(internal["sitemap-entry"])), content_type="application/xml"
            ),
        }
    )
    return internal


def _target_statuses(result) -> dict[str, str | None]:
    return {s.url: s.not_examined for s in result.of(TargetStatus)}


@pytest_twisted.ensureDeferred
async def test_no_internal_address_is_fetched_and_findings_say_why(site, trap, trap3, caplog):  # noqa: F811
    internal = hostile_site(site, trap, trap3)
    with caplog.at_level(logging.WARNING, logger="qivrora_spider.downloadermiddlewares.private_guard"):
        result = await crawl(start=site.url("/en/"))

    assert trap.requests() == {} and trap3.requests() == {}, "nothing reached the internal servers"
    assert "/via-localhost/" not in site.requests() and "/via-decimal/" not in site.requests()
    assert site.requests()["/go/"] == 1, "the start host itself is crawled"

    statuses = _target_statuses(result)
    for kind in ("alternate", "alternate-3", "alternate-localhost", "alternate-decimal", "redirect", "sitemap-entry"):
        assert statuses.get(internal[kind]) == "private", kind
    assert internal["link"] not in statuses, "links to other hosts are not followed at all"
    assert not any(p.url.startswith((trap.base, trap3.base)) for p in result.of(Page))
    sitemaps = {f.url: f for f in result.of(SitemapFile)}
    assert sitemaps[internal["sitemap-child"]].error == "private"
    assert sitemaps[internal["robots-sitemap"]].error == "private"

    hl206 = {f.target: f.message for f in result.findings if f.check == "HL206"}
    for kind in ("alternate", "alternate-3", "alternate-localhost", "alternate-decimal"):
        assert "points at an internal address" in hl206[internal[kind]], kind
    hl401 = [f.message for f in result.findings if f.check == "HL401" and f.target == site.url("/go/")]
    assert hl401 and "points at an internal address" in hl401[0]
    sm001 = [f.message for f in result.findings if f.check == "SM001" and f.target == internal["sitemap-entry"]]
    assert sm001 and "points at an internal address" in sm001[0]
    sm004 = {f.url: f.message for f in result.findings if f.check == "SM004"}
    assert "points at an internal address" in sm004[internal["sitemap-child"]]
    assert "points at an internal address" in sm004[internal["robots-sitemap"]]
    assert not [f for f in result.findings if f.check in ("HL402", "HL403", "HL404") and f.target in internal.values()]

    warnings = [r.getMessage() for r in caplog.records if r.name == "qivrora_spider.downloadermiddlewares.private_guard"]
    assert any("127.0.0.2 is a loopback address" in w for w in warnings)
    assert any("localhost resolves to 127.0.0.1, a loopback address" in w for w in warnings)
    assert any("2130706433 resolves to 127.0.0.1" in w for w in warnings)
    assert all("QIVRORA_ALLOW_PRIVATE=True" in w for w in warnings)
    assert len(warnings) == len({w.split(": ", 1)[1] for w in warnings}), "one line per host"
    assert result.stats["qivrora/private/refused"] >= 8
    assert not any(SECRET in repr(item) for item in result.items)


@pytest_twisted.ensureDeferred
async def test_links_to_internal_hosts_are_refused_even_in_scope(site, trap):  # noqa: F811
    """`-a hosts` widens what is crawled, not what may be reached: only start hosts are trusted."""
    site.routes["/"] = Route(html_page(body=f'<a href="{trap.url("/linked/")}">admin</a>'))
    result = await crawl(start=site.url("/"), hosts="127.0.0.2")
    assert trap.requests() == {}
    assert _target_statuses(result)[trap.url("/linked/")] == "private"


@pytest_twisted.ensureDeferred
async def test_a_redirect_to_an_internal_address_is_not_followed_by_robots_txt_either(site, trap):  # noqa: F811
    site.routes["/robots.txt"] = Route("", status=301, headers=[("Location", trap.url("/robots.txt"))])
    site.routes["/"] = Route(html_page())
    result = await crawl(start=site.url("/"))
    assert trap.requests() == {}
    assert result.page(site.url("/")).status == 200


@pytest_twisted.ensureDeferred
async def test_qivrora_allow_private_lets_internal_addresses_through(site, trap, trap3):  # noqa: F811
    internal = hostile_site(site, trap, trap3)
    result = await crawl({"QIVRORA_ALLOW_PRIVATE": True}, start=site.url("/en/"))
    assert trap.requests("GET")["/de/"] == 1 and trap3.requests("GET")["/de/"] == 1
    assert trap.requests()["/redirected/"] == 1 and trap.requests("GET")["/listed/"] == 1
    assert site.requests()["/via-localhost/"] == 1
    assert "private" not in _target_statuses(result).values()
    assert result.page(internal["alternate"]).status == 200


@pytest_twisted.ensureDeferred
async def test_a_start_url_on_an_internal_address_is_crawled(trap):  # noqa: F811
    """The operator's own start host is trusted, whatever its address (a staging server on 10.x)."""
    trap.routes["/"] = Route(html_page(alternate("en", trap.url("/")), body='<a href="/admin/">a</a>'))
    result = await crawl(start=trap.url("/"))
    assert trap.requests("GET")["/"] == 1 and trap.requests("GET")["/admin/"] == 1
    assert "private" not in _target_statuses(result).values()
