"""Event-driven dynamics of ``codered``: the ambulance pipeline, vitals, hospitals, blood, calls.

Time is continuous (minutes). Everything that will happen is an event in the state's heap;
``advance`` pops events until the next *decision* event (a call, an arrival on scene, a
handover, a death, a disruption, ...) or ``max_epoch_min``. Vitals are piecewise linear: each
patient keeps ``(v_ref, t_ref, base_rate, mult)`` and a death event at the minute vitals reach 0;
any change of care (an ALS crew, stabilisation, overcrowding) re-bases the line and reschedules it.
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Callable
from typing import Any

import numpy as np

from lifeline.core.graph import RoadGraph
from lifeline.envs.codered import types as T
from lifeline.envs.codered.params import (
    AID_ENTRY,
    ARTERIALS,
    BLOOD_TYPES,
    CAPABLE,
    CARDIAC,
    CATEGORY_TABLE,
    HOSPITAL_NODE,
    IN_HOSPITAL_RATE,
    NODES,
    O_NEG,
    PREALERT_SAVING_MIN,
    PROCEDURE_OF,
    PROCEDURES,
    QUALITY,
    ROADS,
    SERIOUS,
    SPECIALIST_OF,
    SPECIALISTS,
    STROKE,
    SURVIVAL_MAX,
    SURVIVAL_SLOPE,
    TREAT_MIN,
    TRIAGE_DECISIONS,
    WORKUP_MEDIAN_MIN,
    WORKUP_SIGMA,
    CodeRedParams,
    compatible,
    outcome_at,
)
from lifeline.envs.codered.types import (
    AID_INBOUND,
    AT_HOSP,
    AT_HOSPITAL,
    CALL,
    CALLBACK,
    DEAD,
    EN_ROUTE,
    FUTURE,
    HANDOVER,
    IDLE,
    INACTIVE,
    ON_SCENE,
    OR_ELECTIVE,
    OR_FAILED,
    OR_FREE,
    OR_PREP,
    OR_READY,
    OR_SURGERY,
    RESOLVED,
    RETURNING,
    SCENE,
    SELF,
    SP_BUSY,
    SP_OFF,
    SP_PAGED,
    SP_PRESENT,
    STABILISED,
    TRANSPORT,
    TRANSPORTING,
    TREATED,
    WAITING,
    CodeRedState,
    Patient,
)

# ----- event kinds --------------------------------------------------------------------------------
(EV_ONSET, EV_DEATH, EV_ESCALATE, EV_UNIT, EV_SCENE, EV_HANDOVER, EV_OR, EV_SPEC, EV_BLOOD,
 EV_AUTOBLOOD, EV_TYPE, EV_CALLBACK, EV_SELF, EV_DISRUPT, EV_DISRUPT_END, EV_TRANSFER, EV_RUSH_END,
 EV_STAB, EV_AID, EV_WORKUP) = range(20)
DECISION = frozenset({EV_ONSET, EV_DEATH, EV_UNIT, EV_SCENE, EV_HANDOVER, EV_CALLBACK,
                      EV_DISRUPT, EV_AID, EV_TYPE})
"""Events after which the agent gets to decide (they end an epoch)."""
NEUTRAL = frozenset({EV_TYPE, EV_CALLBACK, EV_RUSH_END, EV_DISRUPT_END, EV_AID,
                     EV_STAB})
"""Events that cannot change the grade (the dense reward skips re-grading after them)."""
ACCIDENT, CLOSURE, EQUIPMENT, SURGE, SHIFT = range(5)
CROWDED = 3
"""More than this many patients in a hospital's emergency area is overcrowding."""
STAB_MIN = 60.0
"""Minutes a stabilised patient's deterioration is slowed at a non-capable hospital."""


def push(s: CodeRedState, time: float, kind: int, a: int = 0, b: int = 0, tok: int = 0) -> None:
    """Schedule an event (ties break by insertion order: deterministic)."""
    s.seq += 1
    heapq.heappush(s.heap, (time, s.seq, kind, a, b, tok))


# ----- vitals ------------------------------------------------------------------------------------
def vitals(p: Patient, t: float) -> float:
    """Vitals in [0, 1] at minute ``t`` (before treatment)."""
    v = p.v_ref - p.base_rate * p.mult * (t - p.t_ref)
    return v if v > 0.0 else 0.0


def care_mult(s: CodeRedState, p: Patient) -> float:
    """Deterioration multiplier for where the patient is and who cares for them."""
    st = p.status
    if st == STABILISED or (st == ASSIGNED_STATUS and p.at_hosp >= 0):
        return 0.25 if s.t < p.stab_until else 0.6
    if st in (ON_SCENE, TRANSPORT, HANDOVER):
        return 0.5 if s.units[p.unit].als else 0.8
    if st == AT_HOSPITAL:
        crowd = 1.5 if s.hospitals[p.at_hosp].crowded_since >= 0 else 1.0
        if p.hosp_rate > 0.0 and p.base_rate > 0.0:
            return crowd * p.hosp_rate / p.base_rate  # sourced in-hospital rate (params)
        return crowd * 0.5
    return 1.5 if p.escalated else 1.0


def recare(s: CodeRedState, i: int) -> None:
    """Re-base patient ``i``'s vitals line for its current care and reschedule its death."""
    p = s.patients[i]
    if p.status in (TREATED, DEAD, FUTURE) or p.base_rate <= 0.0:
        return
    p.v_ref = vitals(p, s.t)
    p.t_ref = s.t
    p.mult = care_mult(s, p)
    p.token += 1
    push(s, s.t + p.v_ref / (p.base_rate * p.mult), EV_DEATH, i, 0, p.token)


