"""Which IP addresses are internal: the decision behind the private-address guard. Pure, no network.

A crawled site may point alternates, sitemap entries, redirects and links at addresses of the network
Qivrora runs in (server-side request forgery: on Scrapyd, a cloud metadata service or an admin page on
localhost). Every address below is refused; everything else is a public, globally routed address.

IPv4
    0.0.0.0/8 (this network: 0.0.0.0 reaches the local host), 10/8, 172.16/12, 192.168/16 (private),
    100.64/10 (shared address space, carrier-grade NAT), 127/8 (loopback), 169.254/16 (link-local,
    including the cloud metadata service 169.254.169.254), 224/4 (multicast), 240/4 and
    255.255.255.255 (reserved, broadcast), and every other range the IANA special-purpose registry
    marks not globally reachable (192.0.0/24, the documentation and benchmarking ranges): the stdlib's
    ``ipaddress`` ``is_global`` is False for them.
IPv6
    ::1 (loopback), :: (unspecified), fc00::/7 (unique local), fe80::/10 (link-local), fec0::/10
    (deprecated site-local), ff00::/8 (multicast), ::/96 (deprecated IPv4-compatible), 64:ff9b:1::/48
    (local-use NAT64), and every range ``is_global`` says is not globally reachable (2001:db8::/32,
    100::/64, most of 2001::/23...).
IPv6 carrying an IPv4 address
    IPv4-mapped (::ffff:127.0.0.1), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses are judged by
    the IPv4 address they carry, since that is where a connection to them ends up.
"""

from __future__ import annotations

import ipaddress
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

__all__ = ["IPAddress", "internal_reason", "ip_literal"]

IPAddress = IPv4Address | IPv6Address

#: Ranges named in messages, most specific first; anything else not global is "not globally routed".
_NAMED: tuple[tuple[IPv4Network | IPv6Network, str], ...] = tuple(
    (ipaddress.ip_network(network), name)
    for network, name in (
        ("169.254.169.254/32", "the cloud metadata service address (link-local)"),
        ("0.0.0.0/8", "a 'this network' address (0.0.0.0/8), which reaches the local host"),
        ("127.0.0.0/8", "a loopback address (127.0.0.0/8)"),
        ("10.0.0.0/8", "a private network address (10.0.0.0/8)"),
        ("172.16.0.0/12", "a private network address (172.16.0.0/12)"),
        ("192.168.0.0/16", "a private network address (192.168.0.0/16)"),
        ("100.64.0.0/10", "a shared (carrier-grade NAT) address (100.64.0.0/10)"),
        ("169.254.0.0/16", "a link-local address (169.254.0.0/16)"),
        ("224.0.0.0/4", "a multicast address (224.0.0.0/4)"),
        ("240.0.0.0/4", "a reserved address (240.0.0.0/4)"),
        ("::1/128", "the IPv6 loopback address (::1)"),
        ("::/128", "the unspecified IPv6 address (::)"),
        ("::/96", "a deprecated IPv4-compatible IPv6 address (::/96)"),
        ("fc00::/7", "an IPv6 unique local address (fc00::/7)"),
        ("fe80::/10", "an IPv6 link-local address (fe80::/10)"),
        ("fec0::/10", "a deprecated IPv6 site-local address (fec0::/10)"),
        ("ff00::/8", "an IPv6 multicast address (ff00::/8)"),
        ("64:ff9b:1::/48", "a local-use NAT64 address (64:ff9b:1::/48)"),
    )
)
_NAT64 = IPv6Network("64:ff9b::/96")


def ip_literal(host: str) -> IPAddress | None:
    """The address a URL's host names literally (``127.0.0.1``, ``[::1]``, ``fe80::1%eth0``), or None
    for a host name. Shorthand forms such as ``127.1`` or ``2130706433`` are host names here: the
    resolver turns them into addresses, which are then judged like any other."""
    host = host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _embedded_ipv4(address: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv6 address carries to its destination, if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def internal_reason(address: str | IPAddress) -> str | None:
    """Why a crawl must not connect to `address` ("a loopback address (127.0.0.0/8)"), or None when
    it is a public address. A string that is no IP address raises ValueError."""
    ip = ip_literal(address) if isinstance(address, str) else address
    if ip is None:
        raise ValueError(f"{address!r} is not an IP address")
    if isinstance(ip, IPv6Address):
        if ip.scope_id:
            ip = IPv6Address(str(ip).split("%", 1)[0])
        carried = _embedded_ipv4(ip)
        if carried is not None:
            reason = internal_reason(carried)
            return f"{reason}, carried in the IPv6 address {ip}" if reason else None
    for network, name in _NAMED:
        if ip.version == network.version and ip in network:
            return name
    if ip.is_multicast or ip.is_reserved or ip.is_unspecified or ip.is_loopback or ip.is_link_local:
        return "a reserved address"
    if ip.is_private or not ip.is_global:
        return "an address that is not globally routed (IANA special-purpose range)"
    return None
