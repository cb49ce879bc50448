"""What extract_html reads from a page, and where an HTML5 parser puts each annotation."""

from __future__ import annotations

import dataclasses
import sys
from hashlib import blake2b
from html.parser import HTMLParser

import html5lib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qivrora_spider.extract import fingerprint, html_extract
from qivrora_spider.extract.html_extract import HtmlCanonical, extract_html
from qivrora_spider.extract.main_text import _WHITESPACE_BUT_SPACE, MAIN_TEXT_LIMIT, WHITESPACE

from .measure import LINEAR, growth

LINK_DE = '<link rel="alternate" hreflang="de" href="https://example.com/de/">'
LINK_EN = '<link rel="alternate" hreflang="en" href="https://example.com/en/">'


def placement(doc: str) -> list[tuple[str, bool, str | None, int | None]]:
    return [
        (a.hreflang, a.in_head, a.head_closed_by, a.head_closed_line) for a in extract_html(doc).annotations
    ]


# -- where the head ends ---------------------------------------------------------------------------


def test_annotations_in_head_are_in_head() -> None:
    facts = extract_html(
        f"<!DOCTYPE html>\n<html>\n<head>\n{LINK_DE}\n{LINK_EN}\n</head>\n<body></body></html>"
    )
    assert [(a.hreflang, a.href, a.line, a.in_head) for a in facts.annotations] == [
        ("de", "https://example.com/de/", 4, True),
        ("en", "https://example.com/en/", 5, True),
    ]
    assert facts.ignored == []


def test_img_in_head_closes_it() -> None:
    doc = f"<html><head>\n{LINK_DE}\n<img src=pixel.gif>\n{LINK_EN}\n</head><body></body></html>"
    assert placement(doc) == [("de", True, None, None), ("en", False, "img", 3)]


def test_stray_text_in_head_closes_it_on_the_line_of_its_first_character() -> None:
    doc = f"<head>\n{LINK_DE}\n  \n  oops\n{LINK_EN}\n</head>"
    assert placement(doc) == [("de", True, None, None), ("en", False, "#text", 4)]


def test_nbsp_is_text_not_whitespace() -> None:
    assert placement(f"<head>&nbsp;{LINK_DE}") == [("de", False, "#text", 1)]


def test_whitespace_comments_and_doctype_keep_the_head_open() -> None:
    doc = f"\ufeff<!DOCTYPE html>\n<!-- a comment -->\n<html>\n \t<head>\n<!-- x -->\n\n{LINK_DE}"
    assert placement(doc) == [("de", True, None, None)]


def test_link_after_head_end_tag_but_before_body_is_still_in_head() -> None:
    doc = f"<head><title>t</title></head>\n{LINK_DE}\n<body>\n{LINK_EN}"
    assert placement(doc) == [("de", True, None, None), ("en", False, "body", 3)]


def test_body_start_tag_closes_the_head() -> None:
    assert placement(f"<head></head><body>{LINK_DE}</body>") == [("de", False, "body", 1)]


def test_noscript_after_head_end_tag_opens_the_body() -> None:
    # "after head" reopens the head for link, meta, script...: not for noscript.
    assert placement(f"<head></head><noscript></noscript>{LINK_DE}") == [("de", False, "noscript", 1)]


def test_end_tags_that_close_the_head() -> None:
    assert placement(f"<head></br>{LINK_DE}") == [("de", False, "</br>", 1)]
    assert placement(f"<head>\n</body>{LINK_DE}") == [("de", False, "</body>", 2)]


def test_other_end_tags_in_head_are_ignored() -> None:
    assert placement(f"<head></p></div></title>{LINK_DE}") == [("de", True, None, None)]


def test_noscript_in_head_is_text_and_its_links_are_reported() -> None:
    doc = f'<head>\n<noscript>\n<img src="p.gif">\n{LINK_DE}\n</noscript>\n{LINK_EN}\n</head>'
    facts = extract_html(doc)
    assert placement(doc) == [("en", True, None, None)]
    [ignored] = facts.ignored
    assert (ignored.tag, ignored.line, ignored.in_head) == ("link", 4, True)
    assert ignored.attrs == {"rel": "alternate", "hreflang": "de", "href": "https://example.com/de/"}
    assert ignored.reason.startswith("inside <noscript>")


