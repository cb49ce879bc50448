"""Servers on other loopback addresses that count what reaches them: where hostile URLs point.

Only loopback: 127.0.0.2 and 127.0.0.3 stand for the internal network a hostile site would reach
into. No test points anything at another private or a public address, so a failing guard can reach
nothing but these servers, which then tell.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from qivrora_spider.demo.site_server import Route, SiteServer, html_page

SECRET = "internal-secret-7f3a"


def _internal(host: str) -> SiteServer:
    server = SiteServer(host=host)
    # What an internal service would answer: it must never end up in a fact or finding.
    for path in ("/", "/admin/", "/de/", "/sitemap.xml", "/evil.dtd", "/redirected/", "/linked/", "/listed/"):
        server.routes[path] = Route(html_page(body=SECRET))
    return server


@pytest.fixture
def trap() -> Iterator[SiteServer]:
    with _internal("127.0.0.2") as server:
        yield server


@pytest.fixture
def trap3() -> Iterator[SiteServer]:
    with _internal("127.0.0.3") as server:
        yield server
