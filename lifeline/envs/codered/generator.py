"""Episode generation: patients and calls, blood types, hospitals at 08:00 and disruptions.

Each process draws from its own stream so that policies are compared on common random numbers.
"""

from __future__ import annotations

import copy

import numpy as np

from lifeline.core.graph import RoadGraph
from lifeline.envs.codered.dynamics import (
    ACCIDENT,
    CLOSURE,
    EQUIPMENT,
    SHIFT,
    SURGE,
    DisruptionStarts,
    Onset,
    ORTimer,
    RushEnds,
    connected_without,
    push,
)
from lifeline.envs.codered.params import (
    AMBULANCE_ALS,
    AMBULANCE_NODE,
    ARTERIALS,
    BLOOD_FREQ,
    BLOOD_STOCK,
    CARDIAC,
    CATEGORY_MIX,
    CATEGORY_TABLE,
    DISRUPTIONS,
    GENERAL,
    HOSPITAL_NODE,
    ICU_BEDS,
    IN_HOSPITAL_RATE,
    N_OR,
    NODES,
    ROADS,
    SERIOUS,
    SHOCK_UNITS,
    SPECIALIST_COUNT,
    STROKE,
    SURGE_SERIOUS_SHARE,
    TIME_TO_DEATH,
    TRAUMA,
    CodeRedParams,
)
from lifeline.envs.codered.types import (
    INACTIVE,
    OR,
    OR_ELECTIVE,
    CodeRedState,
    Hospital,
    Patient,
    Specialist,
    Unit,
)

STREAMS = ("patients", "calls", "blood", "hospitals", "disruptions", "aid", "callback",
           "cascade", "workup")
"""One stream per stochastic process (order is part of the determinism contract)."""
MAX_SECONDARY = 4
"""Secondary-patient slots in cascade scenarios."""
INCIDENT_NODES = tuple(n for n in range(len(NODES)) if n not in HOSPITAL_NODE)


def n_patient_slots(p: CodeRedParams) -> int:
    """Patient rows of a scenario: phase-1 patients, call slots and secondary slots."""
    return len(p.patients) + p.max_calls + (MAX_SECONDARY if p.cascade else 0)


def n_aid_slots(p: CodeRedParams) -> int:
    return max(p.mutual_aid, 1)


def _patient(p: CodeRedParams, cond: int, onset: float, node: int, rng: np.random.Generator,
             blood: np.random.Generator, casc: np.random.Generator) -> Patient:
    pt = Patient(cond=cond, onset=onset, node=node, t_ref=onset, site=node)
    if cond in SERIOUS:
        lo, hi = TIME_TO_DEATH[cond]
        pt.v_ref = pt.v_onset = float(rng.uniform(0.85, 1.0))
        pt.base_rate = pt.v_ref / float(rng.uniform(lo, hi)) if p.mech_deterioration else 0.0
        if cond in (CARDIAC, STROKE) and p.sourced_ischaemia and p.mech_deterioration:
            pt.base_rate = IN_HOSPITAL_RATE[cond]  # v3: the sourced gradient from onset
    else:
        rng.uniform(), rng.uniform()  # keep the stream aligned across conditions
    pt.blood_type = int(blood.choice(8, p=BLOOD_FREQ))
    if cond == TRAUMA:
        pt.blood_need = int(blood.integers(2, 7))
        # v3: a patient not in haemorrhagic shock deteriorates on the general range
        if pt.blood_need < SHOCK_UNITS and pt.base_rate > 0.0 and p.mech_shock:
            (lo, hi), (lo2, hi2) = TIME_TO_DEATH[TRAUMA], TIME_TO_DEATH[GENERAL]
            ttd = pt.v_ref / pt.base_rate  # the same draw, mapped onto the slower range
            pt.base_rate = pt.v_ref / (lo2 + (ttd - lo) / (hi - lo) * (hi2 - lo2))
    elif cond == CARDIAC:
        pt.blood_need = 2 if blood.random() < 0.25 else 0
    else:
        blood.random()
    pt.spawn = bool(casc.random() < 0.5)
    pt.spawn_cond = CARDIAC if casc.random() < 0.5 else 3
    return pt


def _surge_row(row: tuple[float, ...]) -> np.ndarray:
    """A category's condition mix for a news-cycle call (v3): the serious part rescaled to
    ``SURGE_SERIOUS_SHARE``, the worried-well part to the rest (same number of draws)."""
    probs = np.asarray(row, dtype=float)
    serious = np.zeros(8, dtype=bool)
    serious[list(SERIOUS)] = True
    out = np.zeros(8)
    out[serious] = probs[serious] / probs[serious].sum() * SURGE_SERIOUS_SHARE
    out[~serious] = probs[~serious] / probs[~serious].sum() * (1.0 - SURGE_SERIOUS_SHARE)
    return out


_SURGE_TABLE = tuple(_surge_row(row) for row in CATEGORY_TABLE)
"""P(true condition | category) of a news-cycle call."""

_GRAPHS: dict[float, RoadGraph] = {}


