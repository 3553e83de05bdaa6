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
from scipy.sparse import coo_matrix, csr_matrix

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
    m = calls.time.size
    bound_min = np.zeros(m)
    bound_unit = np.full(m, -1, np.int64)
    bound_saved = np.zeros(m)
    real = np.flatnonzero(calls.kind == REAL)
    if real.size == 0:
        return bound_min, bound_unit, bound_saved
    homes = np.asarray(city.unit_home, np.int64)[:p.on_duty]  # v3: staffed slots only
    n_units = homes.size
    k = min(CANDIDATES, n_units)

    opens = calls.time + p.call_processing_min if calls.open is None else calls.open
    turnout = np.full(m, p.turnout_min) if calls.turnout is None else calls.turnout
    lead = opens - calls.time + turnout
    weight, vu, vc, resp, busy = candidates(ctx, calls, real, homes, lead, start_hour)
    cost = weight[vc] * resp
    # One call at a time per unit: busy intervals start at call times, so the maximal sets of
    # overlapping intervals are those containing some call time (interval-graph cliques).
    t_var = calls.time[vc]
    clique_vars, clique_ptr = busy_cliques(vu, t_var, t_var + busy, n_units)
    # Without the cliques the problem separates by call: each takes its cheapest unit. If that
    # choice already respects every clique it is optimal; otherwise solve the MILP over the calls
    # coupled by cliques (the others keep their cheapest unit, which no clique constrains).
    chosen = cheapest_per_call(cost, k, weight[real] * 2.0 * p.unplanned_ref_min)
    per_clique = np.add.reduceat(chosen[clique_vars].astype(np.int64), clique_ptr[:-1]) \
        if clique_ptr.size > 1 else np.zeros(1, np.int64)
    if per_clique.max() > 1:
        coupled = np.zeros(m, bool)
        coupled[vc[clique_vars]] = True
        chosen &= ~coupled[vc]
        chosen |= _solve_coupled(cost, vc, real[coupled[real]], clique_vars, clique_ptr,
                                 weight * 2.0 * p.unplanned_ref_min)
    bound_min[real] = p.unplanned_ref_min
    bound_min[vc[chosen]] = resp[chosen]  # at most one chosen variable per call
    bound_unit[vc[chosen]] = vu[chosen]
    for c in real:
        als = bool(city.unit_als[bound_unit[c]]) if bound_unit[c] >= 0 else True
        bound_saved[c] = benefit(ctx, int(calls.type[c]), int(calls.sev[c]), float(bound_min[c]),
                                 als=als)
    return bound_min, bound_unit, bound_saved