# ----- roads and units ----------------------------------------------------------------------------
_ROAD_CACHE: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                              np.ndarray]] = {}
_ADJ: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({v for a, b, _ in ROADS for u, v in ((a, b), (b, a)) if u == n}))
    for n in range(len(NODES)))
"""Neighbours of each node in the full road network."""


def connected_without(removed: frozenset[tuple[int, int]] | set[tuple[int, int]], a: int,
                      b: int) -> bool:
    """Would the city stay connected without road ``a``–``b`` and the ``removed`` roads (pairs
    ``(low, high)``)? A search over 12 nodes: the same answer as
    :meth:`RoadGraph.stays_connected_without` without building sparse matrices."""
    cut = {(min(a, b), max(a, b))} | set(removed)
    seen = {0}
    todo = [0]
    while todo:
        u = todo.pop()
        for v in _ADJ[u]:
            if v not in seen and (min(u, v), max(u, v)) not in cut:
                seen.add(v)
                todo.append(v)
    return len(seen) == len(NODES)


_TEMPLATE: list[RoadGraph] = []


def _scratch_graph() -> RoadGraph:
    """A free-flow road graph whose ``factor``/``removed`` may be edited (``recompute`` not yet
    called): a shallow copy of one template with fresh arrays, so no shortest paths are computed
    for a graph that is about to change."""
    if not _TEMPLATE:
        _TEMPLATE.append(RoadGraph(len(NODES), list(ROADS)))
    g = copy.copy(_TEMPLATE[0])
    g.factor = np.ones_like(g.factor)
    g.removed = np.zeros_like(g.removed)
    return g


def refresh_roads(s: CodeRedState, params: CodeRedParams) -> None:
    """Recompute edge factors from the rush hour and the disruptions in force.

    Shortest paths depend only on which road disruptions are active, so they are memoised per
    combination (each state gets copies, so snapshots stay exact). A miss computes shortest
    paths once, after every factor and removal is set (connectivity only needs the topology).
    """
    roads = tuple((kind, a, b) for (_, kind, a, b, _), on in zip(s.disruptions, s.active,
                                                                    strict=True)
                  if on and kind in (ACCIDENT, CLOSURE))
    key = (params.rush_factor if s.rush else 1.0, roads)
    cached = _ROAD_CACHE.get(key)
    if cached is None:
        g = _scratch_graph()  # scratch: the state's arrays change in place
        if s.rush:
            for u, v in ARTERIALS:
                g.factor[u, v] = g.factor[v, u] = params.rush_factor
        for kind, a, b in roads:
            if kind == ACCIDENT:
                g.factor[a, b] = g.factor[b, a] = g.factor[a, b] * 3.0
        removed: set[tuple[int, int]] = set()
        for kind, a, b in roads:  # a closure that would cut the city in two is a slow-down
            if kind != CLOSURE:
                continue
            if connected_without(removed, a, b):
                g.removed[a, b] = g.removed[b, a] = True
                removed.add((min(a, b), max(a, b)))
            else:
                g.factor[a, b] = g.factor[b, a] = g.factor[a, b] * 3.0
        g.recompute()
        if len(_ROAD_CACHE) > 10000:
            _ROAD_CACHE.clear()
        cached = _ROAD_CACHE[key] = (g.factor, g.removed, g.weight, g.dist, g.pred)
    # In place (never rebinding the state's arrays), so that pickled and live states stay
    # byte-identical.
    sg = s.graph
    targets: tuple[np.ndarray, ...] = (sg.factor, sg.removed, sg.weight, sg.dist, sg.pred)
    sources: tuple[np.ndarray, ...] = tuple(cached)
    for dst, src in zip(targets, sources, strict=True):
        np.copyto(dst, src)
    sg.version += 1


def unit_position(s: CodeRedState, u: int) -> tuple[int, float]:
    """``(node, lead minutes)`` a new trip of unit ``u`` starts from."""
    un = s.units[u]
    if un.status == RETURNING:
        pos = s.graph.locate(un.node, un.dest, un.lead, s.t - un.t_start, 1.0)
        return pos.next_node, pos.remaining
    return un.node, 0.0


def eta(s: CodeRedState, u: int, node: int) -> float:
    """Minutes for unit ``u`` to reach ``node`` from where it is now."""
    origin, lead = unit_position(s, u)
    return lead + float(s.graph.dist[origin, node])


def start_trip(s: CodeRedState, u: int, dest: int, status: int) -> None:
    un = s.units[u]
    origin, lead = unit_position(s, u)
    un.node, un.dest, un.lead, un.t_start = origin, dest, lead, s.t
    un.t_arrive = s.t + lead + float(s.graph.dist[origin, dest])
    un.status = status
    un.token += 1
    push(s, un.t_arrive, EV_UNIT, u, 0, un.token)


def send_home(s: CodeRedState, u: int) -> None:
    un = s.units[u]
    un.patient = -1
    start_trip(s, u, un.home, RETURNING)


def dispatch(s: CodeRedState, u: int, i: int) -> None:
    """Send unit ``u`` to patient ``i`` (a known patient, a call, or a transfer)."""
    p = s.patients[i]
    s.units[u].patient = i
    p.unit = u
    p.status = ASSIGNED_STATUS
    recare(s, i)
    start_trip(s, u, p.node, EN_ROUTE)


ASSIGNED_STATUS = 3  # types.ASSIGNED (kept local: the name is also an action elsewhere)


