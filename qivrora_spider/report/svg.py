"""A picture of one cluster: where its pages sit and which links are returned. Numbers only.

The template draws it as inline SVG; this module decides the layout (the pages on a circle, in sorted
order, so the picture is deterministic) and the geometry, so the template holds no arithmetic.
An annotation that is returned is one solid line; one that is not is a dashed red arrow from the
page that makes it, which is what a site owner looks for first.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit

import networkx as nx

from ..audit import AuditContext
from .status import url_status

#: Most pages drawn; past it the circle gets too dense to read.
MAX_NODES = 30
#: Up to this many nodes labels stay horizontal; more are written along the radius, so they never overlap.
HORIZONTAL_LABELS = 8
NODE_RADIUS = 7
LABEL_WIDTH = 190  # room for a label of LABEL_CHARS characters at 12px
LABEL_CHARS = 26
MARGIN = 24


@dataclass(frozen=True, slots=True)
class Node:
    url: str
    label: str
    status: str  # as the report says it: "200", "404", "dns"
    kind: str  # status kind, for the colour
    x: float
    y: float
    label_x: float
    label_y: float
    anchor: str  # "start", "end" or "middle"
    rotate: float  # degrees, about (label_x, label_y)


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    returned: bool  # both pages annotate each other: one undirected line
    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True, slots=True)
class Picture:
    width: float
    height: float
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    left_out: int  # members not drawn
    node_radius: int = NODE_RADIUS


def short_url(url: str, *, with_host: bool) -> str:
    """What a label shows: the path and query, with the host where a cluster spans several."""
    parts = urlsplit(url)
    rest = parts.path + (f"?{parts.query}" if parts.query else "")
    return parts.netloc + rest if with_host else rest or "/"


def spans_hosts(urls: list[str]) -> bool:
    return len({urlsplit(url).netloc for url in urls}) > 1


def cluster_picture(context: AuditContext, members: list[str]) -> Picture:
    """`members` sorted; past MAX_NODES the pages with missing return links are drawn first."""
    links = context.graph.edges_among(members)
    one_way = {url for u, v in links if u != v and not context.graph.has_edge(v, u) for url in (u, v)}
    shown = sorted(sorted(members, key=lambda url: (url not in one_way, url))[:MAX_NODES])
    graph = nx.DiGraph()
    graph.add_nodes_from(shown)
    graph.add_edges_from((u, v) for u, v in context.graph.edges_among(shown) if u != v)

    radius = min(200, 70 + 9 * len(shown))
    horizontal = len(shown) <= HORIZONTAL_LABELS
    width = 2 * (radius + LABEL_WIDTH + MARGIN)
    height = 2 * (radius + MARGIN) + 20 if horizontal else width
    centre = (width / 2, height / 2)
    at = _on_a_circle(shown, radius, centre)

    with_host = spans_hosts(members)
    nodes = tuple(_node(context, url, at[url], centre, horizontal, with_host) for url in shown)
    edges = [
        Edge(u, v, graph.has_edge(v, u), *_between(at[u], at[v], arrow=not graph.has_edge(v, u)))
        for u, v in sorted(graph.edges)
        if not (v < u and graph.has_edge(v, u))  # a returned pair is one line, from the smaller URL
    ]
    edges.sort(key=lambda edge: not edge.returned)  # missing returns last: drawn on top, never hidden
    return Picture(width, height, nodes, tuple(edges), len(members) - len(shown))


def _on_a_circle(urls: list[str], radius: float, centre: tuple[float, float]) -> dict[str, tuple[float, float]]:
    """Evenly spaced from angle 0, in the given order; a single page sits in the centre."""
    if len(urls) == 1:
        return {urls[0]: centre}
    step = 2 * math.pi / len(urls)
    return {
        url: (round(centre[0] + radius * math.cos(i * step), 1), round(centre[1] + radius * math.sin(i * step), 1))
        for i, url in enumerate(urls)
    }


def _node(
    context: AuditContext,
    url: str,
    at: tuple[float, float],
    centre: tuple[float, float],
    horizontal: bool,
    with_host: bool,
) -> Node:
    status = url_status(context, url)
    language = _language(context, url)
    text = short_url(url, with_host=with_host)
    if len(text) > LABEL_CHARS:
        text = text[: LABEL_CHARS - 1] + "…"
    label = f"{language} {text}" if language else text
    angle = math.atan2(at[1] - centre[1], at[0] - centre[0])
    gap = NODE_RADIUS + 6
    label_x = round(at[0] + gap * math.cos(angle), 1)
    label_y = round(at[1] + gap * math.sin(angle), 1)
    left = math.cos(angle) < -1e-6
    if horizontal:
        anchor = "end" if left else "start" if math.cos(angle) > 1e-6 else "middle"
        rotate = 0.0
        if anchor == "middle":  # above or below the node: clear of it
            label_y = round(label_y + math.copysign(6, math.sin(angle)), 1)
    else:
        # Along the radius, turned over on the left so no label reads upside down.
        anchor = "end" if left else "start"
        rotate = round(math.degrees(angle) + (180 if left else 0), 1)
    return Node(url, label, status.text, status.kind, at[0], at[1], label_x, label_y, anchor, rotate)


def _language(context: AuditContext, url: str) -> str:
    """The value most pages give `url` (x-default only where nothing else), for its label."""
    said: Counter[str] = Counter()
    for source in context.graph.predecessors(url):
        said.update(context.declared(source)[url])
    ranked = sorted(said.items(), key=lambda item: (item[0] == "x-default", -item[1], item[0]))
    return ranked[0][0] if ranked else ""


def _between(
    start: tuple[float, float], end: tuple[float, float], *, arrow: bool
) -> tuple[float, float, float, float]:
    """The line from node to node, stopping at their rims (an arrowhead needs a little more room)."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = math.hypot(dx, dy) or 1.0
    head = NODE_RADIUS + (3 if arrow else 0)
    return (
        round(start[0] + dx * NODE_RADIUS / length, 1),
        round(start[1] + dy * NODE_RADIUS / length, 1),
        round(end[0] - dx * head / length, 1),
        round(end[1] - dy * head / length, 1),
    )
