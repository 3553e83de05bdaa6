"""Transition dynamics: the event-driven clock, unit state machine, calls, hospitals, city events.

Actions (``apply_*``) change the state at the current minute; :func:`advance` moves the clock to
the next *decision epoch* — a call arrives, a status report reaches the dispatcher, a city event
fires, a fake call is cancelled — or at most ``max_gap_min`` later, processing every internal
transition on the way (arrivals on scene, end of scene work, hospital handovers, drives home).

Unit state machine (minutes are real edge minutes scaled by the trip's traffic multiplier)::

    idle ─dispatch→ en_route ─arrive→ on_scene ─(needs hospital)→ transporting → at_hospital
      ↑   relocating ↔ idle                  └─(no transport)→ returning ←──── handover done
      └──────────────────────────────── returning (to home station) ─┘
    out_of_service (breakdown) → returning;  aid_inbound → idle (mutual aid)

Every transition sends a status report. "On scene", "at hospital" and breakdowns are radioed at
once; the others reach the dispatcher 2–3 min late with probability ``radio_delay_p`` (the
observation shows when each report was made). Commands update the dispatcher's view at once.

All dense-reward terms are accumulated in ``state.reward_acc`` by the functions that cause them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from lifeline.core.graph import RoadGraph
from lifeline.envs.dispatch import reward
from lifeline.envs.dispatch.context import Context
from lifeline.envs.dispatch.params import ACCIDENT, BREAKDOWN, BRIDGE, DIVERT, MCI
from lifeline.envs.dispatch.types import (
    AID_INBOUND,
    AT_HOSPITAL,
    CLOSED,
    DISPATCHABLE,
    EN_ROUTE,
    FALSE_ALARM,
    IDLE,
    INACTIVE,
    MOVING,
    ON_SCENE,
    OPEN,
    OUT_OF_SERVICE,
    REAL,
    RELOCATING,
    RETURNING,
    TRANSPORTING,
    DispatchState,
)

INF = math.inf
MOVING_LIST: list[bool] = MOVING.tolist()

# ----- units: trips and positions ----------------------------------------------------------------
def start_trip(s: DispatchState, u: int, dest: int, lead: float = 0.0,
               from_node: int | None = None, mult: float | None = None,
               factor: float | None = None) -> None:
    """Unit ``u`` starts moving now: ``lead`` minutes to reach ``from_node``, then to ``dest``.

    The trip's traffic multiplier is ``mult`` if given (a re-route keeps its trip's), else the
    current one times the trip's travel factor (v4): ``factor`` (a response trip's, drawn per
    call), else a fresh lognormal draw from the ``travel`` stream (``travel_sigma`` > 0).
    """
    node = s.u_node.item(u) if from_node is None else from_node
    if mult is None:
        m = s.mult
        if factor is None and s.travel_sigma > 0.0:
            factor = math.exp(s.travel_sigma * s.rng["travel"].standard_normal())
        if factor is not None:
            m = m * factor
    else:
        m = mult
    s.u_node[u] = node
    s.u_dest[u] = dest
    s.u_tstart[u] = s.t
    s.u_lead[u] = lead
    s.u_tmult[u] = m
    s.u_next[u] = s.t + lead + s.graph.dist.item(node, dest) * m


def where(s: DispatchState, u: int) -> tuple[int, float]:
    """``(next node, minutes to reach it)`` of unit ``u`` (its node and 0 when stationary).

    Runs on every command; ``ndarray.item`` reads Python scalars without the numpy-scalar detour.
    """
    if MOVING_LIST[s.u_status.item(u)]:
        if s.u_next.item(u) > s.t:
            return _next_stop(s.graph, s.u_node.item(u), s.u_dest.item(u), s.u_lead.item(u),
                              s.t - s.u_tstart.item(u), s.u_tmult.item(u))
        return s.u_dest.item(u), 0.0
    return s.u_node.item(u), 0.0


def _next_stop(g: RoadGraph, start: int, dest: int, lead: float, elapsed: float,
               multiplier: float) -> tuple[int, float]:
    """``(next node, minutes to it)`` of :meth:`RoadGraph.locate`, walking the same shortest-path
    tree with the same float64 sums, but reading Python scalars with ``ndarray.item`` (about 3×
    faster on this hot path; ``tests/envs/dispatch/test_dispatch_kernels.py`` checks it against
    ``locate``)."""
    if elapsed < lead:
        return start, lead - elapsed
    t = lead
    node = start
    pred, weight = g.pred, g.weight
    while node != dest:
        nxt = pred.item(dest, node)
        t += weight.item(node, nxt) * multiplier
        if t > elapsed:
            return nxt, t - elapsed
        node = nxt
    return dest, 0.0


def redirect(s: DispatchState, u: int, status: int, dest: int, extra_lead: float = 0.0,
             factor: float | None = None) -> None:
    """Send unit ``u`` (moving or not) to ``dest`` from where it is now, in ``status``."""
    node, rem = where(s, u)
    s.u_status[u] = status
    start_trip(s, u, dest, lead=rem + extra_lead, from_node=node, factor=factor)


def report(s: DispatchState, ctx: Context, u: int, immediate: bool = False) -> bool:
    """The unit radios its new status. Returns True if the dispatcher hears it now."""
    draw = s.rng["radio"].random()
    if immediate or draw >= ctx.p.radio_delay_p:
        s.u_obs_status[u] = s.u_status[u]
        s.u_obs_node[u] = s.u_node[u]
        s.u_obs_dest[u] = s.u_dest[u]
        s.u_obs_t[u] = s.t
        s.u_rep_t[u] = INF
        return True
    s.u_rep_status[u] = s.u_status[u]
    s.u_rep_node[u] = s.u_node[u]
    s.u_rep_dest[u] = s.u_dest[u]
    s.u_rep_made[u] = s.t
    s.u_rep_t[u] = s.t + s.rng["radio"].uniform(*ctx.p.radio_lag_min)
    return False


def _send_home(s: DispatchState, ctx: Context, u: int) -> bool:
    """Clear the unit's call and hospital and start it driving back to its home station."""
    s.u_call[u] = -1
    s.u_carrier[u] = False
    s.u_hosp[u] = -1
    s.u_status[u] = RETURNING
    start_trip(s, u, int(s.u_home[u]))
    return report(s, ctx, u)


