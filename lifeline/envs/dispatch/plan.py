"""The clairvoyant reference plan: an offline assignment of units to the realised call stream.

Knowing every future call (where, when, which are real, how severe), which home-station unit
should answer each real call so that the severity-weighted sum of response minutes is smallest,
given that a unit serving a call is busy for its whole cycle (travel, scene, transport, handover,
drive home)? Solved exactly as a MILP with :func:`scipy.optimize.milp` (HiGHS):

* ``x[u, c] ∈ {0, 1}`` — unit ``u`` answers call ``c`` (only the ``CANDIDATES`` units whose
  stations are nearest to the call get a variable); ``y[c] ∈ {0, 1}`` — no fleet unit answers it
  (reference response ``unplanned_ref_min``).
* every real call is answered once: ``Σ_u x[u, c] + y[c] = 1``;
* a unit does one thing at a time: busy intervals ``[t_c, t_c + busy(u, c))`` start at call times,
  so the maximal sets of overlapping intervals are those containing some call time ``t_c'``, and
  ``Σ_{c ∋ t_c'} x[u, c] ≤ 1`` for each of them.

The plan's response minutes and benefits are the grader's reference (``c_bound``,
``c_bound_saved``) and the ``bound`` agent follows it. It is a reference, not a proof of
optimality for the live system: it ignores turn-out delays, incidents and relocation, so a clever
online policy can occasionally beat it on a call — the grader caps each call's credit at 1.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from lifeline.envs.dispatch.context import Context
from lifeline.envs.dispatch.generator import CallStream
from lifeline.envs.dispatch.reward import benefit, untreated_risk
from lifeline.envs.dispatch.types import REAL

CANDIDATES = 6
"""Units considered per call (nearest stations first)."""


def reference_plan(ctx: Context, calls: CallStream, start_hour: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(response_min, unit, benefit)`` per call of the stream (fake calls: 0, −1, 0)."""
    p = ctx.p
    city = p.city
    g = ctx.free_graph
    m = calls.time.size
    bound_min = np.zeros(m)
    bound_unit = np.full(m, -1, np.int64)
    bound_saved = np.zeros(m)
    real = np.flatnonzero(calls.kind == REAL)
    if real.size == 0:
        return bound_min, bound_unit, bound_saved
    homes = np.asarray(city.unit_home, np.int64)
    n_units = homes.size
    k = min(CANDIDATES, n_units)

    var_u: list[int] = []
    var_c: list[int] = []
    resp: list[float] = []
    busy: list[float] = []
    weight = np.zeros(m)
    for c in real:
        node, ctype = int(calls.node[c]), int(calls.type[c])
        mult = ctx.traffic.multiplier(start_hour + calls.time[c] / 60.0)
        weight[c] = 1.0 + 10.0 * untreated_risk(ctx, ctype, int(calls.sev[c]))
        d_home = g.dist[homes, node]
        h = int(np.argmin(g.dist[node, ctx.hosp_node]))
        for u in np.argsort(d_home, kind="stable")[:k]:
            r = float(d_home[u] * mult)
            tail = (g.dist[node, ctx.hosp_node[h]] + g.dist[ctx.hosp_node[h], homes[u]]) * mult \
                + p.handover_min if calls.transport[c] else g.dist[node, homes[u]] * mult
            var_u.append(int(u))
            var_c.append(int(c))
            resp.append(r)
            busy.append(r + float(ctx.scene[ctype]) + float(tail))
    nx = len(var_u)
    vu, vc = np.asarray(var_u), np.asarray(var_c)
    cost = np.concatenate([weight[vc] * np.asarray(resp),
                           weight[real] * 2.0 * p.unplanned_ref_min])
    rows: list[int] = []
    cols: list[int] = []
    # Each real call answered once.
    row_of_call = {int(c): i for i, c in enumerate(real)}
    for j in range(nx):
        rows.append(row_of_call[var_c[j]])
        cols.append(j)
    for i in range(real.size):
        rows.append(i)
        cols.append(nx + i)
    n_eq = real.size
    # One call at a time per unit (interval-graph cliques at call times).
    n_rows = n_eq
    t_var = calls.time[vc]
    end_var = t_var + np.asarray(busy)
    for u in range(n_units):
        mine = np.flatnonzero(vu == u)
        for jj in mine:
            t0 = t_var[jj]
            clique = mine[(t_var[mine] <= t0) & (end_var[mine] > t0)]
            if clique.size >= 2:
                rows.extend([n_rows] * clique.size)
                cols.extend(int(x) for x in clique)
                n_rows += 1
    a = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_rows, nx + real.size)).tocsr()
    lb = np.concatenate([np.ones(n_eq), np.zeros(n_rows - n_eq)])
    ub = np.ones(n_rows)
    res = milp(cost, constraints=LinearConstraint(a, lb, ub), integrality=np.ones(cost.size),
               bounds=Bounds(0, 1), options={"node_limit": 5000, "presolve": True})
    # (HiGHS always finds a feasible point: every call unanswered by the fleet is one.)
    chosen = np.zeros(nx, bool) if res.x is None else res.x[:nx] > 0.5
    bound_min[real] = p.unplanned_ref_min
    for jc in np.flatnonzero(chosen):
        bound_min[var_c[jc]] = resp[jc]
        bound_unit[var_c[jc]] = var_u[jc]
    for c in real:
        als = bool(city.unit_als[bound_unit[c]]) if bound_unit[c] >= 0 else True
        bound_saved[c] = benefit(ctx, int(calls.type[c]), int(calls.sev[c]), float(bound_min[c]),
                                 als=als)
    return bound_min, bound_unit, bound_saved
