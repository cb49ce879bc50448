"""Each cluster is a networkx DiGraph, built from the index and dropped after its checks ran."""

from __future__ import annotations

import gc
import weakref

import networkx as nx

from qivrora_spider.audit import AuditContext
from qivrora_spider.audit.core.cluster_graph import cluster_graphs
from qivrora_spider.audit.core.fact_store import FactStore

from .builders import CrawlInfo, ann, cluster, page

EN, DE, FR = "https://ex.com/en/", "https://ex.com/de/", "https://ex.com/fr/"
OTHER_EN, OTHER_DE = "https://ex.com/en/b/", "https://ex.com/de/b/"


def context(*facts: object) -> AuditContext:
    store = FactStore()
    store.add_all([CrawlInfo(started="2026-11-29T12:00:00+00:00"), *facts])
    return AuditContext(store)


def test_one_digraph_per_cluster_with_the_annotations_as_edges():
    ctx = context(*cluster({"en": EN, "de": DE}), *cluster({"en": OTHER_EN, "de": OTHER_DE}))
    graphs = list(cluster_graphs(ctx))
    assert [(g.cluster, sorted(g)) for g in graphs] == [(cid, members) for cid, members in ctx.clusters.items()]
    first = next(g for g in graphs if EN in g)
    assert isinstance(first, nx.DiGraph)
    assert set(first.edges) == {(EN, EN), (EN, DE), (DE, EN), (DE, DE)}
    assert first.listers[EN] is ctx.declared(EN), "the index's mapping, not a copy"


def test_a_self_variant_is_a_self_loop_and_a_noindex_page_does_not_count():
    ctx = context(
        page(EN, ann("en", "http://ex.com/en/"), ann("de", DE), ann("fr", FR)),
        page(DE, ann("en", EN), ann("de", DE)),
        page(FR, ann("en", EN), ann("fr", FR), noindex="meta"),
    )
    (graph,) = cluster_graphs(ctx)
    assert graph.has_edge(EN, EN) and not graph.has_edge(EN, "http://ex.com/en/")
    assert list(graph.listers) == [DE, EN]
    assert graph.listed_by(EN) == {DE, EN} and graph.listed_by(FR) == {EN}
    assert graph.counted_edge(EN, DE) and not graph.counted_edge(FR, EN)


def test_cluster_graphs_keep_no_earlier_graph_alive():
    ctx = context(*cluster({"en": EN, "de": DE}), *cluster({"en": OTHER_EN, "de": OTHER_DE}))
    seen: list[weakref.ref] = []
    graphs = cluster_graphs(ctx)
    for graph in graphs:
        seen.append(weakref.ref(graph))
        del graph
        gc.collect()
        assert all(ref() is None for ref in seen[:-1]), "an earlier cluster's graph outlived its turn"
    assert len(seen) == 2
