"""The kinds of bad input Qivrora meets, what it does with each, and the test that shows it.

README.md's table "Bad input and what Qivrora does" is generated from this list
(``python -m tests.bad_input --write README.md``); ``test_bad_input_table.py`` fails when the two
differ or when a row names a test that does not exist, so the table always says what is tested.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple


class Case(NamedTuple):
    kind: str
    behaviour: str
    test: str  # "module.py::test_name" or "module.py::test_name[parameter id]"


CASES: tuple[Case, ...] = (
    Case(
        "XML entity bomb (billion laughs) in a sitemap",
        "Never expanded: reading stops at the `<!ENTITY>` declaration. SM004 (entity declarations are not allowed)",
        "test_hostile_input.py::test_entity_bomb_and_external_entities_in_a_sitemap_are_never_expanded",
    ),
    Case(
        "External entity (XXE), external DTD or parameter entity in a sitemap",
        "No file and no URL is read (no DTD loaded, no network). SM004",
        "test_hostile_input.py::test_entity_bomb_and_external_entities_in_a_sitemap_are_never_expanded",
    ),
    Case(
        "gzip bomb: a small `.gz` sitemap that inflates past 50 MB",
        "Inflated 64 KB at a time and read only up to 52,428,800 bytes; the entries before the limit are audited. "
        "SM003, memory flat",
        "test_hostile_input.py::test_gzip_bomb_sitemap_is_inflated_only_up_to_the_50_mb_limit",
    ),
    Case(
        "Sitemap of 60 MB",
        "Read up to 52,428,800 bytes, the rest unread. SM003, whose message says how far it was read",
        "test_hostile_input.py::test_sitemap_of_60_mb_is_read_up_to_the_50_mb_limit",
    ),
    Case(
        "Sitemap of 70 MB, past `DOWNLOAD_MAXSIZE` (64 MiB), as a start URL or named by robots.txt",
        "Downloaded only up to 52,428,800 bytes (the size cap is the protocol's, not DOWNLOAD_MAXSIZE, which "
        "would drop the file whole), and read that far. SM003, not a download error",
        "test_hostile_input.py::test_sitemap_larger_than_download_maxsize_is_sm003_not_a_download_error",
    ),
    Case(
        "Sitemap of 60 MB whose whitespace after one `<url>` is a single text node (six times libxml2's "
        "default 10 MB limit), plain or gzip",
        "Read as the valid XML it is (libxml2's text limit lifted; the 50 MB cap bounds it) up to 52,428,800 "
        "bytes. SM003, not SM004",
        "test_hostile_input.py::test_sitemap_of_60_mb_of_whitespace_is_too_large_not_invalid_xml",
    ),
    Case(
        "Broken sitemap over 50 MB (an XML error, a wrong root, entity declarations early in the file)",
        "The parse stops at the problem; the rest is still inflated and counted, up to the limit. SM004 and SM003",
        "test_sitemap_parse.py::test_a_broken_sitemap_is_measured_up_to_the_limit_all_the_same",
    ),
    Case(
        "Sitemap of more than 50,000 URLs",
        "The first 50,000 are read and audited, as search engines read them; the rest are counted. SM003",
        "test_sitemap_parse.py::test_more_than_50000_urls_are_all_counted_and_the_first_50000_read",
    ),
    Case(
        "Sitemap nested more than 2,048 levels deep, or with a name of more than 10,000,000 characters",
        "Read up to there. SM004 names the limit in plain words, never in libxml2's (`XML_PARSE_HUGE`)",
        "test_sitemap_parse.py::test_limits_of_the_xml_parser_are_said_in_plain_words",
    ),
    Case(
        "Corrupt or cut gzip sitemap",
        "The entries before the break are audited. SM004 (broken gzip, in plain words rather than zlib's)",
        "test_sitemap_parse.py::test_cut_gzip_keeps_the_entries_read_before_the_cut",
    ),
    Case(
        "Sitemap that is an HTML page",
        "SM004 (the content is an HTML page or other text, or its root element is not "
        "`<urlset>`/`<sitemapindex>`)",
        "test_hostile_input.py::test_broken_sitemap_is_reported_as_invalid[html]",
    ),
    Case(
        "Sitemap XML served as `text/html`",
        "Recognised by its content and read as a sitemap",
        "test_hostile_input.py::test_a_sitemap_served_as_text_html_is_read_by_its_content",
    ),
    Case(
        "Empty sitemap",
        "SM004 (empty document)",
        "test_hostile_input.py::test_broken_sitemap_is_reported_as_invalid[empty]",
    ),
    Case(
        "Sitemap index that lists itself",
        "Fetched once. SM004 (the sitemap index lists itself)",
        "test_hostile_input.py::test_broken_sitemap_is_reported_as_invalid[index-lists-itself]",
    ),
    Case(
        "Sitemap index inside a sitemap index",
        "Read. SM004 (indexes cannot nest)",
        "test_hostile_input.py::test_broken_sitemap_is_reported_as_invalid[index-inside-index]",
    ),
    Case(
        "Page with invalid UTF-8",
        "Decoded with U+FFFD for the bad bytes; the annotations are read. A value broken by them: HL005",
        "test_hostile_input.py::test_page_with_invalid_utf8_is_read_with_replacement_characters",
    ),
    Case(
        "Page with a wrong or unknown declared charset",
        "Read in the declared charset, as search engines read it (a URL it garbles then answers 404: HL402); "
        "an unknown charset falls back to detection",
        "test_hostile_input.py::test_page_with_a_wrong_declared_charset_is_read_as_declared",
    ),
    Case(
        "Page with 10,000 hreflang links",
        "All read; each target fetched once; one finding per defect",
        "test_hostile_input.py::test_page_with_10000_hreflang_links",
    ),
    Case(
        "Page of 20 MB",
        "The first 15 MB are read, as Google reads them. Logged warning (`... only its first 15,728,640 bytes "
        "are read`), stat `qivrora/pages/truncated`",
        "test_hostile_input.py::test_page_of_20_mb_is_read_up_to_15_mb_and_says_so",
    ),
    Case(
        "`Link` header of 100 KB",
        "Read (header lines up to 256 KiB, as browsers accept); its annotations are audited",
        "test_hostile_input.py::test_link_header_of_100_kb_is_read",
    ),
    Case(
        "Redirect loop on an alternate",
        "Each hop fetched once, never followed blindly. HL401 (redirects in a loop, with the loop)",
        "test_hostile_input.py::test_redirect_loop_on_an_alternate_is_hl401_with_the_loop",
    ),
    Case(
        "Chain of 20 redirects on an alternate",
        "Each hop fetched once. HL401 with the chain; past 20 hops: redirects more than 20 times",
        "test_hostile_input.py::test_chain_of_redirects_on_an_alternate_is_hl401_with_the_chain[20]",
    ),
    Case(
        "Server that resets connections",
        "Retried (`RETRY_TIMES`), then HL404 (its server drops the connection); the crawl goes on",
        "test_hostile_input.py::test_server_that_resets_connections_is_hl404_and_the_crawl_goes_on",
    ),
    Case(
        "Server that answers after the timeout",
        "Given up after `DOWNLOAD_TIMEOUT`, retried, then HL404 (did not answer in time); the crawl goes on",
        "test_hostile_input.py::test_server_that_answers_after_the_timeout_is_hl404_and_the_crawl_goes_on",
    ),
    Case(
        "5xx answers",
        "Retried `RETRY_TIMES` times, then HL403",
        "test_hostile_input.py::test_5xx_is_retried_then_reported_as_hl403",
    ),
    Case(
        "Infinite URL space (calendar links)",
        "Bounded by `max_pages` / `max_depth`. Logged warning naming the limit and the checks left incomplete "
        "(HL206, HL203, HL204, SM002); alternates left out: HL206",
        "test_hostile_input.py::test_infinite_calendar_is_bounded_by_the_limits_which_the_log_names",
    ),
    Case(
        "robots.txt that answers 5xx",
        "Logged warning; the crawl goes on as if it allowed everything",
        "test_hostile_input.py::test_robots_txt_answering_5xx_is_logged_and_the_crawl_allowed",
    ),
    Case(
        "robots.txt that answers 404",
        "Everything allowed; recorded as missing (a fact SM006 reads)",
        "test_hostile_input.py::test_robots_txt_answering_404_allows_everything",
    ),
    Case(
        "robots.txt of binary garbage",
        "Parsed leniently, as Google does: the rules it holds are obeyed (HL405)",
        "test_hostile_input.py::test_robots_txt_of_binary_garbage_is_read_as_rules_it_does_not_hold",
    ),
    Case(
        "Enormous robots.txt (5 MB)",
        "The first 500 KiB are obeyed, as Google does. Logged warning",
        "test_hostile_input.py::test_enormous_robots_txt_is_obeyed_up_to_500_kib_and_says_so",
    ),
    Case(
        "Alternates, redirects, sitemaps, sitemap entries and links pointing at internal addresses "
        "(127.0.0.0/8, 10/8, 169.254.169.254, ::1, fc00::/7, ... or a name resolving to one)",
        "Not fetched unless the host is a start host or `QIVRORA_ALLOW_PRIVATE=True`. HL206, HL401, SM001, SM004 "
        "say it points at an internal address; logged warning once per host",
        "test_private_guard.py::test_no_internal_address_is_fetched_and_findings_say_why",
    ),
    Case(
        "Hostile values on a page: `\"><script>`, `=HYPERLINK(...)`, control characters, 10 KB values",
        "CSV cells a spreadsheet would evaluate are prefixed with `'`; JSON keeps them as written; report.html "
        "escapes them",
        "test_output_safety.py::test_hostile_values_from_a_page_are_neutralised_in_csv_and_kept_in_jsonl",
    ),
    Case(
        "The crawl is killed halfway (out of memory, job cancelled)",
        "Feeds are written to a temporary file renamed when complete: the previous file, or none, never half of one",
        "test_feed_storage.py::test_a_killed_crawl_leaves_the_previous_feed_or_none",
    ),
)

BEGIN = "<!-- bad-input:begin (generated by `python -m tests.bad_input --write README.md`) -->"
END = "<!-- bad-input:end -->"


def render() -> str:
    lines = ["| bad input | what Qivrora does | test |", "|---|---|---|"]
    for case in CASES:
        module, _, name = case.test.partition("::")
        lines.append(f"| {case.kind} | {case.behaviour} | [`{name}`](tests/{module}) |")
    return "\n".join(lines)


def block(readme: str) -> str:
    """The generated part of README.md, between the markers."""
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[start:end].strip("\n")


def write(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    path.write_text(text[:start] + "\n" + render() + "\n" + text[end:], encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"] and len(sys.argv) == 3:
        write(Path(sys.argv[2]))
    else:
        print(render())
