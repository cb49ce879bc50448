"""Which language a page's main text is written in: CLD2, the detector inside Chromium, via pycld2.

Chosen on measured numbers (bench/RESULTS.md, "Language identification"): of eleven identifiers it
alone made no wrong call on 200 letters or more once closely related languages are grouped, and fit
the crawl's budget (about 66 µs and 7 MiB for 2,000 letters). Its model is compiled into the package:
nothing is downloaded. CLD2 is no longer developed; pycld2 is (0.42, 2025).

A page's main text is read block by block (``read_blocks``): each block keeps its digest, language and
letters, never its text, so that the audit can leave out the blocks every page of a site repeats (its
template) and weigh the languages of the rest (audit/checks/language.py). Identification is pure and
bounded: at most ``MAX_BLOCKS`` blocks a page, sampled across the whole main text.
"""

from __future__ import annotations

import base64
import functools
import re
import struct
import zlib
from dataclasses import dataclass
from itertools import compress
from typing import AbstractSet, Iterable, NamedTuple, Sequence

import pycld2

#: Fewer letters than this are too few to judge (HL503, CHECKS-NEXT.md).
MIN_LETTERS = 200
#: Blocks kept per page (digest, language, letters): a page with more keeps an even sample across
#: its main text. Bounds the facts to under 500 bytes a page (``_RECORD``).
MAX_BLOCKS = 48
#: Calls to CLD2 per page: inside a crawl each costs several times what it costs in a loop, so a page
#: of 30 paragraphs identified one by one would cost the crawl a quarter more CPU (bench/RESULTS.md,
#: "HL503: block-level language"). A page with more identifies an even sample of its blocks (and runs);
#: the others keep their digest, for the template, and ``UNREAD`` as their language.
MAX_CALLS = 6
#: Letters of prose read in a language after which the rest of the sample is left unread: three times
#: what a verdict needs (``MIN_LETTERS``), evidence enough once template blocks are left out, and what
#: makes a long page cost 2 calls instead of 6 (bench/RESULTS.md, "HL503: block-level language"). The
#: sample's ends are read first (``_spread``), so a page read enough early is read at both ends.
ENOUGH_LETTERS = 600
#: Characters of a block (or run) given to CLD2, about 100 letters: on the first 120 characters of
#: longer blocks CLD2 made no error and was unsure as often as on 200, and its cost in a crawl is per
#: character (bench/RESULTS.md, "HL503: block-level language"); the block's letters all count.
IDENTIFIED_CHARACTERS = 120
#: Characters of it that tell prose from names: a list of names is names from its first words.
NAMES_CHARACTERS = 150
#: A block with fewer letters (a heading, a list item, a table cell) is identified together with its
#: short neighbours: alone, CLD2 cannot tell the language of a few words.
SHORT_BLOCK = 40
#: Letters of short blocks identified together: enough for CLD2 to be reliable on most runs, few enough
#: that a run stays local (the items of one list, not half the page).
RUN_LETTERS = 100

#: CLD2's codes where hreflang writes another ISO 639-1 code (or, for Chinese, names the script).
_CLD2_CODES = {"iw": "he", "jw": "jv", "zh": "zh-Hans", "sr-ME": "sr"}

#: Languages no identifier tells apart reliably (CLD2 names Bosnian right in a minority of texts, and is
#: confident when wrong; bench/RESULTS.md): they are one language for HL503. Each maps to its group's name.
SAME_LANGUAGE = {
    **dict.fromkeys(("hr", "sr", "bs", "sh"), "hbs"),
    **dict.fromkeys(("ms", "id"), "ms"),
    **dict.fromkeys(("no", "nb", "nn"), "no"),
}

#: The languages CLD2 can answer: a page declaring another is not judged (CLD2 would name a neighbour).
KNOWN = frozenset(SAME_LANGUAGE.get(code, code) for _, code in pycld2.LANGUAGES if "-" not in code) | {
    "zh",
    "he",
    "jv",
}

