"""HL801 locale-adaptive-page: the crawl sends no Accept-Language; `-a locale_probe=1` asks each
annotated HTML page once more with another language of its cluster, against a server that answers by
Accept-Language the way locale-adaptive sites do."""

from __future__ import annotations

import json
from collections import Counter

import pytest
import pytest_twisted

from qivrora_spider.audit import audit
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.fact_lines import fact_line, read_facts
from qivrora_spider.facts import CrawlInfo
from qivrora_spider.findings import Finding
from qivrora_spider.spiders.arguments import ArgumentError, parse_arguments
from qivrora_spider.spiders.hreflang import PROBED_SITEMAPS

from .conftest import crawl

PROBED = ("/en/", "/fr/", "/en/a/", "/fr/a/", "/en/b/", "/fr/b/")


def adaptive_site(site: SiteServer) -> None:
    """Three clusters of en and fr, and / as the x-default entry page that redirects by language.

    /en/ sends a French visitor to /fr/; /fr/a/ serves an English visitor other annotations; /en/b/
    and /fr/b/ answer `Vary: Accept-Language` and the same page to everyone.
    """
    u = site.url

    def pair(en: str, fr: str, *, x_default: bool = False) -> str:
        links = [alternate("en", u(en)), alternate("fr", u(fr))]
        return "\n".join([*links, alternate("x-default", u("/"))] if x_default else links)

    nav = '<a href="/en/">en</a> <a href="/fr/">fr</a> <a href="/en/a/">a</a> <a href="/fr/a/">a</a> ' \
          '<a href="/en/b/">b</a> <a href="/fr/b/">b</a>'
    home = pair("/en/", "/fr/", x_default=True)
    vary = [("Vary", "Accept-Language")]
    site.routes.update(
        {
            "/": Route("", status=302, headers=[("Location", u("/en/"))],
                       by_language={"fr": Route("", status=302, headers=[("Location", u("/fr/"))])}),
            "/en/": Route(html_page(home, body=nav),
                          by_language={"fr": Route("", status=302, headers=[("Location", u("/fr/"))])}),
            "/fr/": Route(html_page(home, body=nav, lang="fr")),
            "/en/a/": Route(html_page(pair("/en/a/", "/fr/a/"), body=nav)),
            "/fr/a/": Route(
                html_page(pair("/en/a/", "/fr/a/"), body=nav, lang="fr"),
                by_language={"en": Route(html_page(pair("/en/b/", "/fr/a/"), body=nav, lang="fr"))},
            ),
            "/en/b/": Route(html_page(pair("/en/b/", "/fr/b/"), body=nav), headers=vary),
            "/fr/b/": Route(html_page(pair("/en/b/", "/fr/b/"), body=nav, lang="fr"), headers=vary),
        }
    )


@pytest_twisted.ensureDeferred
async def test_the_crawl_sends_no_accept_language_and_probes_nothing_unasked(site: SiteServer) -> None:
    adaptive_site(site)
    result = await crawl(start=site.url("/en/"))
    assert [request for request in site.accept_language if request[1] is not None] == []
    assert max(site.requests("GET").values()) == 1
    assert "HL801" not in result.checks()
    assert "qivrora/locale_probe/requests" not in result.stats


@pytest_twisted.ensureDeferred
async def test_locale_probe_finds_the_redirect_and_the_other_annotations_not_vary_alone(site: SiteServer) -> None:
    adaptive_site(site)
    result = await crawl(start=site.url("/en/"), locale_probe="1")
    found = [(f.url, f.target, f.hreflang, f.severity) for f in result.findings if f.check == "HL801"]
    assert found == [
        (site.url("/en/"), site.url("/fr/"), "fr", "warning"),
        (site.url("/fr/a/"), "", "en", "warning"),
    ]
    messages = {f.url: f.message for f in result.findings if f.check == "HL801"}
    assert "`Accept-Language: fr`" in messages[site.url("/en/")] and "302 Found" in messages[site.url("/en/")]
    assert f"without `en {site.url('/en/a/')}`" in messages[site.url("/fr/a/")]
    # Each annotated page asked twice, the second time with another language of its cluster; the
    # x-default entry page (a redirect, HL408) and everything else once.
    probes = Counter(path for path, language in site.accept_language if language)
    assert probes == Counter({path: 1 for path in PROBED})
    assert {("/en/b/", "fr"), ("/fr/b/", "en"), ("/en/", "fr")} <= set(site.accept_language)
    assert site.requests("GET")["/"] == 1
    assert result.stats["qivrora/locale_probe/requests"] == len(PROBED)
    assert [f.url for f in result.findings if f.check == "HL801" and "/b/" in f.url] == []
    assert {(f.check, f.target) for f in result.findings if f.check == "HL408"} == {("HL408", site.url("/"))}

    # The same findings from the facts exported and read back (hreflang-report audits so).
    facts = list(read_facts(fact_line(fact).decode() for fact in result.facts))
    assert audit(facts) == sorted(result.findings, key=Finding.sort_key)


