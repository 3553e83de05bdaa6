"""Transitions of ED-v2 (:class:`~lifeline.envs.ed.env.EDv2Env`): applying a (valid) action
and advancing the clock by one tick. ED-v3's transitions are written once, in
:mod:`lifeline.envs.ed.kernel_v3`, which the scalar v3 env calls (``scalar_kernel``) and the
batch env calls for N envs; nothing here runs for v3.

v2 mechanics: a triage step (arrivals enter the waiting room ``triage_ticks`` after arriving),
ward admissions that board in their ED bed after treatment (``Patient.board_ticks``), ICU need
of ESI-1 patients drawn per patient. All their randomness is drawn at generation time.

Everything here mutates ``EDState`` in place and records what happened in a ``StepEvents``
tally that ``reward.py`` turns into the dense reward. Randomness comes only from the state's
named streams, drawn up front per patient where possible (``EDState.hazard_draws`` and
``patient_draws``: common random numbers across policies); ``returns`` serves repeat early
discharges of the same patient.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lifeline.envs.ed.params import EDParams
from lifeline.envs.ed.types import (
    GENERAL,
    GONE,
    ICU,
    WAITING,
    AdmitGeneral,
    AdmitICU,
    DischargeGeneral,
    DischargeICU,
    EDAction,
    EDState,
    Patient,
    StepDown,
    TransferToICU,
    Ventilate,
    Wait,
)


@dataclass
class StepEvents:
    """What happened during one step (counts of patients unless named otherwise)."""

    treated: int = 0
    treated_critical: int = 0
    deaths: int = 0
    lwbs: int = 0
    early_discharge_severity: int = 0
    """Sum over early discharges of severity = 6 - true ESI (ESI 1 -> 5 ... ESI 5 -> 1)."""
    discharge_harms: int = 0
    """Early discharges after which the patient will come back worse."""
    waiting_critical_ticks: int = 0
    """Patient-ticks spent waiting at true ESI 1-2."""
    waiting_other_ticks: int = 0
    ticks: int = 0
    """Clock ticks advanced during this step (0 or 1)."""


def sort_key(p: Patient) -> tuple[int, int, int]:
    """Waiting-room order: most urgent observed acuity, then longest wait, then arrival order."""
    return (p.observed_acuity, p.arrival_tick, p.pid)


def _ward(state: EDState, location: int) -> list[Patient | None]:
    return state.general if location == GENERAL else state.icu


def _place(state: EDState, patient: Patient, location: int) -> None:
    ward = _ward(state, location)
    bed = ward.index(None)
    ward[bed] = patient
    patient.location, patient.bed = location, bed


def _vacate(state: EDState, patient: Patient) -> None:
    _ward(state, patient.location)[patient.bed] = None
    if patient.ventilated:
        patient.ventilated = False
        state.ventilators_in_use -= 1
    patient.location, patient.bed = GONE, -1


def _close_wait(state: EDState, patient: Patient, end_tick: int | None = None) -> None:
    """Add the patient's wait (arrival to ``end_tick``, default now) to the closed waits.

    Deaths and departures during a tick's advance end their wait at the end of that tick."""
    end = state.tick if end_tick is None else end_tick
    state.counters.wait_ticks_closed += end - patient.arrival_tick
    state.counters.waits_closed += 1


def use_slot(state: EDState, params: EDParams, events: StepEvents) -> None:
    """One of the K decisions of this tick is used up; the K-th advances the clock.

    Every non-wait step calls it, valid or not, so no sequence of actions can stall time.
    """
    state.actions_this_tick += 1
    if state.actions_this_tick >= params.actions_per_tick:
        advance_tick(state, params, events)


