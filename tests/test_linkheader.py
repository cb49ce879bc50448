"""HTTP Link header parsing: what RFC 8288 allows, and what servers send anyway."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qivrora_spider.extract.linkheader import LinkValue, parse_link_headers

from .measure import LINEAR, growth


def parsed(*values: str) -> list[tuple[str, tuple[str, ...], dict[str, str]]]:
    return [(link.target, link.rel, dict(link.params)) for link in parse_link_headers(values)]


def test_hreflang_alternates_quoted_and_unquoted() -> None:
    header = (
        '<https://example.com/de/>; rel="alternate"; hreflang="de", '
        "<https://example.com/en/>; rel=alternate; hreflang=en"
    )
    assert parsed(header) == [
        ("https://example.com/de/", ("alternate",), {"rel": "alternate", "hreflang": "de"}),
        ("https://example.com/en/", ("alternate",), {"rel": "alternate", "hreflang": "en"}),
    ]


def test_canonical() -> None:
    assert parsed('<https://example.com/doc.pdf>; rel="canonical"') == [
        ("https://example.com/doc.pdf", ("canonical",), {"rel": "canonical"})
    ]


def test_link_value_is_frozen_with_read_only_params() -> None:
    [link] = parse_link_headers(['<https://example.com/fr/>; rel="alternate"; hreflang="fr-CA"'])
    assert link == LinkValue(
        "https://example.com/fr/", ("alternate",), {"rel": "alternate", "hreflang": "fr-CA"}
    )
    with pytest.raises(AttributeError):
        link.target = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        link.params["hreflang"] = "de"  # type: ignore[index]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        pytest.param(
            '<http://example.com/TheBook/chapter2>; rel="previous"; title="previous chapter"',
            [
                (
                    "http://example.com/TheBook/chapter2",
                    ("previous",),
                    {"rel": "previous", "title": "previous chapter"},
                )
            ],
            id="rfc8288-3.5-title",
        ),
        pytest.param(
            '</>; rel="http://example.net/foo"',
            [("/", ("http://example.net/foo",), {"rel": "http://example.net/foo"})],
            id="rfc8288-3.5-extension-relation",
        ),
        pytest.param(
            '</terms>; rel="copyright"; anchor="#foo"',
            [("/terms", ("copyright",), {"rel": "copyright", "anchor": "#foo"})],
            id="rfc8288-3.5-anchor",
        ),
        pytest.param(
            "</TheBook/chapter2>; rel=\"previous\"; title*=UTF-8'de'letztes%20Kapitel, "
            "</TheBook/chapter4>; rel=\"next\"; title*=UTF-8'de'n%c3%a4chstes%20Kapitel",
            [
                (
                    "/TheBook/chapter2",
                    ("previous",),
                    {"rel": "previous", "title*": "UTF-8'de'letztes%20Kapitel"},
                ),
                (
                    "/TheBook/chapter4",
                    ("next",),
                    {"rel": "next", "title*": "UTF-8'de'n%c3%a4chstes%20Kapitel"},
                ),
            ],
            id="rfc8288-3.5-extended-title-kept-raw",
        ),
        pytest.param(
            '<http://example.org/>; rel="start http://example.net/relation/other"',
            [
                (
                    "http://example.org/",
                    ("start", "http://example.net/relation/other"),
                    {"rel": "start http://example.net/relation/other"},
                )
            ],
            id="rfc8288-3.5-two-relations",
        ),
        pytest.param(
            '<https://example.org/>; rel="start", <https://example.org/index>; rel="index"',
            [
                ("https://example.org/", ("start",), {"rel": "start"}),
                ("https://example.org/index", ("index",), {"rel": "index"}),
            ],
            id="rfc8288-3.5-two-links",
        ),
    ],
)
def test_rfc8288_examples(header: str, expected: list[tuple[str, tuple[str, ...], dict[str, str]]]) -> None:
    assert parsed(header) == expected


def test_commas_and_semicolons_inside_the_target_belong_to_it() -> None:
    assert parsed("<https://x.com/a,b;c?q=1,2>; rel=alternate; hreflang=de, <https://x.com/d>; rel=next") == [
        ("https://x.com/a,b;c?q=1,2", ("alternate",), {"rel": "alternate", "hreflang": "de"}),
        ("https://x.com/d", ("next",), {"rel": "next"}),
    ]


def test_commas_semicolons_and_escapes_inside_quoted_strings() -> None:
    assert parsed(r'<a>; title="one, two; \"three\" \\ four"; rel=next, <b>') == [
        ("a", ("next",), {"title": 'one, two; "three" \\ four', "rel": "next"}),
        ("b", (), {}),
    ]


def test_two_header_values() -> None:
    first = '<https://example.com/de/>; rel="alternate"; hreflang="de"'
    assert parsed(first, "<https://example.com/>; rel=canonical") == [
        ("https://example.com/de/", ("alternate",), {"rel": "alternate", "hreflang": "de"}),
        ("https://example.com/", ("canonical",), {"rel": "canonical"}),
    ]


def test_whitespace_wherever_allowed() -> None:
    header = (
        ' \t<https://e.com/de/>\t;\trel = "alternate"  ;  hreflang= de-CH  ,\r\n <https://e.com/> ;rel=x '
    )
    assert parsed(header) == [
        ("https://e.com/de/", ("alternate",), {"rel": "alternate", "hreflang": "de-CH"}),
        ("https://e.com/", ("x",), {"rel": "x"}),
    ]


def test_names_lower_cased_values_as_written_rel_tokens_lower_cased() -> None:
    assert parsed('<a>; REL="Alternate  NoFollow"; HrefLang=DE-ch') == [
        ("a", ("alternate", "nofollow"), {"rel": "Alternate  NoFollow", "hreflang": "DE-ch"})
    ]


def test_first_occurrence_of_a_parameter_wins() -> None:
    assert parsed("<a>; rel=alternate; hreflang=de; rel=canonical; hreflang=fr") == [
        ("a", ("alternate",), {"rel": "alternate", "hreflang": "de"})
    ]


def test_parameter_without_value() -> None:
    header = "</style.css>; rel=preload; as=style; crossorigin, </font.woff2>; crossorigin; rel=preload"
    assert parsed(header) == [
        ("/style.css", ("preload",), {"rel": "preload", "as": "style", "crossorigin": ""}),
        ("/font.woff2", ("preload",), {"crossorigin": "", "rel": "preload"}),
    ]


def test_target_as_written_not_resolved() -> None:
    assert parsed("<../fr/?a=1#top>; rel=alternate; hreflang=fr")[0][0] == "../fr/?a=1#top"


@pytest.mark.parametrize(
    ("header", "targets"),
    [
        pytest.param("", [], id="empty"),
        pytest.param(" , ,, ", [], id="only-commas"),
        pytest.param(",<a>; rel=x,,<b>,", ["a", "b"], id="stray-commas"),
        pytest.param("<a; rel=x, <b>; rel=y", ["b"], id="missing-closing-bracket"),
        pytest.param("https://e.com/a>; rel=x, <b>", ["b"], id="missing-opening-bracket"),
        pytest.param("<https://e.com/a", [], id="unterminated-target"),
        pytest.param('junk "with, comma", <b>', ["b"], id="garbage-with-quoted-comma"),
        pytest.param("<a>; rel=x junk; hreflang=de, <b>", ["a", "b"], id="garbage-in-token-value"),
        pytest.param('<a>; rel="x" junk, <b>', ["a", "b"], id="garbage-after-quoted-value"),
        pytest.param("<a>;;; =x; rel=y", ["a"], id="empty-parameter-names"),
        pytest.param('<a>; rel="unterminated, <b>', ["a"], id="unterminated-quote-runs-to-the-end"),
        pytest.param("<<<>>>", [""], id="brackets"),
    ],
)
def test_garbage_is_skipped_link_by_link(header: str, targets: list[str]) -> None:
    assert [link.target for link in parse_link_headers([header])] == targets


def test_a_header_of_100_kb_parses_in_linear_time() -> None:
    """Eight times the links take about eight times as long, not sixty-four: no backtracking on long
    headers."""
    link = '<https://example.com/{0}/some/long/path/to/a/document.pdf>; rel="alternate"; hreflang="{0}"'

    headers = {count: ", ".join(link.format(f"l{i:04}") for i in range(count)) for count in (300, 2400)}
    assert len(headers[2400]) > 200_000
    links = parse_link_headers([headers[2400]])
    assert len(links) == 2400 and links[-1].params["hreflang"] == "l2399"
    assert growth(lambda count: parse_link_headers([headers[count]]), small=300) < LINEAR


PATHOLOGICAL_UNITS = ["<", "<a", '"', ";", "<a>; rel=x, ", '<a>; rel="', "<a>; b=", "\\", "<a>;b=\\"]


@pytest.mark.slow  # times the parser on headers of up to 800 KB, nine times
@pytest.mark.parametrize("unit", PATHOLOGICAL_UNITS)
def test_pathological_headers_take_time_linear_in_their_size(unit: str) -> None:
    small = 100_000 // len(unit)
    headers = {size: unit * size for size in (small, 8 * small)}
    times = growth(lambda size: parse_link_headers([headers[size]]), small=small)
    assert times < LINEAR, f"8 times the header took {times:.0f} times as long (linear: 8, quadratic: 64)"


@given(st.lists(st.text()))
def test_any_text_gives_no_more_links_than_bracketed_targets(values: list[str]) -> None:
    assert len(parse_link_headers(values)) <= sum(value.count("<") for value in values)


@given(st.lists(st.text(alphabet='<>;,="\\ \t\r\narel', max_size=80)))
def test_any_header_like_text_gives_links_with_the_target_inside_brackets(values: list[str]) -> None:
    for link in parse_link_headers(values):
        assert ">" not in link.target and "<" not in link.target
        assert all(name == name.lower() and name for name in link.params)
