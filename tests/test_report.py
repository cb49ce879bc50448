"""report.html and the fixes: what a site owner reads, and what a hostile site cannot make it do."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any, Iterable
from xml.etree import ElementTree

import html5lib
import pytest
from lxml import etree

from qivrora_spider import DOCS_URL
from qivrora_spider.audit import AuditContext, audit
from qivrora_spider.audit.core.fact_store import FactStore
from qivrora_spider.findings import Finding
from qivrora_spider.report import cluster_fixes, render_report, write_fixes_jsonl, write_outputs
from qivrora_spider.report.fixes import ClusterFix
from qivrora_spider.report.render import MAX_CLUSTERS, MAX_ROWS, TITLE
from qivrora_spider.report.svg import MAX_NODES

from .audit.builders import CRAWL_STARTED, CrawlInfo, ann, cluster, page
from .test_cli import FAST, demo, scrapy  # noqa: F401 (demo is a fixture)

E = "https://example.com"
SVG = "{http://www.w3.org/2000/svg}"
XHTML_NS = "http://www.w3.org/1999/xhtml"
#: Would set the page's title if any of it ran as script.
PAYLOADS = (
    "\"><script>document.title='pwned'</script>",
    "<img src=x onerror=\"document.title='pwned'\">",
    "javascript:document.title='pwned'",
    "'\"\x00\x07\x1b[31m\x0b",
)


def broken_site() -> list[Any]:
    """A cluster with the usual defects: a wrong code, a redirecting and a missing alternate,
    a page that omits members, two x-defaults on one page."""
    return [
        CrawlInfo(started=CRAWL_STARTED, start_urls=[f"{E}/"]),
        page(f"{E}/en/", ann("en", f"{E}/en/"), ann("de", f"{E}/de/"), ann("en-UK", f"{E}/uk/"),
             ann("fr", f"{E}/fr"), ann("x-default", f"{E}/")),
        page(f"{E}/de/", ann("en", f"{E}/en/"), ann("de", f"{E}/de/"), ann("en-GB", f"{E}/uk/"),
             ann("es", f"{E}/es/"), ann("x-default", f"{E}/")),
        page(f"{E}/uk/", ann("en-GB", f"{E}/uk/"), ann("de", f"{E}/de/"), ann("en", f"{E}/en/"),
             ann("x-default", f"{E}/"), ann("x-default", f"{E}/en/")),
        page(f"{E}/fr", status=301, location=f"{E}/fr/"),
        page(f"{E}/fr/", ann("fr", f"{E}/fr/"), ann("en", f"{E}/en/")),
        page(f"{E}/es/", status=404),
        page(f"{E}/", ann("x-default", f"{E}/"), ann("en", f"{E}/en/"), ann("de", f"{E}/de/")),
    ]


def hostile_site() -> list[Any]:
    """A cluster whose values and URLs carry markup, script, quotes, control characters, 10 KB."""
    evil = f"{E}/x{PAYLOADS[0]}"
    annotations = [ann("en", f"{E}/a/"), ann("de", evil), ann("x-default", "javascript:alert(1)")]
    annotations += [ann(payload, f"{E}/a/") for payload in PAYLOADS]
    annotations.append(ann("v" * 10240, f"{E}/a/" + "u" * 10240))
    return [
        CrawlInfo(started=CRAWL_STARTED, start_urls=[f"{E}/a/"]),
        page(f"{E}/a/", *annotations),
        # Facts files can be forged: page URLs as no crawl would normalise them.
        page(f"{E}/b/<img/src=x/onerror=document.title='pwned'>", ann(PAYLOADS[1], f"{E}/a/"), ann("en", f"{E}/a/")),
        page(evil, ann("de", evil), ann(PAYLOADS[0], f"{E}/a/")),
    ]


def audited(facts: Iterable[Any]) -> tuple[AuditContext, list[Finding]]:
    store = FactStore()
    store.add_all(facts)
    context = AuditContext(store)
    return context, audit(context)


def report_of(facts: Iterable[Any]) -> str:
    return render_report(*audited(facts))


def parse(html: str) -> ElementTree.Element:
    """As a browser parses it (HTML5 rules), so an injection would show as elements."""
    return html5lib.parse(html, namespaceHTMLElements=False)


def text(element: ElementTree.Element) -> str:
    return re.sub(r"\s+", " ", "".join(element.itertext())).strip()


def by_id(root: ElementTree.Element, id_: str) -> ElementTree.Element:
    found = [e for e in root.iter() if e.get("id") == id_]
    assert len(found) == 1, id_
    return found[0]


def fix_for(fixes: list[ClusterFix], url: str) -> ClusterFix:
    return next(fix for fix in fixes if url in fix.annotated)


# --- the page ---------------------------------------------------------------------------------


def test_summary_counts_every_severity_and_check_and_links_each_check_to_its_documentation():
    context, findings = audited(broken_site())
    root = parse(render_report(context, findings))

    totals = {
        div.get("class").split()[1]: int(text(div).split()[0])
        for div in root.iter("div")
        if div.get("class", "").startswith("total ")
    }
    assert totals == {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "notice")}

    summary = by_id(root, "summary").find(".//table")
    rows = [[text(cell) for cell in row] for row in summary.iter("tr")][1:]
    assert {row[0]: int(row[3]) for row in rows} == Counter(f.check for f in findings)
    for row in summary.iter("tr"):
        link = row.find(".//a")
        if link is None:
            continue
        section = by_id(root, link.get("href").removeprefix("#"))
        doc = section.find(".//details")
        assert "Why it matters." in text(doc) and "Fix." in text(doc), "the documentation is in the page"
    assert {"HL201", "HL401", "HL402"} <= {f.check for f in findings}


def test_coverage_table_counts_pages_and_cluster_members_per_locale_segment():
    facts = [c for n in "abc" for c in cluster({"en": f"{E}/en/{n}/", "de": f"{E}/de/{n}/"})]
    facts += [page(f"{E}/en/blog/"), page(f"{E}/en/news/"), page(f"{E}/about"), page(f"{E}/de/gone/", status=404)]
    root = parse(report_of(facts))
    rows = [[text(cell) for cell in row] for row in by_id(root, "coverage").iter("tr")][1:]
    assert rows == [
        [f"{E}/de/", "de", "3", "3", "100 %"],
        [f"{E}/en/", "en", "5", "3", "60 %"],
        ["in no segment", "", "1", "0", "0 %"],
    ]


def test_no_coverage_table_without_segments():
    root = parse(report_of(cluster({"en": f"{E}/en/", "de": f"{E}/de/"})))
    assert [e for e in root.iter() if e.get("id") == "coverage"] == []


def test_report_opens_on_fix_first_and_cluster_cards_name_their_first_page_and_checks():
    context, findings = audited(broken_site())
    root = parse(render_report(context, findings))
    main = root.find(".//main")
    assert main[0].get("id") == "fix-first", "the first thing read"
    causes = main[0].find(".//ol").findall("li")
    assert causes and all("removes" in text(li) for li in causes)
    removed = [int(re.search(r"removes ([\d,]+) finding", text(li)).group(1)) for li in causes]
    assert removed == sorted(removed, reverse=True)

    cid = context.cluster_of[f"{E}/en/"]
    article = by_id(root, cid)
    heading = text(article.find("h3"))
    assert heading == f"{context.clusters[cid][0]} cluster {cid}", "named by its first page, the id a label"
    fired = text(next(p for p in article.iter("p") if p.get("class") == "fired"))
    for check, count in Counter(f.check for f in findings if f.cluster == cid).items():
        assert f"{check}" in fired and f"×{count}" in fired


def test_matrix_rows_are_grouped_by_language():
    context, findings = audited(broken_site())
    root = parse(render_report(context, findings))
    matrix = next(t for t in by_id(root, context.cluster_of[f"{E}/en/"]).iter("table") if t.get("class") == "matrix")
    columns = [text(th.find("div")) for th in matrix.find("thead").iter("th") if th.find("div") is not None]
    owns = [text(div).removeprefix("calls itself ") for div in matrix.iter("div") if div.get("class") == "own"]
    positions = [min(columns.index(v) for v in own.split() if v in columns) for own in owns if set(own.split()) & set(columns)]
    assert positions == sorted(positions) and len(positions) >= 3


def test_each_check_links_its_page_on_the_docs_site_under_qivrora_docs_url():
    context, findings = audited(broken_site())
    for docs, expected in ((DOCS_URL, DOCS_URL), ("http://docs.intranet.example/q", "http://docs.intranet.example/q/")):
        root = parse(render_report(context, findings, docs_url=docs))
        summary = by_id(root, "summary").find(".//table")
        for row in list(summary.iter("tr"))[1:]:
            check_id = text(row[0])
            assert [a.get("href") for a in row.iter("a")] == [f"#{check_id.lower()}", f"{expected}checks/{check_id.lower()}.html"]
            doc = by_id(root, check_id.lower()).find(".//details")
            assert f"{expected}checks/{check_id.lower()}.html" in [a.get("href") for a in doc.iter("a")]


def test_a_wrong_qivrora_docs_url_stops_the_run_before_any_request(site, tmp_path):
    run = scrapy("crawl", "hreflang", "-a", f"start={site.url('/')}", "-s", "QIVRORA_DOCS_URL=ftp://x/", *FAST)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == ["qivrora: QIVRORA_DOCS_URL: 'ftp://x/' is not an http(s) URL"]
    assert site.log == [], "nothing was fetched"

def test_matrix_cell_says_annotated_returned_and_status():
    context, findings = audited(broken_site())
    root = parse(render_report(context, findings))
    article = by_id(root, context.cluster_of[f"{E}/en/"])
    table = next(t for t in article.iter("table") if t.get("class") == "matrix")
    header = [text(th) for th in table.find("thead").iter("th")]
    columns = [cell.split(" ")[0] for cell in header]

    def cell(row_label: str, language: str) -> str:
        row = next(tr for tr in table.find("tbody").iter("tr") if text(tr.find("th")).split(" ")[0] == row_label)
        return text(list(row)[columns.index(language)])

    assert cell("/en/", "de") == "✓ returned · 200"
    assert cell("/de/", "de") == "self · 200"
    assert cell("/fr/", "en") == "✗ no return · 200", "/en/ names /fr, not /fr/"
    assert cell("/en/", "fr") == "✗ no return · 301"
    assert cell("/fr/", "fr") == "/fr/ self · 200", "not the column's usual URL: named"
    assert cell("/de/", "es") == "✗ no return · 404"
    assert cell("/fr/", "de") == "missing", "/fr/ lists alternates, but not /de/"
    status = next(tr for tr in table.find("tbody").iter("tr") if text(tr.find("th")) == "/es/")
    assert text(list(status)[1]) == "404"


def test_picture_draws_missing_return_links_dashed_and_reciprocal_ones_solid():
    context, findings = audited(broken_site())
    root = parse(render_report(context, findings))
    svg = by_id(root, context.cluster_of[f"{E}/en/"]).find(f".//{SVG}svg")
    lines = {text(line.find(f"{SVG}title")): line.get("class") for line in svg.iter(f"{SVG}line")}
    assert lines[f"{E}/fr/ → {E}/en/: not returned"] == "edge one-way"
    assert lines[f"{E}/de/ ⇄ {E}/en/"] == "edge returned"
    one_way = next(line for line in svg.iter(f"{SVG}line") if line.get("class") == "edge one-way")
    assert one_way.get("marker-end", "").startswith("url(#arrow-c-")
    nodes = {text(g.find(f"{SVG}title")): g.get("class") for g in svg.iter(f"{SVG}g")}
    assert nodes[f"{E}/es/ (404)"] == "node k-client-error"
    assert nodes[f"{E}/fr (301)"] == "node k-redirect"
    assert nodes[f"{E}/en/ (200)"] == "node k-ok"


def test_large_clusters_and_many_findings_are_capped_and_say_what_was_left_out():
    regions = ["AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX",
               "AZ", "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ",
               "BR", "BS", "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK",
               "CL", "CM", "CN", "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ", "DE", "DJ", "DK", "DM",
               "DO", "DZ", "EC", "EE", "EG"]
    big = cluster({f"en-{region}": f"{E}/{region.lower()}/" for region in regions})
    big[0].annotations.pop()  # /ad/ no longer names the last member: a missing return link
    small = [p for n in range(MAX_CLUSTERS + 2) for p in cluster({"en": f"{E}/s{n}/en", "de": f"{E}/s{n}/de"})]
    context, findings = audited([CrawlInfo(started=CRAWL_STARTED), *big, *small])
    extra = [Finding("HL204", "incomplete-cluster", "warning", f"{E}/w{n:04d}") for n in range(MAX_ROWS + 7)]
    root = parse(render_report(context, [*findings, *extra]))

    article = by_id(root, context.cluster_of[f"{E}/ad/"])
    assert not [t for t in article.iter("table") if t.get("class") == "matrix"]
    assert "larger than 60 × 30" in text(article)
    by_language = next(t for t in article.iter("table") if "by-language" in t.get("class", ""))
    lines = {text(row[0]): [text(cell) for cell in row[1:]] for row in by_language.find("tbody")}
    assert len(lines) == len(regions) and lines["en-AE"] == ["1", "0", "0"]
    assert lines["en-AD"] == ["1", "0", "1"], "/eg/ names /ad/, which does not name it back"
    assert lines[f"en-{regions[-1]}"] == ["1", "1", "0"], "/ad/ lists alternates but none for en-EG"
    svg = article.find(f".//{SVG}svg")
    assert len([g for g in svg.iter(f"{SVG}g")]) == MAX_NODES
    assert f"{MAX_NODES} pages are drawn, those with missing return links first; {len(regions) - MAX_NODES} more are left out." in text(article)
    dashed = [line for line in svg.iter(f"{SVG}line") if line.get("class") == "edge one-way"]
    assert [text(line.find(f"{SVG}title")) for line in dashed] == [f"{E}/eg/ → {E}/ad/: not returned"], "drawn, though /eg/ is last"

    shown = [a for a in by_id(root, "clusters").iter("article")]
    assert len(shown) == MAX_CLUSTERS and shown[0].get("id") == context.cluster_of[f"{E}/ad/"], "most errors first"
    assert f"{len(context.clusters) - MAX_CLUSTERS} more are left out" in text(by_id(root, "clusters"))

    section = by_id(root, "hl204")
    assert len(section.find(".//tbody").findall("tr")) == MAX_ROWS
    assert "more findings of HL204 are left out here" in text(section)


def test_same_facts_give_the_same_bytes_whatever_their_order():
    facts = broken_site()
    first = report_of(facts)
    assert report_of(facts) == first
    assert report_of([facts[0], *reversed(facts[1:])]) == first
    assert CRAWL_STARTED in first, "the date is the crawl's, from the facts"


# --- hostile values ---------------------------------------------------------------------------


def test_hostile_values_render_as_text_and_nothing_can_run():
    html = report_of(hostile_site())
    root = parse(html)

    assert not [e for e in root.iter() if isinstance(e.tag, str) and e.tag.rsplit("}", 1)[-1] == "script"]
    assert not [(e.tag, name) for e in root.iter() for name in e.attrib if name.lower().startswith("on")]
    hrefs = [e.get("href") for e in root.iter() if e.get("href") is not None]
    assert hrefs and all(h.startswith(("#", "http://", "https://")) for h in hrefs), "no javascript: links"
    assert text(root.find(".//title")) == TITLE

    shown = text(root)
    assert "\"><script>document.title='pwned'</script>" in shown, "the value shows, as text"
    assert "javascript:document.title='pwned'" in shown
    assert "'\"\\x00\\x07\\x1b[31m\\x0b" in shown, "control characters are shown, escaped"
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f]", html)
    assert "v" * 10240 not in html and "(10,240 characters)" in shown, "a 10 KB value is clipped"
    assert "u" * 10240 not in shown, "a long URL is clipped where it shows (its link keeps it whole)"
    csp = next(m for m in root.iter("meta") if m.get("http-equiv") == "Content-Security-Policy")
    assert csp.get("content") == "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html.split("<body>")[0]), "nothing loaded"


def screenshot_and_dom(report: Path, tmp_path: Path) -> tuple[Path, str]:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium package is not installed (.ci/run installs it)")
    common = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ]
    shot = tmp_path / "shot.png"
    subprocess.run(
        [*common, f"--user-data-dir={tmp_path / 'profile-1'}", f"--screenshot={shot}", "--window-size=1280,2000",
         report.as_uri()],
        capture_output=True, timeout=120, check=True,
    )
    dom = subprocess.run(
        [*common, f"--user-data-dir={tmp_path / 'profile-2'}", "--dump-dom", report.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    return shot, dom


def test_a_browser_shows_the_report_and_runs_nothing(tmp_path):
    from PIL import Image

    report = tmp_path / "report.html"
    context, findings = audited([*broken_site(), *hostile_site()[1:]])
    write_outputs(context, findings, report=str(report))
    shot, dom = screenshot_and_dom(report, tmp_path)

    with Image.open(shot) as image:
        assert image.size == (1280, 2000)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, "text, tables and colours, not a blank page"
    white = max(count for count, colour in colours if colour == (255, 255, 255))
    assert white < 0.97 * 1280 * 2000

    root = parse(dom)
    assert text(root.find(".//title")) == TITLE, "no payload ran (it would set the title to 'pwned')"
    assert "\"><script>document.title='pwned'</script>" in text(root.find(".//body"))
    assert not [e for e in root.iter() if isinstance(e.tag, str) and e.tag.rsplit("}", 1)[-1] == "script"]


# --- fixes ------------------------------------------------------------------------------------


def test_fix_corrects_codes_adds_members_replaces_redirects_drops_broken_keeps_one_x_default():
    context, _ = audited(broken_site())
    fix = fix_for(cluster_fixes(context), f"{E}/en/")
    assert fix.cluster == context.cluster_of[f"{E}/en/"]
    assert [(m.hreflang, m.url) for m in fix.members] == [
        ("de", f"{E}/de/"),
        ("en", f"{E}/en/"),
        ("en-GB", f"{E}/uk/"),  # written en-UK on /en/
        ("fr", f"{E}/fr/"),  # /en/ names /fr, which redirects here
        ("x-default", f"{E}/"),  # /uk/ names two; most pages name /
    ]
    assert [(r.url, r.by) for r in fix.replaced] == [(f"{E}/fr", f"{E}/fr/")]
    assert [(d.url, d.reason) for d in fix.dropped] == [(f"{E}/es/", "answers 404 Not Found")]
    assert [(c.kind, c.chosen) for c in fix.conflicts] == [("x-default", f"{E}/")]

    head = html5lib.parse(f"<head>{fix.html}</head>", namespaceHTMLElements=False).find("head")
    links = [(link.get("rel"), link.get("hreflang"), link.get("href")) for link in head]
    assert links == [("alternate", m.hreflang, m.url) for m in fix.members], "/fr/ was missing /de/: now listed"

    urlset = etree.fromstring(
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="{XHTML_NS}">'
        f"{fix.sitemap_xml}</urlset>"
    )
    locs = [url.findtext("{http://www.sitemaps.org/schemas/sitemap/0.9}loc") for url in urlset]
    assert locs == sorted({m.url for m in fix.members})
    for url in urlset:
        assert [(x.get("hreflang"), x.get("href")) for x in url.iter(f"{{{XHTML_NS}}}link")] == [
            (m.hreflang, m.url) for m in fix.members
        ]


def test_fix_language_is_the_majority_value_and_a_conflict_is_flagged():
    facts = [
        page(f"{E}/a/", ann("pt-BR", f"{E}/a/"), ann("pt-PT", f"{E}/b/"), ann("es", f"{E}/c/")),
        page(f"{E}/b/", ann("pt-PT", f"{E}/b/"), ann("pt-BR", f"{E}/a/"), ann("es", f"{E}/c/")),
        page(f"{E}/c/", ann("es", f"{E}/c/"), ann("pt-BR", f"{E}/b/"), ann("pt-PT", f"{E}/a/")),
        page(f"{E}/d/", ann("xx", f"{E}/d/"), ann("es", f"{E}/c/")),
    ]
    fix = fix_for(cluster_fixes(audited(facts)[0]), f"{E}/a/")
    assert [(m.hreflang, m.url) for m in fix.members] == [("es", f"{E}/c/"), ("pt-BR", f"{E}/a/"), ("pt-PT", f"{E}/b/")]
    assert [(c.kind, c.subject, c.votes, c.chosen) for c in fix.conflicts] == [
        ("language", f"{E}/a/", (("pt-BR", 2), ("pt-PT", 1)), "pt-BR"),
        ("language", f"{E}/b/", (("pt-PT", 2), ("pt-BR", 1)), "pt-PT"),
    ]
    assert [(d.url, d.reason) for d in fix.dropped] == [
        (f"{E}/d/", "no page gives it a valid hreflang value (`xx` cannot be corrected)")
    ]


def test_annotations_search_engines_ignore_entirely_still_get_a_fix():
    facts = [
        page(f"{E}/fr/", ann("fr_FR", f"{E}/fr/"), ann("de_DE", f"{E}/de/")),
        page(f"{E}/de/", ann("fr_FR", f"{E}/fr/"), ann("de_DE", f"{E}/de/")),
    ]
    context, findings = audited(facts)
    assert context.clusters == {}, "search engines see no cluster"
    fix = fix_for(cluster_fixes(context), f"{E}/fr/")
    assert [(m.hreflang, m.url) for m in fix.members] == [("de-DE", f"{E}/de/"), ("fr-FR", f"{E}/fr/")]
    root = parse(render_report(context, findings))
    assert by_id(root, f"fix-{fix.cluster}") is not None


def test_fixes_jsonl_is_one_object_per_cluster(tmp_path):
    context, _ = audited([*broken_site(), *cluster({"en": f"{E}/b/en", "it": f"{E}/b/it"})])
    fixes = cluster_fixes(context)
    path = tmp_path / "out" / "fixes.jsonl"
    write_fixes_jsonl(path, fixes)
    assert [p.name for p in path.parent.iterdir()] == ["fixes.jsonl"], "written in place, no temporary left"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["cluster"] for r in records] == sorted(context.clusters)
    for record in records:
        assert list(record) == ["cluster", "members", "html", "sitemap_xml", "dropped", "replaced", "conflicts"]
        assert all(set(member) == {"url", "hreflang"} for member in record["members"])
        assert record["html"].count("<link ") == len(record["members"])
    assert {"cluster": context.cluster_of[f"{E}/b/en"], "members": [
        {"url": f"{E}/b/en", "hreflang": "en"}, {"url": f"{E}/b/it", "hreflang": "it"}
    ]}.items() <= next(r for r in records if r["cluster"] == context.cluster_of[f"{E}/b/en"]).items()


# --- a real crawl -----------------------------------------------------------------------------


def test_crawl_writes_report_and_fixes_and_the_offline_audit_writes_the_same(demo, tmp_path):  # noqa: F811
    report, fixes, table, facts = (tmp_path / n for n in ("report.html", "fixes.jsonl", "f.csv", "facts.jsonl"))
    run = scrapy(
        "crawl", "hreflang", "-a", f"start={demo.url('/')}", "-O", str(table), "-O", f"{facts}:facts",
        "-s", f"QIVRORA_REPORT={report}", "-s", f"QIVRORA_FIXES={fixes}", *FAST,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    html = report.read_text(encoding="utf-8")
    checks = {row["check"] for row in csv.DictReader(table.open(encoding="utf-8"))}
    assert checks and all(f'id="{check.lower()}"' in html for check in checks)
    records = [json.loads(line) for line in fixes.open(encoding="utf-8")]
    assert records and all(record["members"] for record in records)

    offline = tmp_path / "offline"
    rerun = scrapy(
        "hreflang-report", str(facts), "-s", f"QIVRORA_REPORT={offline / 'report.html'}",
        "-s", f"QIVRORA_FIXES={offline / 'fixes.jsonl'}",
    )
    assert rerun.returncode == 0, rerun.stderr
    assert (offline / "report.html").read_bytes() == report.read_bytes()
    assert (offline / "fixes.jsonl").read_bytes() == fixes.read_bytes()


# --- the real builds, looked at ---------------------------------------------------------------


@pytest.mark.slow  # drives Chromium
@pytest.mark.parametrize("build", ["docusaurus", "eleventy", "hugo", "mkdocs-material", "sphinx", "starlight", "vitepress"])
def test_the_report_of_each_real_build_renders_with_no_console_message_and_no_script(build, tmp_path):
    from PIL import Image

    from .test_false_green import qivrora
    from .test_real_builds import BUILDS, BUILT_FOR, MANIFEST

    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium package is not installed (.ci/run installs it)")
    start = BUILT_FOR + MANIFEST[build]["start"]
    run = qivrora(
        "check", str(BUILDS / build), start, "--base", BUILT_FOR + "/", "--report", "report.html", "-o", "f.csv",
        "-s", "QIVRORA_STATE=", cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    report = tmp_path / "report.html"
    shot = tmp_path / f"{build}.png"
    browsed = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         "--enable-logging=stderr", "--v=0", f"--screenshot={shot}", "--window-size=1280,2000", report.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    )
    assert "CONSOLE" not in browsed.stderr, "the page logs nothing: no script, nothing blocked"
    with Image.open(shot) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, "text, tables and colours, not a blank page"

    root = parse(report.read_text(encoding="utf-8"))
    assert root.find(".//main")[0].get("id") == "fix-first"
    assert not [e for e in root.iter() if isinstance(e.tag, str) and e.tag.rsplit("}", 1)[-1] == "script"]
    for article in by_id(root, "clusters").iter("article"):
        assert text(article.find("h3")).startswith(BUILT_FOR), "named by a page, not a hash"
