"""JSON-ready picture of one moment (for replays and the web view): plain JSON types only.

Besides the raw tables it carries what the designed map needs (all read from the state, nothing
changed): screen positions of Prakashnagar's twelve places (:data:`XY`, a fixed schematic), the
clock and active alerts, where each moving ambulance is along its road, the 911 call queue, the
specialists per hospital (present / paged / on call) and each hospital's opening blood stock
(the gauges' full mark).
"""

from __future__ import annotations

from typing import Any

from lifeline.envs.codered.dynamics import vitals
from lifeline.envs.codered.params import (
    BLOOD_STOCK,
    BLOOD_TYPES,
    CATEGORIES,
    CONDITIONS,
    DISRUPTIONS,
    HOSPITAL_NAMES,
    HOSPITAL_NODE,
    ICU_BEDS,
    NODES,
    ROADS,
    SPECIALISTS,
    CodeRedParams,
)
from lifeline.envs.codered.types import (
    AT_HOSPITAL,
    CALL,
    CALLBACK,
    FUTURE,
    OR_STATES,
    P_STATUS,
    U_STATUS,
    CodeRedState,
)

XY = ((0.07, 0.14), (0.26, 0.2), (0.2, 0.46), (0.06, 0.66), (0.37, 0.58), (0.6, 0.52),
      (0.45, 0.33), (0.75, 0.3), (0.68, 0.8), (0.9, 0.56), (0.6, 0.08), (0.92, 0.92))
"""Schematic screen positions of :data:`NODES` in [0, 1]² (x right, y down)."""
MOVING = (2, 4, 6, 7)
"""Ambulance statuses that travel a road (en route, transporting, returning, aid inbound)."""


def _along(s: CodeRedState, u: int) -> tuple[int, int, float]:
    """``(from node, to node, fraction of that road travelled)`` of ambulance ``u``."""
    un = s.units[u]
    if un.status not in MOVING or un.node == un.dest or un.t_arrive <= s.t:
        node = un.dest if un.status in MOVING else un.node
        return node, node, 0.0
    pos = s.graph.locate(un.node, un.dest, un.lead, s.t - un.t_start, 1.0)
    if pos.prev_node == pos.next_node:
        return pos.prev_node, pos.next_node, 0.0
    edge = float(s.graph.weight[pos.prev_node, pos.next_node])
    frac = 1.0 - pos.remaining / edge if edge > 0 else 0.0
    return int(pos.prev_node), int(pos.next_node), round(min(1.0, max(0.0, frac)), 3)


def _specialists(hosp: object) -> dict[str, list[int]]:
    """``{kind: [present, paged, on call]}`` of one hospital's specialists."""
    out: dict[str, list[int]] = {}
    for k, name in enumerate(SPECIALISTS):
        mine = [x.state for x in hosp.specialists if x.kind == k]  # type: ignore[attr-defined]
        if mine:
            out[name] = [sum(st >= 2 for st in mine), mine.count(1), mine.count(0)]
    return out


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
        "xy": [list(p) for p in XY],
        "clock": f"{divmod(round(480 + t), 60)[0]:02d}:{divmod(round(480 + t), 60)[1]:02d}",
        "alerts": [DISRUPTIONS[k] + (f" {NODES[a]}-{NODES[b]}" if k < 2 else
                                     f" at {HOSPITAL_NAMES[a]}")
                   for (_, k, a, b, _), on in zip(s.disruptions, s.active, strict=True) if on],
        "moving": [list(_along(s, u)) for u in range(len(s.units))],
        "queue": [{"index": i, "node": p.node, "category": CATEGORIES[p.category]
                   if p.category >= 0 else None, "minutes": round(t - p.onset, 1),
                   "escalated": p.escalated}
                  for i, p in enumerate(s.patients)
                  if p.status in (CALL, CALLBACK) and not p.void],
        "hospital_extra": [{"icu_beds": ICU_BEDS[h], "specialists": _specialists(hosp),
                            "blood_full": list(BLOOD_STOCK[h])}
                           for h, hosp in enumerate(s.hospitals)],
    }
