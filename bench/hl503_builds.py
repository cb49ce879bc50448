"""HL503 on the real builds (tests/corpora/builds): recall and false positives against MANIFEST.json.

Each build folder is crawled once (`-a site=`, facts exported); the facts are then audited with the
template threshold given, and every page of a translated locale is listed with what its text reads as.

    .venv/bin/python -m bench.hl503_builds                  # the defaults of audit/checks/language.py
    .venv/bin/python -m bench.hl503_builds --share 1.01     # no template text left out (a share no block reaches)
    .venv/bin/python -m bench.hl503_builds --pages          # and every page's reading
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from qivrora_spider.audit.checks import language
from qivrora_spider.audit.core.context import AuditContext
from qivrora_spider.audit.core.fact_store import FactStore
from qivrora_spider.fact_lines import read_facts

ROOT = Path(__file__).resolve().parent.parent
BUILDS = ROOT / "tests" / "corpora" / "builds"
BUILT_FOR = "https://example.com"


def crawl(build: str, start: str, out: Path) -> None:
    """The build folder crawled as a site, its facts written to `out`."""
    subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "hreflang", "-a", f"site={BUILDS / build}",
         "-a", f"base={BUILT_FOR}/", "-a", f"start={BUILT_FOR}{start}", "-O", f"{out}:facts",
         "-s", "LOG_LEVEL=ERROR"],
        cwd=ROOT, check=True, capture_output=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--share", type=float, default=language.TEMPLATE_SHARE)
    parser.add_argument("--min-pages", type=int, default=language.TEMPLATE_MIN_PAGES)
    parser.add_argument("--pages", action="store_true", help="print every page's reading")
    args = parser.parse_args()
    language.TEMPLATE_SHARE, language.TEMPLATE_MIN_PAGES = args.share, args.min_pages
    manifest = json.loads((BUILDS / "MANIFEST.json").read_text(encoding="utf-8"))
    found = untranslated = flagged = translated = 0
    with tempfile.TemporaryDirectory() as folder:
        for entry in manifest:
            out = Path(folder) / f"{entry['build']}.jsonl"
            crawl(entry["build"], entry["start"], out)
            store = FactStore()
            with out.open(encoding="utf-8") as lines:
                store.add_all(read_facts(lines, str(out)))
            ctx = AuditContext(store)
            mismatches = language.content_mismatches(ctx)
            truth = {BUILT_FOR + path for path in entry.get("untranslated", [])}
            partly = {BUILT_FOR + path for path in entry.get("partly_translated", [])}
            for url in sorted(ctx.pages):
                reading = language.text_reading(ctx, url)
                if reading is None:
                    continue
                declared = language.declared_language(ctx, url)
                if declared is None or language.group(declared[0]) == "en" or url in partly:
                    continue  # the source language, or not a page whose truth is known
                is_untranslated, is_flagged = url in truth, url in mismatches
                untranslated += is_untranslated
                found += is_untranslated and is_flagged
                translated += not is_untranslated
                flagged += is_flagged and not is_untranslated
                if args.pages or is_untranslated != is_flagged:
                    mark = "ok " if is_untranslated == is_flagged else "MISS" if is_untranslated else "FP "
                    print(f"{mark} {entry['build']:16} {url[len(BUILT_FOR):]:50} {declared[0]:5} "
                          f"{reading.letters:6} {reading.described()}")
    print(f"untranslated found: {found} of {untranslated}; translated flagged: {flagged} of {translated}")


if __name__ == "__main__":
    main()