def nearest_hospital(s: CodeRedState, node: int, cond: int = -1, exclude: int = -1) -> int:
    """Nearest hospital not on diversion (capable of ``cond`` if given); any if all divert."""
    best, best_d = -1, float("inf")
    for h, hn in enumerate(HOSPITAL_NODE):
        if h == exclude or (cond >= 0 and not CAPABLE[h][cond]):
            continue
        d = float(s.graph.dist[node, hn]) + (1e4 if s.hospitals[h].divert_until > s.t else 0.0)
        if d < best_d:
            best, best_d = h, d
    return best


# ----- hospitals ----------------------------------------------------------------------------------
def update_crowding(s: CodeRedState, h: int) -> None:
    """Start or end overcrowding at hospital ``h`` and re-base its waiting patients."""
    hosp = s.hospitals[h]
    n = sum(1 for p in s.patients if p.at_hosp == h and p.status in (HANDOVER, AT_HOSPITAL,
                                                                        STABILISED))
    crowded = n > CROWDED
    if crowded == (hosp.crowded_since >= 0):
        return
    if crowded:
        hosp.crowded_since = s.t
    else:
        s.tally.crowded_minutes += s.t - hosp.crowded_since
        hosp.crowded_since = -1.0
    for i, p in enumerate(s.patients):
        if p.at_hosp == h and p.status == AT_HOSPITAL:
            recare(s, i)


def page(s: CodeRedState, params: CodeRedParams, h: int, kind: int, by_agent: bool) -> bool:
    """Page an on-call specialist of ``kind`` at ``h``; False if none is on call."""
    for k, sp in enumerate(s.hospitals[h].specialists):
        if sp.kind == kind and sp.state == SP_OFF:
            delay = params.page_delay_min + (10.0 if s.hospitals[h].shift_until > s.t else 0.0)
            sp.state, sp.until, sp.agent_paged = SP_PAGED, s.t + delay, by_agent
            sp.token += 1
            push(s, sp.until, EV_SPEC, h, k, sp.token)
            return True
    return False


def prepare(s: CodeRedState, params: CodeRedParams, h: int, proc: int, claimed: int) -> bool:
    """Start preparing a free OR at ``h`` for ``proc``; False if none is free."""
    for k, o in enumerate(s.hospitals[h].ors):
        if o.state == OR_FREE:
            o.state, o.proc, o.claimed, o.until = OR_PREP, proc, claimed, s.t + params.prep_min
            o.agent_prep = claimed < 0
            o.queried = False
            o.token += 1
            push(s, o.until, EV_OR, h, k, o.token)
            return True
    return False


def discard_blood(s: CodeRedState, p: Patient) -> None:
    """Every unit reserved for ``p`` and not used (ready or still in crossmatch) is waste (v3:
    before, units reserved for a patient whose need was 0, and crossmatches pending at
    treatment, left the stock uncounted)."""
    s.tally.blood_wasted += p.blood_ready + p.blood_pending
    p.blood_ready = p.blood_pending = p.blood_emergency = p.oneg_held = 0


def take_stock(s: CodeRedState, h: int, b: int, units: int, use: bool = True) -> None:
    """Remove ``units`` of type ``b`` from ``h``'s stock; units that came by ``transfer_blood``
    leave first and count as used transfers when drawn for a patient (``use``; v3)."""
    hosp = s.hospitals[h]
    hosp.stock[b] -= units
    moved = min(units, hosp.received[b])
    if moved:
        hosp.received[b] -= moved
        if use:
            s.tally.transfer_used += moved
        else:  # sent on again: still a transfer waiting for its use
            s.tally.transfer_sent -= moved


def _draw_blood(s: CodeRedState, h: int, p: Patient, units: int) -> int:
    """Take up to ``units`` compatible units from ``h``'s stock (exact type first, O− last)."""
    stock = s.hospitals[h].stock
    order = [p.blood_type] + [b for b in range(8) if b not in (p.blood_type, O_NEG)] + [O_NEG]
    got = 0
    for b in order:
        if got >= units:
            break
        if compatible(b, p.blood_type) and stock[b] > 0:
            take = min(stock[b], units - got)
            take_stock(s, h, b, take)
            got += take
            if b == O_NEG:
                p.oneg_held += take
    return got


def try_start(s: CodeRedState, params: CodeRedParams, h: int) -> None:
    """Start definitive treatment for every waiting patient at ``h`` whose needs are met;
    order what is missing (OR preparation, a page) on their behalf."""
    hosp = s.hospitals[h]
    for i, p in enumerate(s.patients):
        if p.status != AT_HOSPITAL or p.at_hosp != h or p.workup_until > s.t:
            continue  # in work-up: the hospital activates its team only once it is over
        ok = True
        proc = PROCEDURE_OF[p.cond] if params.mech_readiness else -1
        spec = SPECIALIST_OF[p.cond] if params.mech_readiness else -1
        room = -1
        if proc >= 0:
            for k, o in enumerate(hosp.ors):
                if o.state == OR_READY and o.proc == proc and o.claimed in (-1, i):
                    room = k
                    break
            if room < 0:
                ok = False
                mine = [o for o in hosp.ors if o.state == OR_PREP and o.claimed == i]
                if not mine:
                    spare = [o for o in hosp.ors if o.state == OR_PREP and o.proc == proc
                             and o.claimed == -1]
                    if spare:
                        spare[0].claimed = i
                    else:
                        prepare(s, params, h, proc, i)
        doc = -1
        if spec >= 0:
            for k, sp in enumerate(hosp.specialists):
                if sp.kind == spec and sp.state == SP_PRESENT:
                    doc = k
                    break
            if doc < 0:
                ok = False
                if not any(sp.kind == spec and sp.state == SP_PAGED for sp in hosp.specialists):
                    page(s, params, h, spec, False)
        need = p.blood_need if params.mech_blood else 0
        if need > p.blood_ready and not p.auto_blood:
            ok = False
        if ok:
            start_treatment(s, params, i, h, room, doc)


