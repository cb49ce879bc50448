"""What a budget samples: ``-a max_pages`` on bench/generate_site.py's site, read from the crawl's facts.

A cluster of the site is an item's language versions (``SiteModel``: ``/{lang}/p{item}/``). A cluster
is touched when the crawl examined (GET, any answer) at least one of its pages, and whole when it
examined all of them. The report gives the share of touched clusters examined whole, and how the
examined pages spread over the site's sections (its language folders) and over its items (tenths
of the item range). Usage, from the repository root::

    .venv/bin/python bench/budget_bench.py --pages 20000 --max-pages 2000
    .venv/bin/python bench/budget_bench.py --checkout /tmp/qivrora-main   # the same crawl by another checkout
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python bench/budget_bench.py`
    sys.path.insert(0, str(ROOT))

from bench.generate_site import SiteModel, add_options, options_from, write_site  # noqa: E402
from bench.run import CRAWL_FLAGS  # noqa: E402
from bench.serve import free_port, serve  # noqa: E402
from qivrora_spider.fact_lines import read_facts  # noqa: E402
from qivrora_spider.facts import Page  # noqa: E402


def crawl(checkout: Path, start: str, max_pages: int, facts: Path) -> float:
    """Seconds the crawl took; its facts in `facts`."""
    command = [
        sys.executable, "-m", "scrapy", "crawl", "hreflang", "-a", f"start={start}", "-a", f"max_pages={max_pages}",
        *CRAWL_FLAGS, "-s", "QIVRORA_STATE=", "-O", f"{facts}:facts",
    ]
    started = time.perf_counter()
    subprocess.run(command, cwd=checkout, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def report(model: SiteModel, facts: Path) -> list[str]:
    per_item = model.options.hreflang
    item_of = {url: index // per_item for index, url in enumerate(model.urls)}
    examined = {
        fact.url for fact in read_facts(facts.read_text(encoding="utf-8").splitlines())
        if isinstance(fact, Page) and fact.url in item_of
    }
    sizes = Counter(item_of.values())
    seen = Counter(item_of[url] for url in examined)
    whole = sum(1 for item, count in seen.items() if count == sizes[item])
    sections = Counter(url[len(model.base_url):].split("/")[1] for url in examined)
    items = len(sizes)
    tenths = Counter(min(9, item * 10 // items) for item in (item_of[url] for url in examined))
    return [
        f"- pages of the site examined: {len(examined):,} of {len(model.urls):,}",
        f"- clusters touched: {len(seen):,} of {items:,}; examined whole: {whole:,} "
        f"({100 * whole / max(1, len(seen)):.1f} % of those touched)",
        "- examined pages by section: " + ", ".join(f"/{name}/ {count}" for name, count in sorted(sections.items())),
        "- examined pages by tenth of the items: " + ", ".join(str(tenths[tenth]) for tenth in range(10)),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_options(parser)
    parser.add_argument("--max-pages", type=int, default=2000)
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the Qivrora checkout that crawls")
    args = parser.parse_args(argv)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="qivrora-budget-") as work:
        model = SiteModel(options_from(args), f"http://127.0.0.1:{port}")
        write_site(Path(work) / "site", model)
        with serve(Path(work) / "site", port):
            facts = Path(work) / "facts.jsonl"
            seconds = crawl(args.checkout.resolve(), model.start_url, args.max_pages, facts)
        lines = [f"{model.options.pages:,} pages, max_pages={args.max_pages:,}, start {model.start_url}, {seconds:.0f} s"]
        print("\n".join(lines + report(model, facts)))


if __name__ == "__main__":
    main()
