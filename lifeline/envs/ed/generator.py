"""Seeded generation of one day's patient stream (identical for every policy on the same seed).

Arrivals follow a non-homogeneous Poisson process with a diurnal profile (about a 3x swing,
peaks near 11:00 and 18:30). Each patient's hidden attributes are drawn at generation time from
the ``patients`` stream, so the realised stream never depends on what the agent does.
"""

from __future__ import annotations

import math

import numpy as np

from lifeline.envs.ed.params import CONDITIONS, MINOR, RESPIRATORY, TRAUMA, EDParams
from lifeline.envs.ed.types import ICU, Patient

_OTHER_CONDITIONS = tuple(i for i in range(len(CONDITIONS)) if i not in (RESPIRATORY, MINOR))


def diurnal_profile(hour: float) -> float:
    """Relative arrival intensity at ``hour`` of day, normalised to mean 1 over 24 h."""
    raw = (0.45 + 1.0 * math.exp(-(((hour - 11.0) / 3.0) ** 2))
           + 0.85 * math.exp(-(((hour - 18.5) / 2.5) ** 2)))
    return raw / 0.8283  # mean of ``raw`` over the day (on the 15-min grid)


def _hours_to_ticks(hours: float, params: EDParams) -> int:
    return max(1, round(hours * 60.0 / params.tick_minutes))


def _lognormal_ticks(rng: np.random.Generator, mean_hours: float, sigma: float,
                     params: EDParams) -> int:
    mu = math.log(mean_hours) - sigma * sigma / 2.0
    return _hours_to_ticks(float(rng.lognormal(mu, sigma)), params)


def triage_error(acuity: int, rng: np.random.Generator, params: EDParams) -> int:
    """Observed minus true acuity: critical (ESI 1-2) patients are under-triaged by one level with
    probability ``2 x mistriage_prob``; others are off by one either way with ``mistriage_prob``."""
    if acuity <= 2:
        return 1 if rng.random() < min(1.0, 2.0 * params.mistriage_prob) else 0
    if rng.random() >= params.mistriage_prob:
        return 0
    error = -1 if rng.random() < 0.5 else 1
    return error if 1 <= acuity + error <= 5 else -error


def make_patient(pid: int, tick: int, acuity: int, condition: int | None,
                 rng: np.random.Generator, params: EDParams) -> Patient:
    """Draw a patient's hidden attributes. ``condition=None`` draws it from the scenario mix."""
    if condition is None:
        if acuity >= 4 and rng.random() < 0.7:
            condition = MINOR
        elif rng.random() < params.respiratory_share:
            condition = RESPIRATORY
        else:
            condition = _OTHER_CONDITIONS[int(rng.integers(len(_OTHER_CONDITIONS)))]
    if acuity == 1:
        needs_icu = bool(rng.random() < params.esi1_icu_prob)
    else:
        needs_icu = acuity == 2 and bool(rng.random() < params.condition_icu_prob[condition])
    needs_vent = needs_icu and rng.random() < params.condition_vent_prob[condition]
    error = triage_error(acuity, rng, params)
    v3 = params.version >= 3
    if needs_icu:
        mean_hours = params.icu_stabilise_hours if v3 else params.icu_treatment_hours
    else:
        mean_hours = params.general_treatment_hours[acuity - 1]
    treatment = _lognormal_ticks(rng, mean_hours * params.condition_los[condition],
                                 params.treatment_sigma, params)
    patience_hours = params.lwbs_patience_by_esi[acuity - 1] if v3 else params.lwbs_patience_hours
    patience = _lognormal_ticks(rng, patience_hours or 1.0, params.lwbs_patience_sigma, params)
    # v2: ward admission and its boarding time, always drawn (two draws) so that every patient
    # consumes the same number of draws here whatever the outcome.
    u_ward = float(rng.random())
    board = _lognormal_ticks(rng, params.boarding_hours[acuity - 1], params.boarding_sigma,
                             params)
    needs_ward = not needs_icu and u_ward < params.ward_admit_prob[acuity - 1]
    patient = Patient(pid=pid, arrival_tick=tick, true_acuity=acuity, triage_error=error,
                      condition=condition, needs_icu=needs_icu, needs_vent=needs_vent,
                      treatment_ticks=treatment, patience_ticks=patience,
                      needs_ward=needs_ward, board_ticks=board if needs_ward else 0,
                      ever_critical=acuity <= 2, critical_at_arrival=acuity <= 2,
                      esi_at_arrival=acuity)
    if v3:
        draw_workup(patient, rng, params)
        if not patience_hours:
            patient.patience_ticks = 10 * params.horizon_ticks  # never leaves unseen
    return patient


