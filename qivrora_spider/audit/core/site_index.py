"""The hreflang graph, compact enough for millions of annotations.

Nodes are URLs; an edge ``url -> target`` holds the canonical hreflang values ``url`` gives
``target``. A site has few distinct sets of values (one per language, a few with x-default), so each
edge holds one shared frozenset: an edge costs a dict entry, where networkx's attribute dicts cost
about 600 bytes (bench/RESULTS.md).
"""

from __future__ import annotations

from collections import deque
from functools import cached_property
from typing import Iterable, Iterator, Mapping

#: What a URL says of others: target URL -> the canonical hreflang values it gives the target.
Declared = Mapping[str, frozenset[str]]

_NO_VALUES: frozenset[str] = frozenset()
#: What a node that only receives edges declares; shared, never written to.
_NO_TARGETS: Declared = {}


class HreflangGraph:
    def __init__(self) -> None:
        self.succ: dict[str, Declared] = {}
        self._grown: dict[tuple[frozenset[str], str], frozenset[str]] = {}

    @classmethod
    def of(
        cls,
        urls: Iterable[str],
        declared: Mapping[str, dict[str, frozenset[str]]],
        grown: dict[tuple[frozenset[str], str], frozenset[str]],
    ) -> HreflangGraph:
        """The graph of what each of `urls` declares (``AnnotationIndex.declared``), its nodes in the
        order ``add_edge`` would give them, the URLs taken in turn: each target where it first comes,
        a URL after its first target."""
        graph = cls()
        graph._grown = grown
        succ = graph.succ
        for url in urls:
            out = declared.get(url)
            if not out:
                continue
            targets = iter(out)
            succ.setdefault(next(targets), _NO_TARGETS)
            succ[url] = out
            for target in targets:
                succ.setdefault(target, _NO_TARGETS)
        return graph

    def add_edge(self, url: str, target: str, value: str | None) -> None:
        """`value`: a canonical hreflang value; the report's graph of what the site meant also adds
        None, for a value with no known correction."""
        succ = self.succ
        succ.setdefault(target, _NO_TARGETS)
        out = succ.get(url)
        if out is None or out is _NO_TARGETS:
            out = succ[url] = {}
        values = out.get(target, _NO_VALUES)  # type: ignore[attr-defined]
        key = (values, value)
        grown = self._grown.get(key)
        if grown is None:
            grown = self._grown[key] = values | {value}
        out[target] = grown  # type: ignore[index]

    def __contains__(self, url: object) -> bool:
        return url in self.succ

    @property
    def nodes(self) -> Iterator[str]:
        return iter(self.succ)

    def declared(self, url: str) -> Declared:
        """Target URL -> the values `url` gives it; empty for a URL that annotates nothing."""
        return self.succ.get(url, _NO_TARGETS)

    def out_degree(self, url: str) -> int:
        return len(self.succ.get(url, _NO_TARGETS))

    def has_edge(self, url: str, target: str) -> bool:
        return target in self.succ.get(url, _NO_TARGETS)

    def edges_among(self, urls: Iterable[str]) -> list[tuple[str, str]]:
        """The edges between `urls` (a cluster, or the part of it a picture shows)."""
        ordered = list(urls)
        members = set(ordered)
        return [(url, target) for url in ordered for target in self.declared(url) if target in members]

    @cached_property
    def _pred(self) -> dict[str, list[str]]:
        pred: dict[str, list[str]] = {}
        for url, out in self.succ.items():
            for target in out:
                known = pred.get(target)
                if known is None:
                    pred[target] = [url]
                else:
                    known.append(url)
        return pred

    def predecessors(self, url: str) -> list[str]:
        return self._pred.get(url, [])

    def weakly_connected_components(self) -> Iterator[set[str]]:
        succ, pred = self.succ, self._pred
        seen: set[str] = set()
        for start in succ:
            if start in seen:
                continue
            seen.add(start)
            component = {start}
            queue = deque((start,))
            while queue:
                url = queue.popleft()
                for other in (*succ[url], *pred.get(url, ())):
                    if other not in seen:
                        seen.add(other)
                        component.add(other)
                        queue.append(other)
            yield component
