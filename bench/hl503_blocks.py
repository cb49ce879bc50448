"""HL503 block by block: CLD2's error per block length and on a block's first characters, what
reading blocks costs a page, and the bytes the block list adds to a page's facts.

    .venv/bin/python -m bench.hl503_blocks             # all of them, about a minute
    .venv/bin/python -m bench.hl503_blocks --pages 500 # more benchmark pages for the cost

Error: the texts of bench/langid_samples (21 languages and scripts, not `mixed/`), cut into sentences
and groups of sentences, each identified as one block (``identify(text, min_letters=1)``); wrong
where CLD2 names another language (closely related ones grouped, as HL503 groups them), unsure where
it names none. Then the blocks of 200 characters or more, each identified on its first 100 to 200
characters only, as ``read_blocks`` identifies a block. Cost: the pages of the benchmark site (bench/generate_site.py, seed 1), each parsed
without and with its main text, the minimum of 5 rounds of ``time.process_time``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Iterator

from bench.generate_site import SiteModel, SiteOptions, write_site
from qivrora_spider.extract.html_extract import extract_html
from qivrora_spider.extract.text_language import encode_blocks, group, identify, letters_in, read_blocks, unpack_blocks

SAMPLES = Path(__file__).parent / "langid_samples"
#: Letters per block: the bounds of each row of the error table.
BUCKETS = ((1, 20), (20, 40), (40, 80), (80, 160), (160, 320), (320, 10_000))
#: Characters of a block identified: the rows of the table of cut blocks.
CUTS = (100, 120, 150, 200)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s*")


def blocks_of(text: str) -> list[str]:
    """Sentences, and runs of 2, 4 and 8 of them: blocks from a heading's length to a paragraph's."""
    sentences = [s.strip() for paragraph in text.split("\n\n") for s in _SENTENCE.split(paragraph) if s.strip()]
    found = list(sentences)
    for size in (2, 4, 8):
        found += [" ".join(sentences[i : i + size]) for i in range(0, len(sentences) - size + 1, size)]
    return found


def sample_blocks() -> Iterator[tuple[str, str]]:
    """Every block of the samples, with the language group it is written in."""
    for folder in sorted(p for p in SAMPLES.iterdir() if p.is_dir() and p.name != "mixed"):
        wanted = group(folder.name)
        for path in sorted(folder.glob("*.txt")):
            for block in blocks_of(path.read_text(encoding="utf-8")):
                yield wanted, block


def verdict(text: str, wanted: str) -> str:
    """right, wrong or unsure: what CLD2 makes of `text`, written in the group `wanted`."""
    read = identify(text, min_letters=1).language
    return "unsure" if read is None else "right" if group(read) == wanted else "wrong"


def error_table() -> list[str]:
    counts: dict[tuple[int, int], Counter[str]] = {bucket: Counter() for bucket in BUCKETS}
    for wanted, block in sample_blocks():
        letters = letters_in(block)
        counts[next(b for b in BUCKETS if b[0] <= letters < b[1])][verdict(block, wanted)] += 1
    lines = ["| letters | blocks | wrong | unsure |", "|---|---:|---:|---:|"]
    for (low, high), count in counts.items():
        total = sum(count.values())
        lines.append(
            f"| {low}–{high - 1} | {total} | {100 * count['wrong'] / total:.1f} % | {100 * count['unsure'] / total:.1f} % |"
        )
    return lines


def cut_table() -> list[str]:
    """The blocks of 200 characters or more, each identified on its first characters only, as
    ``read_blocks`` does (``IDENTIFIED_CHARACTERS``)."""
    counts: dict[int, Counter[str]] = {cut: Counter() for cut in CUTS}
    for wanted, block in sample_blocks():
        if len(block) >= max(CUTS):
            for cut, count in counts.items():
                count[verdict(block[:cut], wanted)] += 1
    lines = ["| first characters | blocks | wrong | unsure |", "|---:|---:|---:|---:|"]
    for cut, count in counts.items():
        total = sum(count.values())
        lines.append(
            f"| {cut} | {total} | {count['wrong']} ({100 * count['wrong'] / total:.1f} %) "
            f"| {count['unsure']} ({100 * count['unsure'] / total:.1f} %) |"
        )
    return lines


def cost_table(pages: int) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        write_site(Path(folder), SiteModel(SiteOptions(pages=pages), "http://127.0.0.1:8080"))
        texts = [path.read_text(encoding="utf-8") for path in sorted(Path(folder).rglob("index.html"))]
    timings: dict[str, list[float]] = {"parse": [], "gather": [], "old": [], "blocks": []}
    for _ in range(5):
        start = time.process_time()
        for text in texts:
            extract_html(text, main_text=False)
        timings["parse"].append(time.process_time() - start)
        start = time.process_time()
        gathered = [extract_html(text).main_text for text in texts]
        timings["gather"].append(time.process_time() - start)
        start = time.process_time()
        for blocks in gathered:
            identify(" ".join(blocks)[:1000])  # the identification before issue 29: one call, 1,000 characters
        timings["old"].append(time.process_time() - start)
        start = time.process_time()
        packed = [read_blocks(blocks) for blocks in gathered]
        timings["blocks"].append(time.process_time() - start)
    per_page = {name: 1e6 * min(values) / len(texts) for name, values in timings.items()}
    sizes = [len(value) for value in packed]
    text_sizes = [len(encode_blocks(value)) for value in packed]
    counts = [len(unpack_blocks(value)) for value in packed]
    return [
        f"{len(texts)} pages of the benchmark site, µs per page (min of 5):",
        "",
        "| parse, no main text | + gathering blocks | identify 1,000 characters (before) | identify blocks (now) |",
        "|---:|---:|---:|---:|",
        f"| {per_page['parse']:.0f} | +{per_page['gather'] - per_page['parse']:.0f} | +{per_page['old']:.0f} "
        f"| +{per_page['blocks']:.0f} |",
        "",
        f"Blocks kept per page: median {statistics.median(counts):.0f}, max {max(counts)}. `text_blocks`: median "
        f"{statistics.median(sizes):.0f} bytes packed, max {max(sizes)}; in memory "
        f"{sys.getsizeof(b'x' * int(statistics.median(sizes)))} bytes for the median (one bytes object); as "
        f"text in JSON median {statistics.median(text_sizes):.0f} characters, max {max(text_sizes)}.",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=200)
    args = parser.parse_args()
    print("\n".join(error_table()))
    print()
    print("\n".join(cut_table()))
    print()
    print("\n".join(cost_table(args.pages)))


if __name__ == "__main__":
    main()
