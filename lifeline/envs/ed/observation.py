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
from lifeline.envs.ed.params import CONDITIONS, EDParams
from lifeline.envs.ed.types import EDState, Patient

MAX_HOURS = 72.0
"""Elapsed/waiting hours are clipped here (an observation bound, not a simulation limit)."""
MAX_COUNT = 100_000.0


def observation_spec(params: EDParams) -> dict[str, ArraySpec]:
    """Shapes, dtypes and bounds of :func:`observe`'s arrays."""
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
        "general_beds": _bed_rows(state.general, hpt),
        "icu_beds": _bed_rows(state.icu, hpt),
        "ventilators": np.array([params.ventilators - state.ventilators_in_use,
                                 state.ventilators_in_use], dtype=np.float32),
        "queue": queue,
        "time": np.array([(state.tick * hpt) % 24.0, state.tick / params.horizon_ticks],
                         dtype=np.float32),
        "totals": np.array([len(state.waiting), c.treated, c.deaths, c.lwbs], dtype=np.float32),
    }
