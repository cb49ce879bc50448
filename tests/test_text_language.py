"""The letter count HL503 needs before it identifies a main text, and the blocks it reads
(extract/text_language.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from qivrora_spider.extract.text_language import (
    ENOUGH_LETTERS,
    MAX_BLOCKS,
    MAX_CALLS,
    NAMES,
    READ_CHARACTERS,
    UNREAD,
    block_digest,
    block_digests,
    block_evidence,
    grouped_evidence,
    _packed_items,
    _read_item,
    _unit_language,
    decode_blocks,
    encode_blocks,
    is_prose,
    letters_in,
    read_blocks,
    unpack_blocks,
)


def test_each_latin_1_character_counts_as_str_isalpha_says() -> None:
    for code in range(256):
        assert letters_in(chr(code) * 3) == (3 if chr(code).isalpha() else 0), hex(code)


@given(st.text(max_size=300) | st.text(st.characters(max_codepoint=0xFF), max_size=300))
def test_any_text_has_the_letters_str_isalpha_counts(text: str) -> None:
    assert letters_in(text) == sum(map(str.isalpha, text))


@given(st.text(max_size=150) | st.text(st.characters(max_codepoint=0xFF), max_size=150))
def test_prose_is_told_by_the_case_of_initials_as_str_methods_tell_it(text: str) -> None:
    initials = [word[0] for word in text.split()]
    lower, upper = sum(map(str.islower, initials)), sum(map(str.isupper, initials))
    assert is_prose(text) == (3 * lower >= lower + upper)


# -- block by block (issue 29) ----------------------------------------------------------------------

GERMAN = (
    "Die Anwendung liest ihre Einstellungen beim Start aus einer Konfigurationsdatei im Projektverzeichnis, "
    "und fehlt diese Datei, werden Standardwerte verwendet."
)
ENGLISH = (
    "The application reads its settings at start-up from a configuration file in the project folder, and "
    "where the file is missing, defaults are used."
)


def test_each_block_keeps_its_digest_language_and_letters_never_its_text() -> None:
    packed = read_blocks([GERMAN, ENGLISH, "Weiter", "Zurück"])
    blocks = unpack_blocks(packed)
    assert sorted((block.language, block.letters) for block in blocks) == sorted([
        ("de", letters_in(GERMAN)), ("en", letters_in(ENGLISH)), (NAMES, 6), (NAMES, 6),  # labels: names
    ])
    assert blocks[0].digest == unpack_blocks(read_blocks([GERMAN]))[0].digest != blocks[1].digest
    assert len(packed) == 1 + 4 * 10, "10 bytes a block with a language"
    encoded = encode_blocks(packed)
    assert "Anwendung" not in encoded and len(encoded.split()) == 4
    assert decode_blocks(encoded) == packed


def test_short_blocks_are_identified_with_their_neighbours() -> None:
    items = [sentence + "." for sentence in ENGLISH.split(",")]  # three short list items
    assert {block.language for block in unpack_blocks(read_blocks(items))} == {"en"}


def test_names_are_no_evidence() -> None:
    names = ["Bright Pixel Studio", "Cloud Forge Labs", "Northwind Traders", "Blue Harbor Design", "Red Maple Press",
             "Silver Lake Software", "Golden Gate Bakery"]
    assert is_prose(GERMAN) and is_prose(ENGLISH) and not is_prose(" ".join(names))
    assert {block.language for block in unpack_blocks(read_blocks(names))} == {NAMES}
    assert block_evidence(read_blocks(names)) == []


def test_a_long_page_is_sampled_across_its_whole_text_within_the_caps() -> None:
    page = [ENGLISH] * 40 + [GERMAN] * 40 + [f"{n}" for n in range(1000)]  # numbers: no letters, no block
    blocks = unpack_blocks(read_blocks(page))
    assert len(blocks) == MAX_BLOCKS
    read = [block.language for block in blocks if block.language != UNREAD]
    assert len(read) <= MAX_CALLS and set(read) == {"en", "de"}, "the end of the text is read too"


def test_a_page_read_enough_leaves_the_rest_of_its_sample_unread() -> None:
    page = [ENGLISH * 3] * 10 + [GERMAN * 3] * 10  # blocks of 350 to 410 letters: 600 read after 2
    blocks = unpack_blocks(read_blocks(page))
    read = [block for block in blocks if block.language != UNREAD]
    assert len(read) < MAX_CALLS and sum(block.letters for block in read) >= ENOUGH_LETTERS
    assert {block.language for block in read} == {"en", "de"}, "read from its beginning to near its end"


def test_evidence_leaves_out_names_unread_and_malformed_items() -> None:
    encoded = "0000000a:en:300 0000000b:-:50 0000000c:?:70 0000000d::12 x:en:12a :: y:de:-4 0000000e:sr-Latn:9"
    packed = decode_blocks(encoded)  # as facts of older versions (8 hex digits) or edited by hand load
    a, b, c, d, e, x, y = map(block_digest, ["0000000a", "0000000b", "0000000c", "0000000d", "0000000e", "x", "y"])
    assert block_evidence(packed) == [(a, "en", 300), (d, "", 12), (e, "sr-Latn", 9)]
    assert sorted(block_digests(packed)) == sorted([a, b, c, d, e, x, y])


def test_grouped_evidence_weighs_groups_and_leaves_out_the_template() -> None:
    encoded = "0000000a:en:300 0000000b:-:50 0000000d::12 0000000e:sr-Latn:9 0000000f:hr:40 0000000g:en:20"
    packed = decode_blocks(encoded)
    a, g = block_digest("0000000a"), block_digest("0000000g")
    assert grouped_evidence(packed, frozenset()) == (381, {"en": 320, "hbs": 49}), "unsure counts in the total"
    assert grouped_evidence(packed, frozenset({a, g})) == (61, {"hbs": 49}), "template blocks weigh nothing"


def test_a_unit_pages_repeat_is_identified_once_on_its_beginning() -> None:
    _unit_language.cache_clear()
    page = [GERMAN, "Weiter", ENGLISH]
    first = read_blocks(page)
    identified = _unit_language.cache_info().misses
    assert identified == 3
    longer = GERMAN + " Nothing past the first characters changes what the block reads as."
    assert len(GERMAN) >= READ_CHARACTERS
    again = read_blocks([longer, "Weiter", ENGLISH])
    assert _unit_language.cache_info().misses == identified, "no unit identified twice"
    assert [block.language for block in unpack_blocks(again)] == [block.language for block in unpack_blocks(first)]
    _unit_language.cache_clear()
    assert read_blocks(page) == first, "remembered answers are the answers"


@given(st.lists(st.text(alphabet="Ab é\x00\ud800Яд日", max_size=12), max_size=12))
def test_each_block_keeps_its_own_digest_and_letters_whatever_it_holds(blocks: list[str]) -> None:
    """A page's blocks are encoded, counted and hashed joined with a separator: a block holding it, a
    lone surrogate or a letter outside Latin-1 still gets its own digest and letters."""
    lettered = {block_digest(block): letters_in(block) for block in blocks if letters_in(block)}
    packed = read_blocks(blocks)
    assert sorted(block_digests(packed)) == sorted(block_digest(block) for block in blocks if letters_in(block))
    read = [block for block in unpack_blocks(packed) if block.language != UNREAD]
    assert all(lettered[block.digest] == block.letters for block in read)


def test_the_text_form_of_blocks_reads_back_the_same() -> None:
    encoded = encode_blocks(read_blocks([GERMAN, "Weiter", ENGLISH * 3]))
    assert encode_blocks(decode_blocks(encoded)) == encoded
    assert all(len(item.partition(":")[0]) == 6 for item in encoded.split()), "6 characters of Base64 a digest"


_CANONICAL = st.sampled_from(["CgsMDQ", "_____w", "ASNFZw", "AAAAAA"])
_WELL_FORMED = st.tuples(
    _CANONICAL,
    st.sampled_from([":?", ":de:", "::", ":sr-Latn:", ":-:", ":xx:"]),
    st.sampled_from(["0", "12", "4294967295", "4294967296", "00000000000012", "٣"]),
).map(lambda item: item[0] + item[1] + ("" if item[1] == ":?" else item[2]))
_ANY_ITEM = st.tuples(
    st.sampled_from(["CgsMDQ", "AAAAAB", "zzzzzz", "0000000a", "x", ""]),
    st.sampled_from([":?", ":de:", "::", ":en", ":?:", ""]),
    st.sampled_from(["", "12", "-4", "1a"]),
).map("".join)


@given(
    st.lists(_WELL_FORMED, max_size=8) | st.lists(_WELL_FORMED | _ANY_ITEM, max_size=8),
    st.lists(st.sampled_from([" ", " ", " ", "  ", "\t", "\n"]), max_size=8),
)
def test_blocks_read_back_at_once_as_they_read_item_by_item(items: list[str], spaces: list[str]) -> None:
    """The text form is read in a few calls where every item is as ``encode_blocks`` writes it, item by
    item otherwise: the same packing for any text, well formed or not."""
    encoded = "".join(item + space for item, space in zip(items, [*spaces, *[" "] * len(items)]))
    assert decode_blocks(encoded) == _packed_items(map(_read_item, encoded.split()))
