"""JSON-ready picture of one moment (for replays and the web view): plain JSON types only."""

from __future__ import annotations

from typing import Any

from lifeline.envs.codered.dynamics import vitals
from lifeline.envs.codered.params import (
    BLOOD_TYPES,
    CONDITIONS,
    HOSPITAL_NAMES,
    HOSPITAL_NODE,
    NODES,
    ROADS,
    CodeRedParams,
)
from lifeline.envs.codered.types import (
    AT_HOSPITAL,
    FUTURE,
    OR_STATES,
    P_STATUS,
    U_STATUS,
    CodeRedState,
)


def frame(s: CodeRedState, params: CodeRedParams) -> dict[str, Any]:
    t = float(s.t)
    g = s.graph
    return {
        "t": t, "horizon": float(params.horizon_min),
        "progress": min(1.0, t / params.horizon_min),
        "nodes": list(NODES),
        "roads": [{"a": a, "b": b, "minutes": float(w), "factor": float(g.factor[a, b]),
                   "closed": bool(g.removed[a, b])} for a, b, w in ROADS],
        "patients": [{"index": i, "node": p.node, "status": P_STATUS[p.status],
                      "condition": CONDITIONS[p.cond] if p.known else None,
                      "call": p.is_call, "secondary": p.secondary,
                      "vitals": float(p.vitals_at if p.status == 8 else vitals(p, t)),
                      "hospital": p.hosp, "survival": float(p.survival),
                      "in_workup": bool(p.status == AT_HOSPITAL and p.workup_until > t)}
                     for i, p in enumerate(s.patients) if p.status != FUTURE and not p.void],
        "ambulances": [{"index": u, "als": un.als, "status": U_STATUS[un.status],
                        "node": un.node, "dest": un.dest, "patient": un.patient,
                        "mutual_aid": un.aid} for u, un in enumerate(s.units)],
        "hospitals": [{"name": HOSPITAL_NAMES[h], "node": HOSPITAL_NODE[h],
                       "diverted": bool(hosp.divert_until > t), "icu_free": hosp.icu_free,
                       "ors": [OR_STATES[o.state] for o in hosp.ors],
                       "blood": dict(zip(BLOOD_TYPES, [int(x) for x in hosp.stock],
                                         strict=True))}
                      for h, hosp in enumerate(s.hospitals)],
        "mutual_aid_left": s.aid_left,
        "last": s.last_report,
    }
