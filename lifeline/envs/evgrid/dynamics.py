"""Transitions: applying a valid action, and advancing the clock one tick.

Within a tick the agent makes decisions (route, defer, load_shift) that take effect at once;
``advance`` then runs the tick in this order: charging energy and feeder load over the tick
(derating, shift, trips, outages), cost and renewable accounting, forecast scoring; the clock
moves; completions, walk-ups at their stay limit and departures; outage displacements;
deferrals that end; arrivals at stations; queues fill free slots (FIFO); balking; new requests;
lagged reports and forecasts.
Randomness comes only from the state's streams ``reports`` and ``forecast`` (the world itself
was drawn at reset).
"""

from __future__ import annotations

import numpy as np

from lifeline.envs.evgrid import thermal
from lifeline.envs.evgrid.context import Context
from lifeline.envs.evgrid.generator import reach_of
from lifeline.envs.evgrid.types import (
    BALKED,
    CHARGING,
    DEFERRED,
    DONE,
    DRIVING,
    LEFT,
    PENDING,
    QUEUED,
    EVGridState,
)

QUEUE_GRACE_MIN = 15.0
"""A walk-up that reached its station waits at least this long in the queue before balking."""
DERATE_STEP, DERATE_FLOOR, DERATE_RECOVER = 0.7, 0.3, 0.15
"""Protective derating of a zone's EV chargers: ×0.7 per tick with the hot-spot above its limit
(floor 0.3), +0.15 per tick once it is ``RECOVER_BELOW_K`` under it."""
RECOVER_BELOW_K = 10.0
"""Kelvin under the hot-spot limit at which curtailment starts to lift (hysteresis)."""


def route_rows(s: EVGridState, ctx: Context) -> np.ndarray:
    """(M, S·R) ``ev_routes`` from ``ev_reach`` and the plugged-in EVs' sites."""
    ok = s.ev_reach.copy()
    dw = np.flatnonzero(s.ev_dwell)
    ok[dw] = False
    ok[dw, s.ev_site[dw]] = True
    return np.repeat(ok, ctx.R, axis=1)


def visibility_order(s: EVGridState) -> np.ndarray:
    """EV ids by visibility priority: emergencies, other walk-ups, then plugged-in EVs; oldest
    request first within each group (ties by id). The keys never change during an episode."""
    return np.lexsort((s.ev_arrive, s.ev_dwell, s.ev_persona != 4))


def refresh_visible(s: EVGridState, ctx: Context) -> None:
    """Fill the K visible slots with the first pending EVs in ``s.ev_order``."""
    order = s.ev_order
    pending = order[s.ev_status[order] == PENDING]
    vis = s.visible  # updated in place (keeps snapshots byte-identical after a restore)
    vis.fill(-1)
    n = min(pending.size, ctx.K)
    vis[:n] = pending[:n]


def apply_route(s: EVGridState, ctx: Context, ev: int, station: int, rate: float) -> None:
    """Send walk-up ``ev`` driving to ``station`` (battery drains), or start a dwell EV."""
    s.ev_station[ev] = station
    s.ev_rate[ev] = rate
    dwell = s.ev_dwell[ev]
    s.ev_power[ev] = rate * (s.ev_max_kw[ev] if dwell
                             else min(ctx.st_kw[station], s.ev_max_kw[ev]))
    if dwell:
        s.ev_status[ev] = CHARGING
        if not np.isfinite(s.ev_start[ev]):
            s.ev_start[ev] = s.t
        return
    origin = int(s.ev_origin[ev])
    drain = float(ctx.km[origin, station]) * ctx.p.kwh_per_km
    s.ev_drain[ev] += drain
    s.ev_soc[ev] -= drain / s.ev_cap[ev]
    s.ev_ready[ev] = s.t + float(ctx.travel[s.tick, origin, station])
    s.ev_status[ev] = DRIVING
    s.st_enroute[station] += 1


def apply_defer(s: EVGridState, ev: int, minutes: float) -> None:
    s.ev_status[ev] = DEFERRED
    s.ev_until[ev] = s.t + minutes
    s.ev_defers[ev] += 1


