"""The page's main text, whose language HL503 compares with the declared one, gathered block by block
while the page is tokenized (``MainText``)."""

from __future__ import annotations

import sys
from collections import Counter
from operator import itemgetter

#: Characters of main text gathered per page: a bound on memory and on identification time for a
#: hostile page; far more than any page needs (``text_language.MAX_BLOCKS`` samples the blocks).
MAIN_TEXT_LIMIT = 100_000

#: Elements whose text is the page's own content.
_MAIN_TAGS = frozenset({"main"})
#: Elements whose text is not: navigation and sidebars anywhere; a page's banner and footer
#: outside its main content and articles (an article's own header holds its headline).
_CHROME_TAGS = frozenset({"nav", "aside"})
_BANNER_TAGS = frozenset({"header", "footer"})
#: Code reads as English in every language: left out of the evidence, wherever it stands.
_CODE_TAGS = frozenset({"pre", "code", "kbd", "samp"})
_REGION_TAGS = _MAIN_TAGS | _CHROME_TAGS | _BANNER_TAGS | _CODE_TAGS | {"article"}
#: Elements that never have content (HTML's void elements): `hidden` on one hides no text, and no end
#: tag would close a region it opened.
_VOID_TAGS = frozenset(
    "area base basefont bgsound br col embed frame hr img input keygen link meta param source track "
    "wbr".split()
)
#: Elements that start or end a block of text: paragraphs, list items, table cells, headings, quotations,
#: definition lists and the containers around them (a `<div>` holding a tagline is a block of its own).
_BLOCK_TAGS = frozenset(
    "p li td th caption h1 h2 h3 h4 h5 h6 blockquote dd dt dl ul ol table tr div section article main "
    "header footer nav aside figure figcaption form fieldset legend details summary address hr br body "
    "option button label pre".split()
)


#: The whitespace characters ``str.split`` splits on, the space and those pages hold most often first
#: (the fingerprint folds them too). The last whitespace character in Unicode is U+3000: its code
#: points are all a search needs to cover.
WHITESPACE = tuple(
    character
    for character in dict.fromkeys([" ", "\n", "\t", "\r", "\xa0", *map(chr, range(0x3001))])
    if character.isspace()
)
#: Those ``str.split`` folds but the space.
_WHITESPACE_BUT_SPACE = WHITESPACE[1:]


def _normalised(blocks: list[str]) -> list[str]:
    """The words of each block separated by one space (``" ".join(block.split())``), blocks without
    words left out; without splitting blocks that are so already: most blocks are one line of text
    between two tags. A page's blocks are so all at once when none is empty, none starts or ends with
    a space, and all of them hold no whitespace but single spaces: a few searches in C, where a test
    of each block would cost a Python call and a scan of its characters."""
    joined = "\x00".join(blocks)  # not whitespace: no block reads as starting or ending with a space
    if (
        not any(map(joined.__contains__, _WHITESPACE_BUT_SPACE))
        and all(blocks)
        and " " not in map(itemgetter(0), blocks)
        and " " not in map(itemgetter(-1), blocks)
        and "  " not in joined
    ):
        return blocks
    return [words for words in map(_folded, blocks) if words]


def _folded(text: str) -> str:
    """`text`'s words separated by one space, without splitting text that is so already. Every
    whitespace character but the space is unprintable, so printable text without two spaces in a row
    or at its ends has none to fold."""
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


