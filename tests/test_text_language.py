"""The letter count HL503 needs before it identifies a main text (extract/text_language.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from qivrora_spider.extract.text_language import letters_in


def test_each_latin_1_character_counts_as_str_isalpha_says() -> None:
    for code in range(256):
        assert letters_in(chr(code) * 3) == (3 if chr(code).isalpha() else 0), hex(code)


@given(st.text(max_size=300) | st.text(st.characters(max_codepoint=0xFF), max_size=300))
def test_any_text_has_the_letters_str_isalpha_counts(text: str) -> None:
    assert letters_in(text) == sum(map(str.isalpha, text))