def start_treatment(s: CodeRedState, params: CodeRedParams, i: int, h: int, room: int,
                    doc: int) -> None:
    p, hosp, tl = s.patients[i], s.hospitals[h], s.tally
    c = p.cond
    dur = TREAT_MIN[c]
    if room >= 0:
        o = hosp.ors[room]
        if o.agent_prep:
            tl.preps_used += 1
        if o.preempted:
            tl.preempt_used += 1
        o.state, o.until, o.claimed, o.agent_prep, o.preempted = OR_SURGERY, s.t + dur, i, \
            False, False
        o.queried = False
        o.token += 1
        push(s, o.until, EV_OR, h, room, o.token)
    if doc >= 0:
        sp = hosp.specialists[doc]
        if sp.agent_paged:
            tl.pages_used += 1
        sp.state, sp.until, sp.agent_paged = SP_BUSY, s.t + dur, False
        sp.token += 1
        push(s, sp.until, EV_SPEC, h, doc, sp.token)
    need = p.blood_need if params.mech_blood else 0
    shortfall = 0.0
    if need > 0:
        have = p.blood_ready
        if have < need:
            have += _draw_blood(s, h, p, need - have)
        used = min(have, need)
        tl.blood_used += used
        tl.rbc_used += used
        tl.oneg_used += min(used, p.oneg_held)  # O- counted as used first (it is issued first)
        p.blood_ready = have - used  # reserved beyond the need: wasted below
        shortfall = (need - used) / need
    discard_blood(s, p)  # v3: reserved units not used (need 0, surplus, still in crossmatch)
    boarding = False
    if c != 3:
        if hosp.icu_free > 0:
            hosp.icu_free -= 1
        else:
            boarding = True
            tl.icu_boarding += 1
    v = vitals(p, s.t) if params.mech_deterioration else p.v_ref
    if params.sourced_outcome and params.mech_deterioration and c in (CARDIAC, STROKE):  # v3
        surv = outcome_at(c, s.t - p.onset) - SURVIVAL_SLOPE[c] * (1.0 - p.v_onset)
    else:
        surv = SURVIVAL_MAX[c] - SURVIVAL_SLOPE[c] * (1.0 - v)
    if PROCEDURE_OF[c] >= 0 and not p.or_ready_arr:
        surv -= 0.05
    if SPECIALIST_OF[c] >= 0 and not p.spec_ready_arr:
        surv -= 0.05
    surv -= 0.4 * shortfall + 0.05 * boarding + 0.05 * (p.bls_only and c != 3)
    surv -= 0.1 * (p.self_transported and c != 3)
    surv = min(1.0, max(0.0, surv * QUALITY[h][c]))
    p.status, p.treated_at, p.vitals_at, p.survival = TREATED, s.t, v, surv
    p.token += 1
    if params.cascade and surv >= 0.7 and not p.secondary:
        s.news_until = s.t + 30.0
        tl.news_cycles += 1
    update_crowding(s, h)


def workup_minutes(params: CodeRedParams, p: Patient) -> float:
    """In-hospital door-to-treatment work-up of ``p`` (ED assessment, ECG / CT, decision),
    log-normal with the sourced median and spread of its condition (0 for trauma and general)."""
    med = WORKUP_MEDIAN_MIN[p.cond]
    if med <= 0.0 or params.workup_factor <= 0.0:
        return 0.0
    w = params.workup_factor * med * float(np.exp(WORKUP_SIGMA[p.cond] * p.workup_z))
    if params.prealert and not p.prealerted:  # v3: the ECG-to-decision time a pre-alert saves
        w += max(0.0, PREALERT_SAVING_MIN[p.cond] - params.page_delay_min)
    return w


def _hold_for_workup(s: CodeRedState, params: CodeRedParams, i: int, h: int) -> None:
    """A patient in work-up claims a ready (or preparing) unclaimed OR of its procedure, so the
    pre-alerted room waits for them instead of being released."""
    p = s.patients[i]
    proc = PROCEDURE_OF[p.cond] if params.mech_readiness else -1
    if proc < 0:
        return
    ors = s.hospitals[h].ors
    if any(o.claimed == i and o.state in (OR_PREP, OR_READY) for o in ors):
        return
    for state in (OR_READY, OR_PREP):
        for o in ors:
            if o.state == state and o.proc == proc and o.claimed == -1:
                o.claimed = i
                return


def _awaited(s: CodeRedState, h: int, i: int) -> bool:
    """Whether patient ``i`` is at hospital ``h`` waiting for treatment (work-up or not)."""
    return i >= 0 and s.patients[i].status == AT_HOSPITAL and s.patients[i].at_hosp == h