# Serbian and its neighbours are written in Cyrillic or Latin letters: the letters tell which, with
# certainty, where a model would guess. Where neither has nine letters in ten, no script is named.
_BY_SCRIPT = frozenset(("sr", "bs", "hr", "sh"))
_CYRILLIC = re.compile(r"[\u0400-\u052f]")
_CLEAR_SCRIPT = 0.9
# CLD2 rejects control characters (but tab, LF, FF, CR) and noncharacters as invalid UTF-8
# (pycld2 issue #53); lone surrogates cannot be encoded at all.
_UNREADABLE = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(17))
    + "]+"
)


@dataclass(frozen=True, slots=True)
class Identified:
    """What the main text reads as."""

    #: A language tag: the ISO 639-1 language, with its script where the script was told apart
    #: (``zh-Hans``, ``zh-Hant``, ``sr-Cyrl``, ``sr-Latn``); None where the text has too few letters,
    #: CLD2 found no language or says its answer is not reliable.
    language: str | None
    #: The share of the text in that language (its group of ``SAME_LANGUAGE`` summed), 0 to 1.
    confidence: float
    #: Letters in the text that was identified (or counted, when too few).
    letters: int


def group(language: str) -> str:
    """The primary language as HL503 compares it: ``hbs`` for Croatian, Serbian and Bosnian, ..."""
    primary = language.split("-", 1)[0].lower()
    return SAME_LANGUAGE.get(primary, primary)


#: The Latin-1 characters that are not letters (``str.isalpha``), as bytes to delete.
_LATIN_1_NON_LETTERS = bytes(code for code in range(256) if not chr(code).isalpha())


def letters_in(text: str) -> int:
    """How many characters of `text` are letters (``str.isalpha``).

    Most main texts are Latin-1 (Western European languages): their non-letters are deleted in C and
    the rest counted at once. Others are counted one by one, still in C.
    """
    try:
        return len(text.encode("latin-1").translate(None, _LATIN_1_NON_LETTERS))
    except UnicodeEncodeError:
        return sum(map(str.isalpha, text))


def identify(text: str, min_letters: int = MIN_LETTERS) -> Identified:
    """The language of `text`, or only its letter count when it has fewer than `min_letters`."""
    letters = letters_in(text)
    if letters < min_letters or not letters:
        return Identified(None, 0.0, letters)
    details = _detected(text)
    if details is None:
        return Identified(None, 0.0, letters)
    language = _tag(details, text, letters)
    wanted = group(language)
    share = sum(percent for _, other, percent, _ in details if group(_CLD2_CODES.get(other, other)) == wanted)
    return Identified(language, min(share, 100) / 100, letters)


def _detected(text: str) -> tuple[tuple[str, str, int, float], ...] | None:
    """CLD2's languages for `text`, the likeliest first, or None where it names none or is unsure."""
    try:
        reliable, _, details = pycld2.detect(text, isPlainText=True)
    except (pycld2.error, UnicodeEncodeError):
        # Rare, and cleaning every text first would double the cost.
        try:
            reliable, _, details = pycld2.detect(_UNREADABLE.sub(" ", text), isPlainText=True)
        except (pycld2.error, UnicodeEncodeError):
            return None
    if not reliable or details[0][1] in ("un", "xxx"):  # CLD2's own verdict that it is unsure
        return None
    return details


def _tag(details: tuple[tuple[str, str, int, float], ...], text: str, letters: int) -> str:
    """The tag of CLD2's likeliest language for `text` (``_detected``), with the script its letters
    tell for Serbian and its neighbours."""
    code = details[0][1]
    language = _CLD2_CODES.get(code, code)
    if language in _BY_SCRIPT:
        cyrillic = len(_CYRILLIC.findall(text)) / letters
        if cyrillic >= _CLEAR_SCRIPT:
            language += "-Cyrl"
        elif cyrillic <= 1 - _CLEAR_SCRIPT:
            language += "-Latn"
    return language


#: The characters of a unit its language is decided on (``_unit_language``).
READ_CHARACTERS = max(NAMES_CHARACTERS, IDENTIFIED_CHARACTERS)


