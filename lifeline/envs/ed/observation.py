"""What the agent sees: triage (observed) acuity, never the hidden truth or hazards.

Per bed: ``[observed ESI (0 = empty), condition code (0 = empty, 1..6), elapsed hours in bed,
ready flag, ventilated flag, boarding flag, seen flag, results pending, imaging queue position]``
(boarding: treatment complete, the admission waits in its ED bed for an inpatient bed; ``ready``
once the hospital has one and the bed turnaround is over). Per visible queue slot:
``[observed ESI (0 = empty), condition code, waiting hours]``. ``staff``: the department's and
the hospital's bed board. Arrays are freshly allocated on every call (``kernel_v3.observe``
writes the same values into the batch env's arrays).
"""

from __future__ import annotations

import numpy as np

from lifeline.core.specs import ArraySpec
from lifeline.envs.ed import care
from lifeline.envs.ed.params import CONDITIONS, EDParams
from lifeline.envs.ed.types import EDState, Patient

MAX_HOURS = 72.0
"""Elapsed/waiting hours are clipped here (an observation bound, not a simulation limit)."""
MAX_COUNT = 100_000.0


BED_COLUMNS = 9
"""Bed row columns: ESI, condition, elapsed h, ready, ventilated, boarding, then seen (1 = a
physician has started the assessment), results pending (ordered lab panels and imaging studies
not yet reported) and imaging queue position (1 = next for a scanner, 0 = not queued)."""
STAFF_FIELDS = ("physicians_on_duty", "physicians_free", "scanners_free", "imaging_queue",
                "ward_beds_free", "hospital_icu_beds_free")
"""``staff`` vector: the department's and the hospital's bed board."""


def observation_spec(params: EDParams) -> dict[str, ArraySpec]:
    """Shapes, dtypes and bounds of :func:`observe`'s arrays."""
    n_cond = float(len(CONDITIONS))
    cols = ("per {}: ESI, condition, elapsed h, ready, ventilated, boarding, seen, results "
            "pending, imaging queue position")
    bound = max(MAX_HOURS, float(params.general_beds + params.icu_beds))
    return {
        "general_beds": ArraySpec((params.general_beds, BED_COLUMNS), "float32", 0.0, bound,
                                  cols.format("general bed")),
        "icu_beds": ArraySpec((params.icu_beds, BED_COLUMNS), "float32", 0.0, bound,
                              cols.format("ICU bed")),
        "ventilators": ArraySpec((2,), "float32", 0.0, float(params.ventilators),
                                 "[free, in use]"),
        "queue": ArraySpec((params.queue_slots, 3), "float32", 0.0, max(MAX_HOURS, n_cond),
                           "per visible waiting slot: ESI, condition, waiting h"),
        "time": ArraySpec((2,), "float32", 0.0, 24.0, "[hour of day, fraction of shift elapsed]"),
        "totals": ArraySpec((4,), "float32", 0.0, MAX_COUNT,
                            "[waiting (all), treated, deaths, left without being seen]"),
        "staff": ArraySpec((len(STAFF_FIELDS),), "float32", 0.0, MAX_COUNT,
                           "[" + ", ".join(STAFF_FIELDS) + "]"),
    }


def _pending(p: Patient, tick: int) -> int:
    """Ordered results not yet back (0 before the assessment has ordered them)."""
    if p.seen_tick < 0 or p.assess_left > 0:
        return 0
    labs = int(bool(p.labs) and not 0 <= p.lab_result_tick <= tick)
    imaging = p.imaging if p.imaging and not (
        p.imaging_state == 3 and p.imaging_result_tick <= tick) else 0
    return labs + imaging


def _bed_rows(ward: list[Patient | None], state: EDState, hpt: float) -> np.ndarray:
    # One np.array call over Python rows is several times faster than row-wise assignment.
    position = {id(p): k + 1 for k, p in enumerate(state.imaging_queue)}
    empty = (0.0,) * BED_COLUMNS
    return np.array([empty if p is None else
                     (p.observed_acuity, p.condition + 1,
                      min(p.ticks_in_bed * hpt, MAX_HOURS), p.ready, p.ventilated, p.boarding,
                      p.seen_tick >= 0, _pending(p, state.tick), position.get(id(p), 0))
                     for p in ward], dtype=np.float32).reshape(len(ward), BED_COLUMNS)


def observe(state: EDState, params: EDParams) -> dict[str, np.ndarray]:
    """The structured observation of ``state``."""
    hpt = params.tick_minutes / 60.0
    visible = state.waiting[: params.queue_slots]
    queue = np.zeros((params.queue_slots, 3), dtype=np.float32)
    if visible:
        queue[: len(visible)] = [(p.observed_acuity, p.condition + 1,
                                  min((state.tick - p.arrival_tick) * hpt, MAX_HOURS))
                                 for p in visible]
    c = state.counters
    return {
        "general_beds": _bed_rows(state.general, state, hpt),
        "icu_beds": _bed_rows(state.icu, state, hpt),
        "ventilators": np.array([params.ventilators - state.ventilators_in_use,
                                 state.ventilators_in_use], dtype=np.float32),
        "queue": queue,
        "time": np.array([care.clock_hours(state.tick, params),
                          state.tick / params.horizon_ticks], dtype=np.float32),
        "totals": np.array([len(state.waiting), c.treated, c.deaths, c.lwbs], dtype=np.float32),
        "staff": np.array([
            care.physicians_on_duty(state, params), care.physicians_free(state, params),
            params.scanners - len(state.scanning), len(state.imaging_queue), state.ward_free,
            state.hospital_icu_free], dtype=np.float32),
    }
