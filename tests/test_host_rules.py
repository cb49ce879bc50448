"""`_redirects` and `_headers` as Netlify and Cloudflare Pages apply them, on a corpus of both syntaxes
(tests/corpora/host_rules): every feature, the visitor conditions left aside, the lines refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from qivrora_spider.downloadermiddlewares.static_site import StaticSite
from qivrora_spider.extract.host_rules import parse_headers, parse_redirects

CORPUS = Path(__file__).parent / "corpora" / "host_rules"
BASE = "https://example.com/"


def site(flavour: str) -> StaticSite:
    return StaticSite(CORPUS / flavour, BASE)


def answered(flavour: str, path: str) -> tuple[int, str | None, str | None]:
    """Status, Location, and the page's <title> (what content was served)."""
    answer = site(flavour).answer("https://example.com" + path)
    title = answer.body.decode().partition("<title>")[2].partition("</title>")[0] or None
    return answer.status, dict(answer.headers).get("Location"), title


BOTH = ["netlify", "cloudflare"]


@pytest.mark.parametrize("flavour", BOTH)
@pytest.mark.parametrize(
    "path, expected",
    [
        ("/home", (301, "/", None)),
        ("/old/a/b.html", (301, "/new/a/b.html", None)),
        ("/old/", (301, "/new/", None)),
        ("/blog/2024/hello", (302, "/posts/2024-hello", None)),
        ("/blog/2024/hello/", (302, "/posts/2024-hello", None)),
        ("/blog/2024", (404, None, "not found")),
        ("/see-other", (303, "/en/", None)),
        ("/temp", (307, "/en/", None)),
        ("/perm", (308, "/en/", None)),
        ("/app/settings/profile", (200, None, "app shell")),
        ("/de/old-docs/setup/", (301, "/de/docs/setup/", None)),
        ("/en/", (200, None, "en")),
        ("/_redirects", (404, None, "not found")),
        ("/_headers", (404, None, "not found")),
    ],
)
def test_rules_both_hosts_read_alike(flavour, path, expected):
    assert answered(flavour, path) == expected


@pytest.mark.parametrize(
    "path, expected",
    [
        ("/old/x", (301, "/new/x", None)),  # no status: 301, Netlify's default
        ("/store?id=42", (301, "/products/42", None)),
        ("/store", (404, None, "not found")),  # the parameter is missing: the rule does not match
        ("/search?q=shoes", (302, "/en/shoes/", None)),
        ("/search?q=boots", (302, "/en/search/", None)),  # the first rule that matches applies
        ("/en/", (200, None, "en")),  # an existing file shadows a rule that is not forced
        ("/en/forced.html", (302, "/fr/", None)),  # `!` forces it over the file
        ("/ecommerce", (404, None, "en not found")),  # 404 rule: the target's content, with 404
        ("/gone/old-page", (410, None, "en gone")),
        ("/ext/fr/", (301, "https://other.example/fr/", None)),
        ("/", (200, None, "home")),  # Language= and Country= rules are not applied
        ("/admin/users", (404, None, "not found")),  # nor Role=
    ],
)
def test_netlify_rules(path, expected):
    assert answered("netlify", path) == expected


def test_a_200_rule_to_another_host_serves_that_hosts_answer():
    netlify, cloudflare = site("netlify"), site("cloudflare")
    assert netlify.answer("https://example.com/ph/guide/").proxy == "https://partner.example/ph/guide/"
    assert cloudflare.answer("https://example.com/fr-docs/").body == b"<!doctype html><title>fr</title>\n"


def test_visitor_conditions_are_kept_aside_with_their_line():
    skipped = site("netlify").redirects.skipped
    assert [(rule.where, rule.conditions) for rule in skipped] == [
        ("_redirects:23", ("Language=fr",)),
        ("_redirects:24", ("Country=de,at",)),
        ("_redirects:25", ("Role=admin",)),
        ("_redirects:26", ("Cookie=beta",)),
    ]
    assert skipped[0].text == "/                  /fr/                           302  Language=fr"


