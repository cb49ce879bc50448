"""Time ``audit()`` alone on the facts of a synthetic site of N pages, in this process.

The facts are what a crawl of ``bench.generate_site``'s site would record for its pages: one ``Page``
per page (status 200, HTML, self-canonical, its ``hreflang`` annotations and ``links``), one 404
``Page`` per broken alternate, and the ``CrawlInfo``. Only ``audit()`` is timed; building the facts is
reported apart, and so is the memory they take, so that the audit's own peak shows. bench/run.py runs
this once per size and repeat in a fresh process, whose peak RSS is then the audit's. Usage::

    .venv/bin/python -m bench.audit_bench --pages 100000
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gc
import hashlib
import json
import time
from typing import Any

from qivrora_spider.audit import audit
from qivrora_spider.audit.core.fact_store import FactStore
from qivrora_spider.audit.processes import proc_kib
from qivrora_spider.extract.text_language import decode_blocks
from qivrora_spider.facts import Annotation, Canonical, CrawlInfo, Page

from .generate_site import SiteModel, SiteOptions

#: Audit facts name no served host; nothing in the audit touches the network.
BASE_URL = "https://bench.example"


def memory_kib() -> dict[str, int]:
    """Current (VmRSS) and peak (VmHWM) resident memory of this process, in KiB."""
    return proc_kib("/proc/self/status", ("VmRSS", "VmHWM"))


#: Blocks a crawl of the site keeps of a page's main text (bench/hl503_blocks.py: 31 a page, 6 of them
#: identified): its 22 list items, taken here as the same on every page of its language (the worst case
#: for the template's counts is the other: all distinct, and they are bounded by the sample), and 9
#: paragraphs of its own, with its language where identified.
_TEMPLATE_BLOCKS = 22
_OWN_BLOCKS = ((True, 412), (False, 390), (True, 377), (False, 405), (True, 398), (False, 420), (True, 388),
               (False, 401), (False, 379))


@functools.cache
def _template_blocks(lang: str) -> str:
    return " ".join(f"t{n}{lang}:{lang}:4" if n % 11 == 0 else f"t{n}{lang}:?" for n in range(_TEMPLATE_BLOCKS))


def text_blocks(index: int, lang: str) -> bytes:
    """The page's blocks as a crawl keeps them (packed), written first as exported facts write them."""
    own = " ".join(
        f"{index}.{n}:{lang}:{letters}" if read else f"{index}.{n}:?" for n, (read, letters) in enumerate(_OWN_BLOCKS)
    )
    return decode_blocks(f"{_template_blocks(lang)} {own}")


def page_fact(urls: list[str], page: Any) -> Page:
    """The `Page` fact a crawl keeps of a page of the generated site (`SitePage`)."""
    url = urls[page.index]
    return Page(
        url=url,
        requested=url,
        status=200,
        content_type="text/html",
        depth=1,
        annotations=[
            Annotation("html", a.hreflang, a.href, a.url, line=6 + line) for line, a in enumerate(page.alternates)
        ],
        canonicals=[Canonical("html", url, url)],
        html_lang=page.lang,
        is_html=True,
        fingerprint=f"{page.index:032x}",
        links=[urls[target] for target in page.links],
        text_blocks=text_blocks(page.index, page.lang),
    )


def build_store(options: SiteOptions) -> FactStore:
    """The facts a crawl of the site would keep, added to a store as the crawl's extension does."""
    model = SiteModel(options, BASE_URL)
    store = FactStore()
    store.add(CrawlInfo(started="2026-01-01T00:00:00+00:00", start_urls=[model.start_url], scope=[BASE_URL]))
    urls = model.urls
    for page in model:
        store.add(page_fact(urls, page))
        if page.defect == "broken-target":
            missing = model.missing_url(page.index)
            store.add(Page(url=missing, requested=missing, status=404, content_type="text/html", depth=2))
    return store


def measure(options: SiteOptions) -> dict[str, Any]:
    """Seconds to build the facts and to audit them, findings, and memory at each step."""
    started = time.perf_counter()
    store = build_store(options)
    built = time.perf_counter()
    gc.collect()
    facts_memory = memory_kib()
    audit_started, audit_cpu_started = time.perf_counter(), time.process_time()
    findings = audit(store)
    audit_seconds = time.perf_counter() - audit_started
    audit_cpu_seconds = time.process_time() - audit_cpu_started
    return {
        "pages": options.pages,
        "annotations": sum(len(page.annotations) for page in store.pages.values()),
        "build_seconds": round(built - started, 3),
        "audit_seconds": round(audit_seconds, 3),
        # What a loaded machine distorts least (bench/RESULTS.md).
        "audit_cpu_seconds": round(audit_cpu_seconds, 3),
        "findings": len(findings),
        # Two versions of the audit agree byte for byte when these agree.
        "findings_sha256": hashlib.sha256(
            "\n".join("\t".join(map(str, dataclasses.astuple(f))) for f in findings).encode()
        ).hexdigest(),
        "facts_rss_mib": round(facts_memory["VmRSS"] / 1024, 1),
        "peak_rss_mib": round(memory_kib()["VmHWM"] / 1024, 1),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, required=True)
    parser.add_argument("--hreflang", type=int, default=SiteOptions.hreflang, help="annotations per page")
    parser.add_argument("--links", type=int, default=SiteOptions.links)
    parser.add_argument("--defect-rate", type=float, default=SiteOptions.defect_rate)
    parser.add_argument("--seed", type=int, default=SiteOptions.seed)
    args = parser.parse_args(argv)
    options = SiteOptions(
        pages=args.pages, languages=max(args.hreflang, SiteOptions.languages), hreflang=args.hreflang,
        links=args.links, defect_rate=args.defect_rate, seed=args.seed,
    )
    print(json.dumps(measure(options)), flush=True)


if __name__ == "__main__":
    main()
