"""What the coordinator sees: fixed-size arrays, never hidden truth.

Hidden: the true condition of a 911 call until a crew is on scene, blood types until typed, the
vitals of patients no crew or hospital is with, the vitals trajectory, future calls, patients and
disruptions, OR details beyond a summary until ``query_or_status``. Columns are listed below and
in the README with their units.
"""

from __future__ import annotations

import numpy as np

from lifeline.core.specs import ArraySpec
from lifeline.envs.codered.dynamics import vitals
from lifeline.envs.codered.params import N_OR, ROADS, CodeRedParams
from lifeline.envs.codered.types import (
    AT_HOSPITAL,
    FUTURE,
    HANDOVER,
    INACTIVE,
    ON_SCENE,
    OR_ELECTIVE,
    OR_FAILED,
    OR_FREE,
    OR_PREP,
    OR_READY,
    OR_SURGERY,
    SP_OFF,
    SP_PAGED,
    SP_PRESENT,
    STABILISED,
    TRANSPORT,
    TREATED,
    CodeRedState,
)

CLOCK_COLUMNS = ("minutes_elapsed", "minutes_left", "slots_left", "mutual_aid_left",
                 "aid_inbound", "news_cycle_min_left", "rush_hour")
PATIENT_COLUMNS = ("present", "is_call", "category_plus1", "condition_plus1", "hint_plus1",
                   "node", "status", "age_min", "vitals_known", "vitals", "ambulance_plus1",
                   "hospital_plus1", "blood_type_plus1", "typing_pending", "blood_need",
                   "blood_ready", "blood_pending", "escalated", "secondary")
UNIT_COLUMNS = ("active", "als", "status", "node", "destination", "eta_min", "patient_plus1",
                "mutual_aid")
HOSPITAL_COLUMNS = ("node", "divert_min_left", "icu_free", "patients_waiting", "ors_free",
                    "ors_elective", "ors_preparing", "ors_ready_cardiac", "ors_ready_trauma",
                    "ors_surgery", "ors_failed", "cardiologists_present", "neurologists_present",
                    "trauma_surgeons_present", "cardiologists_paged", "neurologists_paged",
                    "trauma_surgeons_paged", "cardiologists_on_call", "neurologists_on_call",
                    "trauma_surgeons_on_call", "shift_change_min_left")
OR_COLUMNS = ("exists", "state", "procedure_plus1", "queried", "minutes_left_if_queried")
ROAD_COLUMNS = ("travel_factor", "closed")
HIGH = 1.0e4
CARED = frozenset({ON_SCENE, TRANSPORT, HANDOVER, AT_HOSPITAL, STABILISED})
_WAITING_AT = frozenset({HANDOVER, AT_HOSPITAL, STABILISED})
"""Patient statuses counted in a hospital's emergency area."""
_SP_COL = {SP_PRESENT: 0, SP_PAGED: 3, SP_OFF: 6}
"""Specialist state -> first of its three (cardiologist, neurologist, trauma surgeon) columns."""
_HOSP_NODE = (11, 3, 10)
_NO_OR = (0.0,) * len(OR_COLUMNS)
_ROAD_A = np.array([a for a, _, _ in ROADS])
_ROAD_B = np.array([b for _, b, _ in ROADS])


def observation_spec(n_units: int, n_patients: int) -> dict[str, ArraySpec]:
    f = "float32"
    return {
        "clock": ArraySpec((len(CLOCK_COLUMNS),), f, 0.0, HIGH, "; ".join(CLOCK_COLUMNS)),
        "patients": ArraySpec((n_patients, len(PATIENT_COLUMNS)), f, 0.0, HIGH,
                              "; ".join(PATIENT_COLUMNS)),
        "units": ArraySpec((n_units, len(UNIT_COLUMNS)), f, 0.0, HIGH, "; ".join(UNIT_COLUMNS)),
        "hospitals": ArraySpec((3, len(HOSPITAL_COLUMNS)), f, 0.0, HIGH,
                               "; ".join(HOSPITAL_COLUMNS)),
        "ors": ArraySpec((3, 3, len(OR_COLUMNS)), f, 0.0, HIGH, "; ".join(OR_COLUMNS)),
        "blood": ArraySpec((3, 8), f, 0.0, HIGH, "units in stock per hospital x blood type"),
        "roads": ArraySpec((len(ROADS), len(ROAD_COLUMNS)), f, 0.0, HIGH,
                           "; ".join(ROAD_COLUMNS)),
    }


