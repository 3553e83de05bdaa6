"""ED-v3's care processes as the views read them: physicians on shift and free, who has not
been seen.

The processes themselves -- a free physician (``EDParams.physicians_by_hour``) spends
``assess_ticks`` on the provider assessment, which orders the work-up drawn at arrival
(``Patient.labs``, ``imaging``); labs come back ``lab_ticks`` after the order; imaging waits in
one queue for ``scanners`` (first come, unless the agent expedites an order), takes
``scan_ticks`` per study and is reported ``read_ticks`` later; treatment progresses only once
the work-up is back; an admission then *boards* in its ED bed until the hospital (ward and ICU
outside the ED, with their own census and inpatient flow) assigns a bed -- are written once, in
:mod:`lifeline.envs.ed.kernel_v3` (``advance_assessments``, ``advance_scanners``,
``update_workups``, ``assign_inpatient_beds`` ...), which both the scalar and the batch env
run. The functions here only read an ``EDState`` (rules, observation, render and frame use
them).
"""

from __future__ import annotations

from lifeline.envs.ed.params import EDParams
from lifeline.envs.ed.types import EDState, Patient


def hour_of_tick(tick: int, params: EDParams) -> int:
    """Hour of day (0..23) of tick ``tick`` (the kernel tabulates it: ``KParams.on_duty``)."""
    return int(tick * params.tick_minutes // 60) % 24


def clock_hours(tick: int, params: EDParams) -> float:
    """The observation's hour of day at tick ``tick`` (the kernel tabulates it:
    ``KParams.clock``)."""
    return (tick * (params.tick_minutes / 60.0)) % 24.0


def hour_of(state: EDState, params: EDParams) -> int:
    """Hour of day (0..23) of the current tick."""
    return hour_of_tick(state.tick, params)


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


def unseen(patient: Patient) -> bool:
    """In the ED without a finished provider assessment."""
    return patient.seen_tick < 0 or patient.assess_left > 0


def awaiting_provider(patient: Patient) -> bool:
    """No physician has started seeing the patient in this visit (care begins with the
    assessment: from then on the hazards are those of the patient's level of care)."""
    return patient.seen_tick < 0
