"""Static arrays derived once from a scenario's parameters (shared, read-only, per environment)."""

from __future__ import annotations

import numpy as np

from lifeline.core.graph import RoadGraph
from lifeline.envs.dispatch.params import (
    DECAY_MIN,
    EVENT_KINDS,
    PRIORITY_TARGET_MIN,
    PRIORITY_WEIGHT,
    RISK,
    SCENE_MIN,
    TARGET_MIN,
    TYPE_RISK,
    UNITS_NEEDED,
    URGENCY,
    DispatchParams,
)
from lifeline.envs.dispatch.types import IDLE, STATUS_NAMES

N_STATUSES = len(STATUS_NAMES)


class SmoothTraffic:
    """v4 time-of-day travel multiplier: linear interpolation between ``(hour, multiplier)``
    anchors around the clock, rounded to ``step`` (v3 used four constant periods)."""

    def __init__(self, anchors: tuple[tuple[float, float], ...], step: float) -> None:
        pts = sorted(anchors)
        self.hours = np.asarray([h for h, _ in pts] + [pts[0][0] + 24.0])
        self.mults = np.asarray([m for _, m in pts] + [pts[0][1]])
        self.step = step

    def multiplier(self, hour_of_day: float) -> float:
        """Travel-time multiplier at ``hour_of_day`` (any real; taken modulo 24)."""
        h = hour_of_day % 24.0
        if h < self.hours[0]:
            h += 24.0
        m = float(np.interp(h, self.hours, self.mults))
        return round(round(m / self.step) * self.step, 6) if self.step > 0 else m


class Context:
    """Precomputed, immutable facts about one scenario: sizes, lookup tables, the free-flow graph.

    Nothing here changes during an episode (the live road graph is in the state).
    """

    def __init__(self, p: DispatchParams) -> None:
        city = p.city
        self.p = p
        self.traffic = SmoothTraffic(p.traffic, p.traffic_step)
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
        """Per type: v0-v3's response targets (kept for reports; v4 judges by priority)."""
        self.prio_target = np.asarray(PRIORITY_TARGET_MIN)
        """Per priority (P1, P2, P3): the response-time target, minutes (v4)."""
        self.prio_weight = np.asarray(PRIORITY_WEIGHT)
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
        # ----- lookup tables for the per-step observation and mask (a gather beats a ufunc) -----
        self.ones_K = np.ones(self.K)
        self.slot_plus1 = np.arange(1, self.K + 1)
        """Observation value of each visible call slot (1-based; 0 means no call)."""
        self.hospital_plus1 = np.append(np.arange(1, self.H + 1), 0)
        """``hospital_plus1[h]`` = h + 1 for a chosen hospital, 0 for −1 (none chosen)."""
        self.status_active = np.arange(N_STATUSES) > 0
        """Per unit status code: in service (any status but inactive)."""
        self.status_idle = (np.arange(N_STATUSES) == IDLE).astype(float)
        """Per unit status code: 1.0 for idle (weights for counting idle units per zone)."""
        self.not_post = self.posts[None, :] != np.arange(self.n_nodes)[:, None]
        """``not_post[node, p]``: post ``p`` is not at ``node`` (relocation targets of a unit)."""
        self.not_hospital = np.vstack([self.arange_H[None, :] != self.arange_H[:, None],
                                       np.ones((1, self.H), bool)])
        """``not_hospital[h, j]``: hospital ``j`` is not ``h``; row −1 (none chosen) is all True."""
        sizes = (6, len(EVENT_KINDS), 10 * self.K, 9 * self.U, 4 * self.H, 2 * self.Z)
        self.obs_offsets = tuple(int(x) for x in np.cumsum((0, *sizes)))
        """Start of clock, alerts, calls, units, hospitals, zones (and the end) in the flat
        observation buffer of the numba kernel (``kernels.observe_kernel``)."""