def candidates(ctx: Context, calls: CallStream, real: np.ndarray, homes: np.ndarray,
               lead: np.ndarray, start_hour: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The MILP's variables: ``(weight per call, unit, call, response min, busy min)`` per variable.

    For each real call in order, the ``CANDIDATES`` staffed units whose stations are nearest
    (stable order), as consecutive variables. Whole-array arithmetic with the same float64
    operations in the same order as the per-call loop it replaced (kept as the oracle in
    ``tests/envs/dispatch/test_dispatch_plan_fast.py``), so the model is bit-for-bit the same.
    """
    p = ctx.p
    g = ctx.free_graph
    k = min(CANDIDATES, homes.size)
    weight = np.zeros(calls.time.size)
    weight[real] = 1.0 + 10.0 * np.array([untreated_risk(ctx, int(t), int(v)) for t, v
                                          in zip(calls.type[real], calls.sev[real], strict=True)])
    mults = np.array([ctx.traffic.multiplier(start_hour + t / 60.0) for t in calls.time[real]])
    nodes = calls.node[real]
    d_home = g.dist[homes][:, nodes].T  # (calls, units)
    order = np.argsort(d_home, axis=1, kind="stable")[:, :k]
    mult_col = mults[:, None]
    # v4: the response trip's own travel factor (the rest of the cycle at the plain multiplier).
    travel = np.ones(calls.time.size) if calls.travel is None else calls.travel
    resp_col = (mults * travel[real])[:, None]
    # Call processing and the turn-out from the station come before the drive (v2; v3: the
    # call's own drawn minutes).
    resp = lead[real][:, None] + d_home[np.arange(real.size)[:, None], order] * resp_col
    hosp = ctx.hosp_node[g.dist[nodes][:, ctx.hosp_node].argmin(axis=1)]
    tail = np.where(calls.transport[real][:, None],
                    (g.dist[nodes, hosp][:, None] + g.dist[hosp[:, None], homes[order]])
                    * mult_col + p.handover_min,
                    g.dist[nodes[:, None], homes[order]] * mult_col)
    busy = resp + ctx.scene[calls.type[real]][:, None] + tail
    return weight, order.ravel(), np.repeat(real, k), resp.ravel(), busy.ravel()


def cheapest_per_call(cost: np.ndarray, k: int, limit: np.ndarray) -> np.ndarray:
    """Each call's cheapest variable (the first on ties), if its cost is within the call's limit.

    The variables come in consecutive groups of ``k``, one group per call in order (as
    :func:`reference_plan` appends them), so this is one ``argmin`` over a ``(calls, k)`` view.
    """
    best = np.arange(limit.size) * k + cost.reshape(limit.size, k).argmin(axis=1)
    chosen = np.zeros(cost.size, bool)
    chosen[best[cost[best] <= limit]] = True
    return chosen


def busy_cliques(var_unit: np.ndarray, start: np.ndarray, end: np.ndarray, n_units: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """One-call-at-a-time constraints ``(vars, ptr)``: clique ``i`` is ``vars[ptr[i]:ptr[i+1]]``.

    For each unit (in order) and each of its variables ``j`` (in order), the unit's variables
    whose busy interval ``[start, end)`` contains ``start[j]``, in variable order; only cliques of
    two or more are kept. One outer comparison per unit instead of one numpy pass per variable
    (the loop form is kept as the test oracle; the cliques and their order are identical).
    """
    parts: list[np.ndarray] = []
    sizes: list[np.ndarray] = []
    for u in range(n_units):
        mine = np.flatnonzero(var_unit == u)
        t_mine = start[mine]
        inside = (t_mine[None, :] <= t_mine[:, None]) & (end[mine][None, :] > t_mine[:, None])
        size = inside.sum(axis=1)
        keep = size >= 2
        parts.append(mine[np.nonzero(inside[keep])[1]])
        sizes.append(size[keep])
    flat = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    ptr = np.concatenate([[0], np.cumsum(np.concatenate(sizes) if sizes else [])]).astype(np.int64)
    return flat.astype(np.int64), ptr


def constraint_matrix(var_call: np.ndarray, calls: np.ndarray, cols_x: np.ndarray,
                      clique_vars: np.ndarray, clique_ptr: np.ndarray) -> csr_matrix:
    """The coupled MILP's constraint matrix: one row per call (its local ``x`` variables and its
    ``y``), then one row per clique (its local ``x`` variables), entries in that order."""
    n_local = cols_x.size
    row_of_call = np.zeros(int(var_call.max()) + 1, np.int64)
    row_of_call[calls] = np.arange(calls.size)
    local = np.zeros(var_call.size, np.int64)
    local[cols_x] = np.arange(n_local)
    sizes = np.diff(clique_ptr)
    rows = np.concatenate([row_of_call[var_call[cols_x]], np.arange(calls.size),
                           calls.size + np.repeat(np.arange(sizes.size), sizes)])
    cols = np.concatenate([np.arange(n_local), np.arange(n_local, n_local + calls.size),
                           local[clique_vars]])
    return coo_matrix((np.ones(rows.size), (rows, cols)),
                      shape=(calls.size + sizes.size, n_local + calls.size)).tocsr()


def _solve_coupled(cost: np.ndarray, var_call: np.ndarray, calls: np.ndarray,
                   clique_vars: np.ndarray, clique_ptr: np.ndarray,
                   unanswered_cost: np.ndarray) -> np.ndarray:
    """MILP over the calls coupled by busy-period cliques; returns the chosen variables."""
    nx = cost.size
    cols_x = np.flatnonzero(np.isin(var_call, calls))
    a = constraint_matrix(var_call, calls, cols_x, clique_vars, clique_ptr)
    n_rows = a.shape[0]
    lb = np.concatenate([np.ones(calls.size), np.zeros(n_rows - calls.size)])
    c_vec = np.concatenate([cost[cols_x], unanswered_cost[calls]])
    res = milp(c_vec, constraints=LinearConstraint(a, lb, np.ones(n_rows)),
               integrality=np.ones(c_vec.size), bounds=Bounds(0, 1),
               options={"node_limit": 5000, "presolve": True})
    chosen = np.zeros(nx, bool)
    if res.x is not None:  # HiGHS always finds a point: all-unanswered is feasible
        chosen[cols_x[res.x[:cols_x.size] > 0.5]] = True
    return chosen
