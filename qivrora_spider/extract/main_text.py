"""The page's main text, whose language HL503 compares with the declared one, gathered while the page is
tokenized (``MainText``)."""

from __future__ import annotations

from collections import Counter

#: Enough text to identify a language with confidence; more costs time and tells nothing new.
MAIN_TEXT_LIMIT = 1000

#: Elements whose text is the page's own content.
_MAIN_TAGS = frozenset({"main"})
#: Elements whose text is not: navigation and sidebars anywhere; a page's banner and footer
#: outside its main content and articles (an article's own header holds its headline).
_CHROME_TAGS = frozenset({"nav", "aside"})
_BANNER_TAGS = frozenset({"header", "footer"})
_REGION_TAGS = _MAIN_TAGS | _CHROME_TAGS | _BANNER_TAGS | {"article"}


class MainText:
    """The text a careful reader calls the page's own, gathered while the page is tokenized.

    The rule (README, HL503): the text of `<main>` and `[role=main]` elements where the page has
    any, else of its `<article>` elements, else of `<body>`; in each case without `<nav>`, `<aside>`,
    elements marked `hidden`, the words of links (menus, tag clouds and listings are links, not the
    page's prose), scripts, styles, templates and `<noscript>`; `<header>` and `<footer>` count only
    inside the main content or an article. Several `<main>` or `<article>` elements all count, in
    document order. Each bucket keeps at most ``MAIN_TEXT_LIMIT`` characters.

    Regions are tracked from start and end tags without a tree: an element of interest opens a
    region, a nested element of the same name deepens it, and its end tag (or `</body>`) closes it
    with whatever opened inside and was left unclosed.
    """

    __slots__ = ("_regions", "_region_tags", "_open", "_buckets", "_sizes", "_in_link", "_done")

    def __init__(self) -> None:
        self._regions: list[list] = []  # [tag, kind, depth]
        self._region_tags: Counter[str] = Counter()  # tags of the open regions
        self._open = {"main": 0, "article": 0, "skip": 0}
        self._buckets: dict[str, list[str]] = {"main": [], "article": [], "body": []}
        self._sizes = {"main": 0, "article": 0, "body": 0}
        # Links do not nest (a new <a> closes the open one): a flag, not a region.
        self._in_link = False
        # The main content's bucket is full: nothing later can change the text.
        self._done = False

    def start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._in_link = True
            return
        if self._done or (not attrs and tag not in _REGION_TAGS and tag not in self._region_tags):
            return  # most tags: no region opens or deepens
        kind = None
        if tag in _MAIN_TAGS:
            kind = "main"
        elif tag == "article":
            kind = "article"
        elif tag in _CHROME_TAGS or (
            tag in _BANNER_TAGS and not (self._open["main"] or self._open["article"])
        ):
            kind = "skip"
        if attrs and kind != "skip":
            for name, value in attrs:
                if name == "hidden":
                    kind = "skip"
                    break
                if name == "role" and value and value.strip().lower() == "main" and kind is None:
                    kind = "main"
        if kind is not None:
            self._regions.append([tag, kind, 1])
            self._region_tags[tag] += 1
            self._open[kind] += 1
            return
        for region in reversed(self._regions):
            if region[0] == tag:
                region[2] += 1
                return

    def end(self, tag: str) -> None:
        if tag == "a":
            self._in_link = False
            return
        regions = self._regions
        if self._done or not regions or (tag not in self._region_tags and tag not in ("body", "html")):
            return
        if tag in ("body", "html"):
            self._close(0)
            self._in_link = False
            return
        for index in range(len(regions) - 1, -1, -1):
            region = regions[index]
            if region[0] == tag:
                region[2] -= 1
                if not region[2]:
                    self._close(index)
                return

    def _close(self, index: int) -> None:
        for tag, kind, _ in self._regions[index:]:
            self._open[kind] -= 1
            self._region_tags[tag] -= 1
            if not self._region_tags[tag]:
                del self._region_tags[tag]
        del self._regions[index:]

    def data(self, text: str) -> None:
        open_ = self._open
        if self._in_link or open_["skip"] or self._done:
            return
        bucket = "main" if open_["main"] else "article" if open_["article"] else "body"
        size = self._sizes[bucket]
        if size < MAIN_TEXT_LIMIT:
            piece = text[: MAIN_TEXT_LIMIT - size]
            self._buckets[bucket].append(piece)
            self._sizes[bucket] = size = size + len(piece)
            self._done = bucket == "main" and size >= MAIN_TEXT_LIMIT

    def text(self) -> str:
        """The first bucket of main, article, body that has words."""
        for bucket in ("main", "article", "body"):
            words = " ".join(" ".join(self._buckets[bucket]).split())
            if words:
                return words
        return ""