def test_title_content_is_text() -> None:
    assert placement(f"<head><title>Shop <div>now</div> &amp; save</title>{LINK_DE}") == [
        ("de", True, None, None)
    ]


def test_script_and_style_content_is_text() -> None:
    doc = f"<head><script>document.write('<div>')</script><style>a::before{{content:'<p>'}}</style>{LINK_DE}"
    assert placement(doc) == [("de", True, None, None)]


def test_self_closing_title_still_opens_rcdata() -> None:
    assert placement(f"<head><title/><img></title>{LINK_DE}") == [("de", True, None, None)]


def test_template_content_is_inert() -> None:
    doc = f"<head><template><div>{LINK_EN}</div></template>{LINK_DE}"
    facts = extract_html(doc)
    assert placement(doc) == [("de", True, None, None)]
    assert [(i.attrs["hreflang"], i.reason) for i in facts.ignored] == [
        ("en", "inside <template>, whose content is inert")
    ]


def test_link_in_body() -> None:
    doc = f"<html><head></head>\n<body>\n<div>{LINK_DE}</div></body></html>"
    assert placement(doc) == [("de", False, "body", 2)]


def test_without_head_tag_links_before_body_content_are_in_head() -> None:
    doc = f"<!DOCTYPE html>\n<title>t</title>\n{LINK_DE}\n<h1>Hi</h1>\n{LINK_EN}"
    assert placement(doc) == [("de", True, None, None), ("en", False, "h1", 4)]


def test_textarea_content_is_not_markup() -> None:
    assert extract_html(f"<body><textarea>{LINK_DE}</textarea>").annotations == []


# -- cross-check against html5lib (a WHATWG tree builder) ------------------------------------------

# html5lib 1.1 knows no <template> (it closes the head) and fails on some <svg>/<math>/<plaintext>
# input, so those stay out of the vocabulary; the named tests above cover <template>.
STRUCTURE = ["<!DOCTYPE html>", "<html>", "<html lang=en>", "<head>", "<head/>", "</head>", "<body>"]
END_TAGS = ["</body>", "</html>", "</br>", "</p>", "</div>", "</title>"]
NOT_ELEMENTS = ["<!-- comment -->", "<?xml x?>", "\n", "  ", "\t", "\x0b", "hello", "&nbsp;", "&#32;"]
HEAD_ELEMENTS = [
    "<meta charset=utf-8>",
    "<base href=/>",
    "<title>a <img> b</title>",
    "<title/>x</title>",
    "<script>var a = '<div>';</script>",
    "<style>p{color:red}</style>",
    "<noframes><p></noframes>",
    "<link rel=stylesheet href=s.css>",
    "<basefont>",
    "<bgsound>",
    "<noscript></noscript>",
    "<noscript><img src=x><link rel=alternate hreflang=zz href=https://example.com/noscript></noscript>",
]
BODY_ELEMENTS = ["<img src=x>", "<div>", "<p>", "<span>", "<br>", "<br/>", "<input>", "<a href=/x>", "<h1>"]
# Where an HTML5 parser moves or drops a link rather than closing the head only.
BODY_CONTEXTS = ["<table>", "<td>", "<select>", "<option>", "<frameset>", "<ul><li>", "<form>"]
RAW_TEXT_IN_BODY = [
    "<iframe>x</iframe>",
    "<xmp><p></xmp>",
    "<textarea><link rel=alternate hreflang=zz href=https://example.com/textarea></textarea>",
]
LINK_FORMS = [
    "<link rel=alternate hreflang=x href=https://example.com/{}>",
    '<link rel="alternate" hreflang="x" href="https://example.com/{}"/>',
    "<LINK REL=ALTERNATE HREFLANG=x HREF='https://example.com/{}' >",
    '<link\nrel="alternate"\nhreflang=x\nhref="https://example.com/{}">',
]
VOCABULARY = (
    STRUCTURE
    + END_TAGS
    + NOT_ELEMENTS
    + HEAD_ELEMENTS
    + BODY_ELEMENTS
    + BODY_CONTEXTS
    + RAW_TEXT_IN_BODY
    + LINK_FORMS
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    tokens = draw(st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=16))
    # Distinct hrefs tell the links apart in html5lib's tree.
    return "".join(token.format(i) if token in LINK_FORMS else token for i, token in enumerate(tokens))


