"""Event handling and the clock of ``codered``: one small function per event type (``HANDLERS``),
``advance`` to the next decision epoch, ``settle`` at reset.

Time is continuous (minutes). Everything that will happen is a typed record in the state's heap
(:mod:`~lifeline.envs.codered.dynamics.events`); ``advance`` pops events until the next event
that hands the agent a decision (a call, an arrival on scene, a handover, a death, a
disruption, ...) or ``max_epoch_min``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

from lifeline.envs.codered.dynamics.ambulances import on_handover, on_scene_done, on_unit, send_home
from lifeline.envs.codered.dynamics.blood import discard_blood
from lifeline.envs.codered.dynamics.events import (
    ACCIDENT,
    ASSIGNED_STATUS,
    CLOSURE,
    EQUIPMENT,
    NEUTRAL,
    SHIFT,
    SURGE,
    AidArrives,
    AutoBlood,
    BloodArrives,
    Callback,
    Crossmatched,
    Death,
    DisruptionEnds,
    DisruptionStarts,
    Escalates,
    Event,
    HandoverDone,
    Onset,
    ORTimer,
    RushEnds,
    SceneDone,
    SelfArrives,
    SpecialistTimer,
    StabilisationEnds,
    Typed,
    UnitArrives,
    WorkupDone,
    push,
)
from lifeline.envs.codered.dynamics.hospitals import (
    arrive_hospital,
    on_or,
    on_spec,
    try_start,
    update_crowding,
)
from lifeline.envs.codered.dynamics.patients import recare
from lifeline.envs.codered.dynamics.roads import refresh_roads
from lifeline.envs.codered.params import (
    CATEGORY_TABLE,
    SERIOUS,
    CodeRedParams,
)
from lifeline.envs.codered.types import (
    AT_HOSPITAL,
    CALL,
    CALLBACK,
    DEAD,
    FUTURE,
    IDLE,
    ON_SCENE,
    OR_ELECTIVE,
    OR_FAILED,
    OR_FREE,
    OR_PREP,
    OR_READY,
    RESOLVED,
    SCENE,
    SELF,
    SP_OFF,
    SP_PRESENT,
    STABILISED,
    TRANSPORT,
    TREATED,
    WAITING,
    CodeRedState,
)


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
                push(s, q.onset, Onset(j))
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
        push(s, s.t + params.escalate_min, Escalates(i))
    recare(s, i)
    return True


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
            push(s, o.until, ORTimer(a, b, o.token))
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
        push(s, t0 + dur, DisruptionEnds(d))


# ----- one small function per event type (True: the agent gets to decide now) ---------------
def _death(s: CodeRedState, params: CodeRedParams, ev: Death) -> bool:
    dying = s.patients[ev.patient]
    if dying.token != ev.token or dying.status in (TREATED, DEAD) or \
            not params.mech_deterioration:
        return False
    closed = dying.status == RESOLVED and not dying.known
    kill(s, params, ev.patient)
    return not closed  # v3: a closed call's death at home is not announced


def _unit_arrives(s: CodeRedState, params: CodeRedParams, ev: UnitArrives) -> bool:
    if s.units[ev.unit].token != ev.token:
        return False
    on_unit(s, params, ev.unit)
    return True


def _scene_done(s: CodeRedState, params: CodeRedParams, ev: SceneDone) -> bool:
    un = s.units[ev.unit]
    if un.token != ev.token or un.status != SCENE:
        return False
    on_scene_done(s, params, ev.unit)
    return True


def _handover_done(s: CodeRedState, params: CodeRedParams, ev: HandoverDone) -> bool:
    if s.units[ev.unit].token != ev.token:
        return False
    on_handover(s, params, ev.unit)
    return True


def _onset(s: CodeRedState, params: CodeRedParams, ev: Onset) -> bool:
    return onset(s, params, ev.patient)


def _or_timer(s: CodeRedState, params: CodeRedParams, ev: ORTimer) -> bool:
    if s.hospitals[ev.hospital].ors[ev.room].token == ev.token:
        on_or(s, params, ev.hospital, ev.room)
    return False


def _specialist_timer(s: CodeRedState, params: CodeRedParams, ev: SpecialistTimer) -> bool:
    if s.hospitals[ev.hospital].specialists[ev.specialist].token == ev.token:
        on_spec(s, params, ev.hospital, ev.specialist)
    return False


def _workup_done(s: CodeRedState, params: CodeRedParams, ev: WorkupDone) -> bool:
    p = s.patients[ev.patient]
    if p.status == AT_HOSPITAL and p.workup_until <= s.t:
        try_start(s, params, p.at_hosp)
    return False


def _escalates(s: CodeRedState, params: CodeRedParams, ev: Escalates) -> bool:
    p = s.patients[ev.patient]
    if p.status in (CALL, CALLBACK) and not p.escalated:
        p.escalated = True
        s.tally.escalations += 1
        recare(s, ev.patient)
    return False


def _crossmatched(s: CodeRedState, params: CodeRedParams, ev: Crossmatched) -> bool:
    p = s.patients[ev.patient]
    if p.status in (TREATED, DEAD) or p.blood_pending < ev.units:
        return False
    p.blood_pending -= ev.units
    p.blood_ready += ev.units
    if p.status == AT_HOSPITAL:
        try_start(s, params, p.at_hosp)
    return False


def _auto_blood(s: CodeRedState, params: CodeRedParams, ev: AutoBlood) -> bool:
    p = s.patients[ev.patient]
    if p.status == AT_HOSPITAL:
        p.auto_blood = True
        try_start(s, params, p.at_hosp)
    return False


def _typed(s: CodeRedState, params: CodeRedParams, ev: Typed) -> bool:
    p = s.patients[ev.patient]
    p.type_known, p.type_pending = True, False
    return p.status not in (TREATED, DEAD, RESOLVED)


def _callback(s: CodeRedState, params: CodeRedParams, ev: Callback) -> bool:
    p = s.patients[ev.patient]
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


def _self_arrives(s: CodeRedState, params: CodeRedParams, ev: SelfArrives) -> bool:
    p = s.patients[ev.patient]
    if p.status == SELF:
        arrive_hospital(s, params, ev.patient, p.hosp)
    return False


def _stabilisation_ends(s: CodeRedState, params: CodeRedParams,
                        ev: StabilisationEnds) -> bool:
    if s.patients[ev.patient].status == STABILISED:
        recare(s, ev.patient)
    return False


def _disruption_starts(s: CodeRedState, params: CodeRedParams, ev: DisruptionStarts) -> bool:
    on_disrupt(s, params, ev.disruption, True)
    return True


def _disruption_ends(s: CodeRedState, params: CodeRedParams, ev: DisruptionEnds) -> bool:
    on_disrupt(s, params, ev.disruption, False)
    return False


def _blood_arrives(s: CodeRedState, params: CodeRedParams, ev: BloodArrives) -> bool:
    hosp, b, units = s.hospitals[ev.hospital], ev.blood_type, ev.units
    hosp.stock[b] += units
    hosp.received[b] += units
    return False


def _rush_ends(s: CodeRedState, params: CodeRedParams, ev: RushEnds) -> bool:
    s.rush = False
    refresh_roads(s, params)
    return False


def _aid_arrives(s: CodeRedState, params: CodeRedParams, ev: AidArrives) -> bool:
    s.units[ev.unit].status = IDLE
    return True


HANDLERS: dict[type, Callable[[CodeRedState, CodeRedParams, Any], bool]] = {
    Onset: _onset, Death: _death, Escalates: _escalates, UnitArrives: _unit_arrives,
    SceneDone: _scene_done, HandoverDone: _handover_done, ORTimer: _or_timer,
    SpecialistTimer: _specialist_timer, Crossmatched: _crossmatched, AutoBlood: _auto_blood,
    Typed: _typed, Callback: _callback, SelfArrives: _self_arrives,
    DisruptionStarts: _disruption_starts, DisruptionEnds: _disruption_ends,
    BloodArrives: _blood_arrives, RushEnds: _rush_ends, StabilisationEnds: _stabilisation_ends,
    AidArrives: _aid_arrives, WorkupDone: _workup_done,
}
"""The handler of each event type."""


def handle(s: CodeRedState, params: CodeRedParams, entry: tuple[float, int, Event]) -> bool:
    """Apply one heap entry ``(minute, sequence, event)``; True if the agent decides now."""
    ev = entry[2]
    return HANDLERS[type(ev)](s, params, ev)


_INF = float("inf")


def _anything_left(s: CodeRedState) -> bool:
    """True while some patient is active or a patient/call can still appear."""
    for p in s.patients:
        if p.status == FUTURE and p.onset != _INF:
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
    heap, handlers, pop = s.heap, HANDLERS, heapq.heappop
    while heap and heap[0][0] <= stop:
        when, _, ev = pop(heap)
        s.t = max(s.t, when)
        kind = type(ev)
        if handlers[kind](s, params, ev) and s.t > t0 and s.t < stop:  # ``handle``, inlined
            stop = s.t
        if kind not in NEUTRAL:
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