def commanded(s: DispatchState, u: int) -> None:
    """The dispatcher knows the effect of its own command: refresh its view, drop stale reports."""
    s.u_obs_status[u] = s.u_status.item(u)  # ``item``: no numpy-scalar detour (hot path)
    s.u_obs_node[u] = s.u_node.item(u)
    s.u_obs_dest[u] = s.u_dest.item(u)
    s.u_obs_t[u] = s.t
    s.u_rep_t[u] = INF
    s.cov_dirty = True


# ----- calls ----------------------------------------------------------------------------------
def refresh_visible(s: DispatchState, ctx: Context) -> None:
    """Recompute the K visible slots: the oldest open calls."""
    open_ids = np.flatnonzero(s.c_status == OPEN)
    s.n_open = int(open_ids.size)
    s.visible.fill(-1)
    k = min(ctx.K, open_ids.size)
    s.visible[:k] = open_ids[:k]


def release_call(s: DispatchState, u: int) -> None:
    """Unit ``u`` stops serving its call before reaching it (reroute, breakdown)."""
    c = int(s.u_call[u])
    if c >= 0:
        s.c_assigned[c] -= 1
    s.u_call[u] = -1
    s.u_carrier[u] = False
    s.u_hosp[u] = -1


def close_call(s: DispatchState, ctx: Context, c: int) -> None:
    if s.c_status[c] == OPEN:
        s.c_status[c] = CLOSED
        refresh_visible(s, ctx)


def finalize(s: DispatchState, ctx: Context, c: int, divert: bool) -> None:
    """The patient's outcome becomes final (at handover, or when the scene ends)."""
    if s.c_kind[c] != REAL or np.isfinite(s.c_outcome[c]):
        return
    s.c_divert[c] = divert
    value = reward.benefit(ctx, int(s.c_type[c]), int(s.c_sev[c]),
                           float(s.c_first[c] - s.c_time[c]), als=bool(s.c_first_als[c]),
                           divert=divert)
    s.c_outcome[c] = value
    s.reward_acc += reward.survival_credit(s, c, value)


