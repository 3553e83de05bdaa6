"""Seeded generation of one episode's world: the EV stream, background occupancy, base load.

Everything random about the world is drawn here at reset from the state's named streams, so the
realised stream never depends on what the agent does (paired seeds compare policies fairly):

* walk-ups: a non-homogeneous Poisson process (morning and evening peaks, scenario surges), each
  with a persona, battery, state of charge, hidden patience, hidden stay limit at the charger
  and an origin node;
* plugged-in EVs (workplace, depot, overnight fleet) with arrival, departure and kWh needed
  (dwell windows after ACN-Data: workplace arrivals ~08 h, stays ~6 h in v2);
* public slots used by EVs outside our fleet and the zones' non-EV load (both with noise);
* random feeder faults (storm scenario only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lifeline.envs.evgrid.context import Context, walkup_profile
from lifeline.envs.evgrid.params import (
    BATTERY_KWH,
    DWELL_WINDOW_H,
    EAST_DEPOTS,
    MAX_KW,
    MAX_STAY_MIN,
    MAX_WAIT_MIN,
    N_WALKUP_PERSONAS,
    WEIGHT,
)

WORKPLACE_SITES = (1, 5, 11, 4, 0, 10, 8, 24)
DEPOT_SITES = (7, 19, 21, 2, 12)
OVERNIGHT_SITES = (6, 14, 13, 17, 18, 23, 3, 9)
DWELL_TARGET_SOC = 0.9
RESERVE_KWH = 0.5
"""Energy a driver keeps in reserve: stations needing more than (energy − reserve) are out of
range."""


@dataclass
class EVStream:
    """The realised EVs of one episode, one row each, sorted by request time."""

    arrive: np.ndarray
    persona: np.ndarray
    dwell: np.ndarray
    cap: np.ndarray
    soc: np.ndarray
    need: np.ndarray
    max_kw: np.ndarray
    origin: np.ndarray
    site: np.ndarray
    maxwait: np.ndarray
    maxstay: np.ndarray
    depart: np.ndarray
    weight: np.ndarray


def reach_of(ctx: Context, origin: np.ndarray, energy_kwh: np.ndarray) -> np.ndarray:
    """(M, S) stations each EV can reach from ``origin`` with ``energy_kwh`` left."""
    need = ctx.km[origin][:, :ctx.S] * ctx.p.kwh_per_km
    return need <= (energy_kwh - RESERVE_KWH)[:, None]


def _walkups(ctx: Context, rng: np.random.Generator) -> dict[str, np.ndarray]:
    p = ctx.p
    tick_h = p.tick_min / 60.0
    a, b, m = p.demand_spike
    times: list[float] = []
    for k in range(ctx.T):
        h = ctx.hours[k]
        hod = h % 24.0
        spike = m if (a <= hod < b or a <= hod + 24.0 < b) else 1.0
        lam = p.walkups_per_hour * walkup_profile(h) * spike * tick_h
        n = int(rng.poisson(lam))
        times.extend((k + np.sort(rng.random(n))) * p.tick_min)
    n = len(times)
    mix = np.asarray(p.persona_mix) / sum(p.persona_mix)
    persona = rng.choice(N_WALKUP_PERSONAS, size=n, p=mix)
    w = np.ones(ctx.N)
    w[-1] = 0.3
    for node, extra in p.origin_boost:
        w[node] += extra
    origin = rng.choice(ctx.N, size=n, p=w / w.sum())
    origin = np.where(persona == 4, rng.integers(0, ctx.S, n), origin)  # emergencies: anywhere
    cap = np.asarray(BATTERY_KWH)[persona]
    soc = rng.uniform(*p.soc_walkup, size=n)
    nearest_km = ctx.km[origin][:, :ctx.S].min(axis=1)
    soc = np.maximum(soc, (nearest_km * p.kwh_per_km + RESERVE_KWH + 0.5) / cap)
    lo = np.asarray([MAX_WAIT_MIN[i][0] for i in range(N_WALKUP_PERSONAS)])[persona]
    hi = np.asarray([MAX_WAIT_MIN[i][1] for i in range(N_WALKUP_PERSONAS)])[persona]
    maxwait = rng.uniform(lo, hi)
    s_lo = np.asarray([MAX_STAY_MIN[i][0] for i in range(N_WALKUP_PERSONAS)])[persona]
    s_hi = np.asarray([MAX_STAY_MIN[i][1] for i in range(N_WALKUP_PERSONAS)])[persona]
    return {"arrive": np.asarray(times, float), "persona": persona, "cap": cap, "soc": soc,
            "need": np.maximum(p.target_soc - soc, 0.05) * cap,
            "origin": origin, "site": np.full(n, -1), "maxwait": maxwait,
            "maxstay": rng.uniform(s_lo, s_hi) * p.stay_scale, "depart": np.full(n, np.inf)}


def _dwellers(ctx: Context, rng: np.random.Generator) -> dict[str, np.ndarray]:
    p = ctx.p
    rows: list[tuple[float, int, float, float, int, float]] = []
    horizon = p.horizon_min
    sites = (WORKPLACE_SITES, DEPOT_SITES,
             EAST_DEPOTS if p.dwell_counts[0] == 0 and p.dwell_counts[1] == 0 else OVERNIGHT_SITES)
    for j, count in enumerate(p.dwell_counts):
        pid = 5 + j
        mean_a, sd_a, mean_s, sd_s = DWELL_WINDOW_H[j]
        for _ in range(int(rng.poisson(count))):
            arr_h = float(rng.normal(mean_a, sd_a))
            stay_h = max(1.5, float(rng.normal(mean_s, sd_s)))
            soc0 = float(rng.uniform(*p.dwell_soc[j]))
            site0 = int(sites[j][int(rng.integers(len(sites[j])))])
            for day in (-1.0, 0.0):
                a_min = ((arr_h - p.start_hour) % 24.0 + 24.0 * day) * 60.0
                d_min = a_min + stay_h * 60.0
                if p.tick_min * 4 < d_min <= horizon and a_min < horizon - p.tick_min * 4:
                    rows.append((max(a_min, 0.0), pid, soc0, d_min, site0, d_min))
    rows.sort()
    n = len(rows)
    persona = np.asarray([r[1] for r in rows], np.int64)
    cap = np.asarray(BATTERY_KWH)[persona] if n else np.zeros(0)
    soc = np.asarray([r[2] for r in rows])
    arrive = np.asarray([r[0] for r in rows])
    depart = np.asarray([r[3] for r in rows])
    window_h = (depart - arrive) / 60.0
    feasible = 0.8 * np.asarray(MAX_KW)[persona] * window_h if n else np.zeros(0)
    need = np.minimum((DWELL_TARGET_SOC - soc) * cap, feasible)
    return {"arrive": arrive, "persona": persona, "cap": cap, "soc": soc, "need": need,
            "origin": np.asarray([r[4] for r in rows], np.int64),
            "site": np.asarray([r[4] for r in rows], np.int64),
            "maxwait": np.full(n, np.inf), "maxstay": np.full(n, np.inf), "depart": depart}


def generate_evs(ctx: Context, rng_walk: np.random.Generator,
                 rng_dwell: np.random.Generator) -> EVStream:
    """The episode's EVs (walk-ups and plugged-in), sorted by request time then kind."""
    w, d = _walkups(ctx, rng_walk), _dwellers(ctx, rng_dwell)
    cat = {k: np.concatenate([np.asarray(w[k]), np.asarray(d[k])]) for k in w}
    dwell = np.concatenate([np.zeros(len(w["arrive"]), bool), np.ones(len(d["arrive"]), bool)])
    order = np.lexsort((dwell, cat["arrive"]))
    persona = cat["persona"][order].astype(np.int64)
    return EVStream(arrive=cat["arrive"][order], persona=persona, dwell=dwell[order],
                    cap=cat["cap"][order], soc=cat["soc"][order], need=cat["need"][order],
                    max_kw=np.asarray(MAX_KW)[persona], origin=cat["origin"][order].astype(
                        np.int64), site=cat["site"][order].astype(np.int64),
                    maxwait=cat["maxwait"][order], maxstay=cat["maxstay"][order],
                    depart=cat["depart"][order],
                    weight=np.asarray(WEIGHT)[persona])