def html5lib_link_parents(doc: str) -> dict[str, str]:
    # scripting=True: html5lib defaults to False, browsers and renderers run scripts.
    root = html5lib.parse(doc, namespaceHTMLElements=False, scripting=True)
    return {
        child.get("href"): parent.tag
        for parent in root.iter()
        for child in parent
        if child.tag == "link" and child.get("hreflang") is not None
    }


@settings(max_examples=300, deadline=None)
@given(documents())
def test_in_head_agrees_with_html5lib(doc: str) -> None:
    ours = {a.href: a.in_head for a in extract_html(doc).annotations}
    parents = html5lib_link_parents(doc)
    for href, parent in parents.items():
        assert ours[href] == (parent == "head"), href
    # Links an HTML5 parser drops (in <select>, after <frameset>) were never in the head either.
    assert not any(in_head for href, in_head in ours.items() if href not in parents)


# -- elements search engines ignore (HL104) --------------------------------------------------------


@pytest.mark.parametrize(
    ("element", "reason"),
    [
        ('<link hreflang="de" href="/de/">', 'missing rel="alternate"'),
        ('<link rel="nofollow" hreflang="de" href="/de/">', 'missing rel="alternate"'),
        ('<link rel="alternative" hreflang="de" href="/de/">', 'rel="alternative" is not rel="alternate"'),
        ('<link rel="alternate" hreflang="de">', "missing href"),
        ('<link rel="alternate" hreflag="de" href="/de/">', "misspelt attribute `hreflag`"),
        ('<link rel="alternate" href-lang="de" href="/de/">', "misspelt attribute `href-lang`"),
        ('<link rel="alternate" hreflang-="de" href="/de/">', "misspelt attribute `hreflang-`"),
        ('<link rel="alternate" herflang="de" href="/de/">', "misspelt attribute `herflang`"),
        ('<link rel="alternate" lang="de" href="/de/">', "misspelt attribute `lang`"),
        ('<a href="/de/" hreflang="de">Deutsch</a>', "hreflang on <a> is ignored by search engines"),
        ('<div hreflang="de"></div>', "hreflang on <div> is ignored by search engines"),
    ],
)
def test_ignored_elements(element: str, reason: str) -> None:
    facts = extract_html(f"<html><head>\n{element}\n</head></html>")
    assert facts.annotations == []
    [ignored] = facts.ignored
    assert (ignored.reason, ignored.line) == (reason, 2)
    assert ignored.tag == element[1 : element.index(" ")]


def test_ignored_element_keeps_attributes_as_written_and_its_place() -> None:
    [ignored] = extract_html(
        '<head><link REL="Alternative" hreflang="en-GB" href="/uk/" hreflang="fr">'
    ).ignored
    assert ignored.attrs == {"rel": "Alternative", "hreflang": "en-GB", "href": "/uk/"}
    assert ignored.in_head


def test_empty_hreflang_is_an_annotation_for_the_value_check() -> None:
    facts = extract_html(
        '<head><link rel="alternate" hreflang href="/x"><link rel=alternate hreflang="" href=/y>'
    )
    assert [(a.hreflang, a.href) for a in facts.annotations] == [("", "/x"), ("", "/y")]
    assert facts.ignored == []


def test_rel_is_a_case_insensitive_token_list() -> None:
    facts = extract_html('<head><link rel="  Alternate\tnofollow " hreflang="de" href="/de/">')
    assert [a.hreflang for a in facts.annotations] == ["de"]


def test_feeds_and_plain_alternates_are_not_hreflang_like() -> None:
    doc = (
        '<head><link rel="alternate" type="application/rss+xml" href="/feed" lang="en">'
        '<link rel="alternate" media="print" href="/print"><link rel="stylesheet" href="/s.css">'
    )
    facts = extract_html(doc)
    assert facts.annotations == [] and facts.ignored == []


# -- canonical, language, robots, base ------------------------------------------------------------


