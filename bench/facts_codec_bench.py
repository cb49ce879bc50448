"""Time the facts' round trip alone: ``fact_line`` (each worker of a distributed crawl writes every
fact so, and JOBDIR's facts.jsonl) and ``read_facts`` (the auditor reads the other workers' facts
back so, alone at the end of the crawl), in CPU microseconds per fact.

The facts are those of ``bench.generate_site``'s site, as a crawl records them: a ``Page`` per page
(5 annotations, 20 links, a canonical, its main text's language) and a ``SitemapEntry`` per page
(5 annotations). More pages than ``normalize_url`` caches, so that checking each page's URL costs
what it does for an auditor reading 10,000 pages it did not crawl itself. Each timing is the best
of ``--rounds`` (``time.process_time``: what a shared machine's other processes take counts less),
each started after a garbage collection, so that no round pays for the garbage of the one before.
Usage::

    .venv/bin/python -m bench.facts_codec_bench --pages 10000
"""

from __future__ import annotations

import argparse
import gc
import time
from typing import Any, Callable, Iterable

from qivrora_spider.facts import Annotation, SitemapEntry, fact_line, read_facts

from .audit_bench import page_fact
from .generate_site import SiteModel, SiteOptions
from .run import report_header, table_row

BASE_URL = "https://bench.example"
SITEMAP = f"{BASE_URL}/sitemap.xml"


def site_facts(pages: int) -> dict[str, list[Any]]:
    """A Page and a SitemapEntry for each page of the site, by kind."""
    model = SiteModel(SiteOptions(pages=pages), BASE_URL)
    urls = model.urls
    found: dict[str, list[Any]] = {"Page": [], "SitemapEntry": []}
    for page in model:
        url = urls[page.index]
        # What the audit benchmark keeps of the page, and what the crawl adds to it (HL503's reading).
        fact = page_fact(urls, page)
        fact.content_language = fact.main_text_language = page.lang
        fact.main_text_confidence, fact.main_text_letters = 0.97, 3_412
        found["Page"].append(fact)
        found["SitemapEntry"].append(
            SitemapEntry(
                sitemap=SITEMAP,
                loc=url,
                url=url,
                lastmod="2026-01-01",
                line=3 + 9 * page.index,
                annotations=[
                    Annotation(
                        "sitemap", a.hreflang, a.href, a.url, line=4 + 9 * page.index + n, sitemap=SITEMAP
                    )
                    for n, a in enumerate(page.alternates, 1)
                ],
                position=page.index + 1,
            )
        )
    return found


def best_of(rounds: int, work: Callable[[], Any]) -> float:
    """The least CPU seconds `work` took in `rounds` runs."""
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def fact_lines(facts: Iterable[Any]) -> list[bytes]:
    """What a worker sends to Redis, or JOBDIR appends to facts.jsonl (with a newline)."""
    return [fact_line(fact) for fact in facts]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    lines = [
        *report_header("Facts' round trip", "facts_codec_bench.py", argv),
        "",
        table_row("fact", "facts", "bytes a line", "fact_line µs", "read_facts µs"),
        "|---|---:|---:|---:|---:|",
    ]
    for kind, facts in site_facts(args.pages).items():
        stored = fact_lines(facts)
        written = [line.decode("utf-8") for line in stored]  # as read_facts gets them from Redis or a file
        assert list(read_facts(written)) == facts, "the facts survive the round trip"
        size = sum(map(len, stored)) / len(facts)
        seconds = (
            best_of(args.rounds, lambda: fact_lines(facts)),
            best_of(args.rounds, lambda: list(read_facts(written))),
        )
        per_fact = (f"{each * 1e6 / len(facts):.1f}" for each in seconds)
        lines.append(table_row(kind, len(facts), f"{size:.0f}", *per_fact))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
