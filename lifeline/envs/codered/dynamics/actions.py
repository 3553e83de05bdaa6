"""The agent's actions in ``codered``: one small function per action type (valid actions only;
validity lives in ``rules.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lifeline.envs.codered import types as T
from lifeline.envs.codered.dynamics.ambulances import dispatch, nearest_free, new_aid_unit
from lifeline.envs.codered.dynamics.blood import discard_blood, take_stock
from lifeline.envs.codered.dynamics.events import (
    BloodArrives,
    Callback,
    Crossmatched,
    ORTimer,
    SelfArrives,
    Typed,
    push,
)
from lifeline.envs.codered.dynamics.hospitals import page, prepare, try_start
from lifeline.envs.codered.dynamics.patients import recare
from lifeline.envs.codered.dynamics.roads import nearest_hospital
from lifeline.envs.codered.params import (
    BLOOD_TYPES,
    HOSPITAL_NODE,
    O_NEG,
    PROCEDURES,
    SERIOUS,
    SPECIALISTS,
    TRIAGE_DECISIONS,
    CodeRedParams,
)
from lifeline.envs.codered.types import (
    AT_HOSPITAL,
    CALLBACK,
    OR_FREE,
    RESOLVED,
    SELF,
    CodeRedState,
)


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
    push(s, o.until, ORTimer(a.hospital, a.or_index, o.token))
    try_start(s, params, a.hospital)
    return f"elective case in OR {a.or_index} at hospital {a.hospital} cancelled"


def _act_allocate_blood(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    p = s.patients[a.patient]
    b = BLOOD_TYPES.index(a.blood_type)
    take_stock(s, a.hospital, b, a.units)
    if b == O_NEG:
        p.oneg_held += a.units
    if a.emergency:
        s.tally.emergency_patients += int(p.blood_emergency == 0)
        s.tally.emergency_units += a.units
        p.blood_ready += a.units
        p.blood_emergency += a.units
        if p.blood_type != O_NEG:
            s.tally.oneg_nonneg += a.units
        if p.status == AT_HOSPITAL:
            try_start(s, params, a.hospital)
    else:
        p.blood_pending += a.units
        push(s, s.t + params.crossmatch_min, Crossmatched(a.patient, a.units))
    return f"{a.units} {a.blood_type} units {'released' if a.emergency else 'in crossmatch'}"


_BT_INDEX = {b: i for i, b in enumerate(BLOOD_TYPES)}
"""Blood type name -> index."""


def _act_transfer_blood(s: CodeRedState, params: CodeRedParams, a: Any) -> str:
    b = _BT_INDEX[a.blood_type]
    f, units = a.from_hospital, a.units
    hosp = s.hospitals[f]  # take_stock(use=False), inlined: this is the commonest random action
    hosp.stock[b] -= units
    tl = s.tally
    received = hosp.received
    if received[b]:  # units that came by transfer and are sent on: still one transfer, not two
        moved = min(units, received[b])
        received[b] -= moved
        tl.transfer_sent -= moved
    tl.transfer_sent += units
    d = s.graph.dist.item(HOSPITAL_NODE[f], HOSPITAL_NODE[a.to_hospital])
    push(s, s.t + d, BloodArrives(a.to_hospital, b, units))
    return f"{units} {a.blood_type} units on the way, {d:.0f} min"


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
    push(s, s.t + params.typing_min, Typed(a.patient))
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
        push(s, s.t + 15.0 + 1.5 * float(s.graph.dist[p.node, HOSPITAL_NODE[h]]), SelfArrives(i))
        recare(s, i)
        return f"call {i}: caller travels to hospital {h} on their own"
    if d == 3:
        p.status = CALLBACK
        push(s, s.t + 5.0, Callback(i))
        return f"call {i}: callback in 5 min"
    p.status = RESOLVED
    if p.cond not in SERIOUS:
        s.tally.triage_good += 1
    return f"call {i} closed without dispatch"