def test_canonicals_in_document_order_with_their_place() -> None:
    doc = (
        '<head><link rel="canonical" href="https://example.com/a"><link rel="CANONICAL" href="/b">'
        '<link rel="canonical"></head><body><link rel="canonical" href="/c">'
    )
    assert extract_html(doc).canonicals == [
        HtmlCanonical("https://example.com/a", True),
        HtmlCanonical("/b", True),
        HtmlCanonical("/c", False),
    ]


def test_html_lang() -> None:
    assert extract_html('<html lang="de-CH"><head>').html_lang == "de-CH"
    assert extract_html("<html lang><head>").html_lang == ""
    assert extract_html("<html><head>").html_lang is None
    assert extract_html("<p>no html tag").html_lang is None


def test_second_html_tag_adds_lang_the_first_lacks() -> None:
    assert extract_html('<html><head></head><html lang="fr">').html_lang == "fr"
    assert extract_html('<html lang="de"><html lang="fr">').html_lang == "de"


def test_meta_content_language() -> None:
    doc = '<meta http-equiv="Content-Language" content="de-AT"><meta http-equiv=content-language content=fr>'
    assert extract_html(doc).content_language == "de-AT"
    assert extract_html("<head><meta charset=utf-8>").content_language is None


@pytest.mark.parametrize(
    ("meta", "noindex", "meta_robots"),
    [
        ('<meta name="robots" content="noindex, follow">', True, "noindex, follow"),
        ('<meta name="ROBOTS" content="NOINDEX">', True, "NOINDEX"),
        ('<meta name="robots" content="none">', True, "none"),
        ('<meta name="googlebot" content="noarchive,noindex">', True, "noarchive,noindex"),
        ('<meta name="robots" content="index, follow">', False, "index, follow"),
        ('<meta name="robots" content="noindexed">', False, "noindexed"),
        ('<meta name="bingbot" content="noindex">', False, None),
    ],
)
def test_meta_robots(meta: str, noindex: bool, meta_robots: str | None) -> None:
    facts = extract_html(f"<head>{meta}")
    assert (facts.noindex, facts.meta_robots) == (noindex, meta_robots)


def test_meta_robots_names_the_noindex_one() -> None:
    doc = '<meta name="robots" content="all"><meta name="googlebot" content="noindex">'
    facts = extract_html(doc)
    assert (facts.noindex, facts.meta_robots) == (True, "noindex")
    assert extract_html("<p>").meta_robots is None


def test_base_href_first_one_wins() -> None:
    assert extract_html('<head><base target="_top"><base href="/en/"><base href="/x/">').base_href == "/en/"
    assert extract_html("<head>").base_href is None


# -- links -----------------------------------------------------------------------------------------


def test_links_as_written_deduplicated_in_order() -> None:
    doc = """<body>
        <a href="/b">b</a> <a href="https://other.example/x.pdf">pdf</a> <a href="/b">again</a>
        <map><area href="/map-target" alt=""></map>
        <a href="javascript:void(0)">js</a> <a href=" JavaScript:x()">js</a> <a href="mailto:a@b.c">m</a>
        <a href="tel:+4930">t</a> <a href="data:text/html,x">d</a> <a href="#top">top</a> <a href="">self</a>
        <a name="anchor">no href</a> <a href="?page=2#x">next</a>
        <img src="/img.png"> <script src="/app.js"></script> <link rel="stylesheet" href="/s.css">
    """
    assert extract_html(doc).links == ["/b", "https://other.example/x.pdf", "/map-target", "?page=2#x"]


def test_links_only_nofollow_anchors_name_are_told_apart() -> None:
    doc = """<body><a href="/login" rel="nofollow">in</a> <a href="/x" rel="Noopener NOFOLLOW">x</a>
        <a href="/x">x again, followed</a> <a href="/y" rel="noopener">y</a>"""
    facts = extract_html(doc)
    assert facts.links == ["/login", "/x", "/y"]
    assert facts.nofollow_links == ["/login"]


def test_links_inside_template_are_not_links() -> None:
    assert extract_html('<template><a href="/t">t</a></template><a href="/b">').links == ["/b"]


# -- fingerprint -----------------------------------------------------------------------------------

