"""Segments: each market's part of the site counted, reported and gated apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree

from qivrora_spider.audit.core.segments import learn_locale_segments
from qivrora_spider.audit.core.url_segments import Segment, learned_segments, parse_segments, segment_of
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.findings import Finding

from .test_false_green import qivrora

NO_STATE = ["-s", "QIVRORA_STATE="]


@pytest.mark.parametrize(
    "pattern, inside, outside",
    [
        ("/de/", "https://ex.com/de/preise/", "https://ex.com/docs/de/"),
        ("de.", "https://de.ex.com/preise/", "https://ex.de/"),
        (".de", "https://ex.de/preise/", "https://de.ex.com/"),
        ("https://ex.com/de-*", "https://ex.com/de-at/x", "https://ex.com/at-de/"),
        ("?lang=de", "https://ex.com/p?lang=de", "https://ex.com/p?lang=fr"),
    ],
)
def test_a_pattern_matches_its_part_of_the_site(pattern, inside, outside):
    segment = Segment("de", pattern)
    assert segment.matches(inside) and not segment.matches(outside)


def members(*places: tuple[str, str]) -> list[tuple[str, str, str]]:
    """(url, cluster, value): three pages under each (prefix, value), one in each of three clusters."""
    return [(f"{prefix}{n}", str(n), value) for prefix, value in places for n in range(3)]


def named(members: list[tuple[str, str, str]]) -> tuple[Segment, ...]:
    """The segments the learner finds in `members`, named, their URLs the crawl's."""
    return learned_segments(learn_locale_segments(members), [url for url, _, _ in members])


def test_learned_locale_segments_are_named_by_value_with_a_pattern_for_their_urls():
    # Where another host has such URLs, a segment is a glob on its own; folders come first, as a root
    # holds them, and a folder of its root's value (fr.ex.com/p/) is the root's.
    learned = named(
        members(("https://ex.com/de/", "de"), ("https://ex.com/", "en"), ("https://fr.ex.com/", "fr"),
                ("https://fr.ex.com/p/", "fr"), ("https://ex.it/", "it-IT"), ("https://de.ex.com/de/", "de"))
        # one cluster is no segment
        + [("https://nl.ex.com/a", "1", "nl"), ("https://nl.ex.com/b", "1", "nl")]
    )
    assert learned == (
        Segment("de", "https://de.ex.com/de/*"), Segment("de#2", "https://ex.com/de/*"),
        Segment("en", "https://ex.com/*"), Segment("fr", "https://fr.ex.com/*"),
        Segment("it-IT", "https://ex.it/*"),
    )
    assert parse_segments(map(str, learned)) == learned, "as the JUnit exporter reads them back"
    assert [segment_of(learned, Finding("HL208", "page-without-annotations", "notice", url)) for url in (
        "https://ex.com/de/x", "https://ex.com/tags/", "https://fr.ex.com/p/x", "https://other.example/de/x"
    )] == ["de#2", "en", "fr", None]
    # On one host, the paths users would write, the root's last.
    assert named(members(("https://ex.com/", "en"), ("https://ex.com/de/", "de"))) == (
        Segment("de", "/de/"), Segment("en", "/"),
    )


def test_a_sitemap_finding_is_in_the_segment_of_the_url_it_lists():
    segments = (Segment("de", "/de/"),)
    listed = Finding("SM001", "sitemap-url-not-ok", "error", "https://ex.com/sitemap.xml", target="https://ex.com/de/x")
    assert segment_of(segments, listed) == "de"
    assert segment_of(segments, Finding("HL108", "missing-self-reference", "error", "https://ex.com/fr/")) is None


@pytest.mark.parametrize("raw", [["de"], ["=/de/"], ["de="], ["de=/de/", "de=de."]])
def test_a_wrong_segment_is_a_clear_error(raw):
    with pytest.raises(ValueError, match="QIVRORA_SEGMENTS: '"):
        parse_segments(raw)


def market_site(site: SiteServer) -> None:
    """Three clusters in en and de; the German pages of two do not link back (HL201 on the English)."""
    a = site.url
    for n in range(3):
        en, de = a(f"/en/p{n}/"), a(f"/de/p{n}/")
        site.routes[f"/en/p{n}/"] = Route(html_page(alternate("en", en), alternate("de", de)))
        back = alternate("en", en) if n == 0 else ""
        site.routes[f"/de/p{n}/"] = Route(html_page(back, alternate("de", de), lang="de"))
    site.routes["/"] = Route(html_page(body="".join(f'<a href="/en/p{n}/">p</a>' for n in range(3))))


def junit_classes(path: Path) -> dict[str, bool]:
    """Each test case's class, and whether one of its cases fails."""
    failing: dict[str, bool] = {}
    for case in etree.parse(str(path)).iter("testcase"):
        name = case.get("classname")
        failing[name] = failing.get(name, False) or case.find("failure") is not None
    return failing


def test_segments_are_learned_and_counted_in_the_summary_the_report_and_junit(site, tmp_path):
    market_site(site)
    run = qivrora("audit", site.url("/"), "-o", "f.xml", "--report", "r.html", *NO_STATE, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    summary = run.stderr[run.stderr.index("By segment:"):]
    assert re.search(r"^  en +2 errors$", summary, re.MULTILINE), summary
    assert re.search(r"^  de +\d+ warnings, \d+ notices$", summary, re.MULTILINE), "no error in de"
    classes = junit_classes(tmp_path / "f.xml")
    assert classes["en.HL201 missing-return-link"] is True
    assert "de.HL201 missing-return-link" not in classes
    report = (tmp_path / "r.html").read_text()
    assert "<td>en</td><td><code>/en/</code></td><td class=\"num\">2</td>" in report


def test_fail_on_gates_one_segment(site, tmp_path):
    market_site(site)
    common = ["audit", site.url("/"), "-o", "f.xml", *NO_STATE]
    assert qivrora(*common, "--fail-on", "en:error", cwd=tmp_path).returncode == 1
    german = qivrora(*common, "--fail-on", "de:error", cwd=tmp_path)
    assert german.returncode == 0, german.stderr[-2000:]
    assert not any(junit_classes(tmp_path / "f.xml").values()), "the German team's JUnit passes"
    named = qivrora(*common, "--segment", "german=/de/", "--fail-on", "german:error", cwd=tmp_path)
    assert named.returncode == 0 and "  german " in named.stderr


def test_a_gate_on_a_segment_that_is_not_there_is_an_error_not_a_pass(site, tmp_path):
    market_site(site)
    run = qivrora("audit", site.url("/"), "-o", "f.csv", "--fail-on", "fr:error", *NO_STATE, cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.rstrip().splitlines()[-1] == "qivrora: QIVRORA_FAIL_ON names the segment 'fr', which is none of: de, en"
