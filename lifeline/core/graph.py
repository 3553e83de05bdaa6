"""Road graphs with travel minutes: shortest paths, positions along edges, traffic.

:class:`RoadGraph` is a small, picklable, *mutable* weighted undirected graph meant to live inside
an environment's ``State`` (so that incidents that slow or remove roads are part of the episode,
not of the environment object). Edge weights are free-flow travel minutes. All-pairs shortest
paths come from :func:`scipy.sparse.csgraph.shortest_path` and are recomputed eagerly whenever the
network changes, so lookups during a step are plain array indexing.

Movement model shared by the environments that use it: a vehicle follows the shortest path to its
destination at a speed scaled by one traffic multiplier fixed when the trip starts
(:class:`TrafficProfile`); a trip may begin with a *lead-in* (minutes until it reaches its first
node: a dispatch delay, or the rest of the edge it is on). :meth:`RoadGraph.locate` answers where
such a trip is at any time, so trips can be re-planned mid-edge (a vehicle always finishes the
edge it is on — no U-turns on a road segment).

Imports numpy and scipy only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, shortest_path


@dataclass(frozen=True)
class TrafficProfile:
    """Piecewise-constant time-of-day travel-time multipliers.

    ``periods`` are ``(start_hour, multiplier)`` pairs sorted by start hour; each lasts until the
    next start, and the last one wraps around midnight to the first.
    """

    periods: tuple[tuple[float, float], ...] = ((7.0, 1.2), (10.0, 1.0), (16.0, 1.5), (19.0, 0.8))

    def multiplier(self, hour_of_day: float) -> float:
        """Travel-time multiplier at ``hour_of_day`` (hours, any real; taken modulo 24)."""
        h = hour_of_day % 24.0
        current = self.periods[-1][1]  # before the first start: still the last (overnight) period
        for start, mult in self.periods:
            if h >= start:
                current = mult
        return current


@dataclass(frozen=True)
class EdgePosition:
    """Where a moving vehicle is: on the way to node ``next_node``, ``remaining`` minutes away.

    ``prev_node`` is the node it last passed (equal to ``next_node`` when it has not left yet).
    """

    prev_node: int
    next_node: int
    remaining: float


class RoadGraph:
    """Undirected road network with travel minutes, all-pairs shortest paths and incidents.

    Attributes (read-only for callers):
        base: ``(n, n)`` free-flow edge minutes, ``inf`` where there is no road.
        factor: ``(n, n)`` slow-down multiplier per edge (1.0 = normal; accidents raise it).
        removed: ``(n, n)`` bool, True for roads taken out (a collapsed bridge).
        weight: ``(n, n)`` current edge minutes (``base * factor``; ``inf`` if absent/removed).
        dist: ``(n, n)`` current shortest-path minutes between every pair of nodes.
        pred: ``(n, n)`` scipy predecessor matrix (``pred[i, j]`` = node before ``j`` on i→j).
        version: incremented on every network change (lets callers cache derived data).
    """

    # Declared here so that every checker run types them the same way (mypy inferred ``object``
    # for them on some fresh runs, from the scipy results assigned in ``recompute``).
    n: int
    base: np.ndarray
    factor: np.ndarray
    removed: np.ndarray
    weight: np.ndarray
    dist: np.ndarray
    pred: np.ndarray
    version: int

    def __init__(self, n_nodes: int, edges: Sequence[tuple[int, int, float]]) -> None:
        if n_nodes <= 0:
            raise ValueError("a road graph needs at least one node")
        self.n = int(n_nodes)
        self.base = np.full((self.n, self.n), np.inf)
        for u, v, w in edges:
            if not (0 <= u < self.n and 0 <= v < self.n) or u == v or w <= 0:
                raise ValueError(f"bad edge ({u}, {v}, {w})")
            self.base[u, v] = self.base[v, u] = float(w)
        self.factor = np.ones((self.n, self.n))
        self.removed = np.zeros((self.n, self.n), dtype=bool)
        self.weight = self.base.copy()
        self.dist = np.zeros((self.n, self.n))
        self.pred = np.zeros((self.n, self.n), dtype=np.int32)
        self.version = 0
        self.recompute()

    # ----- network changes ----------------------------------------------------------------
    def recompute(self) -> None:
        """Refresh ``weight``, ``dist`` and ``pred`` after a change (called by the mutators)."""
        w = self.base * self.factor
        w[self.removed] = np.inf
        self.weight = w
        finite = np.where(np.isfinite(w), w, 0.0)
        dist, pred = shortest_path(csr_matrix(finite), method="D", directed=False,
                                   return_predecessors=True)
        self.dist = dist
        self.pred = pred.astype(np.int32)
        self.version += 1

    def has_edge(self, u: int, v: int) -> bool:
        """True if a (not removed) road joins ``u`` and ``v``."""
        return bool(np.isfinite(self.weight[u, v]))

    def edges(self) -> list[tuple[int, int, float]]:
        """Current roads as ``(u, v, minutes)`` with ``u < v``, in index order."""
        iu, iv = np.nonzero(np.triu(np.isfinite(self.weight)))
        return [(int(a), int(b), float(self.weight[a, b])) for a, b in zip(iu, iv, strict=True)]

    def slow_edge(self, u: int, v: int, factor: float) -> None:
        """Multiply the travel time of road ``u``–``v`` by ``factor`` (≥ 1 for an accident)."""
        self._check_edge(u, v)
        self.factor[u, v] = self.factor[v, u] = float(factor)
        self.recompute()

    def restore_edge(self, u: int, v: int) -> None:
        """Undo slow-downs and removal of road ``u``–``v``."""
        self._check_edge(u, v)
        self.factor[u, v] = self.factor[v, u] = 1.0
        self.removed[u, v] = self.removed[v, u] = False
        self.recompute()

    def remove_edge(self, u: int, v: int) -> None:
        """Take road ``u``–``v`` out of the network (e.g. a bridge collapse)."""
        self._check_edge(u, v)
        self.removed[u, v] = self.removed[v, u] = True
        self.recompute()

    def stays_connected_without(self, u: int, v: int) -> bool:
        """Would the network remain connected if road ``u``–``v`` were removed?"""
        w = np.isfinite(self.weight)
        w[u, v] = w[v, u] = False
        n_comp, _ = connected_components(csr_matrix(w.astype(np.int8)), directed=False)
        return bool(n_comp == 1)

    def _check_edge(self, u: int, v: int) -> None:
        if not np.isfinite(self.base[u, v]):
            raise ValueError(f"no road between {u} and {v}")

    # ----- routing --------------------------------------------------------------------------
    def next_hop(self, node: int, dest: int) -> int:
        """First node after ``node`` on a shortest path to ``dest`` (``dest`` itself if adjacent).

        The graph is undirected, so the predecessor of ``node`` on the path *from* ``dest`` is the
        next hop toward ``dest``; following it repeatedly walks one consistent shortest-path tree.
        """
        return int(self.pred[dest, node])

    def path(self, source: int, dest: int) -> list[int]:
        """Node sequence of a shortest path ``source → dest`` (``[source]`` when equal)."""
        if not np.isfinite(self.dist[source, dest]):
            raise ValueError(f"node {dest} is unreachable from {source}")
        nodes = [source]
        while nodes[-1] != dest:
            nodes.append(self.next_hop(nodes[-1], dest))
        return nodes

    def locate(self, start: int, dest: int, lead: float, elapsed: float,
               multiplier: float) -> EdgePosition:
        """Position of a trip ``elapsed`` minutes after it started.

        The trip first spends ``lead`` minutes reaching node ``start`` and then follows the
        shortest path ``start → dest`` with edge minutes scaled by ``multiplier``.
        """
        if elapsed < lead:
            return EdgePosition(start, start, lead - elapsed)
        t = lead
        node = start
        while node != dest:
            nxt = self.next_hop(node, dest)
            t += self.weight[node, nxt] * multiplier
            if t > elapsed:
                return EdgePosition(node, nxt, t - elapsed)
            node = nxt
        return EdgePosition(dest, dest, 0.0)

    def travel_minutes(self, source: int, dest: int, multiplier: float = 1.0) -> float:
        """Shortest travel time between two nodes under a traffic multiplier."""
        return float(self.dist[source, dest] * multiplier)


__all__ = ["EdgePosition", "RoadGraph", "TrafficProfile"]