RENDER = """<!DOCTYPE html><html lang="en"><head>
<title>Widgets</title>
<meta name="csrf-token" content="{token}">
<meta property="article:modified_time" content="{iso}">
<script nonce="{nonce}">window.started = {unix};</script>
<style>.x{{color:red}}</style>
<link rel="stylesheet" href="/static/app.{build}.css" integrity="sha384-{nonce}">
</head><body>
<!-- rendered by web-{nonce} in {ms} ms -->
<h1>Widgets</h1>
<p>{spaces}Our widgets come with a five-year guarantee.</p>
<form><input type="hidden" name="state" value="{token}"><input type=text name=q title="Search"></form>
<footer>Generated {iso} at {clock} ({unix_ms})</footer>
</body></html>"""

FIRST = dict(
    token="9f8c1d",
    iso="2026-11-29T10:00:00Z",
    nonce="r4nd0m",
    unix="1764410400",
    build="3f2a9c1b7e4d5f60",
    ms="42",
    spaces="",
    clock="10:42:07",
    unix_ms="1764410400123",
)
SECOND = dict(
    token="zz81bq",
    iso="2026-11-30T08:13:59+01:00",
    nonce="n0nc3",
    unix="1764490439",
    build="a81be0c44d2e7f19",
    ms="57",
    spaces="\n    ",
    clock="08:13:59",
    unix_ms="1764490439999",
)


def test_fingerprint_ignores_volatile_parts_of_a_render() -> None:
    assert (
        extract_html(RENDER.format(**FIRST)).fingerprint == extract_html(RENDER.format(**SECOND)).fingerprint
    )


def test_fingerprint_changes_with_content() -> None:
    edited = RENDER.replace("five-year", "two-year")
    assert (
        extract_html(RENDER.format(**FIRST)).fingerprint != extract_html(edited.format(**FIRST)).fingerprint
    )
    new_link = RENDER.replace('href="/static/', 'href="/cdn/')
    assert (
        extract_html(RENDER.format(**FIRST)).fingerprint != extract_html(new_link.format(**FIRST)).fingerprint
    )


def test_fingerprint_is_stable_across_versions() -> None:
    # The state keeps fingerprints from crawl to crawl: computing them differently would make every
    # page look changed (SM011) on the first crawl after an upgrade.
    assert extract_html(RENDER.format(**FIRST)).fingerprint == "af68b4edb6bd3f78aacacac2d3cac910"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab \t\n\u00a0\u2028\x1c", max_size=12), max_size=8), st.integers(1, 9))
def test_fingerprint_hashes_big_texts_window_by_window_as_in_one_piece(parts: list[str], window: int) -> None:
    text = " ".join(parts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fingerprint, "_WINDOW", window)
        windowed = fingerprint.text_fingerprint(parts)
    assert windowed == blake2b(" ".join(text.split()).encode(), digest_size=16).hexdigest()


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from([*WHITESPACE, "a", "é", "ж", "’", "\u2000", "\ud800", "\x80", "—"])))
def test_words_are_folded_as_str_split_folds_them(text: str) -> None:
    """Every whitespace character Python splits on, next to the non-ASCII characters whose UTF-8
    shares bytes with some of them (’ and — with U+2000 to U+200A)."""
    assert fingerprint.folded_words(text) == " ".join(text.split()).encode("utf-8", "surrogatepass")


_VOLATILE_PIECES = st.sampled_from([
    "0123456789abcdef", "deadbeefdeadbeef0", "x0123456789abcdef", "2024-05-01", "2024-05-01T09:30:00+02:00",
    "12:30:45", "9:30:45.5", "1700000000", "1700000000123", "٣٣٣٣-٣٣-٣٣", "é", "\ud800", "-", ":", " ",
    "1", "a", "Z", "f", "\n",
])


@settings(max_examples=500, deadline=None)
@given(st.lists(_VOLATILE_PIECES, max_size=30))
def test_volatile_parts_are_removed_as_the_patterns_alone_remove_them(pieces: list[str]) -> None:
    """The quick test of whether a pattern can match skips only searches that would find nothing."""
    text = "".join(pieces)
    expected = text
    for volatile in fingerprint._VOLATILE:
        expected = volatile.sub("", expected)
    assert fingerprint.without_volatile(text) == expected


def test_fingerprint_is_hex_of_128_bits() -> None:
    fingerprint = extract_html("<p>x").fingerprint
    assert len(fingerprint) == 32 and int(fingerprint, 16) >= 0


