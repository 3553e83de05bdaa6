"""Static arrays derived once from a scenario's parameters (shared, read-only, per environment)."""

from __future__ import annotations

import numpy as np

from lifeline.core.graph import RoadGraph, TrafficProfile
from lifeline.envs.dispatch.params import (
    DECAY_MIN,
    RISK,
    SCENE_MIN,
    TARGET_MIN,
    TYPE_RISK,
    UNITS_NEEDED,
    URGENCY,
    DispatchParams,
)


class Context:
    """Precomputed, immutable facts about one scenario: sizes, lookup tables, the free-flow graph.

    Nothing here changes during an episode (the live road graph is in the state).
    """

    def __init__(self, p: DispatchParams) -> None:
        city = p.city
        self.p = p
        self.traffic = TrafficProfile(p.traffic)
        self.n_nodes = city.n_nodes
        self.n_fleet = len(city.unit_home)
        self.U = self.n_fleet + city.aid_slots
        self.K = p.visible_calls
        self.P = len(city.posts)
        self.H = len(city.hospitals)
        self.Z = len(city.zone_names)
        self.posts = np.asarray(city.posts, np.int64)
        self.hosp_node = np.asarray(city.hospitals, np.int64)
        self.zone_of = np.asarray(city.zone_of, np.int64)
        demand = np.asarray(city.demand, dtype=float)
        zd = np.zeros((self.Z, self.n_nodes))
        zd[self.zone_of, np.arange(self.n_nodes)] = demand
        self.zone_demand = zd / zd.sum(axis=1, keepdims=True)
        """(Z, N) demand share of each node within its zone (rows sum to 1)."""
        self.demand = demand / demand.sum()
        self.target = np.asarray(TARGET_MIN)
        self.scene = np.asarray(SCENE_MIN)
        self.needed = np.asarray(UNITS_NEEDED, np.int64)
        self.urgency = np.asarray(URGENCY)
        self.decay = np.asarray(DECAY_MIN)
        self.risk = np.asarray(RISK)[None, :] * np.asarray(TYPE_RISK)[:, None]
        """(type, severity) death risk of an untreated non-arrest patient."""
        self.free_graph = RoadGraph(city.n_nodes, city.edges)
        """The road network with no incidents (for reference plans and heuristics' defaults)."""
        self.arange_K = np.arange(self.K)
        hosp = np.zeros((self.H, 4), dtype=np.float32)
        hosp[:, 0] = self.hosp_node
        hosp[:, 3] = np.asarray(city.hospital_beds)
        self.hospital_columns = hosp
        """Static columns of the ``hospitals`` observation (node, EMS beds)."""
        self.arange_H = np.arange(self.H)
