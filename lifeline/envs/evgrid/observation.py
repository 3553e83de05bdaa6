"""What the dispatcher sees: fixed-size arrays built from reports, never from hidden truth.

Hidden: walk-ups' patience (max wait), true free slots and queues (reports lag
``report_lag_min`` and carry noise), the realised base load (only a noisy headroom forecast),
future requests. Column names are listed below and in the README with their units.
"""

from __future__ import annotations

import numpy as np

from lifeline.core.specs import ArraySpec
from lifeline.envs.evgrid.context import Context
from lifeline.envs.evgrid.types import CHARGING, DRIVING, EVGridState

CLOCK_COLUMNS = ("minutes_elapsed", "minutes_left", "hour_of_day", "tod_price_multiplier",
                 "renewable_share", "tick_min", "decisions_left", "pending_evs")
EV_COLUMNS = ("present", "persona", "plugged_in", "soc", "kwh_needed", "max_kw", "origin_node",
              "waited_min", "urgency", "minutes_to_departure", "site_station_plus1",
              "range_km", "times_deferred")
STATION_COLUMNS = ("zone", "rated_kw", "slots", "reported_free", "reported_queue",
                   "report_age_min", "price_inr_per_kwh", "our_charging", "our_en_route",
                   "out_of_service", "our_load_kw")
ZONE_COLUMNS = ("limit_kw", "last_load_kw", "our_last_load_kw", "derate", "trip_minutes_left",
                "shifted_this_tick", "ambient_c", "top_oil_c", "hot_spot_c", "outside_ev_kw")
"""v3: ``limit_kw`` is the transformer rating; the thermal state (IEC 60076-7) and the load of
EVs outside our fleet were added."""
HIGH = 1.0e5


def observation_spec(ctx: Context) -> dict[str, ArraySpec]:
    f = "float32"
    F = ctx.p.forecast_ticks
    return {
        "clock": ArraySpec((len(CLOCK_COLUMNS),), f, 0.0, HIGH, "; ".join(CLOCK_COLUMNS)),
        "evs": ArraySpec((ctx.K, len(EV_COLUMNS)), f, 0.0, HIGH, "; ".join(EV_COLUMNS)),
        "travel": ArraySpec((ctx.K, ctx.S), f, 0.0, HIGH,
                            "minutes from each visible EV to each station (0: empty slot)"),
        "stations": ArraySpec((ctx.S, len(STATION_COLUMNS)), f, 0.0, HIGH,
                              "; ".join(STATION_COLUMNS)),
        "zones": ArraySpec((ctx.Z, len(ZONE_COLUMNS)), f, 0.0, HIGH, "; ".join(ZONE_COLUMNS)),
        "headroom_forecast": ArraySpec((ctx.Z, F), f, -HIGH, HIGH,
                                       "forecast limit minus non-EV load for the next ticks, kW"),
    }


def observe(s: EVGridState, ctx: Context) -> dict[str, np.ndarray]:
    p = ctx.p
    k = min(s.tick, ctx.T)
    t = s.t
    n_pending = int(np.count_nonzero(s.ev_status == 1))
    hour = ctx.hours[k] % 24.0
    clock = np.array([t, max(p.horizon_min - t, 0.0), hour, ctx.price[k].min() / p.base_price_inr,
                      ctx.renewable[k], p.tick_min, p.actions_per_tick - s.tick_actions,
                      n_pending], dtype=np.float32)
    evs = np.zeros((ctx.K, len(EV_COLUMNS)), np.float32)
    travel = np.zeros((ctx.K, ctx.S), np.float32)
    vis = s.visible
    present = vis >= 0
    if present.any():
        ids = vis[present]
        rows = evs[present]
        waited = t - s.ev_arrive[ids]
        dwell = s.ev_dwell[ids]
        rows[:, 0] = 1.0
        rows[:, 1] = s.ev_persona[ids]
        rows[:, 2] = dwell
        rows[:, 3] = s.ev_soc[ids]
        rows[:, 4] = s.ev_need[ids] + s.ev_drain[ids] - s.ev_delivered[ids]
        rows[:, 5] = s.ev_max_kw[ids]
        rows[:, 6] = s.ev_origin[ids]
        rows[:, 7] = np.maximum(waited, 0.0)
        rows[:, 8] = s.ev_weight[ids] * (1.0 + np.maximum(waited, 0.0) / 30.0)
        rows[:, 9] = np.where(dwell, np.maximum(s.ev_depart[ids] - t, 0.0), 0.0)
        rows[:, 10] = s.ev_site[ids] + 1
        rows[:, 11] = np.maximum(s.ev_soc[ids] * s.ev_cap[ids] - 0.5, 0.0) / p.kwh_per_km
        rows[:, 12] = s.ev_defers[ids]
        evs[present] = rows
        travel[present] = ctx.travel[k, s.ev_origin[ids]]
    stations = np.empty((ctx.S, len(STATION_COLUMNS)), np.float32)
    stations[:, 0] = ctx.st_zone
    stations[:, 1] = ctx.st_kw
    stations[:, 2] = ctx.st_slots
    stations[:, 3] = s.rep_free
    stations[:, 4] = s.rep_queue
    stations[:, 5] = p.report_lag_min
    stations[:, 6] = ctx.price[k]
    stations[:, 7] = s.st_charging
    stations[:, 8] = s.st_enroute
    stations[:, 9] = ctx.outage[k]
    ch = np.flatnonzero(s.ev_status == CHARGING)
    load = np.zeros(ctx.S)
    if ch.size:
        np.add.at(load, s.ev_station[ch], s.ev_power[ch])
    stations[:, 10] = load
    zones = np.empty((ctx.Z, len(ZONE_COLUMNS)), np.float32)
    zones[:, 0] = ctx.zone_cap
    zones[:, 1] = s.last_load
    zones[:, 2] = s.ev_load
    zones[:, 3] = s.derate
    zones[:, 4] = np.maximum(s.trip_until - t, 0.0)
    zones[:, 5] = s.shift_tick == s.tick
    zones[:, 6] = ctx.ambient[k]
    zones[:, 7] = s.top_oil
    zones[:, 8] = s.top_oil + s.hs_rise
    zones[:, 9] = s.out_load
    return {"clock": clock, "evs": evs, "travel": travel, "stations": stations, "zones": zones,
            "headroom_forecast": s.forecast.astype(np.float32)}


__all__ = ["CLOCK_COLUMNS", "DRIVING", "EV_COLUMNS", "STATION_COLUMNS", "ZONE_COLUMNS",
           "observation_spec", "observe"]