def draw_workup(p: Patient, rng: np.random.Generator, params: EDParams) -> None:
    """v3: the patient's ESI resources (Tanabe 2004 means by ESI: a fixed part plus a Poisson
    part), split into a lab panel, imaging studies and other resources, and the lab turnaround
    and radiology reporting times. A fixed number of draws per patient (common random numbers).
    Admissions wait for an inpatient bed (``awaiting_bed``); boarding is no longer sampled."""
    esi = p.true_acuity - 1
    total = params.resources_base[esi] + int(rng.poisson(params.resources_extra[esi]))
    u_lab = float(rng.random())
    u_kinds = rng.random(8)
    p.labs = int(total >= 1 and u_lab < params.lab_prob[esi])
    rest = total - p.labs
    p.imaging = min(params.max_imaging, int((u_kinds[:rest] < params.imaging_share).sum()))
    p.other_resources = rest - p.imaging
    p.lab_ticks = _lognormal_ticks(rng, params.lab_minutes / 60.0, params.diag_sigma, params)
    p.read_ticks = _lognormal_ticks(rng, params.read_minutes / 60.0, params.diag_sigma, params)
    p.treatment_ticks += round(p.other_resources * params.other_resource_minutes
                               / params.tick_minutes)
    p.workup_done = False
    p.board_ticks = 0
    p.awaiting_bed = p.needs_ward or p.needs_icu


def inpatient_flow(params: EDParams, rng: np.random.Generator) -> np.ndarray:
    """v3: per tick [ward discharges, ward electives, ICU discharges, other ICU admissions] of
    the hospital outside the ED, Poisson with the daily means of ``params`` spread over the day
    by :func:`discharge_profile` (discharges) and :func:`elective_profile` (admissions). Drawn
    up front, so inpatient census follows the same path for every policy except for the beds
    the ED's own admissions take."""
    ticks = params.horizon_ticks
    tick_hours = params.tick_minutes / 60.0
    hours = [(t * tick_hours) % 24.0 for t in range(ticks)]
    out_w = np.array([discharge_profile(h) for h in hours])
    in_w = np.array([elective_profile(h) for h in hours])
    out_w, in_w = out_w / out_w.sum() * ticks * tick_hours / 24.0, in_w / in_w.sum() * (
        ticks * tick_hours / 24.0)
    means = np.stack([params.ward_discharges_per_day * out_w,
                      params.ward_electives_per_day * in_w,
                      params.icu_discharges_per_day * out_w,
                      params.icu_other_admissions_per_day * in_w], axis=1)
    return rng.poisson(means).astype(np.int64)


def discharge_profile(hour: float) -> float:
    """Relative rate of inpatient discharges by hour: few at night, most 10:00-18:00 (peak
    ~14:00; the familiar afternoon discharge peak that makes morning boarding worst)."""
    return 0.05 + math.exp(-(((hour - 14.0) / 2.5) ** 2))


def elective_profile(hour: float) -> float:
    """Relative rate of elective/direct inpatient admissions by hour (daytime, peak ~11:00)."""
    return 0.05 + math.exp(-(((hour - 11.0) / 3.0) ** 2))


def generate_schedule(params: EDParams, arrivals: np.random.Generator,
                      patients: np.random.Generator) -> list[list[Patient]]:
    """Patients arriving at each tick ``0..horizon_ticks-1`` (pids in arrival order)."""
    tick_hours = params.tick_minutes / 60.0
    schedule: list[list[Patient]] = [[] for _ in range(params.horizon_ticks)]
    counts = [int(arrivals.poisson(params.arrivals_per_hour * tick_hours
                                   * diurnal_profile((t * tick_hours) % 24.0)))
              for t in range(params.horizon_ticks)]
    lo, hi = params.mci_patients
    mci_count = int(arrivals.integers(lo, hi + 1)) if hi > 0 else 0
    mci_start = params.mci_window_hours[0] + arrivals.random() * (
        params.mci_window_hours[1] - params.mci_window_hours[0])
    mci_ticks = [min(params.horizon_ticks - 1, int((mci_start + arrivals.random()) / tick_hours))
                 for _ in range(mci_count)]
    mix = np.asarray(params.esi_mix) / sum(params.esi_mix)
    pid = 0
    for t in range(params.horizon_ticks):
        for _ in range(counts[t]):
            acuity = int(patients.choice(5, p=mix)) + 1
            schedule[t].append(make_patient(pid, t, acuity, None, patients, params))
            pid += 1
        for _ in range(mci_ticks.count(t)):
            acuity = int(patients.choice(3, p=(0.2, 0.4, 0.4))) + 1
            schedule[t].append(make_patient(pid, t, acuity, TRAUMA, patients, params))
            pid += 1
    return schedule


def initial_icu(params: EDParams, patients: np.random.Generator,
                first_pid: int) -> list[Patient]:
    """Long-stay ICU boarders present at 00:00 (``icu_boarders`` of them)."""
    count = min(params.icu_boarders, params.icu_beds)
    boarders = []
    for i in range(count):
        acuity = 1 if patients.random() < 0.4 else 2
        p = make_patient(first_pid + i, 0, acuity, None, patients, params)
        p.needs_icu = True
        p.needs_ward, p.board_ticks = False, 0
        p.triage_error = 0
        p.treatment_ticks = _hours_to_ticks(24.0 + 24.0 * float(patients.random()), params)
        p.progress_ticks = _hours_to_ticks(4.0 + 8.0 * float(patients.random()), params)
        p.location, p.bed, p.admitted_tick = ICU, i, 0
        p.admitted_acuity = p.true_acuity
        p.ticks_in_bed = p.progress_ticks
        if params.version >= 3:  # stabilised, assessed and worked up: boarding for the ICU
            p.workup_done, p.seen_tick, p.awaiting_bed = True, 0, True
            p.imaging, p.labs = 0, 0
            p.treatment_ticks = p.progress_ticks
            p.decision_tick = 0
        boarders.append(p)
    return boarders