class MainText:
    """The text a careful reader calls the page's own, as blocks, gathered while the page is tokenized.

    The rule (docs/reading.md, HL503): the text of `<main>` and `[role=main]` elements where the page has
    any, else of its `<article>` elements, else of `<body>`; in each case without `<nav>`, `<aside>`,
    elements marked `hidden`, code (`pre`, `code`, `kbd`, `samp`), scripts, styles, templates and
    `<noscript>`; `<header>` and `<footer>` count only inside the main content or an article. Several
    `<main>` or `<article>` elements all count, in document order. The words of links count: the
    menus and tag clouds they are made of repeat on every page and are left out as template text at
    the audit. Each bucket keeps at most ``MAIN_TEXT_LIMIT`` characters.

    Regions are tracked from start and end tags without a tree: an element of interest opens a
    region, a nested element of the same name deepens it, and its end tag (or `</body>`) closes it
    with whatever opened inside and was left unclosed. A block ends where a block element starts
    or ends, so a sidebar's tagline and the article after it are two blocks.
    """

    __slots__ = (
        "_regions", "_region_tags", "_open", "_buckets", "_sizes", "_block", "_block_bucket", "_done",
        "_bucket",
    )

    def __init__(self) -> None:
        self._regions: list[list] = []  # [tag, kind, depth]
        self._region_tags: Counter[str] = Counter()  # tags of the open regions
        self._open = {"main": 0, "article": 0, "skip": 0}
        self._buckets: dict[str, list[str]] = {"main": [], "article": [], "body": []}
        self._sizes = {"main": 0, "article": 0, "body": 0}
        self._block: list[str] = []  # the pieces of the block being read
        self._block_bucket = "body"
        # The main content's bucket is full: nothing later can change the text.
        self._done = False
        # Where text goes now (None: nowhere, inside a skipped region or once done): set when a region
        # opens or closes, so that each piece of text is not asked which regions are open.
        self._bucket: str | None = "body"

    def start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._block and tag in _BLOCK_TAGS:
            self._end_block()
        if self._done or tag in _VOID_TAGS or (
            not attrs and tag not in _REGION_TAGS and tag not in self._region_tags
        ):
            return  # most tags: no region opens or deepens
        kind = None
        if tag not in _REGION_TAGS:
            pass  # only its attributes can open a region
        elif tag in _MAIN_TAGS:
            kind = "main"
        elif tag == "article":
            kind = "article"
        elif tag in _CHROME_TAGS or tag in _CODE_TAGS or (
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
            self._retarget()
            return
        if tag not in self._region_tags:
            return  # an element with attributes (a link) inside no region of its name
        for region in reversed(self._regions):
            if region[0] == tag:
                region[2] += 1
                return

    def end(self, tag: str) -> None:
        if self._block and (tag in _BLOCK_TAGS or tag == "html"):
            self._end_block()
        regions = self._regions
        if self._done or not regions or (tag not in self._region_tags and tag not in ("body", "html")):
            return
        if tag in ("body", "html"):
            self._close(0)
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
        self._retarget()

    def _retarget(self) -> None:
        open_ = self._open
        if open_["skip"] or self._done:
            self._bucket = None
        else:
            self._bucket = "main" if open_["main"] else "article" if open_["article"] else "body"

    def data(self, text: str) -> None:
        bucket = self._bucket
        if bucket is None or (not self._block and (not text or text.isspace())):
            return  # the whitespace between blocks starts none, and nothing is no block
        if bucket != self._block_bucket:
            self._end_block()
            self._block_bucket = bucket
        size = self._sizes[bucket]
        if size < MAIN_TEXT_LIMIT:
            piece = text[: MAIN_TEXT_LIMIT - size]
            self._block.append(piece)
            self._sizes[bucket] = size = size + len(piece)
            if bucket == "main" and size >= MAIN_TEXT_LIMIT:
                self._end_block()
                self._done = True
                self._bucket = None

    def _end_block(self) -> None:
        block = self._block
        if block:
            self._buckets[self._block_bucket].append(block[0] if len(block) == 1 else "".join(block))
            self._block = []

    def blocks(self) -> tuple[str, ...]:
        """The blocks of the first bucket of main, article, body that has words, in document order."""
        self._end_block()
        for bucket in ("main", "article", "body"):
            blocks = _normalised(self._buckets[bucket])
            if blocks:
                return tuple(blocks)
        return ()
