"""What the agent sees: triage (observed) acuity, never the hidden truth or hazards.

Per bed: ``[observed ESI (0 = empty), condition code (0 = empty, 1..6), elapsed hours in bed,
ready flag, ventilated flag, boarding flag]`` (boarding, v2: treatment complete, the patient waits
in the bed for an inpatient ward bed; ``ready`` once the ward takes them). Per visible queue
slot: ``[observed ESI (0 = empty), condition code, waiting hours]``. Arrays are freshly
allocated on every call.
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


BED_COLUMNS_V3 = 9
"""v3 bed rows: v2's six columns, then seen (1 = a physician has started the assessment),
results pending (ordered lab panels and imaging studies not yet reported) and imaging queue
position (1 = next for a scanner, 0 = not queued)."""
STAFF_FIELDS = ("physicians_on_duty", "physicians_free", "scanners_free", "imaging_queue",
                "ward_beds_free", "hospital_icu_beds_free")
"""v3 ``staff`` vector: the department's and the hospital's bed board."""


def observation_spec(params: EDParams) -> dict[str, ArraySpec]:
    """Shapes, dtypes and bounds of :func:`observe`'s arrays."""
    if params.version >= 3:
        return _spec_v3(params)
    return _spec_v2(params)


def _spec_v3(params: EDParams) -> dict[str, ArraySpec]:
    spec = _spec_v2(params)
    cols = ("per {}: ESI, condition, elapsed h, ready, ventilated, boarding, seen, results "
            "pending, imaging queue position")
    bound = max(MAX_HOURS, float(params.general_beds + params.icu_beds))
    spec["general_beds"] = ArraySpec((params.general_beds, BED_COLUMNS_V3), "float32", 0.0,
                                     bound, cols.format("general bed"))
    spec["icu_beds"] = ArraySpec((params.icu_beds, BED_COLUMNS_V3), "float32", 0.0, bound,
                                 cols.format("ICU bed"))
    spec["staff"] = ArraySpec((len(STAFF_FIELDS),), "float32", 0.0, MAX_COUNT,
                              "[" + ", ".join(STAFF_FIELDS) + "]")
    return spec


def _spec_v2(params: EDParams) -> dict[str, ArraySpec]:
    n_cond = float(len(CONDITIONS))
    return {
        "general_beds": ArraySpec((params.general_beds, 6), "float32", 0.0, MAX_HOURS,
                                  "per general bed: ESI, condition, elapsed h, ready, ventilated,"
                                  " boarding"),
        "icu_beds": ArraySpec((params.icu_beds, 6), "float32", 0.0, MAX_HOURS,
                              "per ICU bed: ESI, condition, elapsed h, ready, ventilated, "
                              "boarding"),
        "ventilators": ArraySpec((2,), "float32", 0.0, float(params.ventilators),
                                 "[free, in use]"),
        "queue": ArraySpec((params.queue_slots, 3), "float32", 0.0, max(MAX_HOURS, n_cond),
                           "per visible waiting slot: ESI, condition, waiting h"),
        "time": ArraySpec((2,), "float32", 0.0, 24.0, "[hour of day, fraction of shift elapsed]"),
        "totals": ArraySpec((4,), "float32", 0.0, MAX_COUNT,
                            "[waiting (all), treated, deaths, left without being seen]"),
    }


def _bed_rows(ward: list[Patient | None], hours_per_tick: float) -> np.ndarray:
    # One np.array call over Python rows is several times faster than row-wise assignment.
    empty = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    return np.array([empty if p is None else
                     (p.observed_acuity, p.condition + 1,
                      min(p.ticks_in_bed * hours_per_tick, MAX_HOURS), p.ready, p.ventilated,
                      p.boarding)
                     for p in ward], dtype=np.float32).reshape(len(ward), 6)


def _pending(p: Patient, tick: int) -> int:
    """Ordered results not yet back (0 before the assessment has ordered them)."""
    if p.seen_tick < 0 or p.assess_left > 0:
        return 0
    labs = int(bool(p.labs) and not 0 <= p.lab_result_tick <= tick)
    imaging = p.imaging if p.imaging and not (
        p.imaging_state == 3 and p.imaging_result_tick <= tick) else 0
    return labs + imaging


def _bed_rows_v3(ward: list[Patient | None], state: EDState, hpt: float) -> np.ndarray:
    position = {id(p): k + 1 for k, p in enumerate(state.imaging_queue)}
    empty = (0.0,) * BED_COLUMNS_V3
    return np.array([empty if p is None else
                     (p.observed_acuity, p.condition + 1,
                      min(p.ticks_in_bed * hpt, MAX_HOURS), p.ready, p.ventilated, p.boarding,
                      p.seen_tick >= 0, _pending(p, state.tick), position.get(id(p), 0))
                     for p in ward], dtype=np.float32).reshape(len(ward), BED_COLUMNS_V3)


def observe(state: EDState, params: EDParams) -> dict[str, np.ndarray]:
    """The structured observation of ``state``."""
    obs = _observe_v2(state, params)
    if params.version < 3:
        return obs
    hpt = params.tick_minutes / 60.0
    obs["general_beds"] = _bed_rows_v3(state.general, state, hpt)
    obs["icu_beds"] = _bed_rows_v3(state.icu, state, hpt)
    obs["staff"] = np.array([
        care.physicians_on_duty(state, params), care.physicians_free(state, params),
        params.scanners - len(state.scanning), len(state.imaging_queue), state.ward_free,
        state.hospital_icu_free], dtype=np.float32)
    return obs


def _observe_v2(state: EDState, params: EDParams) -> dict[str, np.ndarray]:
    hpt = params.tick_minutes / 60.0
    visible = state.waiting[: params.queue_slots]
    queue = np.zeros((params.queue_slots, 3), dtype=np.float32)
    if visible:
        queue[: len(visible)] = [(p.observed_acuity, p.condition + 1,
                                  min((state.tick - p.arrival_tick) * hpt, MAX_HOURS))
                                 for p in visible]
    c = state.counters
    return {
        "general_beds": _bed_rows(state.general, hpt),
        "icu_beds": _bed_rows(state.icu, hpt),
        "ventilators": np.array([params.ventilators - state.ventilators_in_use,
                                 state.ventilators_in_use], dtype=np.float32),
        "queue": queue,
        "time": np.array([(state.tick * hpt) % 24.0, state.tick / params.horizon_ticks],
                         dtype=np.float32),
        "totals": np.array([len(state.waiting), c.treated, c.deaths, c.lwbs], dtype=np.float32),
    }
