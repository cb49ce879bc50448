"""The audit's compact graph answers as networkx would, at a fraction of the memory."""

from __future__ import annotations

import networkx as nx
from hypothesis import given
from hypothesis import strategies as st

from qivrora_spider.audit.core.site_index import HreflangGraph

URLS = [f"https://example.com/{name}/" for name in "abcdefgh"]
edges = st.lists(st.tuples(st.sampled_from(URLS), st.sampled_from(URLS), st.sampled_from(["en", "de", "x-default"])))


def build(found: list[tuple[str, str, str]]) -> HreflangGraph:
    graph = HreflangGraph()
    for url, target, value in found:
        graph.add_edge(url, target, value)
    return graph


@given(edges)
def test_answers_as_networkx_does(found: list[tuple[str, str, str]]) -> None:
    graph = build(found)
    reference = nx.DiGraph()
    for url, target, value in found:
        if not reference.has_edge(url, target):
            reference.add_edge(url, target, values=set())
        reference[url][target]["values"].add(value)

    assert sorted(graph.nodes) == sorted(reference.nodes)
    for url in reference.nodes:
        assert graph.out_degree(url) == reference.out_degree(url)
        assert sorted(graph.predecessors(url)) == sorted(reference.predecessors(url))
        assert {t: set(v) for t, v in graph.declared(url).items()} == {
            t: data["values"] for t, data in reference[url].items()
        }
    assert sorted(map(sorted, graph.weakly_connected_components())) == sorted(
        map(sorted, nx.weakly_connected_components(reference))
    )
    assert sorted(graph.edges_among(graph.nodes)) == sorted(reference.edges)


def test_edges_share_their_value_sets() -> None:
    graph = build([(url, target, "de") for url in URLS for target in URLS])
    assert len({id(values) for url in URLS for values in graph.declared(url).values()}) == 1


def test_a_url_that_only_receives_edges_declares_nothing() -> None:
    graph = build([(URLS[0], URLS[1], "de")])
    assert URLS[1] in graph
    assert graph.declared(URLS[1]) == {}
    assert not graph.has_edge(URLS[1], URLS[0])
    graph.add_edge(URLS[1], URLS[0], "en")  # the shared empty mapping is never written to
    assert graph.declared(URLS[2]) == {}
    assert graph.has_edge(URLS[1], URLS[0])


def test_edges_among_keeps_the_order_given() -> None:
    graph = build([(URLS[1], URLS[0], "en"), (URLS[0], URLS[1], "de"), (URLS[0], URLS[2], "fr")])
    assert graph.edges_among([URLS[0], URLS[1]]) == [(URLS[0], URLS[1]), (URLS[1], URLS[0])]