@settings(max_examples=300, deadline=None)
@given(st.one_of(documents(), st.text(alphabet="<>/!?-='\"& \n#;abehiklmnorstx\x00[]", max_size=200)))
def test_without_fingerprint_every_other_fact_is_the_same(doc: str) -> None:
    without = extract_html(doc, fingerprint=False)
    assert without.fingerprint is None
    assert dataclasses.replace(without, fingerprint=extract_html(doc).fingerprint) == extract_html(doc)


# -- garbage and size ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "<<<>>>",
        "\x00<a\x00 href=\x00>\x00</a\x00>",
        "<![foo[ x ]]>",
        "<!",
        "</",
        "<",
        "&",
        "<a b='",
        "<title>",
        "<noscript><link hreflang=",
        "<template><template>",
        "\ud800 lone surrogate",
        "<link rel=alternate hreflang=de href=x",
    ],
)
def test_garbage_gives_a_result(garbage: str) -> None:
    assert len(extract_html(garbage).fingerprint) == 32


@pytest.mark.slow  # times the tokenizer on inputs of up to 160 KB, six times
@pytest.mark.parametrize("unit", ["<div>", "<a ", "<!--", "<a b='", "<noscript>", "<"])
def test_large_garbage_takes_time_linear_in_its_size(unit: str) -> None:
    # html.parser's own end-of-input handling is quadratic: 100 KB of `<a ` took a minute.
    small = 20_000 // len(unit)
    texts = {size: unit * size for size in (small, 8 * small)}
    times = growth(lambda size: extract_html(texts[size]), small=small)
    assert times < LINEAR, f"8 times the input took {times:.0f} times as long (linear: 8, quadratic: 64)"


def _read_within(text: str) -> None:
    """What is read of a text points into it: each element found is a tag of it, on one of its lines."""
    facts = extract_html(text)
    found = [*facts.annotations, *facts.ignored]
    assert len(found) + len(facts.canonicals) <= text.count("<")
    assert all(1 <= item.line <= text.count("\n") + 1 for item in found)
    assert len(facts.fingerprint) == 32


@given(st.text())
def test_any_text_is_read_and_what_is_found_lies_within_it(text: str) -> None:
    _read_within(text)


@given(st.text(alphabet="<>/!?-='\"& \n#;abehiklmnorstx\x00[]", max_size=200))
def test_any_markup_like_text_is_read_and_what_is_found_lies_within_it(text: str) -> None:
    _read_within(text)


# --- the main text (HL503) ------------------------------------------------------------------------


CHROME = "<header>Site banner</header><nav>Menu one two</nav><aside>Sidebar</aside><footer>Footer</footer>"


@pytest.mark.parametrize(
    "body, main_text",
    [
        (f"{CHROME}<main><h1>Title</h1><p>Own words.</p></main>", ("Title", "Own words.")),
        (f'{CHROME}<div role="main"><div>Inner</div> words</div><p>after</p>', ("Inner", "words")),
        (f"{CHROME}<article>First</article><p>between</p><article>Second</article>", ("First", "Second")),
        (f"{CHROME}<p>Plain body text</p>", ("Plain body text",)),
        # <main> wins over <article>; several <main> all count; a hidden one does not.
        ("<article>Teaser</article><main>Main one</main><main hidden>Hidden</main><main>two</main>",
         ("Main one", "two")),
        # An article's own header and footer are content; navigation inside main is not.
        ("<main><article><header>Headline</header>Body<footer>By me</footer></article><nav>TOC</nav></main>",
         ("Headline", "Body", "By me")),
        # The words of links count (menus repeat on every page: the audit leaves them out as template).
        ('<main>Read <a href="/x">the guide</a> first.</main>', ("Read the guide first.",)),
        ("<main>Text<script>var s = 'code';</script><style>p{}</style><template>T</template>"
         "<noscript>N</noscript>!</main>", ("Text!",)),
        # Code reads as English in every language: left out, inline or as a block.
        ("<main><p>Lancez <code>npm run build</code> puis</p><pre>npm start</pre><p>la <kbd>Ctrl</kbd>"
         "<samp>out</samp> fin</p></main>", ("Lancez puis", "la fin")),
        # A sidebar's tagline before a body without semantic elements: two blocks, not one text.
        ('<div class="side"><div>Tagline here</div><a href="/">Home</a></div><div><h2>Post</h2>Body text</div>',
         ("Tagline here", "Home", "Post", "Body text")),
        # An unclosed region ends with the body.
        ("<nav>Menu<p>never closed</body>", ()),
        # `hidden` on an element without content hides nothing, and opens no region: no end tag closes it.
        ('<main><p>First part.</p><img src="x.png" hidden><input type="hidden" hidden><br hidden>'
         "<p>Second part.</p></main>", ("First part.", "Second part.")),
    ],
)
def test_main_text_is_the_pages_own_content_in_blocks(body, main_text):
    assert extract_html(f"<html><head><title>T</title></head><body>{body}</body></html>").main_text == main_text


