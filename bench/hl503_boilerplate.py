"""HL503 with a within-page boilerplate remover (trafilatura) instead of the site-wide template, on the
same pages: the real builds (tests/corpora/builds, MANIFEST.json's truth) and the theme fixtures of
tests/test_theme_language.py. The text trafilatura keeps is identified whole by CLD2, and judged by the
rule HL503 had before block-level reading (80 % in one language, 200 letters).

trafilatura is not a dependency: it runs in a scratch venv, the pages are written by the project's::

    .venv/bin/python -m bench.hl503_boilerplate --write /tmp/pages        # the fixture pages, as files
    python3 -m venv /tmp/vtra && /tmp/vtra/bin/pip install trafilatura==2.3.1 lxml_html_clean pycld2==0.42
    PYTHONPATH=. /tmp/vtra/bin/python -m bench.hl503_boilerplate --judge /tmp/pages
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILDS = ROOT / "tests" / "corpora" / "builds"
_LANG = re.compile(r"<html[^>]*\slang=\"?([A-Za-z-]+)")


def write_fixtures(folder: Path) -> None:
    """The theme fixtures' pages, with truth.json: path -> untranslated."""
    from qivrora_spider.demo.site_server import SiteServer
    from tests.test_theme_language import themes

    truth = {}
    with SiteServer() as blog, SiteServer() as docs:
        themes(blog, docs)
        for name, site in (("blog", blog), ("docs", docs)):
            for path, route in site.routes.items():
                target = folder / name / path.strip("/") / "index.html"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(route.body if isinstance(route.body, str) else route.body.decode(), encoding="utf-8")
                truth[f"{name}{path}"] = path in ("/de/cycling/", "/de/recipe/") if name == "blog" else path == "/de/password/"
    (folder / "truth.json").write_text(json.dumps(truth, indent=1), encoding="utf-8")


def pages(folder: Path):
    """(name, html, untranslated) of every non-English page of the builds and the fixtures."""
    for entry in json.loads((BUILDS / "MANIFEST.json").read_text(encoding="utf-8")):
        untranslated = set(entry.get("untranslated", []))
        partly = set(entry.get("partly_translated", []))
        for path in sorted((BUILDS / entry["build"]).rglob("*.html")):
            url = "/" + str(path.relative_to(BUILDS / entry["build"]))
            url = url.removesuffix("index.html")
            if url in partly:
                continue
            yield f"{entry['build']}{url}", path.read_text(encoding="utf-8"), url in untranslated
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    for name, untranslated in truth.items():
        yield name, (folder / name.strip("/") / "index.html").read_text(encoding="utf-8"), untranslated


def judge(folder: Path) -> None:
    import trafilatura

    from qivrora_spider.extract.text_language import group, identify

    found = missed = flagged = translated = 0
    for name, html, untranslated in pages(folder):
        lang = _LANG.search(html)
        if lang is None or group(lang.group(1)) == "en":
            continue
        text = trafilatura.extract(html, include_comments=False, include_tables=True) or ""
        read = identify(text)
        wrong = read.language is not None and read.confidence >= 0.8 and group(read.language) != group(lang.group(1))
        found += untranslated and wrong
        missed += untranslated and not wrong
        flagged += wrong and not untranslated
        translated += not untranslated
        if wrong != untranslated:
            print(f"{'MISS' if untranslated else 'FP  '} {name:55} {read.language} {read.confidence:.2f} {read.letters}")
    print(f"trafilatura + CLD2: untranslated found {found} of {found + missed}; translated flagged {flagged} of {translated}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", type=Path)
    parser.add_argument("--judge", type=Path)
    args = parser.parse_args()
    if args.write:
        write_fixtures(args.write)
    if args.judge:
        judge(args.judge)


if __name__ == "__main__":
    main()
