"""ED-v3 care processes: physicians, the work-up (labs and imaging) and inpatient beds.

A patient in an ED bed is first *seen*: a free physician (``EDParams.physicians_by_hour``)
spends ``assess_ticks`` on the provider assessment, which orders the work-up drawn at arrival
(``Patient.labs``, ``imaging``). Labs come back ``lab_ticks`` after the order; imaging waits in
one queue for ``scanners`` (first come, unless the agent expedites an order), takes
``scan_ticks`` per study and is reported ``read_ticks`` later. Treatment progresses only once
the work-up is back (``Patient.workup_done``). An admission (ward or ICU) then *boards* in its
ED bed until the hospital assigns an inpatient bed: the ward and the ICU outside the ED have
their own census, moved by discharges and elective/other admissions drawn up front per seed
(``EDState.inpatient_flow``), and by the ED's own admissions. Door-to-provider, length of stay
and boarding are therefore outcomes of these queues, not draws.

Every function mutates ``EDState`` in place; ``dynamics.advance_tick`` calls them in a fixed
order (assessments, scanners, work-up, inpatient beds). Nothing here draws random numbers.
"""

from __future__ import annotations

from lifeline.envs.ed.params import EDParams
from lifeline.envs.ed.types import EDState, Patient


def hour_of(state: EDState, params: EDParams) -> int:
    """Hour of day (0..23) of the current tick."""
    return int(state.tick * params.tick_minutes // 60) % 24


def physicians_on_duty(state: EDState, params: EDParams) -> int:
    """Physicians on shift in the current hour."""
    return params.physicians_by_hour[hour_of(state, params)]


def physicians_free(state: EDState, params: EDParams) -> int:
    """Physicians on shift and not in an assessment (never negative: an assessment that runs
    past a shift change is finished by the leaving physician, and an ESI-1 patient is seen at
    once even when every physician is busy, which delays the next free one)."""
    return max(0, physicians_on_duty(state, params) - state.physicians_busy)


def in_beds(state: EDState) -> list[Patient]:
    """Occupants of the general beds, then of the ICU beds (bed order)."""
    return [p for p in state.general if p is not None] + [p for p in state.icu if p is not None]


def start_assessment(state: EDState, params: EDParams, patient: Patient) -> None:
    """A physician starts seeing ``patient`` now (door-to-provider ends)."""
    patient.seen_tick = state.tick
    patient.assess_left = params.assess_ticks[patient.true_acuity - 1]
    close_provider_wait(state, patient, state.tick)


def close_provider_wait(state: EDState, patient: Patient, end_tick: int) -> None:
    """Add this visit's door-to-provider (arrival to ``end_tick``) to the closed waits; called
    once per visit: when seen, or when the patient dies, leaves or is discharged unseen."""
    wait = end_tick - patient.arrival_tick
    state.counters.provider_wait_ticks_closed += wait
    if patient.seen_tick >= 0:
        state.log.provider.append((patient.esi_at_arrival, wait, patient.arrival_tick))


def expedite(state: EDState, patient: Patient) -> None:
    """Move ``patient``'s imaging order to the front of the scanner queue."""
    state.imaging_queue.remove(patient)
    state.imaging_queue.insert(0, patient)


def leave(state: EDState, patient: Patient) -> None:
    """``patient`` leaves the ED (discharge or death): drop its imaging order or scan."""
    if patient.imaging_state == 1:
        state.imaging_queue.remove(patient)
    elif patient.imaging_state == 2:
        state.scanning = [s for s in state.scanning if s[0] is not patient]
    patient.imaging_state = 0
    patient.assess_left = 0
    if patient.awaiting_bed and patient.bed_assigned_tick >= 0:  # the reserved bed goes back
        if patient.needs_icu:
            state.hospital_icu_free += 1
        else:
            state.ward_free += 1
        patient.bed_assigned_tick = -1


def unseen(patient: Patient) -> bool:
    """In the ED without a finished provider assessment."""
    return patient.seen_tick < 0 or patient.assess_left > 0


def awaiting_provider(patient: Patient) -> bool:
    """No physician has started seeing the patient in this visit (care begins with the
    assessment: from then on the hazards are those of the patient's level of care)."""
    return patient.seen_tick < 0


def advance_assessments(state: EDState, params: EDParams, beds: list[Patient]) -> None:
    """Assessments progress one tick; a finished one orders the work-up (results count from
    the end of this tick)."""
    end = state.tick + 1
    for p in beds:
        if p.assess_left <= 0:
            continue
        p.assess_left -= 1
        state.log.busy_physician_ticks += 1
        if p.assess_left == 0:
            if p.labs:
                p.lab_result_tick = end + p.lab_ticks
            if p.imaging:
                p.imaging_state = 1
                state.imaging_queue.append(p)


def advance_scanners(state: EDState, params: EDParams) -> None:
    """Scans progress; finished scans are reported ``read_ticks`` later; free scanners take the
    front of the queue (its studies then occupy the scanner from the next tick)."""
    end = state.tick + 1
    still = []
    for entry in state.scanning:
        entry[1] -= 1
        state.log.scanner_ticks += 1
        if entry[1] <= 0:
            p: Patient = entry[0]
            p.imaging_state = 3
            p.imaging_result_tick = end + p.read_ticks
        else:
            still.append(entry)
    state.scanning = still
    while state.imaging_queue and len(state.scanning) < params.scanners:
        p = state.imaging_queue.pop(0)
        p.imaging_state = 2
        state.scanning.append([p, p.imaging * params.scan_ticks])


def update_workups(state: EDState, beds: list[Patient]) -> None:
    """Mark patients whose assessment is over and whose every result is back (by the end of
    this tick) as worked up: their treatment progresses from the next tick on."""
    end = state.tick + 1
    for p in beds:
        if p.workup_done or unseen(p):
            continue
        labs_back = not p.labs or 0 <= p.lab_result_tick <= end
        imaging_back = not p.imaging or (p.imaging_state == 3 and p.imaging_result_tick <= end)
        if labs_back and imaging_back:
            p.workup_done = True


def note_decisions(state: EDState, beds: list[Patient]) -> None:
    """Record the decision tick (ED work complete) of patients whose treatment just ended."""
    for p in beds:
        if p.decision_tick < 0 and p.workup_done and p.treatment_done:
            p.decision_tick = state.tick + 1


def assign_inpatient_beds(state: EDState, params: EDParams) -> None:
    """The hospital's bed management for this tick: discharges free beds, elective/other
    admissions take them first, then ED boarders in order of their decision to admit."""
    flow = state.inpatient_flow[state.tick] if state.tick < len(state.inpatient_flow) else None
    if flow is not None:
        state.ward_free = min(params.ward_capacity, state.ward_free + int(flow[0]))
        state.hospital_icu_free = min(params.hospital_icu_capacity,
                                      state.hospital_icu_free + int(flow[2]))
        state.elective_backlog[0] += int(flow[1])
        state.elective_backlog[1] += int(flow[3])
    for k in (0, 1):
        free = state.ward_free if k == 0 else state.hospital_icu_free
        take = min(free, state.elective_backlog[k])
        state.elective_backlog[k] -= take
        if k == 0:
            state.ward_free -= take
        else:
            state.hospital_icu_free -= take
    beds = in_beds(state)
    turnaround = round(params.bed_turnaround_minutes / params.tick_minutes)
    for p in beds:  # assigned beds become ready after the turnaround
        # assigned at the end of tick ``bed_assigned_tick``; ready ``turnaround`` ticks later
        if p.awaiting_bed and 0 <= p.bed_assigned_tick <= state.tick - turnaround:
            p.awaiting_bed = False
    boarders = sorted((p for p in beds if p.awaiting_bed and p.decision_tick >= 0
                       and p.bed_assigned_tick < 0), key=lambda p: (p.decision_tick, p.pid))
    for p in boarders:
        if p.needs_icu:
            if state.hospital_icu_free > 0:
                state.hospital_icu_free -= 1
                p.bed_assigned_tick = state.tick
        elif state.ward_free > 0:
            state.ward_free -= 1
            p.bed_assigned_tick = state.tick
        if turnaround <= 0 and p.bed_assigned_tick == state.tick:
            p.awaiting_bed = False


def reset_visit(patient: Patient) -> None:
    """A return starts a new visit: seen again, worked up again (the same orders)."""
    patient.seen_tick, patient.assess_left = -1, 0
    patient.workup_done = False
    patient.lab_result_tick, patient.imaging_result_tick = -1, -1
    patient.imaging_state = 0
    patient.decision_tick = -1
    patient.bed_assigned_tick = -1
    patient.awaiting_bed = patient.needs_ward or patient.needs_icu


def log_departure(state: EDState, patient: Patient) -> None:
    """Record a completed visit (length of stay, disposition, boarding) for the card."""
    if patient.needs_icu:
        disposition = 2
    elif patient.needs_ward:
        disposition = 1
    else:
        disposition = 0
    boarding = state.tick - patient.decision_tick if disposition and patient.decision_tick >= 0 \
        else -1
    state.log.departures.append((patient.esi_at_arrival,
                                 state.tick - patient.arrival_tick, disposition, boarding,
                                 patient.arrival_tick))

