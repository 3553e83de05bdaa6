"""EVGrid's entity hints for :func:`lifeline.faces.entities.entity_spec`.

``travel`` (EV slot x station, road minutes) is a pairwise feature: stacked into the
``ev_station`` table of one row per (EV, station) pair, and an extra ref of ``route(ev,
station)`` next to the EV's and the station's own rows, so the route scorer reads the travel
time of the pair it scores (pooled over every table it would only see a summary of them).

``derive`` (v2 of these hints, issue 31) adds what the observation-only planners compute from
the observation and the public map, tariff and persona ranges (``env.ctx``, ``params``), never
hidden state — quantities a network would otherwise have to learn to multiply out of
``log1p``-squashed columns:

* per (EV, station) pair (``ev_station``): the kWh the walk-up needs there (its need plus the
  drive), the session power there (charger x EV limit x the zone's derating), the kWh it would
  miss before the conservative end of its persona's stay range, the estimated queue wait, the
  minutes past the short end of its persona's patience, the price of the energy, whether the
  zone is near its hot-spot limit, and the travel + wait + missing-energy cost of ``greedy``'s
  station rule minus its minimum over the EV's stations (0 at the rule's station);
* per EV (extra ``evs`` columns): its slot (the planners act on slots in order), walk-up flag,
  hours of charging at full power, slack to departure over that time, and for plugged-in EVs
  the energy value (price/base − renewable share) at its site now and after each deferral;
* per zone (extra ``zones`` columns): hot-spot margin to the limit in K, and whether the zone
  is near its limit with our chargers drawing and not yet curtailed this tick.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lifeline.faces.entities import Derive, EntityHints, StackedTable

PAIR_KEYS = ("travel", "pair_need_kwh", "pair_kw", "pair_short_kwh", "pair_qwait_min",
             "pair_late_min", "pair_price_inr", "pair_hot", "pair_regret_min")
"""Arrays of the ``ev_station`` table (``travel`` is the observation's, the rest derived)."""
HOT_MARGIN_K = 5.0
"""Near-limit band of the hot-spot, K (``mpc``'s ``hot_margin_k``)."""


def derive(core: Any) -> Derive:
    """The derived arrays of one observation of ``core`` (an ``EVGridEnv``; module docstring)."""
    from lifeline.envs.evgrid.baselines import (
        E_DEPART,
        E_DWELL,
        E_MAXKW,
        E_NEED,
        E_SITE,
        E_WAITED,
        S_ENROUTE,
        S_FREE,
        S_LOAD,
        S_PRICE,
        S_QUEUE,
        SESSION_KWH,
        Z_HOT,
    )
    from lifeline.envs.evgrid.params import MAX_STAY_MIN, MAX_WAIT_MIN, WEIGHT

    ctx, p = core.ctx, core.params
    K, S, Z = ctx.K, ctx.S, ctx.Z
    st_kw = np.asarray(ctx.st_kw, float)
    st_zone = np.asarray(ctx.st_zone, np.int64)
    session = SESSION_KWH / np.minimum(st_kw, 50.0) * 60.0
    slots = np.maximum(np.asarray(ctx.st_slots, float), 1.0)
    n_persona = len(MAX_STAY_MIN)
    stay_lo = np.array([MAX_STAY_MIN[i][0] for i in range(n_persona)], float)
    stay_hi = np.array([MAX_STAY_MIN[i][1] for i in range(n_persona)], float)
    wait_lo = np.array([MAX_WAIT_MIN[i][0] for i in range(n_persona)], float)
    weight = np.asarray(WEIGHT[:n_persona], float)
    km = np.asarray(ctx.km, float)[:, :S]
    limit = float(p.hotspot_limit_c)
    dt = float(p.tick_min)
    delays = (0.0, *map(float, p.defer_options_min))
    value = np.asarray(ctx.price, float) / p.base_price_inr - np.asarray(ctx.renewable,
                                                                          float)[:, None]

    def fn(obs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        evs = np.asarray(obs["evs"], float)
        st = np.asarray(obs["stations"], float)
        zones = np.asarray(obs["zones"], float)
        clock = np.asarray(obs["clock"], float)
        travel = np.asarray(obs["travel"], float)
        present = evs[:, 0] > 0
        walk = present & (evs[:, E_DWELL] == 0)
        persona = np.clip(evs[:, 1].astype(np.int64), 0, n_persona - 1)
        origin = np.clip(evs[:, 6].astype(np.int64), 0, km.shape[0] - 1)
        derate = zones[st_zone, 3]
        kw = np.minimum(st_kw[None, :], evs[:, E_MAXKW][:, None]) * derate[None, :]
        need = evs[:, E_NEED][:, None] + km[origin] * p.kwh_per_km
        left_h = max(float(clock[1]) / 60.0, 0.0)
        stay_h = np.minimum((stay_lo + 0.25 * (stay_hi - stay_lo))[persona] / 60.0, left_h)
        short = np.maximum(need - kw * stay_h[:, None], 0.0)
        free = st[:, S_FREE] - st[:, S_ENROUTE] - st[:, S_QUEUE]
        qwait = np.where(free > 0, 0.0, (1.0 - free) * session / slots)[None, :].repeat(K, 0)
        late = np.where(qwait > 0, np.maximum(travel + qwait + evs[:, E_WAITED][:, None]
                                              - wait_lo[persona][:, None], 0.0), 0.0)
        price = st[:, S_PRICE][None, :] * np.minimum(need, kw * stay_h[:, None])
        hot_z = zones[:, Z_HOT] > limit - HOT_MARGIN_K
        hot = np.broadcast_to(hot_z[st_zone][None, :].astype(float), (K, S))
        cost = (travel + qwait + 3.0 * np.minimum(late, 10.0)
                + 5.0 * weight[persona][:, None] * short)
        reach = (km[origin] <= evs[:, 11][:, None] + 1e-6) & ~(st[:, 9] > 0)[None, :]
        best = np.where(reach, cost, np.inf).min(1, keepdims=True)
        regret = np.where(reach & np.isfinite(best), cost - best, 0.0)
        pair = {"pair_need_kwh": need, "pair_kw": kw, "pair_short_kwh": short,
                "pair_qwait_min": qwait, "pair_late_min": late, "pair_price_inr": price,
                "pair_hot": hot, "pair_regret_min": regret}
        pair = {k: np.where(walk[:, None], v, 0.0).astype(np.float32) for k, v in pair.items()}
        # per EV
        full_h = evs[:, E_NEED] / np.maximum(evs[:, E_MAXKW], 1e-6)
        slack = np.where(full_h > 0, evs[:, E_DEPART] / 60.0 / np.maximum(full_h, 1e-6), 0.0)
        tick = int(min(max(round(float(clock[0]) / dt), 0), value.shape[0] - 1))
        site = np.clip(evs[:, E_SITE].astype(np.int64) - 1, 0, S - 1)
        vals = [value[min(tick + int(d / dt), value.shape[0] - 1), site] for d in delays]
        dwell = present & (evs[:, E_DWELL] > 0)
        extra_ev = np.stack([np.arange(K) / K, walk.astype(float), full_h, np.minimum(slack, 20.0),
                             *[np.where(dwell, v, 0.0) for v in vals]], 1)
        extra_ev = np.where(present[:, None], extra_ev, 0.0)
        # per zone
        nominal = np.bincount(st_zone, st[:, S_LOAD], minlength=Z)
        margin = zones[:, Z_HOT] - limit
        shift = hot_z & (zones[:, 5] == 0) & (nominal > 0)
        extra_z = np.stack([margin, shift.astype(float)], 1)
        return {**pair,
                "evs": np.concatenate([evs, extra_ev], 1).astype(np.float32),
                "zones": np.concatenate([zones, extra_z], 1).astype(np.float32)}

    return fn


def entity_hints() -> EntityHints:
    """The ``(ev, station)`` pair table as a cross ref of ``route``, plus derived features."""
    return EntityHints(stacked={"ev_station": StackedTable(PAIR_KEYS)},
                       cross={("ev", "station"): "ev_station"}, derive=derive)