def arrive_hospital(s: CodeRedState, params: CodeRedParams, i: int, h: int) -> None:
    """Patient ``i`` is handed over at ``h`` (by a crew or on their own)."""
    p = s.patients[i]
    p.hosp = p.at_hosp = h
    p.arrived = s.t
    p.node = HOSPITAL_NODE[h]  # v3: a transfer starts here (v2 kept the incident site)
    p.known = True  # a self-transported caller is seen at the hospital
    if p.fmc < 0.0:
        p.fmc = s.t
    if p.cond not in SERIOUS:
        p.status = RESOLVED
        discard_blood(s, p)
        return
    if not CAPABLE[h][p.cond]:
        p.status = STABILISED
        p.stab_until = s.t + STAB_MIN
        push(s, p.stab_until, EV_STAB, i)
        recare(s, i)
        update_crowding(s, h)
        return
    hosp = s.hospitals[h]
    proc, spec = PROCEDURE_OF[p.cond], SPECIALIST_OF[p.cond]
    p.or_ready_arr = proc < 0 or not params.mech_readiness or any(
        o.state == OR_READY and o.proc == proc and o.claimed in (-1, i) for o in hosp.ors)
    p.spec_ready_arr = spec < 0 or not params.mech_readiness or any(
        sp.kind == spec and sp.state == SP_PRESENT for sp in hosp.specialists)
    p.prealerted = not params.mech_readiness or ((proc < 0 or any(
        o.state in (OR_READY, OR_PREP) and o.proc == proc and o.claimed in (-1, i)
        for o in hosp.ors)) and (spec < 0 or any(
            sp.kind == spec and sp.state in (SP_PRESENT, SP_PAGED) for sp in hosp.specialists)))
    p.status = AT_HOSPITAL
    p.hosp_rate = IN_HOSPITAL_RATE[p.cond] if params.in_hospital_calibrated else 0.0
    w = workup_minutes(params, p)
    p.workup_until = s.t + w
    if w > 0.0:
        push(s, p.workup_until, EV_WORKUP, i)
        _hold_for_workup(s, params, i, h)
    if p.blood_need > 0 and params.mech_blood:
        push(s, s.t + params.auto_blood_min, EV_AUTOBLOOD, i)
    recare(s, i)
    p.vitals_door = p.v_ref
    update_crowding(s, h)
    try_start(s, params, h)


# ----- event handlers -----------------------------------------------------------------------------
def kill(s: CodeRedState, params: CodeRedParams, i: int) -> None:
    """Patient ``i``'s vitals reached 0 before treatment."""
    p = s.patients[i]
    old = p.status
    p.status = DEAD
    p.token += 1
    discard_blood(s, p)
    if p.unit >= 0 and old in (ASSIGNED_STATUS, ON_SCENE, TRANSPORT) and \
            s.units[p.unit].patient == i:
        send_home(s, p.unit)
    if p.at_hosp >= 0:
        for o in s.hospitals[p.at_hosp].ors:
            if o.claimed == i and o.state in (OR_PREP, OR_READY):
                o.claimed = -1
        update_crowding(s, p.at_hosp)
    if params.cascade and p.spawn and not p.secondary:
        for j, q in enumerate(s.patients):
            if q.secondary and q.status == FUTURE and q.onset == float("inf"):
                q.cond, q.node, q.site, q.onset = p.spawn_cond, p.site, p.site, s.t + 5.0
                q.t_ref = q.onset
                push(s, q.onset, EV_ONSET, j)
                break


def onset(s: CodeRedState, params: CodeRedParams, i: int) -> bool:
    p = s.patients[i]
    if p.surge_only and s.t >= s.news_until:
        p.void = True
        p.status = RESOLVED
        return False
    p.status = CALL if p.is_call else WAITING
    p.t_ref = s.t
    if p.is_call and params.mech_escalation:
        push(s, s.t + params.escalate_min, EV_ESCALATE, i)
    recare(s, i)
    return True


def on_unit(s: CodeRedState, params: CodeRedParams, u: int) -> None:
    un = s.units[u]
    un.node = un.dest
    if un.status == EN_ROUTE:
        i = un.patient
        p = s.patients[i]
        un.status = SCENE
        p.status = ON_SCENE
        p.known = True
        if p.fmc < 0.0:
            p.fmc = s.t
        if not un.als:
            p.bls_only = True
        recare(s, i)
        scene = params.scene_min_als if un.als else params.scene_min_bls
        if p.at_hosp >= 0:
            scene = 5.0
        push(s, s.t + scene, EV_SCENE, u, 0, un.token)
    elif un.status == TRANSPORTING:
        un.status = AT_HOSP
        p = s.patients[un.patient]
        p.status = HANDOVER
        p.at_hosp = p.hosp
        update_crowding(s, p.hosp)
        push(s, s.t + params.handover_min, EV_HANDOVER, u, 0, un.token)
    elif un.status in (RETURNING, AID_INBOUND):
        un.status = IDLE


def on_scene_done(s: CodeRedState, params: CodeRedParams, u: int) -> None:
    un = s.units[u]
    i = un.patient
    p = s.patients[i]
    if p.cond not in SERIOUS:  # treat and release: the ambulance was not needed
        p.status = RESOLVED
        s.tally.triage_waste += 1.0 if un.als else 0.5
        discard_blood(s, p)
        send_home(s, u)
        return
    if p.replan_min > 0.0:  # v3: destination changes cost crew time on scene
        delay, p.replan_min = p.replan_min, 0.0
        push(s, s.t + delay, EV_SCENE, u, 0, un.token)
        return
    if p.at_hosp >= 0:  # inter-hospital transfer: pick-up done
        old = p.at_hosp
        p.at_hosp = -1
        if p.hosp < 0 or p.hosp == old:
            discard_blood(s, p)  # blood reserved at the hospital being left
            p.hosp = nearest_hospital(s, p.node, p.cond, exclude=old)
        update_crowding(s, old)
        s.tally.transfers += 1
    elif p.hosp < 0:
        p.hosp = nearest_hospital(s, p.node)
    p.status = TRANSPORT
    start_trip(s, u, HOSPITAL_NODE[p.hosp], TRANSPORTING)


def on_handover(s: CodeRedState, params: CodeRedParams, u: int) -> None:
    un = s.units[u]
    i = un.patient
    h = s.patients[i].hosp
    send_home(s, u)
    if s.patients[i].status != HANDOVER:
        return
    arrive_hospital(s, params, i, h)


