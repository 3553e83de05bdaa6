"""Dispatch's entity hints for :func:`lifeline.faces.entities.entity_spec`: the unit x call pair.

The raw observation gives a unit's and a call's *node ids*; which unit is nearest a call is a
shortest-path lookup on the city map that a row encoder cannot learn from two squashed ids
(the pointer policy cloned from the reference lost 0.03 on ``warmup`` without it). So every
observation gets derived units x calls arrays (``PAIR_KEYS``, one per column below), computed
from the observation and the static map only — what the observation-only heuristics read —
stacked into the table ``unit_call`` of one row per (unit, call) pair, an extra ref of
``dispatch(unit, call)`` and ``reroute(unit, call)``:

``eta``: minutes from the unit to the call by its last report (the road-walking estimate of
``dmexclp`` / ``verify_dmexclp``; 0 when the unit is not free by report); ``free``: the unit is
dispatchable by report; ``behind``: minutes behind the nearest free unit for this call;
``nearest`` / ``nearest_als``: the unit is the nearest free unit / the nearest free ALS unit;
``als``: the unit is ALS; ``needs``: the call is open with fewer units than it needs;
``urgency``: the call's protocol urgency plus 0.7 x the caller's tone (the reference's queue
key); ``rank``: the call's place in the reference's queue (1 = first; 0 = not queued: doubtful
and young, or not needing a unit); ``first``: rank 1; ``assigned``: the unit is on this call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lifeline.faces.entities import Derive, EntityHints, StackedTable

PAIR_COLUMNS = ("eta", "free", "behind", "nearest", "nearest_als", "als", "needs", "urgency",
                "rank", "first", "assigned")
PAIR_KEYS = tuple(f"unit_call_{c}" for c in PAIR_COLUMNS)
"""The derived observation keys (one units x calls array per column)."""
ETA_CAP = 240.0
"""Minutes an ETA is capped at (a unit beyond reach; keeps the features finite)."""


def pair_features(core: Any) -> Derive:
    """The function from one dispatch observation to the ``PAIR_KEYS`` arrays (units x calls)."""
    from lifeline.envs.dispatch.baselines import (
        C_ASSIGNED,
        C_NEEDED,
        C_NODE,
        C_PRESENT,
        C_RTYPE,
        C_TONE,
        U_ALS,
        U_STATUS,
        VerifyDMEXCLPAgent,
    )
    from lifeline.envs.dispatch.types import DISPATCHABLE

    ref = VerifyDMEXCLPAgent()
    ctx = core.ctx
    n_u, n_k = int(ctx.U), int(ctx.K)

    def split(out: np.ndarray) -> dict[str, np.ndarray]:
        return {key: out[:, :, j] for j, key in enumerate(PAIR_KEYS)}

    def derive(obs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        out = np.zeros((n_u, n_k, len(PAIR_COLUMNS)), np.float32)
        calls, units = np.asarray(obs["calls"]), np.asarray(obs["units"])
        status = units[:, U_STATUS].astype(np.int64)
        free = DISPATCHABLE[status]
        als = units[:, U_ALS] > 0
        out[:, :, 1] = free[:, None]
        out[:, :, 5] = als[:, None]
        out[:, :, 10] = units[:, 6][:, None] == np.arange(1, n_k + 1)[None, :]
        present = calls[:, C_PRESENT] > 0
        if not present.any():
            return split(out)
        order = ref._call_order(core, dict(obs))
        for r, slot in enumerate(order):
            out[:, slot, 8] = r + 1
        if order:
            out[:, order[0], 9] = 1.0
        for k in np.flatnonzero(present).tolist():
            out[:, k, 6] = calls[k, C_ASSIGNED] < calls[k, C_NEEDED]
            out[:, k, 7] = ctx.urgency[int(calls[k, C_RTYPE])] + 0.7 * calls[k, C_TONE]
            if not free.any():
                continue
            eta = ref._etas(core, dict(obs), int(calls[k, C_NODE]))
            fin = np.isfinite(eta)
            out[:, k, 0] = np.where(fin, np.minimum(eta, ETA_CAP), 0.0)
            best = float(eta[fin].min())
            out[:, k, 2] = np.where(fin, np.minimum(eta - best, ETA_CAP), 0.0)
            out[int(np.argmin(eta)), k, 3] = 1.0
            if (fin & als).any():
                out[int(np.argmin(np.where(als, eta, np.inf))), k, 4] = 1.0
        return split(out)

    return derive


def entity_hints() -> EntityHints:
    """The derived unit x call table as a cross ref of ``dispatch`` and ``reroute``."""
    return EntityHints(derive=pair_features, stacked={"unit_call": StackedTable(PAIR_KEYS)},
                       cross={("unit", "call"): "unit_call"})
