"""Vitals of ``codered``'s patients: piecewise-linear lines re-based on every change of care.

Each patient keeps ``(v_ref, t_ref, base_rate, mult)`` and a ``Death`` event at the minute the
line reaches 0; ``recare`` re-bases it and reschedules the death.
"""

from __future__ import annotations

from lifeline.envs.codered.dynamics.events import (
    ASSIGNED_STATUS,
    Death,
    push,
)
from lifeline.envs.codered.types import (
    AT_HOSPITAL,
    DEAD,
    FUTURE,
    HANDOVER,
    ON_SCENE,
    STABILISED,
    TRANSPORT,
    TREATED,
    CodeRedState,
    Patient,
)


def vitals(p: Patient, t: float) -> float:
    """Vitals in [0, 1] at minute ``t`` (before treatment)."""
    v = p.v_ref - p.base_rate * p.mult * (t - p.t_ref)
    return v if v > 0.0 else 0.0


def care_mult(s: CodeRedState, p: Patient) -> float:
    """Deterioration multiplier for where the patient is and who cares for them."""
    st = p.status
    if st == STABILISED or (st == ASSIGNED_STATUS and p.at_hosp >= 0):
        return 0.25 if s.t < p.stab_until else 0.6
    if st in (ON_SCENE, TRANSPORT, HANDOVER):
        return 0.5 if s.units[p.unit].als else 0.8
    if st == AT_HOSPITAL:
        crowd = 1.5 if s.hospitals[p.at_hosp].crowded_since >= 0 else 1.0
        if p.hosp_rate > 0.0 and p.base_rate > 0.0:
            return crowd * p.hosp_rate / p.base_rate  # sourced in-hospital rate (params)
        return crowd * 0.5
    return 1.5 if p.escalated else 1.0


def recare(s: CodeRedState, i: int) -> None:
    """Re-base patient ``i``'s vitals line for its current care and reschedule its death."""
    p = s.patients[i]
    if p.status in (TREATED, DEAD, FUTURE) or p.base_rate <= 0.0:
        return
    p.v_ref = vitals(p, s.t)
    p.t_ref = s.t
    p.mult = care_mult(s, p)
    p.token += 1
    push(s, s.t + p.v_ref / (p.base_rate * p.mult), Death(i, p.token))
