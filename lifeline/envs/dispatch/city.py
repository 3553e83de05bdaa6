"""The city model: ``CityParams`` (road graph, zones, demand, stations, hospitals, fleet) and the
seeded generator of the 240-node ``metro`` city.

Its own module (v4) so that ``params`` (which names the cities of its scenarios) and
``generator`` (which draws each episode's calls on a city) both import it and not each other.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CityParams:
    """A city: road graph, zones, demand, stations, hospitals and the fleet."""

    name: str
    n_nodes: int
    edges: tuple[tuple[int, int, float], ...]
    """Roads ``(u, v, free-flow minutes)``."""
    zone_of: tuple[int, ...]
    """Zone index of every node."""
    zone_names: tuple[str, ...]
    demand: tuple[float, ...]
    """Relative call demand of every node (normalised when sampling)."""
    hospitals: tuple[int, ...]
    """Hospital nodes."""
    hospital_names: tuple[str, ...]
    hospital_beds: tuple[int, ...]
    """EMS beds per hospital; a hospital with none free is on divert."""
    unit_home: tuple[int, ...]
    """Home station node of every fleet unit."""
    unit_als: tuple[bool, ...]
    """True for advanced-life-support units, False for basic."""
    unit_reliability: tuple[float, ...]
    """P(no turn-out delay) per unit; otherwise departure is delayed 1–3 min."""
    posts: tuple[int, ...]
    """Nodes units may be relocated to (staging posts), in action order."""
    bridges: tuple[tuple[int, int], ...]
    """Roads a bridge-collapse event may remove (one is chosen; the graph stays connected)."""
    aid_entry: int
    """Node where mutual-aid units enter the city."""
    aid_slots: int = 2
    """Unit slots reserved for mutual-aid units (the most that can ever be requested)."""


# ----- the generated metro city ---------------------------------------------------------------
@functools.cache
def metro_city(seed: int = 2026, cols: int = 16, rows: int = 15) -> CityParams:
    """A seeded ``cols × rows`` jittered-grid city (240 nodes by default).

    12 zones (4 × 3 blocks), a river between the middle columns crossed by four bridges, slower
    roads downtown, 6 hospitals, 30 units at 20 stations, 40 staging posts, 4 mutual-aid slots.
    """
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xC17]))
    n = cols * rows
    col = np.arange(n) % cols
    row = np.arange(n) // cols
    xy = np.stack([col, row], axis=1) + rng.uniform(-0.3, 0.3, size=(n, 2))
    centre = np.array([(cols - 1) / 2, (rows - 1) / 2])
    r = np.linalg.norm(xy - centre, axis=1) / np.linalg.norm(centre)
    slowness = 1.0 + 0.8 * np.exp(-3.0 * r**2)  # minutes per km multiplier, slower downtown
    river = cols // 2 - 1  # the river runs between column `river` and `river + 1`
    bridge_rows = {1, rows // 3, 2 * rows // 3, rows - 2}

    def minutes(i: int, j: int) -> float:
        km = float(np.linalg.norm(xy[i] - xy[j]))
        return round(max(0.5, 1.5 * km * 0.5 * (slowness[i] + slowness[j])), 2)

    edges: list[tuple[int, int, float]] = []
    bridges: list[tuple[int, int]] = []
    for i in range(n):
        c, rr = int(col[i]), int(row[i])
        if c + 1 < cols and (c != river or rr in bridge_rows):
            edges.append((i, i + 1, minutes(i, i + 1)))
            if c == river:
                bridges.append((i, i + 1))
        if rr + 1 < rows:
            edges.append((i, i + cols, minutes(i, i + cols)))
        if c + 1 < cols and rr + 1 < rows and c != river and rng.random() < 0.25:
            edges.append((i, i + cols + 1, minutes(i, i + cols + 1)))
    zone = (col * 4 // cols) + 4 * (row * 3 // rows)
    demand = np.round(0.5 + 2.0 * np.exp(-2.0 * r**2) + rng.uniform(0, 0.3, n), 3)

    def node_at(fx: float, fy: float) -> int:
        return round(fy * (rows - 1)) * cols + round(fx * (cols - 1))

    hospitals = tuple(node_at(fx, fy) for fx, fy in
                      ((0.2, 0.2), (0.75, 0.2), (0.45, 0.5), (0.2, 0.8), (0.75, 0.8), (0.6, 0.55)))
    stations = sorted({node_at((i + 0.5) / 5, (j + 0.5) / 4) for i in range(5) for j in range(4)})
    homes = [stations[k % len(stations)] for k in range(30)]
    posts = sorted(set(stations) | {node_at((i + 0.5) / 5, j / 3) for i in range(5)
                                    for j in range(4)})
    return CityParams(
        name=f"metro-{seed}",
        n_nodes=n,
        edges=tuple(edges),
        zone_of=tuple(int(z) for z in zone),
        zone_names=tuple(f"zone-{z}" for z in range(12)),
        demand=tuple(float(d) for d in demand),
        hospitals=hospitals,
        hospital_names=tuple(f"Hospital {chr(65 + k)}" for k in range(len(hospitals))),
        hospital_beds=(8, 8, 10, 8, 8, 6),
        unit_home=tuple(homes),
        unit_als=tuple(k % 2 == 0 for k in range(30)),
        unit_reliability=tuple(float(x) for x in np.round(rng.uniform(0.85, 0.97, 30), 3)),
        posts=tuple(posts),
        bridges=tuple(bridges),
        aid_entry=node_at(0.0, 0.5),
        aid_slots=4,
    )
