"""JSON-ready picture of one dispatch moment for replays and the web viewer (the city map).

The static part (:func:`static`: node coordinates, roads, zones, stations, hospitals, posts,
bridges) goes once into a replay's header; :func:`frame` carries what moves: units (true status,
last reported status, position along a road), open calls (reported type and caller tone, age,
units assigned; the hidden truth — false alarm / ghost — under ``truth``), hospitals (true and
reported divert, free EMS beds), roads closed or slowed, alerts and the city events so far.

The cities have no coordinates, so nodes are placed by a deterministic stress-majorisation layout
of the free-flow travel times (classical MDS start, SMACOF iterations): nearby in minutes is
nearby on screen, and the same city always gets the same picture.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from lifeline.envs.dispatch.context import Context
from lifeline.envs.dispatch.dynamics import diverting
from lifeline.envs.dispatch.params import CALL_TYPES, EVENT_KINDS, CityParams
from lifeline.envs.dispatch.types import MOVING, OPEN, STATUS_NAMES, DispatchState

TONES = ("calm", "agitated", "screaming")
KINDS = ("real", "false_alarm", "ghost")


def _orthonormal(q: np.ndarray) -> np.ndarray:
    """Gram-Schmidt on the two columns of ``q``."""
    a = q[:, 0] / (np.linalg.norm(q[:, 0]) or 1.0)
    b = q[:, 1] - (a @ q[:, 1]) * a
    return np.stack([a, b / (np.linalg.norm(b) or 1.0)], axis=1)


@functools.lru_cache(maxsize=8)
def layout(city: CityParams, iterations: int = 150) -> list[list[float]]:
    """``[x, y]`` in [0, 1] for every node: stress majorisation of shortest-path minutes.

    Classical MDS by subspace iteration, then Jacobi stress-majorisation sweeps with weights
    ``1/d^2`` (local distances matter most). Only elementwise work and thin matrix products: no
    dense factorisation, which is slow on machines whose BLAS threads are oversubscribed.
    """
    from lifeline.core.graph import RoadGraph

    d = RoadGraph(city.n_nodes, city.edges).dist.copy()
    n = d.shape[0]
    if n == 1:
        return [[0.5, 0.5]]
    d[~np.isfinite(d)] = np.max(d[np.isfinite(d)]) * 1.5
    d2 = d**2
    b = -0.5 * (d2 - d2.mean(axis=0) - d2.mean(axis=1)[:, None] + d2.mean())
    q = _orthonormal(np.stack([np.cos(np.arange(n)), np.sin(0.5 * np.arange(n))], axis=1))
    for _ in range(100):
        q = _orthonormal(b @ q)
    scale = np.sqrt(np.maximum(np.einsum("ij,ij->j", q, b @ q), 1e-9))
    x = q * scale
    x *= np.where(x[np.argmax(np.abs(x), axis=0), [0, 1]] < 0, -1.0, 1.0)  # fixed signs
    w = np.zeros_like(d)
    off = d > 0
    w[off] = 1.0 / d2[off]
    wsum = w.sum(axis=1)[:, None]
    for _ in range(iterations):
        sq = (x * x).sum(axis=1)
        dx = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2.0 * (x @ x.T), 1e-12))
        r = w * d / dx
        np.fill_diagonal(r, 0.0)
        x = (w @ x + r.sum(axis=1)[:, None] * x - r @ x) / wsum
    lo, hi = x.min(axis=0), x.max(axis=0)
    span = float(max(hi - lo)) or 1.0
    x = (x - lo) / span
    x += (1.0 - (hi - lo) / span) / 2.0  # centre the shorter axis
    return [[round(float(a), 4), round(float(b_), 4)] for a, b_ in x]


def static(ctx: Context) -> dict[str, Any]:
    """The city: coordinates, roads, zones, stations, hospitals, posts (never change)."""
    city = ctx.p.city
    return {
        "city": city.name,
        "nodes": layout(city),
        "edges": [[int(u), int(v), float(w)] for u, v, w in city.edges],
        "zone_of": [int(z) for z in city.zone_of],
        "zone_names": list(city.zone_names),
        "stations": sorted({int(n) for n in city.unit_home}),
        "hospitals": [{"node": int(n), "name": name, "beds": int(b)} for n, name, b in
                      zip(city.hospitals, city.hospital_names, city.hospital_beds, strict=True)],
        "posts": [int(n) for n in city.posts],
        "bridges": [[int(u), int(v)] for u, v in city.bridges],
        "aid_entry": int(city.aid_entry),
        "shift_min": float(ctx.p.shift_min),
        "call_types": list(CALL_TYPES),
        "status_names": list(STATUS_NAMES),
        "event_kinds": list(EVENT_KINDS),
    }


def _position(s: DispatchState, u: int) -> tuple[int, int, float]:
    """``(from node, to node, fraction of that road travelled)`` of unit ``u`` right now."""
    status = int(s.u_status[u])
    if not MOVING[status] or s.u_next[u] <= s.t:
        node = int(s.u_dest[u]) if MOVING[status] else int(s.u_node[u])
        return node, node, 0.0
    pos = s.graph.locate(int(s.u_node[u]), int(s.u_dest[u]), float(s.u_lead[u]),
                         s.t - float(s.u_tstart[u]), float(s.u_tmult[u]))
    if pos.prev_node == pos.next_node:
        return pos.prev_node, pos.next_node, 0.0
    edge = float(s.graph.weight[pos.prev_node, pos.next_node]) * float(s.u_tmult[u])
    frac = 1.0 - pos.remaining / edge if edge > 0 and math.isfinite(edge) else 0.0
    return pos.prev_node, pos.next_node, round(min(1.0, max(0.0, frac)), 3)


def frame(s: DispatchState, ctx: Context, progress: float) -> dict[str, Any]:
    """The city at ``s`` (plain JSON types only, nothing aliases the state)."""
    t = float(s.t)
    hour = (s.start_hour + t / 60.0) % 24.0
    slot_of = {int(c): k for k, c in enumerate(s.visible.tolist()) if c >= 0}
    units = []
    for u in range(ctx.U):
        status = int(s.u_status[u])
        if status == 0 and int(s.u_obs_status[u]) == 0:
            continue
        a, b, frac = _position(s, u)
        units.append({
            "id": u, "als": bool(s.u_als[u]), "status": STATUS_NAMES[status],
            "reported": STATUS_NAMES[int(s.u_obs_status[u])], "from": a, "to": b,
            "frac": frac, "home": int(s.u_home[u]),
            "call": int(s.u_call[u]), "hospital": int(s.u_hosp[u]),
        })
    calls = []
    for c in np.flatnonzero(s.c_status == OPEN).tolist():
        calls.append({
            "id": c, "slot": slot_of.get(c), "node": int(s.c_node[c]),
            "type": CALL_TYPES[int(s.c_rtype[c])], "tone": TONES[int(s.c_tone[c])],
            "age_min": round(t - float(s.c_time[c]), 1),
            "assigned": int(s.c_assigned[c]), "needed": int(s.c_needed[c]),
            "verified": round(float(s.c_verify[c]), 3) if s.c_verify[c] >= 0 else None,
            "truth": {"kind": KINDS[int(s.c_kind[c])], "type": CALL_TYPES[int(s.c_type[c])],
                      "severity": int(s.c_sev[c])},
        })
    hospitals = [{"divert": diverting(s, h), "reported_divert": bool(s.h_obs_divert[h]),
                  "free_beds": int(np.sum(s.h_release[h] <= t))} for h in range(ctx.H)]
    g = s.graph
    closed = [[u, v] for u, v, _ in ctx.p.city.edges if g.removed[u, v]]
    slowed = [[int(u), int(v)] for u, v, end in s.slow_edges if end > t]
    events = [{"t": round(float(s.e_time[i]), 1), "kind": EVENT_KINDS[int(s.e_kind[i])]}
              for i in range(s.next_event)]
    alerts = {EVENT_KINDS[k]: (None if math.isinf(v) else round(v - t, 1))
              for k, v in enumerate(s.alert_until.tolist()) if v > t}
    done = s.c_status[: s.next_call] != OPEN
    outcome = s.c_outcome[: s.next_call]
    return {
        "progress": progress,
        "t": round(t, 2),
        "clock": f"{int(hour):02d}:{round((hour % 1) * 60) % 60:02d}",
        "traffic": round(float(s.mult), 2),
        "units": units,
        "calls": calls,
        "hospitals": hospitals,
        "closed_roads": closed,
        "slowed_roads": slowed,
        "alerts": alerts,
        "events": events,
        "mutual_aid_left": int(s.mutual_aid_left),
        "coverage": round(float(s.cov_now), 4),
        "counters": {
            "calls": int(s.next_call), "open": int(s.n_open),
            "closed": int(np.sum(done)),
            "lives_saved": round(float(np.nansum(outcome)), 3),
        },
        "last_report": s.last_report,
    }
