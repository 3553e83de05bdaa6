"""The reference plan's vectorised model building equals the per-variable loops it replaced.

``plan.py`` builds the candidate variables (units, response and busy minutes) with whole-array
arithmetic, the one-call-at-a-time cliques with one outer comparison per unit, the greedy
per-call choice with one ``argmin`` and the MILP's constraint matrix with whole-array index
arithmetic (issue 15: a dispatch reset solves this MILP). The loop forms are kept here as
oracles and compared on the real inputs of many resets of both cities, so the HiGHS model — and
hence the plan, the grader's reference and the ``bound`` agent — is unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import coo_matrix

from lifeline.envs.dispatch import plan
from lifeline.envs.dispatch.env import DispatchEnv, DispatchMetroEnv
from lifeline.envs.dispatch.reward import untreated_risk


def candidates_loop(ctx, calls, real, homes, lead, start_hour):  # type: ignore[no-untyped-def]
    """The per-call loop ``reference_plan`` used before (v3 semantics; v4: the response trip's
    travel factor)."""
    p = ctx.p
    g = ctx.free_graph
    k = min(plan.CANDIDATES, homes.size)
    var_u: list[int] = []
    var_c: list[int] = []
    resp: list[float] = []
    busy: list[float] = []
    weight = np.zeros(calls.time.size)
    for c in real:
        node, ctype = int(calls.node[c]), int(calls.type[c])
        mult = ctx.traffic.multiplier(start_hour + calls.time[c] / 60.0)
        trav = 1.0 if calls.travel is None else float(calls.travel[c])  # v4
        weight[c] = 1.0 + 10.0 * untreated_risk(ctx, ctype, int(calls.sev[c]))
        d_home = g.dist[homes, node]
        h = int(np.argmin(g.dist[node, ctx.hosp_node]))
        for u in np.argsort(d_home, kind="stable")[:k]:
            r = float(lead[c] + d_home[u] * (mult * trav))
            tail = (g.dist[node, ctx.hosp_node[h]] + g.dist[ctx.hosp_node[h], homes[u]]) * mult \
                + p.handover_min if calls.transport[c] else g.dist[node, homes[u]] * mult
            var_u.append(int(u))
            var_c.append(int(c))
            resp.append(r)
            busy.append(r + float(ctx.scene[ctype]) + float(tail))
    return weight, np.asarray(var_u), np.asarray(var_c), np.asarray(resp), np.asarray(busy)


def cliques_loop(vu: np.ndarray, t_var: np.ndarray, end_var: np.ndarray,
                 n_units: int) -> list[np.ndarray]:
    cliques: list[np.ndarray] = []
    for u in range(n_units):
        mine = np.flatnonzero(vu == u)
        for jj in mine:
            clique = mine[(t_var[mine] <= t_var[jj]) & (end_var[mine] > t_var[jj])]
            if clique.size >= 2:
                cliques.append(clique)
    return cliques


def matrix_loop(var_call: np.ndarray, calls: np.ndarray, cols_x: np.ndarray,
                cliques: list[np.ndarray]) -> np.ndarray:
    local = {int(j): i for i, j in enumerate(cols_x)}
    n_local = cols_x.size
    row_of_call = {int(c): i for i, c in enumerate(calls)}
    rows: list[int] = [row_of_call[int(var_call[j])] for j in cols_x]
    cols: list[int] = list(range(n_local))
    rows += list(range(calls.size))
    cols += list(range(n_local, n_local + calls.size))
    n_rows = calls.size
    for clique in cliques:
        rows += [n_rows] * clique.size
        cols += [local[int(j)] for j in clique]
        n_rows += 1
    a = coo_matrix((np.ones(len(rows)), (rows, cols)),
                   shape=(n_rows, n_local + calls.size)).tocsr()
    return a


def cheapest_loop(cost: np.ndarray, k: int, limit: np.ndarray) -> np.ndarray:
    chosen = np.zeros(cost.size, bool)
    for i in range(limit.size):
        js = np.arange(i * k, (i + 1) * k)
        best = js[np.argmin(cost[js])]
        if cost[best] <= limit[i]:
            chosen[best] = True
    return chosen


def _same_cliques(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))


def _split(flat: np.ndarray, ptr: np.ndarray) -> list[np.ndarray]:
    return [flat[ptr[i]:ptr[i + 1]] for i in range(ptr.size - 1)]


@pytest.mark.parametrize("scenario", ["expert", "mass_casualty", "metro_expert"])
def test_vectorised_plan_model_equals_the_loops(scenario: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    env = DispatchMetroEnv(scenario) if scenario.startswith("metro_") else DispatchEnv(scenario)
    seen = {"cliques": 0, "matrices": 0, "greedy": 0, "candidates": 0}
    real_cliques, real_matrix, real_cheapest = (plan.busy_cliques, plan.constraint_matrix,
                                                plan.cheapest_per_call)
    real_candidates = plan.candidates

    def check_candidates(*args):  # type: ignore[no-untyped-def]
        got = real_candidates(*args)
        want = candidates_loop(*args)
        for g, w in zip(got, want, strict=True):
            assert g.dtype.kind == w.dtype.kind and g.tobytes() == w.tobytes()
        seen["candidates"] += 1
        return got

    def check_cliques(vu, t_var, end_var, n_units):  # type: ignore[no-untyped-def]
        flat, ptr = real_cliques(vu, t_var, end_var, n_units)
        want = cliques_loop(vu, t_var, end_var, n_units)
        _same_cliques(_split(flat, ptr), want)
        seen["cliques"] += 1
        return flat, ptr

    def check_matrix(var_call, calls, cols_x, flat, ptr):  # type: ignore[no-untyped-def]
        a = real_matrix(var_call, calls, cols_x, flat, ptr)
        b = matrix_loop(var_call, calls, cols_x, _split(flat, ptr))
        assert a.shape == b.shape and (a != b).nnz == 0
        for attr in ("data", "indices", "indptr"):
            assert np.array_equal(getattr(a, attr), getattr(b, attr))
        seen["matrices"] += 1
        return a

    def check_cheapest(cost, k, limit):  # type: ignore[no-untyped-def]
        got = real_cheapest(cost, k, limit)
        assert np.array_equal(got, cheapest_loop(cost, k, limit))
        seen["greedy"] += 1
        return got

    monkeypatch.setattr(plan, "candidates", check_candidates)
    monkeypatch.setattr(plan, "busy_cliques", check_cliques)
    monkeypatch.setattr(plan, "constraint_matrix", check_matrix)
    monkeypatch.setattr(plan, "cheapest_per_call", check_cheapest)
    for seed in range(12 if env.metro else 30):
        env.reset(seed)
    assert seen["cliques"] >= 10 and seen["matrices"] >= 5 and seen["greedy"] >= 10
    assert seen["candidates"] == seen["cliques"]


def test_cheapest_per_call_breaks_ties_like_argmin() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        n, k = int(rng.integers(1, 30)), int(rng.integers(1, 7))
        cost = rng.integers(0, 4, n * k).astype(float)  # many ties
        limit = rng.integers(0, 4, n).astype(float)
        assert np.array_equal(plan.cheapest_per_call(cost, k, limit),
                              cheapest_loop(cost, k, limit))


def test_busy_cliques_on_random_intervals() -> None:
    rng = np.random.default_rng(4)
    for _ in range(100):
        n, units = int(rng.integers(0, 60)), int(rng.integers(1, 6))
        vu = rng.integers(0, units, n)
        start = np.round(rng.uniform(0, 50, n))  # repeated start times
        end = start + rng.integers(0, 20, n)
        flat, ptr = plan.busy_cliques(vu, start, end, units)
        want = cliques_loop(vu, start, end, units)
        _same_cliques(_split(flat, ptr), want)