@pytest_twisted.ensureDeferred
async def test_the_probe_counts_in_max_pages(site: SiteServer) -> None:
    adaptive_site(site)
    # 8 requests in all, probes included; the probes past the budget are not sent.
    result = await crawl(start=site.url("/en/"), locale_probe="1", max_pages="8")
    sitemaps = ("/robots.txt", *PROBED_SITEMAPS)  # outside max_pages
    pages = sum(count for path, count in site.requests().items() if path not in sitemaps)
    assert pages == 8
    probes = [path for path, language in site.accept_language if language]
    assert probes and result.stats["qivrora/locale_probe/requests"] == len(probes), "each probe counted"
    assert "max_pages" in result.of(CrawlInfo)[0].limits_reached


def test_locale_probe_is_refused_with_a_build_folder(tmp_path) -> None:
    with pytest.raises(ArgumentError, match="locale_probe: not available with -a site="):
        parse_arguments({"site": str(tmp_path), "base": "https://ex.com/", "locale_probe": "1"})


BUILD_BASE = "https://example.com"
BUILD_RULES = """\
/en/      /fr/       302!  Language=fr
/en/a/    /fr/a/     302!  Country=fr,be
/fr/a/    /en/a/     302!  Role=admin
/about/   /fr/about/ 302!  Language=fr
/fr/      /en/       302   Language=en
/         /fr/       302!  Language=fr
"""


def locale_build(folder) -> None:
    """Two clusters of en and fr with `/` as their x-default, an unannotated `/about/`, and a rule for
    each: by language and by country over annotated pages (HL801), by role, by language over the
    unannotated page, one an existing file shadows (not forced), and one over the x-default (HL408's)."""
    b = f"{BUILD_BASE}{{}}".format

    def pair(en: str, fr: str) -> list[str]:
        return [alternate("en", b(en)), alternate("fr", b(fr)), alternate("x-default", b("/"))]

    links = '<a href="/en/a/">a</a> <a href="/about/">about</a>'
    pages = {
        "index.html": html_page(*pair("/en/", "/fr/")),
        "en/index.html": html_page(*pair("/en/", "/fr/"), body=links),
        "fr/index.html": html_page(*pair("/en/", "/fr/"), lang="fr"),
        "en/a/index.html": html_page(*pair("/en/a/", "/fr/a/")),
        "fr/a/index.html": html_page(*pair("/en/a/", "/fr/a/"), lang="fr"),
        "about/index.html": html_page(body="about us"),
        "_redirects": BUILD_RULES,
    }
    for name, text in pages.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def hl801(findings) -> list[tuple[str, str, str]]:
    return [(f.url, f.target, f.hreflang) for f in findings if f.check == "HL801"]


EXPECTED_FROM_RULES = [
    (f"{BUILD_BASE}/en/", f"{BUILD_BASE}/fr/", "fr"),
    (f"{BUILD_BASE}/en/a/", f"{BUILD_BASE}/fr/a/", ""),
]


@pytest_twisted.ensureDeferred
async def test_a_build_folder_rule_by_language_or_country_over_an_annotated_page_is_hl801(tmp_path) -> None:
    locale_build(tmp_path / "public")
    result = await crawl(site=str(tmp_path / "public"), base=f"{BUILD_BASE}/", start=f"{BUILD_BASE}/en/")
    assert hl801(result.findings) == EXPECTED_FROM_RULES
    messages = {f.url: f.message for f in result.findings if f.check == "HL801"}
    assert messages[f"{BUILD_BASE}/en/"].startswith(
        "The `_redirects` rule at _redirects:1 (`/en/ /fr/ 302! Language=fr`) answers 302 Found to "
        f"{BUILD_BASE}/fr/ for visitors with `Language=fr`: "
    )
    assert "`Country=fr,be`" in messages[f"{BUILD_BASE}/en/a/"]
    assert "HL408" not in result.checks() and "qivrora/locale_probe/requests" not in result.stats

    # The same findings from the facts exported and read back (hreflang-report audits so).
    facts = list(read_facts(fact_line(fact).decode() for fact in result.facts))
    assert audit(facts) == sorted(result.findings, key=Finding.sort_key)


def test_hreflang_report_gives_a_build_folders_hl801_from_its_facts(tmp_path) -> None:
    from .test_false_green import qivrora

    locale_build(tmp_path / "public")
    common = ["-s", "QIVRORA_STATE="]
    outputs = ["-o", "f.jsonl", "-o", "facts.jsonl:facts"]
    checked = qivrora("check", "public", "--base", f"{BUILD_BASE}/", *outputs, *common, cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr[-2000:]
    reported = qivrora("report", "facts.jsonl", "-o", "offline.jsonl", *common, cwd=tmp_path)
    assert reported.returncode == 0, reported.stderr[-2000:]
    assert (tmp_path / "offline.jsonl").read_text() == (tmp_path / "f.jsonl").read_text()
    rows = [json.loads(line) for line in (tmp_path / "offline.jsonl").read_text().splitlines()]
    found = [(r["url"], r["target"], r["hreflang"]) for r in rows if r["check"] == "HL801"]
    assert found == EXPECTED_FROM_RULES