# Sites repeat blocks from page to page (a notice, a call to action, a product's description in each
# of its variants), and CLD2 answers the same text alike: the answer is remembered.
@functools.lru_cache(maxsize=4096)
def _unit_language(text: str) -> str:
    """What a unit of blocks reads as, given its first ``READ_CHARACTERS``: ``identify`` of its first
    ``IDENTIFIED_CHARACTERS``, "" for none, without the share of it that a unit's record does not
    keep; or ``NAMES``."""
    if not is_prose(text[:NAMES_CHARACTERS]):
        return NAMES
    text = text[:IDENTIFIED_CHARACTERS]
    letters = letters_in(text)
    details = _detected(text) if letters else None
    return _tag(details, text, letters) if details else ""


class TextBlock(NamedTuple):
    """A block of a page's main text, as the facts keep it: never its text."""

    #: CRC-32 of the block's text (``block_digest``): equal on every page that repeats the block.
    digest: int
    #: What the block (with its short neighbours) reads as; "" where CLD2 is unsure; ``NAMES``; ``UNREAD``.
    language: str
    letters: int


def block_digest(text: str) -> int:
    """CRC-32 of a block's text: the facts hold one for each block of each page."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


#: The language of a block of names: not prose, left out of the evidence.
NAMES = "-"
#: The language of a block left out of the sample identified (``MAX_CALLS``): no evidence either.
UNREAD = "?"


def is_prose(text: str) -> bool:
    """Whether a block is written prose, not a list of names: in cased scripts, prose starts at least
    a third of its words in lower case (German, which capitalises nouns, about two thirds); names,
    titles and product lists start nearly all in capitals. Names read as any language, so a page of
    them (a showcase, an icon gallery) must not be judged on them."""
    initials = "".join([word[0] for word in text.split()])
    try:
        latin_1 = initials.encode("latin-1")
    except UnicodeEncodeError:
        lower, upper = sum(map(str.islower, initials)), sum(map(str.isupper, initials))
    else:
        lower = len(latin_1.translate(None, _LATIN_1_NOT_LOWER))
        upper = len(latin_1.translate(None, _LATIN_1_NOT_UPPER))
    return 3 * lower >= lower + upper


#: The Latin-1 characters that are not lower case (``str.islower``), and not upper case, as bytes to
#: delete: ``is_prose`` counts the initials of a Latin-1 text in C.
_LATIN_1_NOT_LOWER = bytes(code for code in range(256) if not chr(code).islower())
_LATIN_1_NOT_UPPER = bytes(code for code in range(256) if not chr(code).isupper())


def read_blocks(blocks: Sequence[str]) -> bytes:
    """The blocks of a main text (``MainText.blocks``) with their languages, packed as ``Page.text_blocks``
    keeps them (``_RECORD``).

    Blocks without letters are left out; of more than ``MAX_BLOCKS``, an even sample across the text
    is kept, so a long page is judged on all of it, not on its beginning. A run of consecutive short
    blocks is identified as one text, each of them taking its language. Of more than ``MAX_CALLS``
    blocks and runs, an even sample is identified, until ``ENOUGH_LETTERS`` of prose have a language;
    a unit of names (``is_prose``) is not: its language is ``NAMES``.
    """
    counts, digests = _letters_and_digests(blocks)
    kept = list(compress(range(len(blocks)), counts))  # the blocks with letters
    if len(kept) > MAX_BLOCKS:
        step = len(kept) / MAX_BLOCKS
        kept = [kept[int(index * step)] for index in range(MAX_BLOCKS)]
    letters = list(map(counts.__getitem__, kept))
    # Units of identification, each a range of `kept`: a block alone, or a run of short blocks.
    ends: list[int] = []
    run_letters = 0
    for position, count in enumerate(letters):
        if count < SHORT_BLOCK:
            run_letters += count
            if run_letters >= RUN_LETTERS:
                ends.append(position + 1)
                run_letters = 0
        else:
            if run_letters:
                ends.append(position)
                run_letters = 0
            ends.append(position + 1)
    if run_letters:
        ends.append(len(kept))
    starts = [0, *ends[:-1]]
    read: list[int] = []  # the blocks identified, in the order of their records
    languages: list[int] = []  # their languages, as ``_TAGS`` indexes
    unread = bytearray(b"\x01") * len(kept)
    prose = 0
    for index in _reading_order(len(ends)):
        if prose >= ENOUGH_LETTERS:
            break
        start, end = starts[index], ends[index]
        members = kept[start:end]
        sampled = blocks[members[0]] if len(members) == 1 else "\n".join([blocks[at] for at in members])
        language = _unit_language(sampled[:READ_CHARACTERS])
        if language not in ("", NAMES):
            prose += sum(letters[start:end])
        read += members
        # Every tag ``identify`` answers is in the table.
        languages += [_TAG_INDEX.get(language, 0)] * len(members)
        unread[start:end] = bytes(len(members))
    return _packed(
        b"".join(map(_RECORD.pack, map(digests.__getitem__, read), languages, map(counts.__getitem__, read))),
        list(map(digests.__getitem__, compress(kept, unread))),
    )


#: What the blocks of a page are joined with, to be encoded, counted and hashed in one call each, then
#: split again: ``MainText`` keeps no control character a page did not write, and a page that wrote
#: this one (or a lone surrogate) is read block by block.
_SEPARATOR = b"\x00"
#: The Latin-1 characters that are not letters but the separator, as bytes to delete.
_LATIN_1_NON_LETTERS_BUT_SEPARATOR = _LATIN_1_NON_LETTERS.replace(_SEPARATOR, b"")


def _letters_and_digests(blocks: Sequence[str]) -> tuple[list[int], list[int]]:
    """``letters_in`` and ``block_digest`` of each block: the page's blocks encoded once for all, the
    letters of a page of Latin-1 text deleted in one call, each block's CRC-32 computed in C."""
    joined = _SEPARATOR.decode().join(blocks)
    try:
        pieces = joined.encode("utf-8").split(_SEPARATOR)
    except UnicodeEncodeError:
        pieces = []
    if len(pieces) != len(blocks):
        return list(map(letters_in, blocks)), list(map(block_digest, blocks))
    try:
        letters = joined.encode("latin-1").translate(None, _LATIN_1_NON_LETTERS_BUT_SEPARATOR)
    except UnicodeEncodeError:
        return list(map(letters_in, blocks)), list(map(zlib.crc32, pieces))
    return list(map(len, letters.split(_SEPARATOR))), list(map(zlib.crc32, pieces))