def test_a_hidden_element_of_the_head_does_not_hide_the_body():
    page = '<html><head><link rel="preload" href="/font.woff2" as="font" hidden></head><body><p>Text.</p>'
    assert extract_html(page).main_text == ("Text.",)


def test_main_text_is_bounded():
    facts = extract_html("<main>" + "<p>word word</p>" * 20_000 + "</main>")
    assert MAIN_TEXT_LIMIT // 2 < sum(map(len, facts.main_text)) <= MAIN_TEXT_LIMIT


_FOLDED = "ab \t\n\x0b\x1c\x85\u00a0\u2028\u3000"  # every kind of whitespace str.split folds


@settings(max_examples=500, deadline=None)
@given(st.lists(st.text(alphabet="ab \x00", max_size=8) | st.text(alphabet=_FOLDED, max_size=8), max_size=8))
def test_main_text_blocks_are_their_words_separated_by_one_space(texts: list[str]) -> None:
    """The test that a page's blocks need no folding (one search each in C) lets through only blocks
    that ``" ".join(block.split())`` leaves as they are."""
    page = "<body>" + "".join(f"<p>{text}</p>" for text in texts)
    words = (" ".join(text.split()) for text in texts)
    assert extract_html(page).main_text == tuple(block for block in words if block)


def test_blocks_are_searched_for_every_whitespace_character_but_the_space() -> None:
    every = {character for character in map(chr, range(sys.maxunicode + 1)) if character.isspace()}
    assert set(_WHITESPACE_BUT_SPACE) == every - {" "}
    assert set(WHITESPACE) == every, "the fingerprint folds them all (folded_words)"


def test_head_text_and_titles_are_not_main_text():
    assert extract_html("<head><title>Titre</title></head><body>Corps</body>").main_text == ("Corps",)


# -- lines counted when asked -----------------------------------------------------------------------


class _EagerLines(html_extract._Extractor):
    """The extractor with html.parser's own position keeping: the newlines of every token counted."""

    updatepos = HTMLParser.updatepos
    getpos = HTMLParser.getpos
    goahead = HTMLParser.goahead


_PIECES = st.sampled_from([
    "\n", "\n\n", " ", "x", "&amp;", "<p>", "</p>", "<head>", "</head>", "<body>", "<img src=a>", "<br/>",
    LINK_DE, LINK_EN, '<link rel=alternate hreflang="fr"\nhref=/fr/>', '<a href="/a/">a</a>',
    "<div hreflang=x>", "<span hreflang=de>", "<title>t\n<img></title>", "<script>\nx</script>",
    "<noscript>\n<link rel=alternate hreflang=it href=/it/></noscript>", "<noscript>", "<textarea>",
    "<template>\n<link hreflang=es href=/es/></template>", "<!-- c\n -->", "<!doctype html>",
    "<meta name=robots content=noindex>", "<![CDATA[\n]]>", "<", "</", "<a ", "&",
    "<link rel=alternate hreflag=nl href=/n/>",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=40))
def test_lines_counted_when_asked_are_those_html_parser_counts_token_by_token(pieces: list[str]) -> None:
    doc = "".join(pieces)
    lazy, eager = html_extract._Extractor(main_text=True), _EagerLines(main_text=True)
    for parser in (lazy, eager):
        parser.feed(doc)
        parser.close()
    assert lazy.facts() == eager.facts()


# -- plain tags read in one match, everything else by html.parser ----------------------------------