def _remaining(s: EVGridState, ids: np.ndarray) -> np.ndarray:
    """kWh still to charge: the request plus what driving used, minus what was charged."""
    return s.ev_need[ids] + s.ev_drain[ids] - s.ev_delivered[ids]


def session_kw(s: EVGridState, ctx: Context, ids: np.ndarray) -> np.ndarray:
    """Full power of each EV's session: min(charger rating, vehicle limit), kW (dwell EVs: the
    site charger, which is their limit)."""
    st = s.ev_station[ids]
    return np.where(s.ev_dwell[ids], s.ev_max_kw[ids],
                    np.minimum(ctx.st_kw[np.maximum(st, 0)], s.ev_max_kw[ids]))


def _charge(s: EVGridState, ctx: Context, ch: np.ndarray,
            cap_kw: np.ndarray | None = None) -> None:
    """Energy, load, cost and renewables over the current tick; the transformers' thermal step,
    protective derating and trips (v3).

    ``ch``: the EVs charging now; ``cap_kw``: optional (Z,) ceiling on our charging load per
    zone (the two-role env's enforced caps: our chargers there are scaled down to it).
    Every load of a zone draws power: the base load, outside EVs at the public slots they
    occupy (``bg_kw``) and ours. Protection acts on what it would really cut: derating (the
    hot-spot above ``hotspot_limit_c``) curtails *every* EV charger of the zone, ours and outside
    EVs'; a trip (hot-spot above ``hotspot_trip_c`` or load above ``trip_current_pu``) cuts the
    whole zone, base load included, for ``trip_min``."""
    p = ctx.p
    k, dt_min = s.tick, p.tick_min
    dt_h = dt_min / 60.0
    live = s.trip_until <= s.t
    ev_load: np.ndarray = np.zeros(ctx.Z)
    s.ev_want[:] = 0.0
    if ch.size:
        st = s.ev_station[ch]
        z = ctx.st_zone[st]
        kw = s.ev_power[ch]
        factor = s.derate[z] * np.where(s.shift_tick[z] == k, p.shift_factor, 1.0)
        factor = factor * live[z] * ~ctx.outage[k, st]
        want = np.bincount(z, kw * factor, minlength=ctx.Z)
        s.ev_want[:] = want
        if cap_kw is not None:
            scale = np.where(want > cap_kw, cap_kw / np.maximum(want, 1e-9), 1.0)
            factor = factor * scale[z]
        energy = np.minimum(kw * factor * dt_h, np.maximum(_remaining(s, ch), 0.0))
        s.ev_delivered[ch] += energy
        s.ev_soc[ch] += energy / s.ev_cap[ch]
        s.ev_cost[ch] += energy * ctx.price[k, st]
        s.ev_green[ch] += energy * ctx.renewable[k]
        ev_load = np.bincount(z, energy / dt_h, minlength=ctx.Z)
    outside = s.bg_kw[k]
    out_load = outside * s.derate * live
    total = s.base[k] * live + out_load + ev_load
    # harm: what protection cut (outside EVs curtailed, whole zones tripped); faults apart
    cut_out = float(np.dot(outside * (1.0 - s.derate), live)) * dt_h
    cut_zone = (s.base[k] + outside) * ~live * dt_h
    s.unserved_kwh += cut_out + float(cut_zone[~s.trip_fault].sum())
    s.fault_unserved_kwh += float(cut_zone[s.trip_fault].sum())
    # thermal step at this tick's load
    rating = ctx.zone_cap
    k_pu = total / rating
    hot0 = s.top_oil + s.hs_rise
    s.top_oil[:], s.hs_rise[:] = thermal.step(p, s.top_oil, s.hs_rise, k_pu,
                                              float(ctx.ambient[k]), dt_min)
    hot = s.top_oil + s.hs_rise
    v = 0.5 * (thermal.ageing_rate(p, hot0) + thermal.ageing_rate(p, hot))
    s.ageing_min += float(v.sum()) * dt_min
    s.excess_ageing_min += float(np.maximum(v - 1.0, 0.0).sum()) * dt_min
    s.peak_ratio = max(s.peak_ratio, float(k_pu.max()))
    s.peak_hotspot = max(s.peak_hotspot, float(hot.max()))
    over = hot > p.hotspot_limit_c
    s.overload_min += dt_min * int(np.count_nonzero(over))
    s.derate[:] = np.where(over, np.maximum(DERATE_FLOOR, s.derate * DERATE_STEP),
                           np.where(hot < p.hotspot_limit_c - RECOVER_BELOW_K,
                                    np.minimum(1.0, s.derate + DERATE_RECOVER), s.derate))
    protect = live & ((hot > p.hotspot_trip_c) | (k_pu > p.trip_current_pu))
    fault = live & s.fault_at[k] & ~protect
    trip = protect | fault
    if trip.any():
        s.trip_until[:] = np.where(trip, s.t + dt_min + p.trip_min, s.trip_until)
        s.trip_fault[:] = np.where(trip, fault, s.trip_fault)
        s.trips += int(np.count_nonzero(protect))
        s.fault_trips += int(np.count_nonzero(fault))
        s.last_events.extend(f"feeder {z_} tripped" + (" (fault)" if fault[z_] else "")
                             for z_ in np.flatnonzero(trip))
    s.ev_load[:] = ev_load
    s.out_load[:] = out_load
    s.last_load[:] = total
    _score_forecasts(s)


