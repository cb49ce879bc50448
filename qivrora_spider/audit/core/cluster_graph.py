"""One cluster as a networkx ``DiGraph``: the graph the cluster checks ask their questions of.

The site's compact index (``AuditContext.graph``: interned URLs, shared value sets, clusters as its
weakly connected components) holds every annotation of the site; a networkx graph of a million pages
would not fit beside the facts. So the audit builds one small ``DiGraph`` per cluster from the index,
runs every cluster check on it, and drops it: memory is bounded by the largest cluster.

The graph is the cluster as search engines count it:

* nodes are the cluster's members; ``listers`` are those whose annotations count (it answers 200,
  or its status is unknown, and it may stand: not noindex, not canonical elsewhere). Search
  engines ignore the others' annotations, so no page is asked to return them;
* an edge ``u -> v`` is an annotation of ``u`` naming ``v`` (usable ones, all sources merged). The
  values ``u`` gives ``v`` stay in the index (``declared``, the index's own mappings, not copied
  into per-edge attribute dicts, which would cost more than the graph);
* a page that names a variant of its own URL instead of itself (HL110's defect) has that variant
  read as its self-loop, so one wrong href is one finding, not a cascade of missing return links.
"""

from __future__ import annotations

from typing import Iterable, Iterator

import networkx as nx

from ...extract.urls import variant_key
from .context import AuditContext
from .site_index import Declared
from .statuses import is_lister, may_stand

_NONE: Declared = {}


def self_variants(ctx: AuditContext, url: str) -> list[str]:
    """URLs `url` annotates that are variants of its own URL (per ``urls.variant_key``)."""
    key = variant_key(url)
    return sorted(t for t in ctx.declared(url) if t != url and variant_key(t) == key)


def effective_declared(ctx: AuditContext, url: str) -> Declared:
    """What `url` declares, with a variant of its own URL read as its self-reference (HL110)."""
    declared = ctx.declared(url)
    if url in declared:
        return declared
    variants = self_variants(ctx, url)
    if not variants:
        return declared
    merged = {target: values for target, values in declared.items() if target not in variants}
    merged[url] = frozenset().union(*(declared[v] for v in variants))
    return merged


class ClusterGraph(nx.DiGraph):
    """One cluster's ``DiGraph``, with the annotations that count beside its edges."""

    def __init__(self, incoming_graph_data: object = None, **attr: object) -> None:
        super().__init__(incoming_graph_data, **attr)
        self.cluster = ""
        #: Each member whose annotations count and that annotates something, in member (sorted)
        #: order -> what it declares: target -> canonical values, a self-variant read as itself.
        self.listers: dict[str, Declared] = {}

    def counted(self, url: str) -> Declared:
        """What `url` declares where its annotations count; else nothing."""
        return self.listers.get(url, _NONE)

    def counted_edge(self, url: str, target: str) -> bool:
        """Does `url` annotate `target`, in a way search engines count?"""
        return target in self.listers.get(url, _NONE)

    def listed_by(self, target: str) -> set[str]:
        """The listers that name `target` (itself included, when it does)."""
        listers = self.listers
        return {url for url in self.pred[target] if url in listers}


def cluster_graph(ctx: AuditContext, cluster: str, members: list[str]) -> ClusterGraph:
    """The graph of one cluster of the index."""
    graph = ClusterGraph()
    graph.cluster = cluster
    graph.add_nodes_from(members)
    for url in members:
        declared = effective_declared(ctx, url)
        if declared:
            graph.add_edges_from((url, target) for target in declared)
            if is_lister(ctx, url) and may_stand(ctx, url):
                graph.listers[url] = declared
    return graph


def cluster_graphs(
    ctx: AuditContext, clusters: Iterable[tuple[str, list[str]]] | None = None
) -> Iterator[ClusterGraph]:
    """Each cluster's graph in turn (of `clusters`, a run of ``ctx.clusters``' items; all of them by
    default), in cluster order; only one is alive at a time."""
    for cluster, members in ctx.clusters.items() if clusters is None else clusters:
        yield cluster_graph(ctx, cluster, members)