class _Recorder(html_extract._Extractor):
    """The extractor, noting every token with where html.parser says it starts."""

    def __init__(self) -> None:
        super().__init__(main_text=True)
        self.tokens: list[tuple] = []

    def _note(self, *token: object) -> None:
        self.tokens.append((*token, self.getpos()))

    def handle_starttag(self, tag, attrs):
        self._note("start", tag, attrs)
        super().handle_starttag(tag, attrs)

    def handle_startendtag(self, tag, attrs):
        self._note("startend", tag, attrs)
        super().handle_startendtag(tag, attrs)

    def handle_endtag(self, tag):
        self._note("end", tag)
        super().handle_endtag(tag)

    def handle_data(self, data):
        self._note("data", data)
        super().handle_data(data)

    def handle_comment(self, data):
        self._note("comment", data)

    def handle_decl(self, decl):
        self._note("decl", decl)

    def handle_pi(self, data):
        self._note("pi", data)

    def unknown_decl(self, data):
        self._note("unknown", data)


class _HtmlParserRecorder(_Recorder):
    """The same, tokenized by html.parser alone, its positions kept token by token."""

    updatepos = HTMLParser.updatepos
    getpos = HTMLParser.getpos
    goahead = HTMLParser.goahead


_TAG_PIECES = st.sampled_from([
    # plain tags, read in one match
    "<p>", "</p>", "<P>", "</P >", "<br/>", "<br />", "<li>", "</li>\n", '<a href="/a/">', "</a>",
    "<a href=/b/>", "<a href=x/>", "<A HREF='/C/' Class=x>", '<img src="i.png" alt="a &amp; b">',
    "<input disabled/>", "<input disabled>", '<a href="">', "<a href=''>", '<a\nhref="/n/"\n>',
    '<link rel="alternate" hreflang="de" href="/de/">', "<meta name=robots content=noindex>",
    '<a href="/q?a=1&amp;b=2">', "<a href=/q?a=1&b=2>", '<div data-x="a>b">', "<x-y>", "</x-y>",
    "<script>", "</script>", "</SCRIPT>", "</script >", "<style>", "</style>", "<title>", "</title>",
    "<textarea>", "</textarea>", "<noscript>", "</noscript>", "<template>", "</template>",
    # anything else, read by html.parser
    "<a\xa0href=x>", '<a href="x"title=y>', '<a b"c=d>', "<svg:rect x=1>", "<my.tag>", "</my.tag>",
    "</ a>", "</a\n>", "</>", "< /script>", "<a href==x>", "<a href=`x`>", "<a =x>", "<a/b>",
    "<a\x0bb=c>", "</a\xa0>", "<!-- c -->", "<!--x", "<!doctype html>", "<?php x ?>", "<![CDATA[x]]>",
    "<!x>", "<", "</", "<a ", "<a href=", '<a href="', "</a", "\x00",
])
_TEXT_PIECES = st.sampled_from(["x", " ", "\n", "&amp;", "&#x41;", "&", "&am", "a<b", "é", "\t", "\r\n"])


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.one_of(_TAG_PIECES, _TEXT_PIECES), max_size=30))
def test_tokens_are_html_parsers(pieces: list[str]) -> None:
    doc = "".join(pieces)
    ours, theirs = _Recorder(), _HtmlParserRecorder()
    for parser in (ours, theirs):
        parser.feed(doc)
        parser.close()
    assert ours.tokens == theirs.tokens
    assert ours.facts() == theirs.facts()


def test_a_repeated_tag_gets_a_list_of_attributes_of_its_own():
    """The tokenizer reads each written form of a plain tag's attributes once; every tag still gets a
    new list, as html.parser gives, which a handler may change."""
    first, second = _Recorder(), _Recorder()
    first.feed('<a href="/x/" class="nav">1</a>')
    (attrs,) = [token[2] for token in first.tokens if token[0] == "start"]
    attrs.append(("changed", "by a handler"))
    second.feed('<a href="/x/" class="nav">1</a><a href="/x/" class="nav">2</a>')
    again, once_more = [token[2] for token in second.tokens if token[0] == "start"]
    assert again == once_more == [("href", "/x/"), ("class", "nav")]
    assert again is not once_more