def _score_forecasts(s: EVGridState) -> None:
    """Score predictions due at this tick against the realised load and queue."""
    if not s.forecast_due:
        return
    keep = []
    for due, zone, station, load, queue in s.forecast_due:
        if due != s.tick:
            keep.append((due, zone, station, load, queue))
            continue
        if load >= 0:
            s.forecast_err[0] += abs(load - float(s.last_load[zone]))
            s.forecast_err[1] += 1
        if queue >= 0 and station >= 0:
            s.forecast_err[2] += abs(queue - float(s.st_queue[station]))
            s.forecast_err[3] += 1
    s.forecast_due = keep


def _release(s: EVGridState, ids: np.ndarray, status: int) -> None:
    """Walk-ups leaving a slot, a queue or the road to ``status`` (counters kept consistent)."""
    for ev in ids.tolist():
        st = int(s.ev_station[ev])
        old = int(s.ev_status[ev])
        if old == CHARGING and not s.ev_dwell[ev]:
            s.st_charging[st] -= 1
        elif old == QUEUED:
            s.st_queue[st] -= 1
        elif old == DRIVING:
            s.st_enroute[st] -= 1
        s.ev_status[ev] = status
        if status in (DONE, BALKED, LEFT):
            s.ev_end[ev] = s.t


def _displace(s: EVGridState, ctx: Context, ids: np.ndarray) -> None:
    """Walk-ups at a station that went out of service become pending again from there."""
    if ids.size == 0:
        return
    stations = s.ev_station[ids].copy()
    _release(s, ids, PENDING)
    s.ev_origin[ids] = stations
    s.ev_station[ids] = -1
    s.ev_reach[ids] = reach_of(ctx, stations, s.ev_soc[ids] * s.ev_cap[ids])
    s.ev_routes[ids] = np.repeat(s.ev_reach[ids], ctx.R, axis=1)
    s.last_events.append(f"{ids.size} EV(s) displaced by a station outage")


_WAITING = np.zeros(9, bool)
_WAITING[[PENDING, DEFERRED, QUEUED]] = True
"""Statuses in which a walk-up's patience runs (lookup table over the status codes)."""
_PRESENT = np.zeros(9, bool)
_PRESENT[PENDING:DONE + 1] = True
"""Statuses of a plugged-in EV that still has to leave at its departure."""