def observe(s: CodeRedState, params: CodeRedParams) -> dict[str, np.ndarray]:
    t = s.t
    clock = np.array([t, max(0.0, params.horizon_min - t),
                      params.actions_per_epoch - s.epoch_actions, s.aid_left,
                      sum(1 for u in s.units if u.status == 7), max(0.0, s.news_until - t),
                      float(s.rush)], dtype=np.float32)
    rows = []
    for p in s.patients:
        if p.status == FUTURE or p.void:
            rows.append([0.0] * len(PATIENT_COLUMNS))
            continue
        seen = p.known and (p.status in CARED or p.status == TREATED)
        v = (p.vitals_at if p.status == TREATED else vitals(p, t)) if seen else 0.0
        need = p.blood_need if (p.known and (p.cond == 2 or p.arrived >= 0)) else 0
        rows.append([1.0, float(p.is_call), p.category + 1.0, (p.cond + 1.0) if p.known else 0.0,
                     p.hint + 1.0, p.node, 10.0 if p.status == 9 and not p.known else p.status,
                     max(0.0, t - p.onset), float(seen), v,
                     p.unit + 1.0, p.hosp + 1.0, (p.blood_type + 1.0) if p.type_known else 0.0,
                     float(p.type_pending), need, p.blood_ready, p.blood_pending,
                     float(p.escalated), float(p.secondary)])
    units = []
    for un in s.units:
        if un.status == INACTIVE:
            units.append([0.0] * len(UNIT_COLUMNS))
            continue
        eta = max(0.0, un.t_arrive - t) if un.status in (2, 4, 6) else 0.0
        units.append([1.0, float(un.als), un.status, un.node, un.dest, eta, un.patient + 1.0,
                      float(un.aid)])
    hosps: list[list[float]] = []
    ors = [[_NO_OR] * 3 for _ in range(3)]
    waiting = [0, 0, 0]
    for p in s.patients:
        if p.at_hosp >= 0 and p.status in _WAITING_AT:
            waiting[p.at_hosp] += 1
    for h, hosp in enumerate(s.hospitals):
        oc = [0, 0, 0, 0, 0, 0]
        ready_c = ready_t = 0
        for o in hosp.ors:
            oc[o.state] += 1
            if o.state == OR_READY:
                if o.proc == 0:
                    ready_c += 1
                elif o.proc == 1:
                    ready_t += 1
        sc = [0, 0, 0, 0, 0, 0, 0, 0, 0]
        for x in hosp.specialists:
            col = _SP_COL.get(x.state)
            if col is not None:
                sc[col + x.kind] += 1
        hosps.append([
            _HOSP_NODE[h], max(0.0, hosp.divert_until - t), hosp.icu_free, waiting[h],
            oc[OR_FREE], oc[OR_ELECTIVE], oc[OR_PREP], ready_c, ready_t, oc[OR_SURGERY],
            oc[OR_FAILED], *sc, max(0.0, hosp.shift_until - t)])
        for k in range(N_OR[h]):
            o = hosp.ors[k]
            left = max(0.0, o.until - t) if o.queried and o.state != OR_FREE else 0.0
            ors[h][k] = (1.0, o.state, o.proc + 1.0 if o.state in (OR_PREP, OR_READY) else 0.0,
                         float(o.queried), left)
    g = s.graph
    roads = np.empty((len(ROADS), 2), dtype=np.float32)
    roads[:, 0] = g.factor[_ROAD_A, _ROAD_B]
    roads[:, 1] = g.removed[_ROAD_A, _ROAD_B]
    return {"clock": clock,
            "patients": np.array(rows, dtype=np.float32).reshape(len(s.patients),
                                                                 len(PATIENT_COLUMNS)),
            "units": np.array(units, dtype=np.float32),
            "hospitals": np.array(hosps, dtype=np.float32),
            "ors": np.array(ors, dtype=np.float32),
            "blood": np.array([h.stock for h in s.hospitals], dtype=np.float32),
            "roads": roads}