# ----- hospitals ------------------------------------------------------------------------------
def diverting(s: DispatchState, h: int) -> bool:
    """True status: on divert if forced by an event or no EMS bed is free."""
    return bool(s.h_forced_until[h] > s.t or not np.any(s.h_release[h] <= s.t))


def nearest_hospital(s: DispatchState, ctx: Context, node: int) -> int:
    return int(np.argmin(s.graph.dist[node, ctx.hosp_node]))


# ----- internal transitions -----------------------------------------------------------------
def _becomes_idle(s: DispatchState, ctx: Context, u: int) -> bool:
    """Unit ``u`` is free at its destination: idle, or gone if it is aid whose loan has ended."""
    if s.t >= s.u_loan_end[u]:
        s.u_status[u] = INACTIVE
        return report(s, ctx, u, immediate=True)
    s.u_status[u] = IDLE
    if np.isfinite(s.u_loan_end[u]):
        s.u_next[u] = s.u_loan_end[u]
    return report(s, ctx, u)


def _unit_transition(s: DispatchState, ctx: Context, u: int) -> bool:
    """Process unit ``u``'s due transition; True if the dispatcher hears of it now."""
    p = ctx.p
    st = s.u_status[u]
    s.u_next[u] = INF
    s.cov_dirty = True
    if st in (RELOCATING, RETURNING):
        s.u_node[u] = s.u_dest[u]
        return _becomes_idle(s, ctx, u)
    if st == IDLE:  # a mutual-aid unit's loan ends while it waits
        s.u_status[u] = INACTIVE
        return report(s, ctx, u, immediate=True)
    if st == EN_ROUTE:
        c = int(s.u_call[u])
        s.u_node[u] = s.u_dest[u]
        s.u_status[u] = ON_SCENE
        s.c_arrived[c] += 1
        if not np.isfinite(s.c_first[c]):
            s.c_first[c] = s.t
            s.c_first_als[c] = s.u_als[u]
            s.c_first_aid[c] = u >= ctx.n_fleet
            s.u_carrier[u] = True
            if s.c_kind[c] == REAL:
                s.reward_acc += reward.response_credit(s, ctx, c, s.t - float(s.c_time[c]))
        kind = int(s.c_kind[c])
        if s.c_status[c] == CLOSED:  # the scene was already cleared (a late second unit)
            scene = 0.0
        elif kind == REAL:
            crew = max(1, min(int(s.c_needed[c]), int(s.c_assigned[c])))
            scene = float(ctx.scene[s.c_type[c]]) * int(s.c_needed[c]) / crew
        else:
            scene = ctx.p.fake_scene_min[0 if kind == FALSE_ALARM else 1]
        s.u_next[u] = s.t + scene
        if s.c_arrived[c] >= s.c_needed[c]:
            close_call(s, ctx, c)
        return report(s, ctx, u, immediate=True)
    if st == ON_SCENE:
        c = int(s.u_call[u])
        close_call(s, ctx, c)
        if s.u_carrier[u] and s.c_transport[c]:
            h = int(s.u_hosp[u]) if s.u_hosp[u] >= 0 else nearest_hospital(s, ctx, int(s.u_node[u]))
            s.u_hosp[u] = h
            s.u_status[u] = TRANSPORTING
            start_trip(s, u, int(ctx.hosp_node[h]))
            return report(s, ctx, u)
        if s.u_carrier[u]:
            finalize(s, ctx, c, divert=False)
        return _send_home(s, ctx, u)
    if st == TRANSPORTING:
        c = int(s.u_call[u])
        h = int(s.u_hosp[u])
        s.u_node[u] = s.u_dest[u]
        div = diverting(s, h)
        stay = s.rng["hospital"].exponential(p.bed_stay_min)
        handover = max(p.handover_floor_min,
                       s.rng["service"].normal(p.handover_min, p.handover_sd_min))
        if p.conserve_beds:
            # v4: the patient needs a bed; the crew waits (offload delay) until the earliest
            # one frees, then hands over. Only a divert forced by an event adds the flat extra.
            bed = int(s.h_release[h].argmin())
            free_at = max(s.t, float(s.h_release[h, bed]))
            wait = free_at - s.t
            s.h_release[h, bed] = free_at + stay
            extra = p.divert_extra_min if s.h_forced_until[h] > s.t else 0.0
        else:
            free = np.flatnonzero(s.h_release[h] <= s.t)
            if free.size:
                s.h_release[h, free[0]] = s.t + stay
            wait, extra = 0.0, (p.divert_extra_min if div else 0.0)
        s.c_wait[c] = wait
        s.u_status[u] = AT_HOSPITAL
        s.u_next[u] = s.t + wait + handover + extra
        finalize(s, ctx, c, divert=div)
        return report(s, ctx, u, immediate=True)
    if st in (AT_HOSPITAL, OUT_OF_SERVICE):
        return _send_home(s, ctx, u)
    if st == AID_INBOUND:
        s.u_status[u] = IDLE
        if u < ctx.n_fleet:  # an off-duty crew recalled by the MCI plan: on duty at its station
            s.u_node[u] = s.u_dest[u] = int(s.u_home[u])
            return report(s, ctx, u, immediate=True)
        s.u_node[u] = s.u_dest[u] = p.city.aid_entry
        s.u_loan_end[u] = s.t + p.mutual_aid_loan_min
        s.u_next[u] = s.u_loan_end[u]
        return report(s, ctx, u, immediate=True)
    return False