def advance(s: EVGridState, ctx: Context, cap_kw: np.ndarray | None = None) -> None:
    """Run one tick (see the module docstring for the order); ``cap_kw`` as in ``_charge``."""
    p = ctx.p
    s.last_events = []
    status = s.ev_status
    ch = (status == CHARGING).nonzero()[0]
    _charge(s, ctx, ch, cap_kw)
    s.tick += 1
    s.t = s.tick * p.tick_min
    s.tick_actions = 0
    k, t = s.tick, s.t
    # completions; walk-ups whose stay limit is up go back on the road, charged or not (v1)
    if ch.size:
        full = _remaining(s, ch) <= 1e-6
        up = ch[~full & (s.ev_start[ch] + s.ev_maxstay[ch] <= t)]
        if full.any():
            _release(s, ch[full], DONE)
        if up.size:
            _release(s, up, LEFT)
    # departures (walk-ups have an infinite departure time)
    dw = ((s.ev_depart <= t) & _PRESENT[status]).nonzero()[0]
    if dw.size:
        s.ev_status[dw] = LEFT
        s.ev_end[dw] = np.minimum(s.ev_end[dw], t)
    # outages displace walk-ups queued or charging at a station that just closed
    # (arrays of the state are updated in place throughout: a restored snapshot then pickles
    # byte-identically to the original after the same step)
    if ctx.any_closing[k]:
        closing = ctx.closing[k]
        hit = (~s.ev_dwell & ((status == QUEUED) | (status == CHARGING))
               & (s.ev_station >= 0)).nonzero()[0]
        _displace(s, ctx, hit[closing[s.ev_station[hit]]])
    # deferrals end
    back = ((status == DEFERRED) & (s.ev_until <= t)).nonzero()[0]
    status[back] = PENDING
    # arrivals at stations
    drv = ((status == DRIVING) & (s.ev_ready <= t)).nonzero()[0]
    if drv.size:
        st = s.ev_station[drv]
        closed = ctx.outage[k, st]
        ok = drv[~closed]
        arrived = np.bincount(st[~closed], minlength=ctx.S)
        s.st_enroute -= arrived
        s.st_queue += arrived
        status[ok] = QUEUED
        _displace(s, ctx, drv[closed])
    # queues fill free slots, first come first served
    if s.st_queue.any():
        free = np.where(ctx.outage[k], 0, ctx.st_slots - s.bg_busy[k] - s.st_charging)
        queued = (status == QUEUED).nonzero()[0]
        at = s.ev_station[queued]
        for sid in ((s.st_queue > 0) & (free > 0)).nonzero()[0].tolist():
            q = queued[at == sid]
            q = q[np.argsort(s.ev_ready[q], kind="stable")][:int(free[sid])]
            status[q] = CHARGING
            # An EV that reached the station during the last tick plugged in on arrival (its
            # wait ends then); energy is counted from this tick on.
            s.ev_start[q] = np.where(s.ev_ready[q] > t - p.tick_min, s.ev_ready[q], t)
            s.st_queue[sid] -= q.size
            s.st_charging[sid] += q.size
    # balking: walk-ups not charging by their (hidden) patience leave unserved
    waiting = _WAITING[status].nonzero()[0]
    if waiting.size:
        deadline = s.ev_arrive[waiting] + s.ev_maxwait[waiting]
        queued = status[waiting] == QUEUED
        deadline = np.where(queued, np.maximum(deadline, s.ev_ready[waiting] + QUEUE_GRACE_MIN),
                            deadline)
        gone = waiting[deadline <= t]
        if gone.size:
            _release(s, gone, BALKED)
            s.last_events.append(f"{gone.size} EV(s) balked")
    # new requests (the stream is sorted by request time)
    j = max(s.next_ev, int(np.searchsorted(s.ev_arrive, t, side="right")))
    status[s.next_ev:j] = PENDING
    s.next_ev = j
    update_reports(s, ctx)
    refresh_visible(s, ctx)


def update_reports(s: EVGridState, ctx: Context) -> None:
    """Record the true picture, then publish lagged, noisy reports and the headroom forecast."""
    p = ctx.p
    k = s.tick
    free = np.maximum(ctx.st_slots - s.bg_busy[k] - s.st_charging, 0)
    s.hist_free[k] = np.where(ctx.outage[k], 0, free)
    s.hist_queue[k] = s.st_queue
    j = max(0, k - ctx.lag_ticks)
    noise = np.round(s.rng["reports"].normal(0.0, p.report_noise, ctx.S))
    s.rep_free[:] = np.minimum(np.maximum(s.hist_free[j] + noise, 0), ctx.st_slots)
    s.rep_queue[:] = s.hist_queue[j]
    err = 1.0 + s.rng["forecast"].normal(0.0, p.forecast_error, (p.forecast_ticks, ctx.Z))
    ahead = ctx.ahead[k]
    s.forecast[:] = (ctx.zone_cap[None, :] - (s.base[ahead] + s.bg_kw[ahead]) * err).T