def on_or(s: CodeRedState, params: CodeRedParams, h: int, k: int) -> None:
    o = s.hospitals[h].ors[k]
    tl = s.tally
    if o.state == OR_PREP:
        o.state, o.until = OR_READY, s.t + params.hold_min
        o.token += 1
        push(s, o.until, EV_OR, h, k, o.token)
    elif o.state == OR_READY:
        if _awaited(s, h, o.claimed):  # the pre-alerted room waits for its patient's work-up
            o.until = s.t + params.hold_min
            o.token += 1
            push(s, o.until, EV_OR, h, k, o.token)
            return
        if o.agent_prep and o.claimed < 0:
            tl.preps_wasted += 1
        if o.preempted:
            tl.preempt_wasted += 1
        o.state, o.agent_prep, o.preempted, o.claimed = OR_FREE, False, False, -1
    elif o.state == OR_FREE:
        if o.preempted:
            tl.preempt_wasted += 1
            o.preempted = False
        return
    else:  # elective, surgery or failure over
        o.state, o.claimed = OR_FREE, -1
    o.queried = False
    try_start(s, params, h)


def on_spec(s: CodeRedState, params: CodeRedParams, h: int, k: int) -> None:
    sp = s.hospitals[h].specialists[k]
    if sp.state == SP_PAGED:
        sp.state, sp.until = SP_PRESENT, s.t + params.hold_min
        sp.token += 1
        push(s, sp.until, EV_SPEC, h, k, sp.token)
    elif sp.state == SP_PRESENT and _specialist_awaited(s, h, k):
        sp.until = s.t + params.hold_min  # stays for a patient still in work-up
        sp.token += 1
        push(s, sp.until, EV_SPEC, h, k, sp.token)
        return
    else:
        if sp.state == SP_PRESENT and sp.agent_paged:
            s.tally.pages_wasted += 1
        sp.state, sp.agent_paged = SP_OFF, False
    try_start(s, params, h)


def _specialist_awaited(s: CodeRedState, h: int, k: int) -> bool:
    """Whether present specialist ``k`` at ``h`` is needed by a patient there still in work-up
    (more such patients than other present specialists of the kind)."""
    specs = s.hospitals[h].specialists
    kind = specs[k].kind
    waiting = sum(1 for p in s.patients if p.status == AT_HOSPITAL and p.at_hosp == h
                  and p.workup_until > s.t and SPECIALIST_OF[p.cond] == kind)
    others = sum(1 for j, sp in enumerate(specs) if j != k and sp.kind == kind
                 and sp.state == SP_PRESENT)
    return waiting > others


def on_disrupt(s: CodeRedState, params: CodeRedParams, d: int, start: bool) -> None:
    t0, kind, a, b, dur = s.disruptions[d]
    s.active[d] = start
    if kind in (ACCIDENT, CLOSURE):
        refresh_roads(s, params)
    elif kind == EQUIPMENT:
        o = s.hospitals[a].ors[b]
        if start and o.state in (OR_FREE, OR_ELECTIVE, OR_PREP, OR_READY):
            o.state, o.until, o.claimed, o.agent_prep = OR_FAILED, s.t + dur, -1, False
            o.token += 1
            push(s, o.until, EV_OR, a, b, o.token)
    elif kind == SURGE:
        if start and params.mech_diversion:
            s.hospitals[a].divert_until = max(s.hospitals[a].divert_until, s.t + dur)
    elif kind == SHIFT:
        hosp = s.hospitals[a]
        if start:
            hosp.shift_until = s.t + dur
            for sp in hosp.specialists:
                if sp.state == SP_PRESENT:  # the outgoing team leaves; the new one is on call
                    if sp.agent_paged:
                        s.tally.pages_wasted += 1
                    sp.state, sp.agent_paged = SP_OFF, False
                    sp.token += 1
            try_start(s, params, a)
    if start:
        push(s, t0 + dur, EV_DISRUPT_END, d)