@functools.cache  # bounded: a page has at most ``MAX_BLOCKS`` units
def _reading_order(units: int) -> tuple[int, ...]:
    """The units of a page of `units` identified, in the order they are read: an even sample of at most
    ``MAX_CALLS`` of them, its ends first, then the middle of each gap, widest first, so that a page
    read enough before its sample ends was still read from its beginning to its end."""
    step = max(1.0, units / MAX_CALLS)
    sample = sorted({int(index * step) for index in range(min(MAX_CALLS, units))})
    return tuple(sample[at] for at in _spread(len(sample)))


def _spread(count: int) -> list[int]:
    """The positions 0 to `count` - 1 in the order of reading: the first, the last, then the middle of
    each gap between positions taken, the widest gaps first."""
    if count <= 2:
        return list(range(count))
    order, gaps = [0, count - 1], [(0, count - 1)]
    while gaps:
        wider: list[tuple[int, int]] = []
        for low, high in gaps:
            if high - low > 1:
                middle = (low + high) // 2
                order.append(middle)
                wider += [(low, middle), (middle, high)]
        gaps = wider
    return order


#: ``Page.text_blocks``, packed: 1 byte, the number of blocks with a language (identified, unsure or
#: names); for each, its digest, language (an index into ``_TAGS``) and letters; then the digests of
#: the blocks not identified (``UNREAD``), only for the template. Half the size of their text form
#: (``encode_blocks``), which a 1,000,000-page audit held over its memory budget (bench/RESULTS.md,
#: "HL503: block-level language").
_RECORD = struct.Struct("<IHI")
_DIGESTS = "<{}I"
#: Most blocks with a language a page's packing holds (its count is one byte).
_MOST_EVIDENCE = 255
#: The languages a block can read as: "" (CLD2 unsure), ``NAMES``, and every tag ``identify`` can
#: answer. Fixed, so that a packing means the same in every process.
_TAGS: tuple[str, ...] = (
    "",
    NAMES,
    *sorted(
        {_CLD2_CODES.get(code, code) for _, code in pycld2.LANGUAGES}
        | {f"{code}-{script}" for code in _BY_SCRIPT for script in ("Cyrl", "Latn")}
    ),
)
_TAG_INDEX = {tag: index for index, tag in enumerate(_TAGS)}
_NAMES_INDEX = _TAG_INDEX[NAMES]


