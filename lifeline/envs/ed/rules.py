"""The ONE place for validity in the ED: the integer encoding, ``validate`` and ``action_mask``.

Encoding (Q queue slots, G general beds, I ICU beds; defaults give 1+10+10+5+20+5+20+5 = 76):
``wait`` | ``admit_general(slot)`` xQ | ``admit_icu(slot)`` xQ | ``ventilate(icu_bed)`` xI |
``transfer_to_icu(general_bed)`` xG | ``step_down(icu_bed)`` xI | ``discharge_general(bed)`` xG |
``discharge_icu(bed)`` xI. The mask is exact: it is computed from the same predicates as
``validate``, and a test checks the two agree on every index.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from lifeline.envs.ed import care
from lifeline.envs.ed.params import EDParams
from lifeline.envs.ed.types import (
    AdmitGeneral,
    AdmitICU,
    DischargeGeneral,
    DischargeICU,
    EDAction,
    EDState,
    ExpediteGeneral,
    ExpediteICU,
    SeeGeneral,
    SeeICU,
    StepDown,
    TransferToICU,
    Ventilate,
    Wait,
)


class Layout:
    """Offsets of each action kind in the flat encoding, for one ``EDParams``."""

    def __init__(self, params: EDParams) -> None:
        q, g, i = params.queue_slots, params.general_beds, params.icu_beds
        sizes = [("wait", 1), ("admit_general", q), ("admit_icu", q), ("ventilate", i),
                 ("transfer_to_icu", g), ("step_down", i), ("discharge_general", g),
                 ("discharge_icu", i), ("see_general", g), ("see_icu", i),
                 ("expedite_general", g), ("expedite_icu", i)]
        self.offsets: dict[str, int] = {}
        self.sizes: dict[str, int] = dict(sizes)
        start = 0
        for kind, size in sizes:
            self.offsets[kind] = start
            start += size
        self.total = start
        self._kinds = [kind for kind, size in sizes for _ in range(size)]
        self._args = [j for _, size in sizes for j in range(size)]

    def encode(self, action: EDAction) -> int:
        if isinstance(action, Wait):
            return 0
        arg = action.slot if isinstance(action, (AdmitGeneral, AdmitICU)) else action.bed
        if action.kind not in self.sizes:
            raise ValueError(f"{action.kind} is not an action of this ED version")
        size = self.sizes[action.kind]
        if not 0 <= arg < size:
            raise ValueError(f"{action.kind} argument {arg} out of range [0, {size})")
        return self.offsets[action.kind] + arg

    def decode(self, index: int) -> EDAction:
        if not 0 <= index < self.total:
            raise ValueError(f"action index {index} out of range [0, {self.total})")
        kind, arg = self._kinds[index], self._args[index]
        return _CONSTRUCTORS[kind](arg)


_CONSTRUCTORS: dict[str, Callable[[int], EDAction]] = {
    "wait": lambda _: Wait(),
    "admit_general": lambda a: AdmitGeneral(slot=a),
    "admit_icu": lambda a: AdmitICU(slot=a),
    "ventilate": lambda a: Ventilate(bed=a),
    "transfer_to_icu": lambda a: TransferToICU(bed=a),
    "step_down": lambda a: StepDown(bed=a),
    "discharge_general": lambda a: DischargeGeneral(bed=a),
    "discharge_icu": lambda a: DischargeICU(bed=a),
    "see_general": lambda a: SeeGeneral(bed=a),
    "see_icu": lambda a: SeeICU(bed=a),
    "expedite_general": lambda a: ExpediteGeneral(bed=a),
    "expedite_icu": lambda a: ExpediteICU(bed=a),
}

_ICU_BED_ACTIONS = (Ventilate, StepDown, DischargeICU, SeeICU, ExpediteICU)


def _in_range(value: int, size: int, what: str) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        return f"{what} must be an integer, got {value!r}"
    if not 0 <= value < size:
        return f"{what} {value} does not exist (valid: 0..{size - 1})"
    return None


def validate(state: EDState, params: EDParams, action: EDAction) -> str | None:
    """``None`` if ``action`` is legal now, else a message an agent (or LLM) can learn from."""
    if isinstance(action, Wait):
        return None
    free_general = None in state.general
    free_icu = None in state.icu
    if isinstance(action, (AdmitGeneral, AdmitICU)):
        problem = _in_range(action.slot, params.queue_slots, "queue slot")
        if problem:
            return problem
        if action.slot >= len(state.waiting):
            return f"queue slot {action.slot} is empty ({len(state.waiting)} patients waiting)"
        if isinstance(action, AdmitGeneral) and not free_general:
            return "no free general bed"
        if isinstance(action, AdmitICU) and not free_icu:
            return "no free ICU bed"
        return None
    ward, size, name = ((state.icu, params.icu_beds, "ICU bed")
                        if isinstance(action, _ICU_BED_ACTIONS)
                        else (state.general, params.general_beds, "general bed"))
    problem = _in_range(action.bed, size, name)
    if problem:
        return problem
    patient = ward[action.bed]
    if patient is None:
        return f"{name} {action.bed} is empty"
    if isinstance(action, Ventilate):
        if patient.ventilated:
            return f"the patient in ICU bed {action.bed} is already ventilated"
        if state.ventilators_in_use >= params.ventilators:
            return "no free ventilator"
    elif isinstance(action, TransferToICU) and not free_icu:
        return "no free ICU bed"
    elif isinstance(action, StepDown) and not free_general:
        return "no free general bed"
    elif isinstance(action, (SeeGeneral, SeeICU)):
        if patient.seen_tick >= 0:
            return f"the patient in {name} {action.bed} has already been seen"
        if care.physicians_free(state, params) <= 0 and patient.observed_acuity != 1:
            return "no physician is free (only an ESI-1 patient is seen at once regardless)"
    elif isinstance(action, (ExpediteGeneral, ExpediteICU)):
        if patient.imaging_state != 1:
            return f"the patient in {name} {action.bed} has no imaging order waiting"
        if state.imaging_queue[0] is patient:
            return f"the imaging order of {name} {action.bed} is already first"
    return None


def action_mask(state: EDState, params: EDParams, layout: Layout) -> np.ndarray:
    """Exactly the legal encoded actions (same predicates as :func:`validate`)."""
    mask = np.zeros(layout.total, dtype=bool)
    mask[0] = True
    off = layout.offsets
    free_general = None in state.general
    free_icu = None in state.icu
    visible = min(len(state.waiting), params.queue_slots)
    if free_general:
        mask[off["admit_general"]:off["admit_general"] + visible] = True
    if free_icu:
        mask[off["admit_icu"]:off["admit_icu"] + visible] = True
    vent_free = state.ventilators_in_use < params.ventilators
    for b, p in enumerate(state.icu):
        if p is not None:
            mask[off["discharge_icu"] + b] = True
            mask[off["step_down"] + b] = free_general
            mask[off["ventilate"] + b] = vent_free and not p.ventilated
    for b, p in enumerate(state.general):
        if p is not None:
            mask[off["discharge_general"] + b] = True
            mask[off["transfer_to_icu"] + b] = free_icu
    doctor = care.physicians_free(state, params) > 0
    first = state.imaging_queue[0] if state.imaging_queue else None
    for kind, ward in (("general", state.general), ("icu", state.icu)):
        for b, p in enumerate(ward):
            if p is not None:
                mask[off["see_" + kind] + b] = p.seen_tick < 0 and (
                    doctor or p.observed_acuity == 1)
                mask[off["expedite_" + kind] + b] = p.imaging_state == 1 and p is not first
    return mask
