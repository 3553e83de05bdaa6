"""Ambulances of ``codered``: trips, dispatch, the scene, transport, handover and mutual aid.
"""

from __future__ import annotations

from lifeline.envs.codered.dynamics.blood import discard_blood
from lifeline.envs.codered.dynamics.events import (
    ASSIGNED_STATUS,
    AidArrives,
    HandoverDone,
    SceneDone,
    UnitArrives,
    push,
)
from lifeline.envs.codered.dynamics.hospitals import arrive_hospital, update_crowding
from lifeline.envs.codered.dynamics.patients import recare
from lifeline.envs.codered.dynamics.roads import eta, nearest_hospital, unit_position
from lifeline.envs.codered.params import (
    AID_ENTRY,
    HOSPITAL_NODE,
    SERIOUS,
    CodeRedParams,
)
from lifeline.envs.codered.types import (
    AID_INBOUND,
    AT_HOSP,
    EN_ROUTE,
    HANDOVER,
    IDLE,
    INACTIVE,
    ON_SCENE,
    RESOLVED,
    RETURNING,
    SCENE,
    TRANSPORT,
    TRANSPORTING,
    CodeRedState,
)


def start_trip(s: CodeRedState, u: int, dest: int, status: int) -> None:
    un = s.units[u]
    origin, lead = unit_position(s, u)
    un.node, un.dest, un.lead, un.t_start = origin, dest, lead, s.t
    un.t_arrive = s.t + lead + float(s.graph.dist[origin, dest])
    un.status = status
    un.token += 1
    push(s, un.t_arrive, UnitArrives(u, un.token))


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


def nearest_free(s: CodeRedState, node: int, als: bool) -> int:
    """The available/returning unit of the given type with the shortest ETA to ``node``."""
    best, best_t = -1, float("inf")
    for u, un in enumerate(s.units):
        if un.status in (IDLE, RETURNING) and un.als == als:
            t = eta(s, u, node)
            if t < best_t:
                best, best_t = u, t
    return best


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
        push(s, s.t + scene, SceneDone(u, un.token))
    elif un.status == TRANSPORTING:
        un.status = AT_HOSP
        p = s.patients[un.patient]
        p.status = HANDOVER
        p.at_hosp = p.hosp
        update_crowding(s, p.hosp)
        push(s, s.t + params.handover_min, HandoverDone(u, un.token))
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
        push(s, s.t + delay, SceneDone(u, un.token))
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


def new_aid_unit(s: CodeRedState, params: CodeRedParams, rng_delay: float) -> int:
    """Activate the next mutual-aid slot; it arrives after ``rng_delay`` minutes."""
    for u, un in enumerate(s.units):
        if un.aid and un.status == INACTIVE:
            node = AID_ENTRY[s.aid_node_next % len(AID_ENTRY)]
            s.aid_node_next += 1
            un.status, un.node, un.dest, un.home = AID_INBOUND, node, node, node
            un.token += 1
            push(s, s.t + rng_delay, AidArrives(u, un.token))
            return u
    return -1