def apply_action(state: EDState, params: EDParams, action: EDAction, events: StepEvents) -> None:
    """Apply a validated action; the K-th consecutive non-wait action also advances the clock."""
    if isinstance(action, Wait):
        advance_tick(state, params, events)
        return
    if isinstance(action, (AdmitGeneral, AdmitICU)):
        patient = state.waiting.pop(action.slot)
        _close_wait(state, patient)
        patient.admitted_tick = state.tick
        patient.admitted_acuity = patient.observed_acuity
        _place(state, patient, GENERAL if isinstance(action, AdmitGeneral) else ICU)
    elif isinstance(action, Ventilate):
        occupant = state.icu[action.bed]
        assert occupant is not None
        occupant.ventilated = True
        state.ventilators_in_use += 1
    elif isinstance(action, (TransferToICU, StepDown)):
        src = state.general if isinstance(action, TransferToICU) else state.icu
        occupant = src[action.bed]
        assert occupant is not None
        _vacate(state, occupant)
        _place(state, occupant, ICU if isinstance(action, TransferToICU) else GENERAL)
    elif isinstance(action, (DischargeGeneral, DischargeICU)):
        ward = state.general if isinstance(action, DischargeGeneral) else state.icu
        occupant = ward[action.bed]
        assert occupant is not None
        _discharge(state, params, occupant, events)
    use_slot(state, params, events)


def _discharge(state: EDState, params: EDParams, patient: Patient, events: StepEvents) -> None:
    _vacate(state, patient)
    if patient.ready:
        state.counters.treated += 1
        state.counters.ward_admissions += int(patient.needs_ward)
        events.treated += 1
        events.treated_critical += int(patient.ever_critical)
        return
    state.counters.early_discharges += 1
    events.early_discharge_severity += 6 - patient.true_acuity
    outside_outcome(state, params, patient, events)


def outside_outcome(state: EDState, params: EDParams, patient: Patient,
                    events: StepEvents) -> None:
    """What happens to a patient who leaves unfinished (an early discharge): dies outside with
    ``outside_death_prob`` by true ESI, else comes back one level worse with ``return_prob`` (a
    harm of the policy, counted now)."""
    if patient.return_count:  # a repeat early discharge: the draws of the k-th return
        u_death, u_return, u_delay = state.return_draws[patient.pid, patient.return_count - 1]
    else:
        u_death, u_return, u_delay = state.patient_draws[patient.pid, 2:5]
    if u_death < params.outside_death_prob[patient.true_acuity - 1]:
        state.counters.deaths += 1
        state.counters.discharge_deaths += 1
        state.counters.critical_deaths += int(patient.critical_at_arrival)
        events.deaths += 1
    elif u_return < params.return_prob:
        # Harm of the discharging policy, counted now: a return still pending when the shift
        # ends counts as much as one that arrives during it.
        state.counters.discharge_harms += 1
        events.discharge_harms += 1
        lo, hi = params.return_delay_hours
        delay = math.ceil((lo + (hi - lo) * u_delay) * 60.0 / params.tick_minutes)
        state.returns.append((state.tick + delay, patient.pid, patient))


def correct_care(patient: Patient) -> bool:
    """In a bed of the level of care the patient needs (ICU + ventilator if needed)."""
    if patient.location == ICU:
        return patient.ventilated or not patient.needs_vent
    return patient.location == GENERAL and not patient.needs_icu


def hazard_factor(patient: Patient, params: EDParams) -> float:
    """Multiplier of the worsening/death hazards: where the patient is (0 once treatment is
    complete), times the patient's condition profile."""
    if patient.location == WAITING:
        factor = 1.0
    elif patient.treatment_done:  # complete (a ward admission boarding in its bed included)
        return 0.0
    elif patient.needs_vent and not patient.ventilated:
        factor = params.no_vent_factor
    elif correct_care(patient):
        factor = params.treated_factor
    else:
        factor = params.under_care_factor
    return factor * params.condition_hazard[patient.condition]


def _worsen(state: EDState, params: EDParams, patient: Patient) -> None:
    patient.true_acuity -= 1
    patient.ever_critical = patient.ever_critical or patient.true_acuity <= 2
    if patient.true_acuity == 1 and not patient.needs_icu:
        u_vent, u_hours = state.patient_draws[patient.pid, 0:2]
        patient.needs_icu = True
        patient.needs_ward, patient.board_ticks = False, 0  # now an ICU admission
        patient.needs_vent = bool(u_vent < params.condition_vent_prob[patient.condition])
        extra_hours = (params.icu_treatment_hours * params.condition_los[patient.condition]
                       * (0.5 + 0.5 * float(u_hours)))
        patient.treatment_ticks = patient.progress_ticks + round(
            extra_hours * 60.0 / params.tick_minutes)
    else:
        patient.treatment_ticks += round(120.0 / params.tick_minutes)  # two more hours of care