def _ar1(rng: np.random.Generator, shape: tuple[int, int], sd: float, rho: float = 0.9
         ) -> np.ndarray:
    noise = rng.normal(0.0, sd * math.sqrt(1 - rho * rho), shape)
    out = np.empty(shape)
    out[0] = rng.normal(0.0, sd, shape[1])
    for k in range(1, shape[0]):
        out[k] = rho * out[k - 1] + noise[k]
    return out


def generate_background(ctx: Context, rng: np.random.Generator
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(busy (T+1, S) slots used by others, base (T+1, Z) non-EV load kW, faults (T+1, Z))``."""
    p = ctx.p
    prof = np.array([walkup_profile(h) for h in ctx.hours])
    occ = np.clip(p.background_occupancy * prof[:, None] ** 0.7
                  + _ar1(rng, (ctx.T + 1, ctx.S), 0.08), 0.0, 0.95)
    if p.background_occupancy <= 0.0:
        occ[:] = 0.0  # switched off (the bound's relaxed world, ablations): no outside EVs
    busy = np.minimum(np.round(occ * ctx.st_slots[None, :]).astype(np.int64),
                      ctx.st_slots[None, :])
    base = ctx.base_mean * (1.0 + _ar1(rng, (ctx.T + 1, ctx.Z), 0.03))
    base = np.minimum(base, 0.93 * ctx.net_cap[None, :])
    faults = rng.random((ctx.T + 1, ctx.Z)) < p.fault_rate_per_h * p.tick_min / 60.0
    return busy, base, faults


def outside_load(ctx: Context, busy: np.ndarray) -> np.ndarray:
    """(T+1, Z) kW drawn by EVs outside our fleet at the public slots they occupy (v3)."""
    per_station = busy * ctx.st_out_kw[None, :]
    return np.stack([per_station[:, ctx.st_zone == z].sum(axis=1) for z in range(ctx.Z)],
                    axis=1)