def _network_change(s: DispatchState, mutate: Callable[..., None], *args: float) -> None:
    """Apply a road-network change; every moving unit re-routes at once from where it is."""
    moving = np.flatnonzero(MOVING[s.u_status] & (s.u_next > s.t))
    positions = [where(s, int(u)) for u in moving]
    mutate(*args)
    for u, (node, rem) in zip(moving, positions, strict=True):
        start_trip(s, int(u), int(s.u_dest[u]), lead=rem, from_node=node,
                   mult=float(s.u_tmult[u]))
    s.cov_dirty = True


def _fire_event(s: DispatchState, ctx: Context, i: int) -> None:
    """City event ``i`` of the schedule starts now."""
    city = ctx.p.city
    kind = int(s.e_kind[i])
    a = int(s.e_a[i])
    dur = float(s.e_dur[i])
    g = s.graph
    s.alert_until[kind] = max(float(s.alert_until[kind]), s.t + dur)
    if kind == BRIDGE:
        u, v = city.bridges[a]
        if g.has_edge(u, v) and g.stays_connected_without(u, v):
            _network_change(s, g.remove_edge, u, v)
    elif kind == ACCIDENT:
        u, v, _ = city.edges[a]
        if g.has_edge(u, v):
            _network_change(s, g.slow_edge, u, v, 3.0)
            s.slow_edges.append((int(u), int(v), s.t + dur))
    elif kind == DIVERT:
        s.h_forced_until[a] = max(float(s.h_forced_until[a]), s.t + dur)
    elif kind == BREAKDOWN:
        for k in range(ctx.n_fleet):
            u = (a + k) % ctx.n_fleet
            if s.u_status[u] in (IDLE, RELOCATING, RETURNING, EN_ROUTE):
                node, _ = where(s, u)
                release_call(s, u)
                s.u_status[u] = OUT_OF_SERVICE
                s.u_node[u] = s.u_dest[u] = node
                s.u_next[u] = s.t + dur
                report(s, ctx, u, immediate=True)
                refresh_visible(s, ctx)
                s.cov_dirty = True
                break
    elif kind == MCI and ctx.p.mci_plan:
        _mci_plan(s, ctx)
    # HEATWAVE and MCI change the call stream, which was drawn at reset; here only the alert.


def _mci_plan(s: DispatchState, ctx: Context) -> None:
    """The mass-casualty plan (``mci_plan``, v4.3): recall every off-duty unit slot of the fleet
    (in service at its station after ``mci_recall_delay_min``, for the rest of the shift) and
    call in every unused mutual-aid slot at no score cost (it enters after the aid delay)."""
    p = ctx.p
    for u in range(ctx.n_fleet):
        if s.u_status[u] == INACTIVE:
            s.u_status[u] = AID_INBOUND
            s.u_next[u] = s.t + p.mci_recall_delay_min
            commanded(s, u)  # the dispatcher knows the plan: the recall shows at once
    while s.mutual_aid_left > 0:
        apply_mutual_aid(s, ctx)
        s.reward_acc += p.mutual_aid_cost  # the plan's standing request: no dispatcher's cost
        s.mci_aid += 1