def _die(state: EDState, params: EDParams, patient: Patient, events: StepEvents) -> None:
    state.counters.deaths += 1
    state.counters.critical_deaths += int(patient.critical_at_arrival)
    events.deaths += 1
    if patient.location == WAITING:
        state.waiting.remove(patient)
        _close_wait(state, patient, state.tick + 1)  # died during this tick
        patient.location = GONE
    else:
        _vacate(state, patient)


def finish_shift(state: EDState, params: EDParams, events: StepEvents) -> None:
    """The early stop: the rest of the shift runs with nobody admitted, and is graded.

    Stopping early therefore never escapes harm: waiting patients keep deteriorating, dying and
    leaving, and arrivals keep coming, exactly as if the agent had waited to the end.
    """
    state.counters.early_stop_tick = state.tick
    while state.tick < params.horizon_ticks:
        advance_tick(state, params, events)


def advance_tick(state: EDState, params: EDParams, events: StepEvents) -> None:
    """One 15-minute tick: care progresses, hazards strike, LWBS, penalties, then arrivals."""
    events.ticks += 1
    state.actions_this_tick = 0
    in_beds = [p for p in state.general if p is not None] + [p for p in state.icu if p is not None]
    c = state.counters
    c.ticks += 1
    c.general_bed_ticks += len(in_beds) - sum(p is not None for p in state.icu)
    c.icu_bed_ticks += sum(p is not None for p in state.icu)
    c.ventilator_ticks += state.ventilators_in_use
    for p in in_beds:
        p.ticks_in_bed += 1
        p.triage_error = 0  # a tick in a bed reveals the true acuity
        if not p.ready and p.workup_done and correct_care(p):
            p.progress_ticks += 1
    at_risk = [p for p in state.waiting] + [p for p in in_beds if not p.treatment_done]
    if at_risk:
        draws = state.hazard_draws[[p.pid for p in at_risk], state.tick]
        for p, u in zip(at_risk, draws.tolist(), strict=True):
            factor = hazard_factor(p, params)
            if p.true_acuity == 1:
                if u < params.death_hazard_untreated * factor:
                    _die(state, params, p, events)
            elif u < params.worsen_hazard[p.true_acuity - 1] * factor:
                _worsen(state, params, p)
    for p in list(state.waiting):
        if p.true_acuity >= 4 and state.tick - p.arrival_tick >= p.patience_ticks:
            state.waiting.remove(p)
            _close_wait(state, p, state.tick + 1)  # left during this tick
            p.location = GONE
            state.counters.lwbs += 1
            events.lwbs += 1
    critical_waiting = sum(1 for p in state.waiting if p.true_acuity <= 2)
    events.waiting_critical_ticks += critical_waiting
    events.waiting_other_ticks += len(state.waiting) - critical_waiting
    state.tick += 1
    admit_arrivals(state, params)


def admit_arrivals(state: EDState, params: EDParams) -> None:
    """Move the arrivals triaged by now (scheduled ``triage_ticks`` earlier) and due returns into
    the waiting room."""
    arrived = state.tick - params.triage_ticks
    if 0 <= arrived < len(state.schedule):
        for p in state.schedule[arrived]:
            state.counters.patients += 1
            state.counters.critical += int(p.critical_at_arrival)
            state.waiting.append(p)
    if state.returns:
        due = sorted(r for r in state.returns if r[0] <= state.tick)
        state.returns = [r for r in state.returns if r[0] > state.tick]
        for _, _, p in due:
            # v2's order (kept for its digests): worsening to ESI 1 sets the treatment time from
            # the old visit's progress, reset only below (v3 resets first: ``kernel_v3``).
            if p.true_acuity > 1:
                _worsen(state, params, p)  # returns come back one level worse
            p.location, p.bed, p.admitted_tick = WAITING, -1, -1
            p.arrival_tick, p.progress_ticks, p.ticks_in_bed = state.tick, 0, 0
            p.returned = True
            p.return_count += 1
            state.counters.returns += 1
            state.waiting.append(p)
    state.waiting.sort(key=sort_key)