def handle(s: CodeRedState, params: CodeRedParams, ev: tuple[float, int, int, int, int, int]
           ) -> bool:
    """Apply one event; True if it is a decision event for the agent."""
    _, _, kind, a, b, tok = ev
    if kind == EV_DEATH:
        dying = s.patients[a]
        if dying.token != tok or dying.status in (TREATED, DEAD) or not params.mech_deterioration:
            return False
        closed = dying.status == RESOLVED and not dying.known
        kill(s, params, a)
        return not closed  # v3: a closed call's death at home is not announced
    if kind in (EV_UNIT, EV_SCENE, EV_HANDOVER):
        un = s.units[a]
        if un.token != tok:
            return False
        if kind == EV_UNIT:
            on_unit(s, params, a)
        elif kind == EV_SCENE:
            if un.status != SCENE:
                return False
            on_scene_done(s, params, a)
        else:
            on_handover(s, params, a)
        return True
    if kind == EV_ONSET:
        return onset(s, params, a)
    if kind == EV_OR:
        if s.hospitals[a].ors[b].token == tok:
            on_or(s, params, a, b)
        return False
    if kind == EV_SPEC:
        if s.hospitals[a].specialists[b].token == tok:
            on_spec(s, params, a, b)
        return False
    p: Patient | None = s.patients[a] if kind in (
        EV_ESCALATE, EV_BLOOD, EV_AUTOBLOOD, EV_TYPE, EV_CALLBACK, EV_SELF, EV_STAB,
        EV_WORKUP) else None
    if kind == EV_WORKUP:
        assert p is not None
        if p.status == AT_HOSPITAL and p.workup_until <= s.t:
            try_start(s, params, p.at_hosp)
        return False
    if kind == EV_ESCALATE:
        assert p is not None
        if p.status in (CALL, CALLBACK) and not p.escalated:
            p.escalated = True
            s.tally.escalations += 1
            recare(s, a)
        return False
    if kind == EV_BLOOD:
        assert p is not None
        if p.status in (TREATED, DEAD) or p.blood_pending < b:
            return False
        p.blood_pending -= b
        p.blood_ready += b
        if p.status == AT_HOSPITAL:
            try_start(s, params, p.at_hosp)
        return False
    if kind == EV_AUTOBLOOD:
        assert p is not None
        if p.status == AT_HOSPITAL:
            p.auto_blood = True
            try_start(s, params, p.at_hosp)
        return False
    if kind == EV_TYPE:
        assert p is not None
        p.type_known, p.type_pending = True, False
        return p.status not in (TREATED, DEAD, RESOLVED)
    if kind == EV_CALLBACK:
        assert p is not None
        if p.status != CALLBACK:
            return False
        rng = s.rng["callback"]
        if rng.random() < 0.75:
            p.hint = p.cond
        else:
            probs = CATEGORY_TABLE[p.category]
            p.hint = int(rng.choice(8, p=[x / sum(probs) for x in probs]))
        p.status = CALL
        return True
    if kind == EV_SELF:
        assert p is not None
        if p.status == SELF:
            arrive_hospital(s, params, a, p.hosp)
        return False
    if kind == EV_STAB:
        assert p is not None
        if p.status == STABILISED:
            recare(s, a)
        return False
    if kind == EV_DISRUPT:
        on_disrupt(s, params, a, True)
        return True
    if kind == EV_DISRUPT_END:
        on_disrupt(s, params, a, False)
        return False
    if kind == EV_TRANSFER:
        s.hospitals[a].stock[b // 10] += b % 10
        s.hospitals[a].received[b // 10] += b % 10
        return False
    if kind == EV_RUSH_END:
        s.rush = False
        refresh_roads(s, params)
        return False
    if kind == EV_AID:
        un = s.units[a]
        un.status = IDLE
        return True
    raise ValueError(f"unknown event kind {kind}")


def _anything_left(s: CodeRedState) -> bool:
    """True while some patient is active or a patient/call can still appear."""
    for p in s.patients:
        if p.status in (FUTURE,) and p.onset != float("inf"):
            return True
        if p.status not in (FUTURE, TREATED, DEAD, RESOLVED):
            return True
        if p.status == RESOLVED and p.cond in SERIOUS and not p.void:
            return True  # a closed call whose patient is still deteriorating at home
    return False


def advance(s: CodeRedState, params: CodeRedParams) -> None:
    """Run the world to the next decision epoch (at most ``max_epoch_min``, never past the
    horizon); fast-forward to the horizon once nothing is left to happen."""
    t0 = s.t
    hard = min(t0 + params.max_epoch_min, params.horizon_min)
    stop = hard
    heap = s.heap
    while heap and heap[0][0] <= stop:
        ev = heapq.heappop(heap)
        s.t = max(s.t, ev[0])
        if handle(s, params, ev) and s.t > t0 and s.t < stop:
            stop = s.t
        if ev[2] not in NEUTRAL:
            s.n_events += 1
    s.t = stop
    s.epoch_actions = 0
    if s.t < params.horizon_min and not _anything_left(s):
        s.t = params.horizon_min
        s.finished = True
    if s.t >= params.horizon_min:
        for hosp in s.hospitals:
            if hosp.crowded_since >= 0:
                s.tally.crowded_minutes += s.t - hosp.crowded_since
                hosp.crowded_since = s.t


def settle(s: CodeRedState, params: CodeRedParams) -> None:
    """Apply every event due at the current minute (used at reset)."""
    while s.heap and s.heap[0][0] <= s.t:
        handle(s, params, heapq.heappop(s.heap))


def new_aid_unit(s: CodeRedState, params: CodeRedParams, rng_delay: float) -> int:
    """Activate the next mutual-aid slot; it arrives after ``rng_delay`` minutes."""
    for u, un in enumerate(s.units):
        if un.aid and un.status == INACTIVE:
            node = AID_ENTRY[s.aid_node_next % len(AID_ENTRY)]
            s.aid_node_next += 1
            un.status, un.node, un.dest, un.home = AID_INBOUND, node, node, node
            un.token += 1
            push(s, s.t + rng_delay, EV_AID, u, 0, un.token)
            return u
    return -1


__all__ = ["ROADS", "advance", "dispatch", "handle", "push", "vitals"]


# ----- the agent's actions ------------------------------------------------------------------------
def nearest_free(s: CodeRedState, node: int, als: bool) -> int:
    """The available/returning unit of the given type with the shortest ETA to ``node``."""
    best, best_t = -1, float("inf")
    for u, un in enumerate(s.units):
        if un.status in (IDLE, RETURNING) and un.als == als:
            t = eta(s, u, node)
            if t < best_t:
                best, best_t = u, t
    return best


def _act_dispatch_ambulance(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    dispatch(s, a.ambulance, a.patient)
    return f"ambulance {a.ambulance} dispatched to patient {a.patient}"


def _act_dispatch_call(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    s.patients[a.call].decision = 0 if isinstance(a, T.DispatchALS) else 1
    dispatch(s, a.ambulance, a.call)
    return f"ambulance {a.ambulance} dispatched to call {a.call}"


def _act_triage_call(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    return _triage(s, params, a.call, a.decision)


def _act_assign_hospital(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    p = s.patients[a.patient]
    if p.hosp >= 0 and p.hosp != a.hospital:
        discard_blood(s, p)
        if p.hosp != p.at_hosp:  # a destination was already chosen (not a transfer's first)
            p.replan_min += params.reassign_min
            s.tally.reassignments += 1
    p.hosp = a.hospital
    return f"patient {a.patient} will go to hospital {a.hospital}"


def _act_prepare_or(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    prepare(s, params, a.hospital, PROCEDURES.index(a.procedure), -1)
    return f"OR preparation for {a.procedure} started at hospital {a.hospital}"


def _act_page_specialist(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    page(s, params, a.hospital, SPECIALISTS.index(a.specialist), True)
    return f"{a.specialist} paged at hospital {a.hospital}"


def _act_preempt_or(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    o = s.hospitals[a.hospital].ors[a.or_index]
    o.state, o.preempted, o.until, o.queried = OR_FREE, True, s.t + params.hold_min, False
    o.token += 1
    push(s, o.until, EV_OR, a.hospital, a.or_index, o.token)
    try_start(s, params, a.hospital)
    return f"elective case in OR {a.or_index} at hospital {a.hospital} cancelled"


def _act_allocate_blood(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    p = s.patients[a.patient]
    b = BLOOD_TYPES.index(a.blood_type)
    take_stock(s, a.hospital, b, a.units)
    if b == O_NEG:
        p.oneg_held += a.units
    if a.emergency:
        p.blood_ready += a.units
        p.blood_emergency += a.units
        if p.blood_type != O_NEG:
            s.tally.oneg_nonneg += a.units
        if p.status == AT_HOSPITAL:
            try_start(s, params, a.hospital)
    else:
        p.blood_pending += a.units
        push(s, s.t + params.crossmatch_min, EV_BLOOD, a.patient, a.units)
    return f"{a.units} {a.blood_type} units {'released' if a.emergency else 'in crossmatch'}"


def _act_transfer_blood(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    b = BLOOD_TYPES.index(a.blood_type)
    take_stock(s, a.from_hospital, b, a.units, use=False)
    s.tally.transfer_sent += a.units
    d = float(s.graph.dist[HOSPITAL_NODE[a.from_hospital], HOSPITAL_NODE[a.to_hospital]])
    push(s, s.t + d, EV_TRANSFER, a.to_hospital, b * 10 + a.units)
    return f"{a.units} {a.blood_type} units on the way, {d:.0f} min"


def _act_request_mutual_aid(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    s.aid_left -= 1
    s.tally.aid_requests += 1
    lo, hi = params.aid_delay_min
    delay = float(s.rng["aid"].uniform(lo, hi)) if params.mech_aid_delay else 0.0
    u = new_aid_unit(s, params, delay)
    return f"mutual aid requested: unit {u} arrives in about {delay:.0f} min"


def _act_query_blood_type(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    p = s.patients[a.patient]
    p.type_pending = True
    push(s, s.t + params.typing_min, EV_TYPE, a.patient)
    return f"blood type of patient {a.patient} in {params.typing_min:.0f} min"


def _act_query_or_status(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    o = s.hospitals[a.hospital].ors[a.or_index]
    o.queried = True
    return f"OR {a.or_index} at hospital {a.hospital}: details shown"


_ACTIONS: dict[type, Callable[[CodeRedState, CodeRedParams, Any], str]] = {
    T.DispatchAmbulance: _act_dispatch_ambulance,
    T.DispatchALS: _act_dispatch_call,
    T.DispatchBLS: _act_dispatch_call,
    T.TriageCall: _act_triage_call,
    T.AssignHospital: _act_assign_hospital,
    T.PrepareOR: _act_prepare_or,
    T.PageSpecialist: _act_page_specialist,
    T.PreemptOR: _act_preempt_or,
    T.AllocateBlood: _act_allocate_blood,
    T.TransferBlood: _act_transfer_blood,
    T.RequestMutualAid: _act_request_mutual_aid,
    T.QueryBloodType: _act_query_blood_type,
    T.QueryORStatus: _act_query_or_status,
}
"""Effect of each action type (one dictionary lookup instead of a chain of type tests)."""


def apply_action(s: CodeRedState, params: CodeRedParams, a: object) -> str:
    """Apply a *valid* non-noop action; returns a short report for the text view."""
    fn = _ACTIONS.get(type(a))
    if fn is None:
        raise ValueError(f"unexpected action {a!r}")
    return fn(s, params, a)


def _triage(s: CodeRedState, params: CodeRedParams, i: int, decision: str) -> str:
    p = s.patients[i]
    d = TRIAGE_DECISIONS.index(decision)
    p.decision = d
    if d in (0, 1):
        u = nearest_free(s, p.node, d == 0)
        dispatch(s, u, i)
        return f"call {i}: ambulance {u} dispatched"
    if d == 2:
        p.status, p.self_transported = SELF, True
        h = nearest_hospital(s, p.node)
        p.hosp = h
        if p.cond not in SERIOUS:
            s.tally.triage_good += 1
        push(s, s.t + 15.0 + 1.5 * float(s.graph.dist[p.node, HOSPITAL_NODE[h]]), EV_SELF, i)
        recare(s, i)
        return f"call {i}: caller travels to hospital {h} on their own"
    if d == 3:
        p.status = CALLBACK
        push(s, s.t + 5.0, EV_CALLBACK, i)
        return f"call {i}: callback in 5 min"
    p.status = RESOLVED
    if p.cond not in SERIOUS:
        s.tally.triage_good += 1
    return f"call {i} closed without dispatch"
