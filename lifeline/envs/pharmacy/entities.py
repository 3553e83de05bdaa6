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

    return f


def entity_hints() -> EntityHints:
    """Stacked tables, the ``(ward, sku)`` pair and the derived arrays."""
    return EntityHints(
        stacked={"cells": StackedTable(CELL_KEYS),
                 "skus": StackedTable(("stock", "expiring", "pipeline", "scanned_stock",
                                       "stat_authorised", "justified")),
                 "suppliers": StackedTable(("quoted_lead",)),
                 "slots": StackedTable(("alerts",))},
        pairs={("ward", "sku"): "cells"},
        derive=derive)
