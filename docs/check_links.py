"""Check every internal link of the built site: ``python docs/check_links.py docs/_build/html``.

Sphinx's -W catches the links of the Markdown sources; this reads the HTML it wrote, the theme's
and the generated pages' links too: every relative href or src names a file of the site, and every
#fragment an id of its page. External links are not followed (the build runs offline).
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Page(HTMLParser):
    """The ids a page has and the links it makes."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            elif name in ("href", "src") and value:
                self.links.append(value)


def read(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_links(site: Path) -> list[str]:
    """One line per broken internal link: the page, the link, what is wrong."""
    pages = {path: read(path) for path in sorted(site.rglob("*.html"))}
    broken = []
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(site)}: {link}"
            if not target.is_file():
                broken.append(f"{where}: no such file")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else read(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where}: no id {parts.fragment!r}")
    return broken


def main(argv: list[str]) -> int:
    site = Path(argv[0]).resolve()
    broken = broken_links(site)
    for line in broken:
        print(line, file=sys.stderr)
    print(f"{len(broken)} broken internal links in {site}", file=sys.stderr if broken else sys.stdout)
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
