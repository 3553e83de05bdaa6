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
                     p.hint + 1.0, p.node, p.status, max(0.0, t - p.onset), float(seen), v,
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
    hosps, ors = [], np.zeros((3, 3, len(OR_COLUMNS)), dtype=np.float32)
    for h, hosp in enumerate(s.hospitals):
        st = [o.state for o in hosp.ors]
        sp = [(x.kind, x.state) for x in hosp.specialists]
        waiting = sum(1 for p in s.patients if p.at_hosp == h and p.status in
                      (HANDOVER, AT_HOSPITAL, STABILISED))
        hosps.append([
            [11, 3, 10][h], max(0.0, hosp.divert_until - t), hosp.icu_free, waiting,
            st.count(OR_FREE), st.count(OR_ELECTIVE), st.count(OR_PREP),
            sum(1 for o in hosp.ors if o.state == OR_READY and o.proc == 0),
            sum(1 for o in hosp.ors if o.state == OR_READY and o.proc == 1),
            st.count(OR_SURGERY), st.count(OR_FAILED),
            *[sum(1 for k, x in sp if k == j and x == SP_PRESENT) for j in range(3)],
            *[sum(1 for k, x in sp if k == j and x == SP_PAGED) for j in range(3)],
            *[sum(1 for k, x in sp if k == j and x == SP_OFF) for j in range(3)],
            max(0.0, hosp.shift_until - t)])
        for k in range(N_OR[h]):
            o = hosp.ors[k]
            left = max(0.0, o.until - t) if o.queried and o.state != OR_FREE else 0.0
            ors[h, k] = (1.0, o.state, o.proc + 1.0 if o.state in (OR_PREP, OR_READY) else 0.0,
                         float(o.queried), left)
    g = s.graph
    roads = np.array([[g.factor[a, b], float(g.removed[a, b])] for a, b, _ in ROADS],
                     dtype=np.float32)
    return {"clock": clock,
            "patients": np.array(rows, dtype=np.float32).reshape(len(s.patients),
                                                                 len(PATIENT_COLUMNS)),
            "units": np.array(units, dtype=np.float32),
            "hospitals": np.array(hosps, dtype=np.float32),
            "ors": ors,
            "blood": np.array([h.stock for h in s.hospitals], dtype=np.float32),
            "roads": roads}
