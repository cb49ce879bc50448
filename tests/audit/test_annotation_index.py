"""The index of annotations is kept as facts arrive, and the audit reads it as if built after the crawl.

The reference below is the index as the audit built it in one go once the crawl was done: the
annotated pages in the store's order, then the URLs only sitemap entries annotate; per URL its page's
annotations, then its entries'; the graph's nodes in the order ``add_edge`` gives them. Whatever the
order the facts came in (entries before their pages, a failure replaced by a response, entries
dropped), the audit must see exactly that: the same maps, in the same order.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from qivrora_spider.audit.checks import sources
from qivrora_spider.audit.core.annotation_index import URL_MARKS, is_usable
from qivrora_spider.audit.core.context import AuditContext
from qivrora_spider.audit.core.fact_store import FactStore
from qivrora_spider.audit.core.site_index import HreflangGraph
from qivrora_spider.extract.hreflang_values import canonical_hreflang

from .builders import TargetStatus, ann, entry, page

E = "https://example.com"
URLS = [f"{E}/{name}/" for name in "abcdef"]
SITEMAP = f"{E}/sitemap.xml"
OTHER_SITEMAP = f"{E}/other.xml"
#: Usable and unusable ones: a valid value, x-default, an invalid value, a relative href, one in <body>.
ANNOTATIONS = st.lists(
    st.tuples(
        st.sampled_from(["en", "de", "x-default", "en-gb", "xx-invalid-"]),
        st.sampled_from([*URLS, "/a/"]),
        st.booleans(),
    ),
    max_size=4,
)


def annotations(drawn: list[tuple[str, str, bool]], source: str) -> list[Any]:
    return [ann(value, href, source, base=E, in_head=in_head) for value, href, in_head in drawn]


def reference(store: FactStore) -> tuple[dict[str, list[Any]], dict[str, list[Any]], HreflangGraph]:
    """The index built in one go from the store's facts."""
    index = {url: p.annotations for url, p in store.pages.items() if p.annotations}
    by_url: dict[str, list[Any]] = {}
    for e in store.entries:
        if e.url is not None:
            by_url.setdefault(e.url, []).extend(e.annotations)
    for url, listed in by_url.items():
        if listed:
            own = index.get(url)
            index[url] = own + listed if own else listed
    partly = {}
    for url, listed in index.items():
        usable = [a for a in listed if is_usable(a)]
        if len(usable) != len(listed):
            partly[url] = usable
    graph = HreflangGraph()
    for url, listed in index.items():
        for a in partly.get(url, listed):
            graph.add_edge(url, a.url, canonical_hreflang(a.hreflang))
    return index, partly, graph


def assert_as_built_at_the_end(store: FactStore) -> None:
    annotations_, partly, graph = reference(store)
    context = AuditContext(store)
    assert list(context.annotations.items()) == list(annotations_.items())
    assert context._partly_usable == partly
    assert [(url, dict(out)) for url, out in context.graph.succ.items()] == [
        (url, dict(out)) for url, out in graph.succ.items()
    ]
    # What each mark asks of a URL's annotations, asked as they came, is what it says of them all.
    for earns in URL_MARKS:
        assert context.marked(earns) == {
            url for url, listed in annotations_.items() if earns(listed, partly.get(url, listed))
        }


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(URLS), ANNOTATIONS), max_size=6),
    st.lists(st.tuples(st.sampled_from([*URLS, f"{E}/only-listed/"]), ANNOTATIONS), max_size=6),
    st.randoms(use_true_random=False),
    st.booleans(),
)
def test_any_arrival_order_gives_the_index_built_at_the_end(
    pages: list[tuple[str, list[tuple[str, str, bool]]]],
    entries: list[tuple[str, list[tuple[str, str, bool]]]],
    shuffle: random.Random,
    drop: bool,
) -> None:
    facts: list[Any] = []
    for url, drawn in pages:
        # A failure first, at times: the response that comes later replaces it.
        if shuffle.random() < 0.3:
            facts.append(page(url, status=None))  # type: ignore[arg-type]
        facts.append(page(url, *annotations(drawn, "html")))
    for position, (url, drawn) in enumerate(entries, 1):
        sitemap = OTHER_SITEMAP if position % 3 == 0 else SITEMAP
        facts.append(entry(sitemap, url, *annotations(drawn, "sitemap"), position=position))
    facts.append(TargetStatus(url=URLS[0], status=404))
    shuffle.shuffle(facts)
    store = FactStore()
    store.add_all(facts)
    if drop:  # the distributed auditor leaves out the entries whose sitemap's facts are missing
        store.drop_entries(lambda e: e.sitemap != OTHER_SITEMAP)
    assert_as_built_at_the_end(store)


