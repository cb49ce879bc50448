"""The collector's policy while a crawl runs: the start-up heap frozen, gen 0 collected less often,
and the process given its own collector back when the crawl closes."""

from __future__ import annotations

import gc

import pytest_twisted
from scrapy import signals

from qivrora_spider.demo.site_server import Route, html_page

from .conftest import crawl


def _collector() -> tuple[tuple[int, int, int], int]:
    return gc.get_threshold(), gc.get_freeze_count()


@pytest_twisted.ensureDeferred
async def test_a_crawl_freezes_the_start_up_heap_and_collects_gen_0_less_often_until_it_closes(site):
    site.routes["/"] = Route(html_page(title="Home"))
    before = _collector()
    seen: dict[str, tuple[tuple[int, int, int], int]] = {}

    def at(name: str):
        return lambda **_: seen.setdefault(name, _collector())

    result = await crawl(
        start=site.url("/"),
        handlers={signals.response_received: at("crawling"), signals.spider_idle: at("idle")},
    )

    assert result.stats["finish_reason"] == "finished" and site.requests("GET")["/"] == 1
    for moment in ("crawling", "idle"):
        thresholds, frozen = seen[moment]
        assert thresholds[0] == 10_000 and thresholds[1:] == before[0][1:], moment
        assert frozen > 10_000, f"{moment}: the modules and functions of start-up are frozen"
    assert _collector() == before, "the process has its own collector back"


@pytest_twisted.ensureDeferred
async def test_a_threshold_of_0_leaves_the_collector_alone(site):
    site.routes["/"] = Route(html_page(title="Home"))
    before = _collector()
    seen: list[tuple[tuple[int, int, int], int]] = []

    await crawl(
        {"QIVRORA_GC_THRESHOLD": 0},
        start=site.url("/"),
        handlers={signals.response_received: lambda **_: seen.append(_collector())},
    )

    assert seen and set(seen) == {before}
