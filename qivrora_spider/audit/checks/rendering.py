"""HL7xx: the page as served against the page as a browser rendered it (``-a render=1``).

Google reads hreflang from the rendered page, after its rendering queue; Bing, Yandex, Baidu and most
tools read the HTML as served. When the two differ the site sends two clusters. With rendering on the
graph follows the rendered page (``extract.rendered``), so the other checks judge what Google indexes;
these checks say where the served HTML, which the other search engines read, says something else.

Only the facts are read: a page's annotations with ``source="rendered"`` (written by a script) and
``Page.served_only`` (served annotations rendering removed or changed), so an exported crawl gives
the same findings through ``hreflang-report``.
"""

from __future__ import annotations

from typing import Iterator

from ...extract.hreflang_values import canonical_hreflang
from ...facts import Annotation, Page
from ..core.context import AuditContext
from ..core.registry import Hit, check

#: How many differences a message spells out before it counts the rest.
MAX_LISTED = 3


def _value(annotation: Annotation) -> str:
    """The value compared across the two readings: canonical where valid, else as written (lower case)."""
    return canonical_hreflang(annotation.hreflang) or annotation.hreflang.strip().lower()


def _served_values(page: Page) -> set[str]:
    return {_value(a) for a in page.annotations if a.source == "html"} | {_value(a) for a in page.served_only}


def _listed(items: list[str]) -> str:
    text = "; ".join(items[:MAX_LISTED])
    if len(items) > MAX_LISTED:
        text += f"; and {len(items) - MAX_LISTED} more"
    return text


def _rendered_pages(ctx: AuditContext) -> Iterator[Page]:
    for url in sorted(ctx.store.pages):
        page = ctx.store.pages[url]
        if page.rendered or page.render_error:
            yield page


@check(
    "HL701",
    "annotations-only-after-rendering",
    "warning",
    why="""
A script adds hreflang annotations that the HTML as served does not carry (a single-page application,
React Helmet, Vue Meta, a tag manager). Google reads them after rendering, which may come days after
the crawl; Bing, Yandex, Baidu and other crawlers that do not run scripts never see them, so for them
the page has no alternates (or fewer), and its return links are missing. Judged with `-a render=1` only;
the graph then follows the rendered page, so these annotations count for the other checks.
""",
    example="""
`https://example.com/de/` is served with no `<link rel="alternate" hreflang>`; after its scripts run
the `<head>` holds five of them.
""",
    fix="""
Put the annotations in the HTML the server sends (server-side rendering or prerendering of the
`<head>`), or in the HTTP `Link` header or the sitemap, which no script is needed to read.
""",
    failing="""
<head>
  <script>
    document.head.insertAdjacentHTML("beforeend",
      '<link rel="alternate" hreflang="de" href="https://example.com/de/">');
  </script>
</head>
""",
    fixed="""
<head>
<link rel="alternate" hreflang="de" href="https://example.com/de/">
</head>
""",
    since="0.2.0",
)
def annotations_only_after_rendering(ctx: AuditContext) -> Iterator[Hit]:
    for page in _rendered_pages(ctx):
        if not page.rendered:
            continue
        served = _served_values(page)
        added = [a for a in page.annotations if a.source == "rendered" and _value(a) not in served]
        if not added:
            continue
        listed = _listed([f"`{a.hreflang}` {a.url or a.href}" for a in added])
        many = "annotation" if len(added) == 1 else "annotations"
        yield Hit(
            page.url,
            f"Rendering adds {len(added)} hreflang {many} that the HTML as served does not carry ({listed}): "
            "search engines that do not run scripts do not see them; put them in the served HTML, the "
            "Link header or the sitemap.",
            target=added[0].url or "",
            hreflang=added[0].hreflang,
            source="rendered",
        )


@check(
    "HL702",
    "rendering-changes-annotations",
    "error",
    why="""
The HTML as served carries hreflang annotations and a script changes them: a value then maps to another
URL, or annotations are removed. Search engines that read the served HTML (Bing, Yandex, Baidu) and
Google, which reads the rendered page, then see two different clusters, and each finds return links
missing that the other finds. Judged with `-a render=1` only; the graph follows the rendered page.
""",
    example="""
`https://example.com/en/` is served with `hreflang="de" href="https://example.com/de/"`; after its
scripts run, the `<head>` says `hreflang="de" href="https://example.com/de-de/"`, or has no `de` at all.
""",
    fix="""
Make the scripts leave the annotations alone, or have the server send the annotations the scripts
would write: one list of alternates, in the served HTML.
""",
    failing="""
<head>
<link rel="alternate" hreflang="de" href="https://example.com/de/">
  <script>
    document.querySelector('link[hreflang="de"]').href = "https://example.com/de-de/";
  </script>
</head>
""",
    fixed="""
<head>
<link rel="alternate" hreflang="de" href="https://example.com/de/">
</head>
""",
    since="0.2.0",
)
def rendering_changes_annotations(ctx: AuditContext) -> Iterator[Hit]:
    for page in _rendered_pages(ctx):
        if not page.rendered or not page.served_only:
            continue
        after: dict[str, list[Annotation]] = {}
        for annotation in page.annotations:
            if annotation.source in ("html", "rendered"):
                after.setdefault(_value(annotation), []).append(annotation)
        said = []
        for annotation in page.served_only:
            now = after.get(_value(annotation), [])
            served = annotation.url or annotation.href
            if now:
                became = " and ".join(dict.fromkeys(a.url or a.href for a in now))
                said.append(f"`{annotation.hreflang}` is {served} as served but {became} after rendering")
            else:
                said.append(f"`{annotation.hreflang}` {served} is removed by rendering")
        first = page.served_only[0]
        yield Hit(
            page.url,
            f"Rendering changes the hreflang annotations of the HTML as served ({_listed(said)}): search "
            "engines that do not run scripts read the served ones, Google the rendered ones; make both say "
            "the same.",
            target=first.url or "",
            hreflang=first.hreflang,
            source="rendered",
        )


@check(
    "HL703",
    "render-failed",
    "notice",
    why="""
The page could not be rendered: it did not load or could not be read within the render timeout
(`QIVRORA_RENDER_TIMEOUT`; a script that never yields, a page that never finishes loading), the
browser page crashed, or a script navigated away from it. What a rendering search engine reads is then
unknown, so the annotations of the HTML as served are used for every other check. Judged with
`-a render=1` only.
""",
    example="""
`https://example.com/fr/` runs a script that loops forever; or its script sets `location.href` to
`https://example.com/fr/home`, so the browser never shows this URL's own page.
""",
    fix="""
Make the page load within a few seconds without depending on slow third-party scripts; a page that
sends visitors elsewhere should answer with an HTTP redirect (301) instead of a script.
""",
    failing="""
<script>location.href = "https://example.com/fr/home";</script>
""",
    fixed="""
HTTP/1.1 301 Moved Permanently
Location: https://example.com/fr/home
""",
    precedence="""
The served annotations are used for the page, so the graph checks still judge it.
""",
    since="0.2.0",
)
def render_failed(ctx: AuditContext) -> Iterator[Hit]:
    for page in _rendered_pages(ctx):
        if page.render_error:
            yield Hit(
                page.url,
                f"This page could not be rendered ({page.render_error}): its rendered annotations are "
                "unknown, so those of the HTML as served are used.",
                source="crawl",
            )
