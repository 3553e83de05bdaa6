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
"""Protective derating: ×0.7 per overloaded tick (floor 0.3), +0.15 per tick under 90%."""


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


def _charge(s: EVGridState, ctx: Context, ch: np.ndarray) -> None:
    """Energy, load, cost and renewables over the current tick; overload, derating, trips.

    ``ch``: the EVs charging now. The zone updates are skipped when they cannot change anything
    (no zone overloaded with our load, no derating to recover, no fault): the common tick."""
    p = ctx.p
    k, dt_h = s.tick, p.tick_min / 60.0
    ev_load: np.ndarray = np.zeros(ctx.Z)
    if ch.size:
        st = s.ev_station[ch]
        z = ctx.st_zone[st]
        kw = s.ev_power[ch]
        factor = s.derate[z] * np.where(s.shift_tick[z] == k, p.shift_factor, 1.0)
        factor = factor * (s.trip_until[z] <= s.t) * ~ctx.outage[k, st]
        energy = np.minimum(kw * factor * dt_h, np.maximum(_remaining(s, ch), 0.0))
        s.ev_delivered[ch] += energy
        s.ev_soc[ch] += energy / s.ev_cap[ch]
        s.ev_cost[ch] += energy * ctx.price[k, st]
        s.ev_green[ch] += energy * ctx.renewable[k]
        ev_load = np.bincount(z, energy / dt_h, minlength=ctx.Z)
    total = s.base[k] + ev_load
    cap = ctx.zone_cap
    ratio = total / cap
    s.peak_ratio = max(s.peak_ratio, float(ratio.max()))
    ours = (ratio > 1.0) & (ev_load > 1e-9)
    n_ours = int(np.count_nonzero(ours))
    fault = s.fault_at[k]
    if n_ours == 0 and not fault.any() and np.minimum.reduce(s.derate) == 1.0:
        # nothing overloaded by us, nothing to recover, no fault: counters reset, no trip
        s.over_min.fill(0.0)
    else:
        s.overload_min += p.tick_min * n_ours
        s.over_min[:] = np.where(ours, s.over_min + p.tick_min, 0.0)
        s.derate[:] = np.where(ours, np.maximum(DERATE_FLOOR, s.derate * DERATE_STEP),
                               np.where(ratio < 0.9, np.minimum(1.0, s.derate + DERATE_RECOVER),
                                        s.derate))
        trip = (ours & ((s.over_min >= p.trip_after_min) | (ratio > p.trip_ratio))) | fault
        trip &= s.trip_until <= s.t
        if trip.any():
            s.trip_until[:] = np.where(trip, s.t + p.tick_min + p.trip_min, s.trip_until)
            s.over_min[:] = np.where(trip, 0.0, s.over_min)
            s.trips += int(np.count_nonzero(trip & ours))
            s.last_events.extend(f"feeder {z_} tripped" for z_ in np.flatnonzero(trip))
    s.ev_load[:] = ev_load
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


def advance(s: EVGridState, ctx: Context) -> None:
    """Run one tick (see the module docstring for the order)."""
    p = ctx.p
    s.last_events = []
    status = s.ev_status
    ch = (status == CHARGING).nonzero()[0]
    _charge(s, ctx, ch)
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
    s.forecast[:] = (ctx.zone_cap[None, :] - s.base[ctx.ahead[k]] * err).T