@pytest.mark.parametrize(
    "flavour, problems",
    [
        (
            "netlify",
            [
                "_redirects:29: status 418 is not one the hosts accept (200, 301, 302, 303, 307, 308, 404, 410)",
                "_redirects:30: 'no-slash' must start with `/`",
                "_redirects:31: '/a/*/b': `*` may only stand as the last segment",
                "_redirects:32: no target: write `FROM [QUERY] TO [STATUS]`",
                "_redirects:33: 'Planet=mars' is neither a status nor a condition (Country, Language, Role, Cookie)",
                "_redirects:34: `:nothing` in the target is bound by nothing in the source",
            ],
        ),
        (
            "cloudflare",
            [
                "_redirects:15: status 418 is not one the hosts accept (200, 301, 302, 303, 307, 308, 404, 410)",
                "_redirects:16: longer than 1,000 characters",
                "_headers:2: a header before any path; write a path, then indented `Name: value` lines",
                "_headers:18: 'no colon here' is not `Name: value`; line left out",
            ],
        ),
    ],
)
def test_lines_the_hosts_refuse_are_one_line_each_and_the_rest_applies(flavour, problems):
    built = site(flavour)
    assert [p.removesuffix("; line left out") if "_redirects" in p else p for p in built.problems] == problems
    assert built.answer("https://example.com/home").status == 301


def test_headers_of_every_matching_block_apply():
    headers = site("netlify").answer("https://example.com/en/").headers
    assert [value for name, value in headers if name == "Link"] == [
        '<https://example.com/en/>; rel="alternate"; hreflang="en"',
        '<https://example.com/fr/>; rel="alternate"; hreflang="fr"',
    ]
    assert ("X-Frame-Options", "DENY") in headers
    assert ("X-Page", "intro") in site("netlify").answer("https://example.com/docs/intro").headers


def test_cloudflare_detaches_a_header_and_fills_the_splat():
    cloudflare = site("cloudflare")
    assert "X-Robots-Tag" in dict(cloudflare.answer("https://example.com/fr/").headers)
    en = dict(cloudflare.answer("https://example.com/en/").headers)
    assert "X-Robots-Tag" not in en and "Link" in en, "`! X-Robots-Tag` removed what `/*` set"
    assert ("X-Path", "css/site.css") in cloudflare.answer("https://example.com/static/css/site.css").headers


@pytest.mark.parametrize("text", ["\x00\x00", "/a", "   \n\t", "/a /b 30x", "/" * 5000, "/a /b 200 Language"])
def test_no_content_raises(text):
    parse_redirects(text)
    parse_headers(text)


def test_an_unreadable_rule_file_is_one_problem_not_a_stop(tmp_path):
    (tmp_path / "index.html").write_text("home")
    (tmp_path / "_redirects").mkdir()
    (tmp_path / "_headers").write_bytes(b"/*\n  X-Bad: \xff\n")
    built = StaticSite(tmp_path, BASE)
    assert built.problems[0].startswith("_redirects: cannot be read (Is a directory)")
    assert built.answer("https://example.com/").status == 200


@pytest.mark.parametrize(
    "rules, path, expected",
    [
        ("/en/ /fr/ 302! Language=fr", "/en/", ("_redirects:1", "/fr/")),
        ("/en/* /fr/:splat 301! Country=fr,be", "/en/a/", ("_redirects:1", "/fr/a/")),
        ("/en/ /fr/ 302 Language=fr", "/en/", None),  # the file shadows a rule that is not forced
        ("/en/ /fr/ 302! Role=admin", "/en/", None),  # who is signed in, not the language
        ("/en/ /fr/ 302! Language=fr Role=admin", "/en/", None),
        ("/en/ /en/ 200! Language=en", "/en/", None),  # serves the page itself
        ("/en/ /fr/ 200! Language=fr", "/en/", ("_redirects:1", "/fr/")),
        ("/en/ /de/ 301!\n/en/ /fr/ 302! Language=fr", "/en/", None),  # every visitor's rule comes first
        ("/en/ /fr/ 302! Language=fr\n/en/ /de/ 301!", "/en/", ("_redirects:1", "/fr/")),
        ("/en/ /fr/ 302 Language=fr\n/en/ /de/ 302! Country=de", "/en/", ("_redirects:2", "/de/")),
    ],
)
def test_the_rule_by_language_or_country_that_answers_a_page_otherwise(tmp_path, rules, path, expected):
    for name in ("en/index.html", "fr/index.html"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("<title>page</title>")
    (tmp_path / "_redirects").write_text(rules + "\n")
    found = StaticSite(tmp_path, BASE).locale_rule("https://example.com" + path)
    assert (found and (found[0].where, found[1])) == expected
