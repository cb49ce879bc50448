"""Summarise a py-spy profile as text: the functions with most samples, self and inclusive.

py-spy's ``--format raw`` writes collapsed stacks (``frame;frame;frame count``); a flame graph needs a
browser, while a ranked list fits in RESULTS.md and in a review. Usage::

    py-spy record -r 100 --format raw -o crawl.raw -- .venv/bin/python -m scrapy crawl hreflang ...
    .venv/bin/python bench/pyspy_top.py crawl.raw --top 30 [--match qivrora_spider]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

#: Path prefixes that only make names long: site-packages, the standard library, the repository.
_NOISE = re.compile(r".*/(?:site-packages|python3\.\d+)/|.*/(?=qivrora_spider/|bench/|settings/)")


def frame_name(frame: str) -> str:
    """`function (path:line)` -> `function (short path)`: one entry per function, not per line."""
    function, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    return f"{function} ({_NOISE.sub('', path)})"


def summarise(raw: Path) -> tuple[int, Counter[str], Counter[str]]:
    """Total samples, samples per function at the top of the stack, and anywhere in it."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        samples = int(count)
        total += samples
        names = [frame_name(frame) for frame in stack.split(";")]
        own[names[-1]] += samples
        for name in set(names):  # a recursive function counts once per sample
            inclusive[name] += samples
    return total, own, inclusive


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("raw", type=Path, help="py-spy record --format raw output")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--match", default="", help="list only functions whose name or path contains this")
    args = parser.parse_args(argv)
    total, own, inclusive = summarise(args.raw)
    print(f"{total} samples")
    for title, counter in (("self", own), ("inclusive", inclusive)):
        print(f"\n{title}:")
        rows = [(name, n) for name, n in counter.most_common() if args.match in name][: args.top]
        for name, samples in rows:
            print(f"{100 * samples / max(total, 1):5.1f}%  {name}")


if __name__ == "__main__":
    main()
