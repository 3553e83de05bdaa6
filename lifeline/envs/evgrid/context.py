"""Static facts derived once from a scenario's parameters: the road graph over the stations'
coordinates, distance tables, station and zone arrays, and per-tick price/renewable/load curves.

Nothing here changes during an episode; everything that does lives in the state.
"""

from __future__ import annotations

import math

import numpy as np

from lifeline.core.graph import RoadGraph, TrafficProfile
from lifeline.envs.evgrid.params import (
    AIRPORT,
    CHARGER_KW,
    N_NODES,
    N_STATIONS,
    OUTSIDE_SESSION_KW,
    STATION_ZONE,
    STATIONS,
    TYPE_PRICE,
    ZONES,
    EVGridParams,
)

MIN_PER_KM = 5.0
"""Urban driving pace, minutes per road km (spec: trip minutes ≈ 2 + 5 × km)."""
FIXED_TRIP_MIN = 2.0
"""Minutes added to every trip (leaving, parking, plugging in)."""
DETOUR = 1.0
"""Road km per straight-line km of an edge (paths along the graph already detour)."""
NEIGHBOURS = 4
"""Each node is joined by road to its nearest neighbours (plus a spanning tree: connected)."""


def haversine_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance between two (lat, lng) points, km."""
    lat1, lng1, lat2, lng2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = (math.sin((lat2 - lat1) / 2) ** 2
         + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2)
    return 2 * 6371.0 * math.asin(math.sqrt(h))


def road_edges() -> list[tuple[int, int, float]]:
    """Roads (u, v, free-flow minutes) over the 25 stations and the airport."""
    coords = [(s[2], s[3]) for s in STATIONS] + [(AIRPORT[2], AIRPORT[3])]
    n = len(coords)
    km = np.array([[haversine_km(coords[i], coords[j]) for j in range(n)] for i in range(n)])
    pairs: set[tuple[int, int]] = set()
    for i in range(n):
        for j in np.argsort(km[i], kind="stable")[1:NEIGHBOURS + 1]:
            pairs.add((min(i, int(j)), max(i, int(j))))
    # Prim's spanning tree guarantees connectivity whatever the neighbour lists give.
    in_tree = [0]
    while len(in_tree) < n:
        best = min((km[i, j], i, j) for i in in_tree for j in range(n) if j not in in_tree)
        pairs.add((min(best[1], best[2]), max(best[1], best[2])))
        in_tree.append(best[2])
    return [(u, v, float(km[u, v] * DETOUR * MIN_PER_KM)) for u, v in sorted(pairs)]


def tod_multiplier(hour: float, p: EVGridParams) -> float:
    """Time-of-day price multiplier (solar 09-16, evening peak 18-22, night 22-06)."""
    h = hour % 24.0
    if 9.0 <= h < 16.0:
        return p.solar_mult
    if 18.0 <= h < 22.0:
        return p.peak_mult
    if h >= 22.0 or h < 6.0:
        return p.night_mult
    return 1.0


def renewable_share(hour: float, p: EVGridParams) -> float:
    """Share of grid energy from renewables: wind/hydro floor plus a solar bell 06-19 h."""
    h = hour % 24.0
    solar = math.sin(math.pi * (h - 6.0) / 13.0) if 6.0 < h < 19.0 else 0.0
    return 0.2 + 0.5 * p.renewable_scale * solar


def ambient_c(hour: float, p: EVGridParams) -> float:
    """Ambient temperature, °C: a daily cosine peaking at 15 h (minimum 03 h)."""
    return p.ambient_mean_c + p.ambient_amp_c * math.cos(2.0 * math.pi * (hour - 15.0) / 24.0)


def walkup_profile(hour: float) -> float:
    """Relative walk-up intensity at ``hour`` (mean 1 over the day): peaks ~09 h and ~19 h."""
    h = hour % 24.0

    def bump(c: float, w: float) -> float:
        d = min(abs(h - c), 24.0 - abs(h - c))
        return math.exp(-((d / w) ** 2))

    return (0.3 + 1.0 * bump(9.0, 1.8) + 1.1 * bump(19.0, 2.2) + 0.4 * bump(14.0, 2.5)) / 0.8547


def occupancy_mean(hour: float) -> float:
    """Expected share of public slots used by EVs outside our fleet, per unit of
    ``background_occupancy`` (the generator adds AR(1) noise around it)."""
    return walkup_profile(hour) ** 0.7


EVENING_PEAK = 0.25
"""Evening bump of the non-EV load, share of the limit (v0: 0.33, which left 8% headroom at
20 h in every scenario, so the evening grid was saturated whatever the agent did; v1 leaves
~20%, ~12% in the heatwave: the fleet's own load decides whether a feeder overloads)."""


def base_fraction(hour: float) -> float:
    """Non-EV load as a fraction of the transformer limit: morning and evening peaks."""
    h = hour % 24.0

    def bump(centre: float, width: float) -> float:
        d = min(abs(h - centre), 24.0 - abs(h - centre))
        return math.exp(-((d / width) ** 2))

    return 0.55 + 0.17 * bump(10.0, 2.5) + EVENING_PEAK * bump(20.0, 2.2)


class Context:
    """Precomputed, immutable facts about one scenario (shared by every episode)."""

    def __init__(self, p: EVGridParams) -> None:
        self.p = p
        self.S, self.Z, self.N = N_STATIONS, len(ZONES), N_NODES
        self.K = p.visible_evs
        self.R = len(p.rates)
        self.D = len(p.defer_options_min)
        self.T = p.ticks
        self.graph = RoadGraph(N_NODES, road_edges())
        self.traffic = TrafficProfile()
        self.km = self.graph.dist / MIN_PER_KM
        """(N, N) road km between nodes (shortest free-flow path)."""
        jam_node, self.jam_from, self.jam_to, factor = p.jam
        self.jam_graph: RoadGraph | None = None
        if jam_node >= 0:
            self.jam_graph = RoadGraph(N_NODES, road_edges())
            for u, v, _ in self.jam_graph.edges():
                if jam_node in (u, v):
                    self.jam_graph.factor[u, v] = self.jam_graph.factor[v, u] = factor
            self.jam_graph.recompute()
        self.st_kw = np.array([CHARGER_KW[s[4]] for s in STATIONS])
        self.st_slots = np.array([s[5] for s in STATIONS], np.int64)
        self.st_zone = np.asarray(STATION_ZONE, np.int64)
        self.st_type = np.array([("slow", "fast", "ultra").index(s[4]) for s in STATIONS])
        self.names = [s[1] for s in STATIONS]
        self.net_cap = np.asarray(p.zone_cap_kw, dtype=float)
        """(Z,) v2's zone 'limit', kW: the network the non-EV base-load curve is drawn against
        (v3.1: not derated — ``cap_scale`` derates the transformer, not its households' load)."""
        self.zone_cap = self.net_cap * np.asarray(p.cap_scale) / p.network_share
        """(Z,) transformer rating of each zone, kW (v3): per-unit load K = total load / this."""
        self.st_out_kw = np.array([OUTSIDE_SESSION_KW[s[4]] for s in STATIONS])
        """(S,) kW an outside EV draws from an occupied slot at each station."""
        hours = p.start_hour + np.arange(self.T + 1) * p.tick_min / 60.0
        self.hours = hours
        self.ambient = np.array([ambient_c(h, p) for h in hours])
        """(T+1,) ambient temperature at each tick, °C."""
        """(T+1,) hour of day at the start of each tick (not wrapped)."""
        tod = np.array([tod_multiplier(h, p) for h in hours])
        self.price = p.base_price_inr * tod[:, None] * np.array(
            [TYPE_PRICE[s[4]] for s in STATIONS])[None, :]
        """(T+1, S) public price at each station, ₹/kWh."""
        self.renewable = np.array([renewable_share(h, p) for h in hours])
        """(T+1,) renewable share of grid energy."""
        frac = np.array([base_fraction(h) for h in hours]) * p.base_scale
        self.base_mean = np.minimum(frac, 0.92)[:, None] * self.net_cap[None, :]
        """(T+1, Z) expected non-EV base load, kW (capped at 92% of the network limit)."""
        occ = np.clip(p.background_occupancy * np.array([occupancy_mean(h) for h in hours]),
                      0.0, 0.95)
        per_station = occ[:, None] * self.st_slots[None, :] * self.st_out_kw[None, :]
        self.out_mean = np.stack([per_station[:, self.st_zone == z].sum(axis=1)
                                  for z in range(self.Z)], axis=1)
        """(T+1, Z) expected load of EVs outside our fleet, kW (the public curve)."""
        mult = np.array([self.traffic.multiplier(h) for h in hours]) * p.traffic_scale
        self.traffic_mult = mult
        jam = np.zeros(self.T + 1, bool)
        if self.jam_graph is not None:
            hod = hours % 24.0
            jam = (hod >= self.jam_from) & (hod < self.jam_to)
        self.jam_active = jam
        out = np.zeros((self.T + 1, self.S), bool)
        for st, a, b in p.outages:
            out[:, st] |= (hours >= a + (24.0 if a < p.start_hour else 0.0)) & (
                hours < b + (24.0 if b < p.start_hour else 0.0))
        self.outage = out
        """(T+1, S) True where a station is out of service (announced)."""
        self.any_outage: np.ndarray = np.any(out, axis=1)
        """(T+1,) some station is out of service at the tick."""
        self.open_routes = np.repeat(~out, self.R, axis=1)
        """(T+1, S·R) ``route`` encodings whose station is in service (rates repeated)."""
        self.closing = out & ~np.vstack([out[:1], out[:-1]])
        """(T+1, S) stations that go out of service at the tick (row 0 unused)."""
        self.any_closing: np.ndarray = np.any(self.closing, axis=1)
        self.lag_ticks = round(p.report_lag_min / p.tick_min)
        """Report lag in ticks."""
        self.ahead = np.minimum(np.arange(self.T + 1)[:, None] + np.arange(p.forecast_ticks),
                                self.T)
        """(T+1, F) the ticks the headroom forecast made at each tick covers."""
        self.p_range = (float(self.price.min()), float(self.price.max()))
        self.r_range = (float(self.renewable[:-1].min()), float(self.renewable[:-1].max()))
        ren = self.renewable[:-1]
        self.solar_share = float(np.mean(ren > ren.min() + 0.05)) if ren.size else 0.0
        """Share of the horizon's ticks with solar supply (renewable share > its minimum
        + 0.05): the renewable term is only active where there is supply to time against."""
        self.st_node = np.arange(self.S)
        free = FIXED_TRIP_MIN + self.graph.dist[:, :self.S]
        travel = np.broadcast_to(free, (self.T + 1, self.N, self.S)) * mult[:, None, None]
        if self.jam_graph is not None:
            jammed = FIXED_TRIP_MIN + self.jam_graph.dist[:, :self.S]
            travel = np.where(jam[:, None, None], jammed * mult[:, None, None], travel)
        self.travel = np.ascontiguousarray(travel)
        """(T+1, N, S) minutes to drive from each node to each station when leaving at a tick."""