def _hospital_report(s: DispatchState, ctx: Context, h: int) -> None:
    truth = diverting(s, h)
    wrong = s.rng["hospital"].random() < ctx.p.hospital_report_noise
    s.h_obs_divert[h] = truth != wrong
    s.h_obs_t[h] = s.t
    s.h_next_report[h] = s.t + ctx.p.hospital_report_min


def _cancel_fake(s: DispatchState, ctx: Context, c: int) -> None:
    """A false alarm / ghost call nobody has reached by now is cancelled; units en route return."""
    if s.c_status[c] != OPEN or s.c_arrived[c] > 0:
        return
    for u in np.flatnonzero(s.u_call == c):
        release_call(s, int(u))
        redirect(s, int(u), RETURNING, int(s.u_home[u]))
        report(s, ctx, int(u), immediate=True)
    close_call(s, ctx, c)


def coverage(s: DispatchState, ctx: Context) -> float:
    """Mean over zones of the demand share within ``coverage_min`` of an idle unit of the city's
    own fleet (true state). Borrowed mutual-aid units answer calls but are not the city's standing
    cover (otherwise requesting aid would buy readiness: an exploit found in v1's suite)."""
    idle = s.u_node[:ctx.n_fleet][s.u_status[:ctx.n_fleet] == IDLE]
    if idle.size == 0:
        return 0.0
    near = (s.graph.dist[idle] * s.mult <= ctx.p.coverage_min).any(axis=0)
    return float((ctx.zone_demand @ near).mean())


def _move_clock(s: DispatchState, ctx: Context, t_new: float) -> None:
    """Advance the clock, integrating coverage (and paying its dense reward)."""
    dt = t_new - s.t
    if dt > 0:
        if s.cov_dirty:
            s.cov_now = coverage(s, ctx)
            s.cov_dirty = False
        s.cov_integral += s.cov_now * dt
        s.reward_acc += reward.W_COVERAGE * s.cov_now * dt / ctx.p.shift_min
        s.t = t_new
        mult = ctx.traffic.multiplier(s.start_hour + s.t / 60.0)
        if mult != s.mult:
            s.mult = mult
            s.cov_dirty = True


def arrive_call(s: DispatchState, ctx: Context, c: int) -> None:
    """Call ``c`` opens now, its call-processing minutes after it rang (``c_open``; and counts
    as held if no unit is truly free)."""
    s.c_status[c] = OPEN
    s.c_held[c] = not bool(DISPATCHABLE[s.u_status].any())
    refresh_visible(s, ctx)


