"""Hospitals of ``codered``: crowding, OR preparation, specialist paging, the work-up, arrival
and the start of definitive treatment (where the outcome is fixed).
"""

from __future__ import annotations

import numpy as np

from lifeline.envs.codered.dynamics.blood import discard_blood, draw_blood
from lifeline.envs.codered.dynamics.events import (
    CROWDED,
    STAB_MIN,
    AutoBlood,
    ORTimer,
    SpecialistTimer,
    StabilisationEnds,
    WorkupDone,
    push,
)
from lifeline.envs.codered.dynamics.patients import recare, vitals
from lifeline.envs.codered.params import (
    CAPABLE,
    CARDIAC,
    HOSPITAL_NODE,
    IN_HOSPITAL_RATE,
    PREALERT_SAVING_MIN,
    PROCEDURE_OF,
    QUALITY,
    SERIOUS,
    SPECIALIST_OF,
    STROKE,
    SURVIVAL_MAX,
    SURVIVAL_SLOPE,
    TREAT_MIN,
    WORKUP_MEDIAN_MIN,
    WORKUP_SIGMA,
    CodeRedParams,
    outcome_at,
)
from lifeline.envs.codered.types import (
    AT_HOSPITAL,
    HANDOVER,
    OR_FREE,
    OR_PREP,
    OR_READY,
    OR_SURGERY,
    RESOLVED,
    SP_BUSY,
    SP_OFF,
    SP_PAGED,
    SP_PRESENT,
    STABILISED,
    TREATED,
    CodeRedState,
    Patient,
)


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
            push(s, sp.until, SpecialistTimer(h, k, sp.token))
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
            push(s, o.until, ORTimer(h, k, o.token))
            return True
    return False


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
        push(s, o.until, ORTimer(h, room, o.token))
    if doc >= 0:
        sp = hosp.specialists[doc]
        if sp.agent_paged:
            tl.pages_used += 1
        sp.state, sp.until, sp.agent_paged = SP_BUSY, s.t + dur, False
        sp.token += 1
        push(s, sp.until, SpecialistTimer(h, doc, sp.token))
    need = p.blood_need if params.mech_blood else 0
    shortfall = 0.0
    if need > 0:
        have = p.blood_ready
        if have < need:
            have += draw_blood(s, h, p, need - have)
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
        push(s, p.stab_until, StabilisationEnds(i))
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
        push(s, p.workup_until, WorkupDone(i))
        _hold_for_workup(s, params, i, h)
    if p.blood_need > 0 and params.mech_blood:
        push(s, s.t + params.auto_blood_min, AutoBlood(i))
    recare(s, i)
    p.vitals_door = p.v_ref
    update_crowding(s, h)
    try_start(s, params, h)


def on_or(s: CodeRedState, params: CodeRedParams, h: int, k: int) -> None:
    o = s.hospitals[h].ors[k]
    tl = s.tally
    if o.state == OR_PREP:
        o.state, o.until = OR_READY, s.t + params.hold_min
        o.token += 1
        push(s, o.until, ORTimer(h, k, o.token))
    elif o.state == OR_READY:
        if _awaited(s, h, o.claimed):  # the pre-alerted room waits for its patient's work-up
            o.until = s.t + params.hold_min
            o.token += 1
            push(s, o.until, ORTimer(h, k, o.token))
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
        push(s, sp.until, SpecialistTimer(h, k, sp.token))
    elif sp.state == SP_PRESENT and _specialist_awaited(s, h, k):
        sp.until = s.t + params.hold_min  # stays for a patient still in work-up
        sp.token += 1
        push(s, sp.until, SpecialistTimer(h, k, sp.token))
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
