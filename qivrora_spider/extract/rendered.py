"""A page as served and as a browser rendered it, made one ``Page`` fact. Pure: no Scrapy, no browser.

With ``-a render=1`` the graph follows the rendered page, which is what Google indexes: its
annotations, canonicals, ``<html lang>``, meta robots, links and main text replace those of the HTML
as served. What the served HTML said is not lost: an annotation both carry keeps the served one (its source line,
``source="html"``); one only the rendered page carries is ``source="rendered"``; and the served ones
rendering removed or changed are kept in ``Page.served_only``. HL701 and HL702 read exactly that, so
``hreflang-report`` on exported facts finds what the crawl found.
"""

from __future__ import annotations

import dataclasses

from ..facts import Annotation, IgnoredAnnotation, Page

#: An annotation's identity across the two readings: what it says and where it stands.
AnnotationKey = tuple[str, str, bool]


def _key(annotation: Annotation) -> AnnotationKey:
    return (annotation.hreflang, annotation.href, annotation.in_head)


def _ignored_key(ignored: IgnoredAnnotation) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    return (ignored.tag, ignored.reason, tuple(sorted(ignored.attrs.items())))


def with_rendering(served: Page, rendered: Page) -> Page:
    """``served`` (built from the response body) with the HTML facts of ``rendered`` (built from the
    DOM the browser serialised, with the same headers).

    The main text read for HL503 is the rendered one: a page whose script writes its text is judged on
    what a reader sees. The HTTP ``Link`` header and the content fingerprint stay those of the response: the browser
    cannot change the first, and the second must not change with every render (SM010, SM011).
    """
    header = [a for a in served.annotations if a.source == "header"]
    unmatched: dict[AnnotationKey, list[Annotation]] = {}
    for annotation in served.annotations:
        if annotation.source == "html":
            unmatched.setdefault(_key(annotation), []).append(annotation)
    html: list[Annotation] = []
    for annotation in rendered.annotations:
        if annotation.source != "html":
            continue
        same = unmatched.get(_key(annotation))
        if same:
            html.append(same.pop(0))  # as served: its line in the source the site owner edits
        else:
            # Written by a script: no line of the served HTML holds it.
            html.append(dataclasses.replace(annotation, source="rendered", line=None, head_closed_line=None))
    served_only = [a for group in unmatched.values() for a in group]
    served_only.sort(key=lambda a: a.line or 0)

    ignored_served: dict[tuple[str, str, tuple[tuple[str, str], ...]], list[IgnoredAnnotation]] = {}
    for item in served.ignored:
        if item.source == "html":
            ignored_served.setdefault(_ignored_key(item), []).append(item)
    ignored = [i for i in served.ignored if i.source != "html"]
    for item in rendered.ignored:
        if item.source != "html":
            continue
        same = ignored_served.get(_ignored_key(item))
        ignored.append(same.pop(0) if same else dataclasses.replace(item, source="rendered", line=None))

    # Built with the same response headers, the rendered page already holds the header's canonicals,
    # Content-Language and X-Robots-Tag, and the DOM's where the header says nothing.
    return dataclasses.replace(
        served,
        annotations=header + html,
        ignored=ignored,
        canonicals=list(rendered.canonicals),
        html_lang=rendered.html_lang,
        content_language=rendered.content_language,
        noindex=rendered.noindex,
        links=list(rendered.links),
        text_blocks=rendered.text_blocks,
        rendered=True,
        render_error=None,
        served_only=served_only,
    )


def failed_rendering(served: Page, error: str) -> Page:
    """The served page, with why it could not be rendered (HL703): its served annotations stand."""
    return dataclasses.replace(served, rendered=False, render_error=error)