def test_the_index_is_built_as_facts_arrive() -> None:
    """What the audit derives of each annotated URL exists before any audit: the crawl's end only
    puts it in order."""
    store = FactStore()
    store.add(entry(SITEMAP, URLS[0], ann("de", URLS[1], "sitemap")))
    store.add(page(URLS[0], ann("en", URLS[0]), ann("de", "/b/", base=E)))
    declared = store.index().declared
    assert declared == {URLS[0]: {URLS[0]: frozenset({"en"}), URLS[1]: frozenset({"de"})}}
    # The relative href is not usable: the URL's usable annotations are kept apart.
    assert [(a.source, a.hreflang) for a in store.index().partly_usable[URLS[0]]] == [("html", "en"), ("sitemap", "de")]
    context = AuditContext(store)
    assert list(context.graph.succ) == [URLS[0], URLS[1]]
    # The page's annotations come before its entry's, although the entry came first.
    assert [a.source for a in context.annotations[URLS[0]]] == ["html", "html", "sitemap"]


def test_marks_are_asked_as_the_annotations_come() -> None:
    """HL601's screen: a page whose HTML and sitemap entry disagree is marked once the entry comes."""
    store = FactStore()
    store.add(page(URLS[0], ann("en", URLS[0]), ann("de", URLS[1])))
    assert URLS[0] not in store.index().marked[sources._sources_disagree]
    store.add(entry(SITEMAP, URLS[0], ann("en", URLS[0], "sitemap"), ann("de", URLS[2], "sitemap")))
    assert store.index().marked[sources._sources_disagree] == {URLS[0]}
    assert AuditContext(store).marked(sources._sources_disagree) == {URLS[0]}


def test_an_annotated_page_replaced_is_indexed_again() -> None:
    store = FactStore()
    failed = page(URLS[0], ann("en", URLS[0]), status=None)  # type: ignore[arg-type]
    store.add(failed)
    store.add(page(URLS[0], ann("de", URLS[1])))
    assert_as_built_at_the_end(store)
    assert dict(AuditContext(store).graph.declared(URLS[0])) == {URLS[1]: frozenset({"de"})}


def test_a_page_after_its_entries_were_declared_is_indexed_again() -> None:
    """The index read (and its waiting entries declared) before the page came: the page's annotations
    still go first, its entries' are not lost."""
    store = FactStore()
    store.add(entry(SITEMAP, URLS[0], ann("de", URLS[1], "sitemap")))
    assert store.index().declared == {URLS[0]: {URLS[1]: frozenset({"de"})}}
    store.add(page(URLS[0], ann("en", URLS[0])))
    assert_as_built_at_the_end(store)
    assert [a.source for a in AuditContext(store).annotations[URLS[0]]] == ["html", "sitemap"]


def test_facts_after_an_audit_are_indexed_for_the_next() -> None:
    """A context takes the index; a crawl resumed after its audit audits again, with its new facts."""
    store = FactStore()
    store.add(page(URLS[0], ann("en", URLS[0]), ann("de", URLS[1])))
    assert URLS[1] in AuditContext(store).graph
    store.add(page(URLS[2], ann("fr", URLS[3])))
    assert_as_built_at_the_end(store)
    assert URLS[3] in AuditContext(store).graph