def _rush_graph(p: CodeRedParams) -> RoadGraph:
    """A fresh copy of the road graph at 08:00 (morning rush on), built once per rush factor."""
    g = _GRAPHS.get(p.rush_factor)
    if g is None:
        g = RoadGraph(len(NODES), list(ROADS))
        for u, v in ARTERIALS:
            g.factor[u, v] = g.factor[v, u] = p.rush_factor
        g.recompute()
        _GRAPHS[p.rush_factor] = g
    fresh = copy.copy(g)  # the template's arrays copied one by one (cheaper than deepcopy)
    for name, value in vars(g).items():
        if isinstance(value, np.ndarray):
            setattr(fresh, name, value.copy())
    return fresh


def generate(p: CodeRedParams, rng: dict[str, np.random.Generator]) -> CodeRedState:
    """A fresh state at 08:00 with every future event scheduled."""
    s = CodeRedState(graph=_rush_graph(p), rng=rng)
    pr, blood, casc = rng["patients"], rng["blood"], rng["cascade"]
    for cond, off in p.patients:
        node = int(INCIDENT_NODES[int(pr.integers(len(INCIDENT_NODES)))])
        s.patients.append(_patient(p, cond, float(off), node, pr, blood, casc))
    if p.max_calls:
        cr = rng["calls"]
        t = 0.0
        while len(s.patients) < len(p.patients) + p.max_calls:
            t += float(cr.exponential(1.0 / p.call_rate))
            surge = p.cascade and bool(cr.random() < 0.3)
            if t >= p.call_window_min:
                break
            cat = int(cr.choice(len(CATEGORY_MIX), p=CATEGORY_MIX))
            probs = np.asarray(CATEGORY_TABLE[cat]) if not surge else _SURGE_TABLE[cat]
            cond = int(cr.choice(8, p=probs / probs.sum()))
            node = int(INCIDENT_NODES[int(cr.integers(len(INCIDENT_NODES)))])
            pt = _patient(p, cond, t, node, pr, blood, casc)
            pt.is_call, pt.category, pt.known, pt.surge_only = True, cat, False, surge
            s.patients.append(pt)
        while len(s.patients) < len(p.patients) + p.max_calls:  # unused call slots
            s.patients.append(Patient(cond=3, onset=float("inf"), node=0, is_call=True,
                                      void=True, status=10))
    if p.cascade:
        for _ in range(MAX_SECONDARY):
            sec = _patient(p, CARDIAC, float("inf"), 0, pr, blood, casc)
            sec.secondary = True
            s.patients.append(sec)
    wr = rng["workup"]
    for pt in s.patients:  # one draw per row, whatever the condition (rows stay aligned)
        pt.workup_z = float(wr.standard_normal())
    for i, pt in enumerate(s.patients):
        if pt.onset != float("inf"):
            push(s, pt.onset, Onset(i))
    for node, als in zip(AMBULANCE_NODE, AMBULANCE_ALS, strict=True):
        s.units.append(Unit(als=als, home=node, node=node, dest=node))
    for _ in range(n_aid_slots(p)):
        s.units.append(Unit(als=True, home=0, status=INACTIVE, aid=True))
    hr = rng["hospitals"]
    for h in range(len(HOSPITAL_NODE)):
        ors = []
        for k in range(N_OR[h]):
            o = OR()
            if hr.random() < p.elective_prob:
                o.state, o.until = OR_ELECTIVE, float(hr.uniform(20.0, 120.0))
                push(s, o.until, ORTimer(h, k, o.token))
            ors.append(o)
        specs = [Specialist(kind=k) for k, n in enumerate(SPECIALIST_COUNT[h]) for _ in range(n)]
        icu = ICU_BEDS[h] - int(hr.integers(0, ICU_BEDS[h] + 1) // 2)
        s.hospitals.append(Hospital(ors=ors, specialists=specs, stock=list(BLOOD_STOCK[h]),
                                    icu_free=icu))
    _disruptions(p, s, rng["disruptions"])
    s.aid_left = p.mutual_aid
    push(s, 120.0, RushEnds())
    return s


def _disruptions(p: CodeRedParams, s: CodeRedState, dr: np.random.Generator) -> None:
    t = 0.0
    while p.disruption_rate > 0:
        t += float(dr.exponential(1.0 / p.disruption_rate))
        if t >= p.horizon_min - 5:
            break
        kind = int(dr.integers(len(DISRUPTIONS)))
        a = b = 0
        if kind in (ACCIDENT, CLOSURE):
            a, b, _ = ROADS[int(dr.integers(len(ROADS)))]
            dur = float(dr.uniform(10, 20) if kind == ACCIDENT else dr.uniform(20, 40))
            # the 08:00 graph has every road: connectivity depends on (a, b) only
            if kind == CLOSURE and not connected_without(frozenset(), a, b):
                kind = ACCIDENT
        elif kind == EQUIPMENT:
            a = int(dr.integers(2))
            b = int(dr.integers(N_OR[a]))
            dur = float(dr.uniform(30, 60))
        elif kind == SURGE:
            a = int(dr.integers(3))
            dur = float(dr.uniform(20, 40))
        else:
            assert kind == SHIFT
            a = int(dr.integers(2))
            dur = 20.0
        s.disruptions.append((t, kind, a, b, dur))
        s.active.append(False)
        push(s, t, DisruptionStarts(len(s.disruptions) - 1))
