"""HL207, HL208, HL209, HL210, HL408 and SM014 on a crawled site: the same rows over HTTP, from the
site's build folder and from its exported facts."""

from __future__ import annotations

from pathlib import Path

import pytest_twisted

from qivrora_spider.audit import audit
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page
from qivrora_spider.fact_lines import fact_line, read_facts
from qivrora_spider.findings import Finding

from .conftest import CrawlResult, crawl
from .fixture_sites import url_entry, urlset

NEW_CHECKS = {"HL207", "HL208", "HL209", "HL210", "HL408", "SM014"}


def build(site: SiteServer) -> None:
    """en, de and fr under their folders (three clusters, / as p1's x-default, redirecting by visitor);
    /de/preise/ untranslated in the cluster, /en/tags/ never translated, /fr/p3/ called `it` by /de/p3/,
    a British and an American offer without `en`, and /en/hidden/ that only the sitemap names."""
    u = site.url
    pages = {f"/{lang}/{name}/": lang for name in ("p1", "p2", "p3") for lang in ("en", "de", "fr")}
    pages |= {"/en/preise/": "en", "/fr/preise/": "fr", "/de/preise/": "de", "/en/tags/zelt/": "en",
              "/uk/offer/": "en", "/us/offer/": "en", "/en/hidden/": "en"}
    nav = " ".join(f'<a href="{path}">{path}</a>' for path in pages if path != "/en/hidden/")

    def cluster(*members: tuple[str, str]) -> str:
        return "\n".join(alternate(value, u(path)) for value, path in members)

    annotated = {
        "p1": cluster(("en", "/en/p1/"), ("de", "/de/p1/"), ("fr", "/fr/p1/"), ("x-default", "/")),
        "p2": cluster(("en", "/en/p2/"), ("de", "/de/p2/"), ("fr", "/fr/p2/")),
        "p3": cluster(("en", "/en/p3/"), ("de", "/de/p3/"), ("fr", "/fr/p3/")),
        "preise": cluster(("en", "/en/preise/"), ("fr", "/fr/preise/")),
        "offer": cluster(("en-GB", "/uk/offer/"), ("en-US", "/us/offer/")),
    }
    for path, lang in pages.items():
        name = path.strip("/").split("/")[-1]
        head = annotated.get(name, "")
        if path == "/de/p3/":
            head = head.replace('hreflang="fr"', 'hreflang="it"')
        if path in ("/de/preise/", "/en/tags/zelt/", "/en/hidden/"):
            head = ""
        site.routes[path] = Route(html_page(head, body=nav, lang=lang))
    site.routes["/"] = Route("", status=302, headers=[("Location", u("/en/p1/"))])
    site.routes["/robots.txt"] = Route(f"Sitemap: {u('/sitemap.xml')}\n", content_type="text/plain")
    site.routes["/sitemap.xml"] = Route(
        urlset(*(url_entry(u(path)) for path in pages)), content_type="application/xml"
    )


def rows(findings: list[Finding]) -> set[tuple[str, str, str, str]]:
    return {(f.check, f.url, f.target, f.hreflang) for f in findings if f.check in NEW_CHECKS}


@pytest_twisted.ensureDeferred
async def test_new_checks_over_http_from_the_build_folder_and_from_facts(site: SiteServer, tmp_path: Path) -> None:
    build(site)
    u = site.url
    served: CrawlResult = await crawl(start=u("/en/p1/"))
    x_default = {("HL408", u(f"/{lang}/p1/"), u("/"), "x-default") for lang in ("en", "de", "fr")}
    assert rows(served.findings) == x_default | {
        ("HL207", u("/de/preise/"), u("/en/preise/"), "de"),
        ("HL208", u("/en/tags/zelt/"), "", ""),
        ("HL208", u("/en/hidden/"), "", ""),  # in no cluster, and linked from nowhere: two defects
        ("HL209", u("/fr/p3/"), "", ""),
        ("HL210", u("/uk/offer/"), "", "en"),
        ("SM014", u("/en/hidden/"), u("/sitemap.xml"), ""),
    }
    assert not {f.check for f in served.findings} & {"HL401"}, "a temporary x-default redirect is no HL401"

    folder = tmp_path / "build"
    site.export(folder)
    offline = await crawl(site=str(folder), base=u("/"), start=u("/en/p1/"))
    assert rows(offline.findings) == rows(served.findings)

    facts = list(read_facts(fact_line(fact).decode() for fact in served.facts))
    assert rows(audit(facts)) == rows(served.findings)
