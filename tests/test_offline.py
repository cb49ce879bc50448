"""Audit before publishing: a sitemap file on disk, or a static build folder, with no server."""

from __future__ import annotations

import pytest
import pytest_twisted

from qivrora_spider.demo.site_server import Route, alternate, html_page
from qivrora_spider.downloadermiddlewares.static_site import StaticSite, StaticSiteError
from qivrora_spider.facts import SitemapFile, TargetStatus
from qivrora_spider.spiders.arguments import ArgumentError, parse_arguments

from .conftest import crawl
from .fixture_sites import multilingual_site, url_entry, urlset

BASE = "https://example.com/"


@pytest.fixture
def build(tmp_path):
    root = tmp_path / "public"
    files = {
        "index.html": "<!doctype html><title>home</title>",
        "docs/index.html": "docs",
        "docs/page.html": "page",
        "caf\u00e9/index.html": "caf\u00e9",
        "a b.html": "space",
        "sitemap.xml.gz": "gz",
        "404.html": "custom not found",
        "_redirects": "# moved\n/old/ /docs/ 301\n/tmp/ /docs/page 302\n",
        "_headers": "/docs/guide.pdf\n  Link: <https://example.com/docs/guide.pdf>; rel=\"alternate\"; hreflang=\"en\"\n",
        "docs/guide.pdf": "%PDF-1.4",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (tmp_path / "secret.txt").write_text("never read")
    return root


@pytest.mark.parametrize(
    "path, status, header, body",
    [
        ("/", 200, ("Content-Type", "text/html; charset=utf-8"), b"<!doctype html><title>home</title>"),
        ("/docs/", 200, None, b"docs"),
        ("/docs", 301, ("Location", "/docs/"), b""),
        ("/docs/page.html", 200, None, b"page"),
        ("/docs/page", 200, None, b"page"),
        ("/docs/page?utm=1", 200, None, b"page"),
        ("/docs/missing.html", 404, None, b"custom not found"),
        ("/caf%C3%A9/", 200, None, "caf\u00e9".encode()),
        ("/a%20b.html", 200, None, b"space"),
        ("/sitemap.xml.gz", 200, ("Content-Type", "application/gzip"), b"gz"),
        ("/old/", 301, ("Location", "/docs/"), b""),
        ("/tmp/", 302, ("Location", "/docs/page"), b""),
        ("/docs/guide.pdf", 200, ("Content-Type", "application/pdf"), b"%PDF-1.4"),
        ("/%ff/", 404, None, b"custom not found"),
    ],
)
def test_static_mapping_rules(build, path, status, header, body):
    answer = StaticSite(build, BASE).answer("https://example.com" + path)
    assert answer.status == status
    if header:
        assert header in answer.headers
    assert answer.body == body


def test_headers_file_adds_link_headers(build):
    answer = StaticSite(build, BASE).answer("https://example.com/docs/guide.pdf")
    assert ("Link", '<https://example.com/docs/guide.pdf>; rel="alternate"; hreflang="en"') in answer.headers


@pytest.mark.parametrize("path", ["/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/docs/../../secret.txt", "/%2E%2E%2Fsecret.txt"])
def test_a_path_that_leaves_the_folder_is_refused_never_read(build, path):
    answer = StaticSite(build, BASE).answer("https://example.com" + path)
    assert answer.status in (403, 404)
    assert b"never read" not in answer.body


def test_pretty_urls_can_be_turned_off_and_head_has_no_body(build):
    site = StaticSite(build, BASE, pretty_urls=False)
    assert site.answer("https://example.com/docs/page").status == 404
    assert site.answer("https://example.com/docs/page.html", "HEAD").body == b""


def test_a_base_with_a_folder_serves_only_below_it(build):
    site = StaticSite(build, "https://example.com/en/")
    assert site.serves("https://example.com/en/docs/") and not site.serves("https://example.com/de/")
    assert site.answer("https://example.com/en/docs/").body == b"docs"


def test_a_line_the_hosts_refuse_is_named_and_the_rest_applies(build):
    (build / "_redirects").write_text("/a /b teapot\n/old/ /docs/ 301\n")
    built = StaticSite(build, BASE)
    assert built.problems == ["_redirects:1: 'teapot' is neither a status nor a condition (Country, Language, Role, Cookie); line left out"]
    assert built.answer("https://example.com/old/").status == 301


def _documentation_build(site, other_site, folder):
    """A build as generators ship it: its translation on a partner host through a 200 rule, `:lang`
    placeholders, a 404 rule, a rule by the visitor's language and a line the hosts refuse."""
    a, b = site.url, other_site.url
    cluster = (alternate("en", a("/en/")), alternate("de", a("/de/")), alternate("tl", a("/ph/")))
    site.routes.update({"/en/": Route(html_page(*cluster)), "/de/": Route(html_page(*cluster, lang="de"))})
    other_site.routes["/ph/"] = Route(html_page(*cluster, lang="tl"))
    site.export(folder)
    (folder / "_redirects").write_text(
        "# the partner serves the Filipino pages\n"
        f"/ph/*  {b('/ph/')}:splat  200\n"
        "/:lang/old/*  /:lang/new/:splat  301\n"
        "/retired/*  /404.html  404\n"
        "/  /de/  302  Language=de\n"
        "/docs  /en/docs/  307 Planet=mars\n"
    )


@pytest.mark.parametrize("live", [False, True])
@pytest_twisted.ensureDeferred
async def test_a_real_redirects_file_is_audited_with_what_the_folder_cannot_answer_said_once(
    site, other_site, tmp_path, caplog, live
):
    _documentation_build(site, other_site, tmp_path / "public")
    result = await crawl(site=str(tmp_path / "public"), base=site.url("/"), start=site.url("/en/"), live=str(int(live)))
    a = site.url
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "site: " in r.getMessage()]
    assert warnings == [
        "site: _redirects:6: 'Planet=mars' is neither a status nor a condition (Country, Language, Role, Cookie); line left out",
        "site: 1 _redirects rule with a visitor condition (Country=, Language=, Role=, Cookie=) not applied, "
        "a folder has no visitor: _redirects:5 `/  /de/  302  Language=de`",
    ]
    if live:
        assert other_site.requests() == {"/robots.txt": 1, "/ph/": 1}, "the 200 rule's target, fetched once"
        assert result.page(a("/ph/")).status == 200 and result.page(a("/ph/")).html_lang == "tl"
        assert "HL206" not in result.checks() and "HL201" not in result.checks()
    else:
        assert other_site.requests() == {}
        assert [s.not_examined for s in result.of(TargetStatus) if s.url == a("/ph/")] == ["excluded"]
        assert {(f.check, f.target) for f in result.findings if f.check == "HL206"} == {("HL206", a("/ph/"))}


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"site": "/nonexistent", "base": BASE}, "site: '/nonexistent' is not a folder"),
        ({"site": "."}, "site: give both"),
        ({"start": "/nonexistent/sitemap.xml"}, "start: '/nonexistent/sitemap.xml' is neither an http(s) URL nor an existing sitemap file"),
        ({"start": __file__}, "is not a sitemap"),
    ],
)
def test_offline_arguments(arguments, message):
    with pytest.raises(ArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_arguments(arguments)


def _table(result):
    return sorted((f.check, f.url, f.target, f.hreflang, f.message) for f in result.findings)


@pytest_twisted.ensureDeferred
async def test_a_build_folder_gives_the_findings_of_the_same_site_served(site, other_site, tmp_path):
    multilingual_site(site, other_site)
    served = await crawl(start=site.url("/"))
    site.export(tmp_path / "public")
    before = site.requests()
    offline = await crawl(site=str(tmp_path / "public"), base=site.url("/"), live="1")
    assert site.requests() == before, "the folder answered, not the server"
    assert _table(offline) == _table(served)


@pytest_twisted.ensureDeferred
async def test_urls_outside_the_base_are_not_examined_without_live(site, other_site, tmp_path):
    multilingual_site(site, other_site)
    site.export(tmp_path / "public")
    result = await crawl(site=str(tmp_path / "public"), base=site.url("/"))
    assert other_site.requests() == {}, "nothing went to the network"
    assert [s.not_examined for s in result.of(TargetStatus) if s.url == other_site.url("/fr/")] == ["excluded"]
    assert ("HL206", other_site.url("/fr/")) in {(f.check, f.target) for f in result.findings}


@pytest_twisted.ensureDeferred
async def test_a_sitemap_on_disk_is_checked_against_the_live_site(site, tmp_path):
    a = site.url
    sitemap = urlset(
        url_entry(a("/en/"), ("en", a("/en/")), ("de", a("/de/"))),
        url_entry(a("/de/"), ("en", a("/en/")), ("de", a("/de/"))),
        url_entry(a("/gone/")),
    )
    site.routes.update(
        {
            "/robots.txt": Route(f"Sitemap: {a('/sitemap.xml')}\n", content_type="text/plain"),
            "/sitemap.xml": Route(sitemap, content_type="application/xml"),
            "/en/": Route(html_page(alternate("en", a("/en/")), alternate("de", a("/en/")))),
            "/de/": Route(html_page(lang="de")),
        }
    )
    local = tmp_path / "sitemap.xml"
    local.write_text(sitemap)
    served = await crawl(start=a("/sitemap.xml"))
    from_disk = await crawl(start=str(local))
    assert [f.url for f in from_disk.of(SitemapFile)] == [local.resolve().as_uri()]
    rename = {local.resolve().as_uri(): a("/sitemap.xml")}
    assert sorted(
        (f.check, rename.get(f.url, f.url), rename.get(f.target, f.target), f.message.replace(local.resolve().as_uri(), a("/sitemap.xml")))
        for f in from_disk.findings
    ) == sorted((f.check, f.url, f.target, f.message) for f in served.findings)
    assert {"SM001", "HL601"} <= from_disk.checks()


def test_the_command_audits_a_folder_whose_rules_it_cannot_all_answer_and_says_so_once(tmp_path):
    """The run that stopped before its first request: now it ends (exit status 0, no page of the corpus
    annotated, so no finding), and each line the folder cannot answer is named once, on stderr."""
    from .test_cli import scrapy
    from .test_host_rules import CORPUS

    out = tmp_path / "findings.csv"
    run = scrapy("crawl", "hreflang", "-a", f"site={CORPUS / 'netlify'}", "-a", "base=https://example.com/",
                 "-O", str(out), "-s", "QIVRORA_STATE=")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stderr.count("site: _redirects:29: status 418 is not one the hosts accept") == 1
    assert run.stderr.count("site: 4 _redirects rules with a visitor condition") == 1
    assert "Traceback" not in run.stderr