def advance(s: DispatchState, ctx: Context) -> None:
    """Move the clock to the next decision epoch (or ``max_gap_min``, or the end of the shift)."""
    p = ctx.p
    s.epoch_actions = 0
    s.e_left_post.fill(False)
    s.e_left_hosp.fill(False)
    stop = min(s.t + p.max_gap_min, p.shift_min)
    n_calls = s.c_time.size
    n_events = s.e_time.size
    while True:
        t_call = (float(s.c_open[s.next_call])
                  if s.next_call < n_calls else INF)  # the call opens once processed
        t_event = float(s.e_time[s.next_event]) if s.next_event < n_events else INF
        u_unit = int(s.u_next.argmin())
        t_unit = float(s.u_next[u_unit])
        u_rep = int(s.u_rep_t.argmin())
        t_rep = float(s.u_rep_t[u_rep])
        h_rep = int(s.h_next_report.argmin())
        t_hrep = float(s.h_next_report[h_rep])
        t_acc = min(e for _, _, e in s.slow_edges) if s.slow_edges else INF
        c_exp = int(s.fake_ids[s.next_fake]) if s.next_fake < s.fake_ids.size else -1
        t_exp = float(s.c_time[c_exp]) + p.fake_expiry_min if c_exp >= 0 else INF
        t_next = min(t_call, t_event, t_unit, t_rep, t_hrep, t_acc, t_exp)
        if t_next > stop:
            _move_clock(s, ctx, stop)
            return
        _move_clock(s, ctx, t_next)
        if t_unit == t_next:
            if _unit_transition(s, ctx, u_unit):
                stop = s.t
        elif t_call == t_next:
            arrive_call(s, ctx, s.next_call)
            s.next_call += 1
            stop = s.t
        elif t_event == t_next:
            _fire_event(s, ctx, s.next_event)
            s.next_event += 1
            stop = s.t
        elif t_rep == t_next:
            u = u_rep
            s.u_obs_status[u] = s.u_rep_status[u]
            s.u_obs_node[u] = s.u_rep_node[u]
            s.u_obs_dest[u] = s.u_rep_dest[u]
            s.u_obs_t[u] = s.u_rep_made[u]
            s.u_rep_t[u] = INF
            stop = s.t
        elif t_exp == t_next:
            s.next_fake += 1
            if s.c_status[c_exp] == OPEN and s.c_arrived[c_exp] == 0:
                _cancel_fake(s, ctx, c_exp)
                stop = s.t
        elif t_acc == t_next:
            for i, (a, b, end) in enumerate(s.slow_edges):
                if end == t_next:
                    del s.slow_edges[i]
                    if not s.graph.removed[a, b]:
                        _network_change(s, s.graph.restore_edge, a, b)
                    break
        else:
            _hospital_report(s, ctx, h_rep)


# ----- actions ----------------------------------------------------------------------------------
def apply_dispatch(s: DispatchState, ctx: Context, u: int, c: int) -> None:
    """Unit ``u`` (free by its report, hence truly free) goes to call ``c``."""
    dest = int(s.c_node[c])
    delay = 0.0
    if s.u_status[u] == IDLE:
        s.u_dispatches[u] += 1
        r = s.rng["reliability"]
        draw, extra = r.random(), r.uniform(1.0, 3.0)
        delay = float(s.c_turnout[c]) + (extra if draw > s.u_rel[u] else 0.0)
    redirect(s, u, EN_ROUTE, dest, extra_lead=delay, factor=float(s.c_travel[c]))
    s.u_call[u] = c
    s.u_carrier[u] = False
    s.u_hosp[u] = -1
    s.c_assigned[c] += 1
    commanded(s, u)


def apply_reroute(s: DispatchState, ctx: Context, u: int, c: int) -> None:
    """En-route unit ``u`` switches to call ``c``; its old call is unassigned again."""
    release_call(s, u)
    redirect(s, u, EN_ROUTE, int(s.c_node[c]), factor=float(s.c_travel[c]))
    s.u_call[u] = c
    s.c_assigned[c] += 1
    commanded(s, u)


def apply_relocate(s: DispatchState, ctx: Context, u: int, post: int) -> None:
    redirect(s, u, RELOCATING, int(ctx.posts[post]))
    commanded(s, u)


def apply_verify(s: DispatchState, ctx: Context, c: int) -> float:
    """Call-back verification: confidence genuine ~ ``verify_beta[kind]`` (see params)."""
    a, b = ctx.p.verify_beta[int(s.c_kind[c])]
    conf = float(s.rng["verify"].beta(a, b))
    s.c_verify[c] = conf
    return conf


def apply_assign_hospital(s: DispatchState, ctx: Context, u: int, h: int) -> None:
    s.u_hosp[u] = h
    if s.u_status[u] == TRANSPORTING:
        redirect(s, u, TRANSPORTING, int(ctx.hosp_node[h]))


def apply_mutual_aid(s: DispatchState, ctx: Context) -> int:
    """Activate the first free mutual-aid slot; the unit arrives after the aid delay."""
    u = ctx.n_fleet + (ctx.p.city.aid_slots - s.mutual_aid_left)
    s.mutual_aid_left -= 1
    s.reward_acc -= ctx.p.mutual_aid_cost
    s.u_status[u] = AID_INBOUND
    s.u_next[u] = s.t + ctx.p.mutual_aid_delay_min
    s.u_node[u] = s.u_dest[u] = ctx.p.city.aid_entry
    commanded(s, u)
    return u

