"""Roads of ``codered``: travel times under rush hour and disruptions, and where a unit is.

Shortest paths are memoised per combination of active road disruptions; ``unit_position`` /
``eta`` place a unit mid-trip, ``nearest_hospital`` picks a destination.
"""

from __future__ import annotations

import copy

import numpy as np

from lifeline.core.graph import RoadGraph
from lifeline.envs.codered.dynamics.events import (
    ACCIDENT,
    CLOSURE,
)
from lifeline.envs.codered.params import (
    ARTERIALS,
    CAPABLE,
    HOSPITAL_NODE,
    NODES,
    ROADS,
    CodeRedParams,
)
from lifeline.envs.codered.types import (
    RETURNING,
    CodeRedState,
)

_ROAD_CACHE: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                              np.ndarray]] = {}
_ADJ: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({v for a, b, _ in ROADS for u, v in ((a, b), (b, a)) if u == n}))
    for n in range(len(NODES)))
"""Neighbours of each node in the full road network."""


def connected_without(removed: frozenset[tuple[int, int]] | set[tuple[int, int]], a: int,
                      b: int) -> bool:
    """Would the city stay connected without road ``a``–``b`` and the ``removed`` roads (pairs
    ``(low, high)``)? A search over 12 nodes: the same answer as
    :meth:`RoadGraph.stays_connected_without` without building sparse matrices."""
    cut = {(min(a, b), max(a, b))} | set(removed)
    seen = {0}
    todo = [0]
    while todo:
        u = todo.pop()
        for v in _ADJ[u]:
            if v not in seen and (min(u, v), max(u, v)) not in cut:
                seen.add(v)
                todo.append(v)
    return len(seen) == len(NODES)


_TEMPLATE: list[RoadGraph] = []


def _scratch_graph() -> RoadGraph:
    """A free-flow road graph whose ``factor``/``removed`` may be edited (``recompute`` not yet
    called): a shallow copy of one template with fresh arrays, so no shortest paths are computed
    for a graph that is about to change."""
    if not _TEMPLATE:
        _TEMPLATE.append(RoadGraph(len(NODES), list(ROADS)))
    g = copy.copy(_TEMPLATE[0])
    g.factor = np.ones_like(g.factor)
    g.removed = np.zeros_like(g.removed)
    return g


def refresh_roads(s: CodeRedState, params: CodeRedParams) -> None:
    """Recompute edge factors from the rush hour and the disruptions in force.

    Shortest paths depend only on which road disruptions are active, so they are memoised per
    combination (each state gets copies, so snapshots stay exact). A miss computes shortest
    paths once, after every factor and removal is set (connectivity only needs the topology).
    """
    roads = tuple((kind, a, b) for (_, kind, a, b, _), on in zip(s.disruptions, s.active,
                                                                    strict=True)
                  if on and kind in (ACCIDENT, CLOSURE))
    key = (params.rush_factor if s.rush else 1.0, roads)
    cached = _ROAD_CACHE.get(key)
    if cached is None:
        g = _scratch_graph()  # scratch: the state's arrays change in place
        if s.rush:
            for u, v in ARTERIALS:
                g.factor[u, v] = g.factor[v, u] = params.rush_factor
        for kind, a, b in roads:
            if kind == ACCIDENT:
                g.factor[a, b] = g.factor[b, a] = g.factor[a, b] * 3.0
        removed: set[tuple[int, int]] = set()
        for kind, a, b in roads:  # a closure that would cut the city in two is a slow-down
            if kind != CLOSURE:
                continue
            if connected_without(removed, a, b):
                g.removed[a, b] = g.removed[b, a] = True
                removed.add((min(a, b), max(a, b)))
            else:
                g.factor[a, b] = g.factor[b, a] = g.factor[a, b] * 3.0
        g.recompute()
        if len(_ROAD_CACHE) > 10000:
            _ROAD_CACHE.clear()
        cached = _ROAD_CACHE[key] = (g.factor, g.removed, g.weight, g.dist, g.pred)
    # In place (never rebinding the state's arrays), so that pickled and live states stay
    # byte-identical.
    sg = s.graph
    targets: tuple[np.ndarray, ...] = (sg.factor, sg.removed, sg.weight, sg.dist, sg.pred)
    sources: tuple[np.ndarray, ...] = tuple(cached)
    for dst, src in zip(targets, sources, strict=True):
        np.copyto(dst, src)
    sg.version += 1


def unit_position(s: CodeRedState, u: int) -> tuple[int, float]:
    """``(node, lead minutes)`` a new trip of unit ``u`` starts from."""
    un = s.units[u]
    if un.status == RETURNING:
        pos = s.graph.locate(un.node, un.dest, un.lead, s.t - un.t_start, 1.0)
        return pos.next_node, pos.remaining
    return un.node, 0.0


def eta(s: CodeRedState, u: int, node: int) -> float:
    """Minutes for unit ``u`` to reach ``node`` from where it is now."""
    origin, lead = unit_position(s, u)
    return lead + float(s.graph.dist[origin, node])


def nearest_hospital(s: CodeRedState, node: int, cond: int = -1, exclude: int = -1) -> int:
    """Nearest hospital not on diversion (capable of ``cond`` if given); any if all divert."""
    best, best_d = -1, float("inf")
    for h, hn in enumerate(HOSPITAL_NODE):
        if h == exclude or (cond >= 0 and not CAPABLE[h][cond]):
            continue
        d = float(s.graph.dist[node, hn]) + (1e4 if s.hospitals[h].divert_until > s.t else 0.0)
        if d < best_d:
            best, best_d = h, d
    return best