def _packed(records: bytes, unread: list[int]) -> bytes:
    """The packing of `records` (``_RECORD`` each) and the `unread` digests; of more than
    ``_MOST_EVIDENCE`` records, the rest keep only their digests."""
    if not records and not unread:
        return b""  # no text: no HL503 for this page
    cut = _MOST_EVIDENCE * _RECORD.size
    if len(records) > cut:
        unread = unread + [digest for digest, _, _ in _RECORD.iter_unpack(records[cut:])]
        records = records[:cut]
    return bytes((len(records) // _RECORD.size,)) + records + struct.pack(_DIGESTS.format(len(unread)), *unread)


def _parts(packed: bytes) -> tuple[bytes, bytes]:
    """The records of the blocks with a language, and the digests of the others."""
    if not packed:
        return b"", b""
    end = 1 + packed[0] * _RECORD.size
    return packed[1:end], packed[end:]


def unpack_blocks(packed: bytes) -> list[TextBlock]:
    """The blocks of ``read_blocks``: those with a language first, then the others (``UNREAD``)."""
    records, unread = _parts(packed)
    return [TextBlock(digest, _TAGS[at], letters) for digest, at, letters in _RECORD.iter_unpack(records)] + [
        TextBlock(digest, UNREAD, 0) for digest in struct.unpack(_DIGESTS.format(len(unread) // 4), unread)
    ]


def block_digests(packed: bytes) -> list[int]:
    """The digests of all the blocks of ``read_blocks``."""
    records, unread = _parts(packed)
    return [record[0] for record in _RECORD.iter_unpack(records)] + list(
        struct.unpack(_DIGESTS.format(len(unread) // 4), unread)
    )


def block_evidence(packed: bytes) -> list[tuple[int, str, int]]:
    """The blocks of ``read_blocks`` that are evidence of the language: (digest, language or "" for
    unsure, letters); blocks of names and blocks not identified are not."""
    records, _ = _parts(packed)
    return [(digest, _TAGS[at], letters) for digest, at, letters in _RECORD.iter_unpack(records) if at != _NAMES_INDEX]


#: The group (``group``) of each language ``_TAGS`` names; "" for unsure and for names.
_TAG_GROUPS = tuple(group(tag) if tag and tag != NAMES else "" for tag in _TAGS)
#: The groups in which CLD2 tells scripts apart (``zh-Hant``, ``sr-Cyrl``).
SCRIPTED_GROUPS = frozenset(group(tag) for tag in _TAGS if "-" in tag)


def grouped_evidence(packed: bytes, left_out: AbstractSet[int]) -> tuple[int, dict[str, int]]:
    """The letters of a page's evidence (``block_evidence``) outside `left_out`: in all, unsure blocks
    included, and per language group. Whether a page has a confident majority at all is decided on
    these, without a tuple a block: HL503 asks it of every page, and few pages are read further."""
    records, _ = _parts(packed)
    total = 0
    groups: dict[str, int] = {}
    for digest, at, letters in _RECORD.iter_unpack(records):
        if at != _NAMES_INDEX and digest not in left_out:
            total += letters
            if at:
                name = _TAG_GROUPS[at]
                groups[name] = groups.get(name, 0) + letters
    return total, groups


def encode_blocks(packed: bytes) -> str:
    """The blocks as exported facts write them, in JSON: `digest:language:letters`, space-separated, and
    `digest:?` for a block not identified; the digest is the CRC-32 in 6 characters of URL-safe Base64."""
    return " ".join(
        f"{_digest_text(block.digest)}:{UNREAD}"
        if block.language == UNREAD
        else f"{_digest_text(block.digest)}:{block.language}:{block.letters}"
        for block in unpack_blocks(packed)
    )


def _digest_text(digest: int) -> str:
    return base64.urlsafe_b64encode(digest.to_bytes(4, "big"))[:6].decode()


#: An item of ``encode_blocks``: a digest, then `:?` or `:language:letters`.
_ITEM = re.compile(r"([^ :]+):(?:(\?)|([^ :]*):(\d+))(?= |$)")
_BASE64_DIGEST = re.compile(r"[A-Za-z0-9_-]{6}")


def decode_blocks(encoded: str) -> bytes:
    """``encode_blocks``' text packed again, as facts read back keep it. An item that is not well formed
    (a hand-edited facts file), or whose language no block can read as, keeps only its digest; a digest
    not written by ``encode_blocks`` (older facts wrote 8 hex digits) is taken as its own CRC-32, so
    that equal digests stay equal.

    The worker that audits a distributed crawl reads every page's blocks back so: where every item is
    as ``encode_blocks`` writes it, the digests are decoded at once (``_written_digests``)."""
    items = _WRITTEN_ITEMS.findall(encoded)
    written = encoded.split()
    digests = _written_digests(items) if len(items) == len(written) else None
    if digests is None:
        return _packed_items(map(_read_item, written))
    return _packed_items(
        (digest, None if mark else _TAG_INDEX.get(language), int(letters) if letters else 0)
        for digest, (_, mark, language, letters) in zip(digests, items)
    )


#: An item as ``encode_blocks`` writes it, between spaces: a digest of 6 characters of Base64, then `:?`
#: or `:language:letters`.
_WRITTEN_ITEMS = re.compile(r"(?:^| )([A-Za-z0-9_-]{6}):(?:(\?)|([^ :]*):(\d+))(?= |$)")


def _written_digests(items: list[tuple[str, str, str, str]]) -> list[int] | None:
    """The digests of `items` (``_WRITTEN_ITEMS``' groups), decoded in one call: each 6 characters and
    "AA" are 6 bytes, the digest's 4 and two of zero bits; or None where one was not written by
    ``encode_blocks`` (the last character's low bits not zero: the 5th byte of its 6)."""
    if not items:
        return []
    raw = base64.urlsafe_b64decode("AA".join([item[0] for item in items]) + "AA")
    if raw[4::6].count(0) != len(items):
        return None
    return list(struct.unpack(">" + "I2x" * len(items), raw))


def _read_item(item: str) -> tuple[int | None, int | None, int]:
    """An item of the text form, however written: its digest (None where it has none), its language
    index (None where it names no language a block can read as) and its letters."""
    match = _ITEM.fullmatch(item)
    written = match.group(1) if match else item.partition(":")[0]
    if not written:
        return None, None, 0
    at = _TAG_INDEX.get(match.group(3)) if match and match.group(2) is None else None
    return _digest_of(written), at, int(match.group(4)) if at is not None else 0


def _packed_items(items: Iterable[tuple[int | None, int | None, int]]) -> bytes:
    """The packing of items read from the text form: an item with a language and letters that fit is
    evidence; one without keeps only its digest; one without a digest is dropped."""
    evidence: list[bytes] = []
    unread: list[int] = []
    for digest, at, letters in items:
        if digest is None:
            continue
        if at is None or letters >= 2**32:
            unread.append(digest)
        else:
            evidence.append(_RECORD.pack(digest, at, letters))
    return _packed(b"".join(evidence), unread)


def _digest_of(written: str) -> int:
    if _BASE64_DIGEST.fullmatch(written):
        digest = int.from_bytes(base64.urlsafe_b64decode(written + "=="), "big")
        if _digest_text(digest) == written:
            return digest
    return block_digest(written)


def dominant_language(packed: bytes | None) -> str | None:
    """The language that holds the most letters among a page's identified blocks (template text
    included), or None: what two answers of one URL are compared on (HL801), where the frame is the
    same in both and only the body can differ."""
    letters: dict[str, int] = {}
    for _, language, count in block_evidence(packed or b""):
        if language:
            letters[language] = letters.get(language, 0) + count
    return max(sorted(letters), key=letters.__getitem__) if letters else None
