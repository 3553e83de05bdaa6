"""Pharmacy's entity hints for :func:`lifeline.faces.entities.entity_spec`.

The ward x SKU arrays (requests, evidence, stock on hand, verdicts, plan, consumption) are one
table of ``(ward, sku)`` cells with a feature per array; the ERP arrays per SKU are the ``skus``
table, the quoted lead times the ``suppliers`` table and the quarantine alerts the ``slots``
table. An action naming both a ward and a SKU points at its cell.

``derive`` (issue 31) adds, from the observation alone: per cell the ``set_allocation`` level
the reference's allocation rule gives the line (``BaseStockAgent.allocation`` on the
observation's requests, evidence, on-hand and verdicts, without the budget-dependent
point-of-use buffer, platelets pooled as the reference pools them) and whether the draft plan
still differs from it; and a ``stage`` row in the global table (share of wards reviewed, the
round's WMS scan taken, share of requested lines still unset, whether the round issues a
plan): the console state the projected reference (``base_stock_flat``) acts on.

Run 3 (issue 31 item 4) adds the order stage: per SKU (``skus`` table) the units the
reference's base-stock rule would still order now (``order_gap``, summed over suppliers),
whether ``base_stock_flat`` would place an order of it now (``order_due``), and that order's
quantity level and supplier (``order_level``, ``order_supplier``, fractions of their ranges);
and ``any order due`` in the ``stage`` row. They are :func:`flat_reference.pending_orders` (the
teacher's own function) on a view of the state rebuilt from the observation and the public
parameters: the pipeline (one open PO per SKU), the batches already on this round's orders
(``ordered``), the round's WMS scan (or the ERP stock), the
ERP's expiring units, the available budget (``clock[3]`` x the budget the generator's formula
gives without the unknown event allowances + one allowance per drawn event at the scenario's
least count: an estimate, exact up to the allowances), a published disruption (while the
flag is up it delays MEDLINE today: exact) and a published MCI, whose start the flag does not
give: it is put one round ahead, now or one round back, whichever the ICU/ER blood evidence
(else requests) and last round's consumption fit best (an estimate). The reference's
point-of-use buffer is applied with that budget estimate. Where the estimates are exact the
features equal the teacher's next order decision (``tests/envs/pharmacy/test_pharmacy_flat.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import numpy as np

from lifeline.faces.entities import Derive, EntityHints, StackedTable

CELL_KEYS = ("requests", "evidence", "evidence_status", "on_hand", "verdicts", "plan",
             "consumption", "ref_level", "unset")


def derive(core: Any) -> Derive:
    """The derived arrays (module docstring) for one core's parameters."""
    from lifeline.envs.pharmacy import rules
    from lifeline.envs.pharmacy.baselines import BaseStockAgent
    from lifeline.envs.pharmacy.flat_reference import nearest_level
    from lifeline.envs.pharmacy.generator import STOCKED, restocks

    params = core.params
    ref = BaseStockAgent()
    ref.point_of_use = False  # the buffer reads the hidden budget position: left out
    levels = np.asarray(rules.LEVELS)

    def f(obs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        req = np.asarray(obs["requests"], dtype=float)
        seen = np.asarray(obs["evidence_status"]).astype(np.int64)
        view = SimpleNamespace(requests=req, evidence_est=np.asarray(obs["evidence"], float),
                               on_hand=np.asarray(obs["on_hand"], float), evidence_seen=seen,
                               verdicts=np.asarray(obs["verdicts"]).astype(np.int64))
        alloc = ref.allocation(view, params)  # type: ignore[arg-type]
        for s in ref.pool_skus:
            alloc[0:2, s] = np.floor(alloc[0:2, s] * ref.pool_issue)
        level = np.zeros(req.shape)
        for w, s in rules.LINES:
            level[w, s] = nearest_level(float(alloc[w, s]), float(req[w, s]))
        target = req * levels[level.astype(np.int64)]
        unset = (req > 0) & (np.abs(np.asarray(obs["plan"], float) - target) > 1e-6) & STOCKED
        rnd = round(float(obs["clock"][0]) * params.rounds)
        wards = [bool((seen[w] > 0).any()) for w in range(seen.shape[0])]
        stage = np.array([np.mean(wards), float(obs["scanned_stock"][0] >= 0),
                          unset.sum() / max(1, int((req > 0).sum())),
                          float(rnd < params.rounds and restocks(params, rnd))])
        return {"ref_level": (level / (len(levels) - 1)).astype(np.float32),
                "unset": unset.astype(np.float32), "stage": stage.astype(np.float32)}

    budget = budget_estimate(params)

    def g(obs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        out = f(obs)
        orders = order_features(core, obs, budget)
        out["stage"] = np.concatenate([out["stage"], [float(orders["order_due"].any())]]
                                      ).astype(np.float32)
        out.update(orders)
        return out

    return g


ORDER_KEYS = ("order_gap", "order_due", "order_level", "order_supplier")


def budget_estimate(params: Any) -> float:
    """The episode budget as far as the public parameters give it: the generator's formula
    (:func:`generator.budget`; the initial quantities are deterministic) with the scenario's
    least event count, each at the non-MCI allowance (the events drawn are not all public)."""
    from lifeline.envs.pharmacy import generator

    central, wards = generator.initial_stock(params, np.random.default_rng(0))
    base = generator.budget(params, central, wards, [])
    return float(base + params.events[0] * params.event_allowance)


def mci_start(params: Any, obs: Mapping[str, np.ndarray], rnd: int) -> int:
    """Start round of the published MCI (its flag is up from the round before it starts until
    it ends): ``rnd - 1`` when last round's ICU/ER blood consumption fits an MCI round better
    than a normal one, else ``rnd`` when this round's ICU/ER blood need (the evidence's
    clinical estimate where shown, else request + on-hand) fits an MCI in this round's window
    better, else ``rnd + 1``."""
    from lifeline.envs.pharmacy.generator import (
        IS_CRIT,
        cover_days,
        expected_daily,
        weekday_factor,
    )

    dpr = params.days_per_round
    daily = expected_daily(params)[0:2][:, IS_CRIT].sum()
    week = weekday_factor(params)

    def expect(lo: int, hi: int, start: int) -> float:
        days = range(max(0, lo), min(hi, params.days))
        return float(sum(daily * week[d] * (params.mci_mult if start * dpr <= d
                                            < start * dpr + params.mci_days else 1.0)
                         for d in days))

    def closer(seen: float, mci: float, normal: float) -> bool:
        lm = abs(np.log((seen + 1.0) / (mci + 1.0)))
        return bool(lm < abs(np.log((seen + 1.0) / (normal + 1.0))))

    cons = float(np.asarray(obs["consumption"], float)[0:2][:, IS_CRIT].sum())
    lo = (rnd - 1) * dpr
    if rnd >= 1 and closer(cons, expect(lo, lo + dpr, rnd - 1), expect(lo, lo + dpr, -99)):
        return rnd - 1
    ev = np.asarray(obs["evidence"], float)
    shown = np.asarray(obs["evidence_status"]) == 1
    need = np.where(shown, ev, np.asarray(obs["requests"], float)
                    + np.asarray(obs["on_hand"], float))[0:2][:, IS_CRIT].sum()
    day = rnd * dpr
    span = cover_days(params, min(rnd, params.rounds - 1))
    if closer(float(need), expect(day, day + span, rnd), expect(day, day + span, -99)):
        return rnd
    return rnd + 1


def order_view(params: Any, obs: Mapping[str, np.ndarray], budget: float) -> SimpleNamespace:
    """The fields the reference's allocation and order rules read, rebuilt from ``obs`` (module
    docstring; ``budget``: :func:`budget_estimate`)."""
    from lifeline.envs.pharmacy.params import EVENT_KINDS
    from lifeline.envs.pharmacy.types import Event

    clock = np.asarray(obs["clock"], float)
    rnd = round(float(clock[0]) * params.rounds)
    pipeline = np.asarray(obs["pipeline"], float)
    pos = [SimpleNamespace(status="open", sku=s, qty=float(q))
           for s, q in enumerate(pipeline) if q > 0]
    flags = np.asarray(obs["events"], float)
    dpr = params.days_per_round
    events = []
    if flags[EVENT_KINDS.index("disruption")] > 0:
        events.append(Event("D", "disruption", rnd, rnd * dpr, rnd * dpr + 1, supplier=0))
    if flags[EVENT_KINDS.index("mci")] > 0:
        start = mci_start(params, obs, rnd)
        events.append(Event("M", "mci", start - 1, start * dpr, start * dpr + params.mci_days))
    left = float(clock[3]) * budget
    return SimpleNamespace(
        round=rnd, pos=pos, events=events, budget=budget, reserved=0.0,
        counters=SimpleNamespace(spent=budget - left),
        wms_seen=np.asarray(obs["scanned_stock"], float),
        erp_stock=np.asarray(obs["stock"], float),
        erp_expiring=np.asarray(obs["expiring"], float),
        requests=np.asarray(obs["requests"], float),
        evidence_est=np.asarray(obs["evidence"], float),
        on_hand=np.asarray(obs["on_hand"], float),
        evidence_seen=np.asarray(obs["evidence_status"]).astype(np.int64),
        verdicts=np.asarray(obs["verdicts"]).astype(np.int64),
        ordered=np.asarray(obs["ordered"]) > 0.5)


def order_features(core: Any, obs: Mapping[str, np.ndarray],
                   budget: float | None = None) -> dict[str, np.ndarray]:
    """Per SKU: ``order_gap`` (units the reference would still order now), ``order_due`` (an
    order ``base_stock_flat`` would place now), its level and supplier as fractions (module
    docstring); all from :func:`flat_reference.pending_orders` on :func:`order_view`."""
    from lifeline.envs.pharmacy.baselines import BaseStockAgent
    from lifeline.envs.pharmacy.flat_reference import (
        order_gaps,
        pending_orders,
        reference_allocation,
        round_issue,
    )
    from lifeline.envs.pharmacy.params import SUPPLIERS

    params = core.params
    qty = core.layout.order_qty
    n = qty.shape[0]
    out = {k: np.zeros(n, np.float32) for k in ORDER_KEYS}
    view = order_view(params, obs, budget_estimate(params) if budget is None else budget)
    if view.round >= params.rounds:
        return out
    ref = BaseStockAgent()
    own = round_issue(params, view, reference_allocation(ref, view, params))
    for (_p, s), units in order_gaps(ref, params, view, own).items():
        out["order_gap"][s] += units
    for p, s, k, _units in pending_orders(ref, params, qty, view, own):
        if out["order_due"][s] == 0:
            out["order_due"][s] = 1.0
            out["order_level"][s] = k / max(1, qty.shape[1] - 1)
            out["order_supplier"][s] = p / max(1, len(SUPPLIERS) - 1)
    return out


def entity_hints() -> EntityHints:
    """Stacked tables, the ``(ward, sku)`` pair and the derived arrays."""
    return EntityHints(
        stacked={"cells": StackedTable(CELL_KEYS),
                 "skus": StackedTable(("stock", "expiring", "pipeline", "scanned_stock",
                                       "stat_authorised", "justified", *ORDER_KEYS)),
                 "suppliers": StackedTable(("quoted_lead",)),
                 "slots": StackedTable(("alerts",))},
        pairs={("ward", "sku"): "cells"},
        derive=derive)
