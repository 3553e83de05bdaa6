"""``base_stock_flat``: the reference projected onto the flat (Gymnasium) encoding.

``base_stock`` plays the tool face (exact quantities, free-text citations, WMS scans, STAT
authorisations); the 293-action console the Gymnasium face exposes cannot express most of
those calls, so a clone of it learns only ``advance_round`` (results/pharmacy/learned.md).
This agent makes the same decisions from the same rules and emits only console actions, so
every call it makes is a label a pointer policy can learn:

* evidence: ``review_ward(w)`` for each ward not yet reviewed this round (= ``request_evidence
  (w, "all")``);
* clinical review: ``escalate(ward, sku)`` of the most suspicious lines above the reference's
  slack (the reference's own choice, :func:`baselines.suspicion`);
* ``quarantine(0)`` while an announced affected lot is in stock;
* ``scan`` once a round, after the quarantines (the order position reads the live stock);
* allocation: the reference's plan (:meth:`BaseStockAgent.allocation`, platelets pooled at the
  same issue share) as the ``set_allocation`` level nearest to each line's target / request
  (ties to the larger level), on rounds that issue a plan;
* orders: the reference's base-stock orders (:func:`baselines.replenish`) per (supplier, SKU)
  as ``order(supplier, level, sku)`` batches: of the batches not yet on this round's orders
  (each is ordered at most once a round, issue 31), the set nearest the remaining gap, largest
  batch first (:func:`order_level`), a ``justify(sku)`` first when the order would take the
  supplier's round spend over the approval threshold;
* STAT: the reference's ``authorize_stat`` units (:func:`baselines.stat_calls`, rule
  ``spare``, computed before this round's orders are placed, i.e. once the round's orders are
  done) as the largest ``stat(sku, level)`` not above them, once a round per product;
* ``advance_round``.

``baselines`` (whose ``AGENTS`` lists this agent) is imported inside the functions that use it,
so the two modules import in either order.

It is **stateless**: each call recomputes the round's targets from the state, so it can label
any state a learner visits (DAgger), not only its own trajectory. What the projection loses
(measured in results/pharmacy/learned.md): exact quantities (levels), STAT levels, weekend
ward-to-ward transfers, platelet returns to the blood bank, ward feedback messages and the
reference's second WMS scan (the teacher quarantines first and scans once).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lifeline.core.agent import Agent
from lifeline.core.env import Action, Environment
from lifeline.envs.pharmacy import rules
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.generator import restocks
from lifeline.envs.pharmacy.params import SKU_NAMES, SUPPLIER_NAMES
from lifeline.envs.pharmacy.types import (
    AdvanceRound,
    AuthorizeStat,
    Escalate,
    Justify,
    Order,
    PharmacyState,
    Quarantine,
    ReviewWard,
    Scan,
    SetAllocation,
    Stat,
    SubmitPo,
)


def nearest_level(target: float, request: float) -> int:
    """Index of the ``rules.LEVELS`` fraction nearest to ``target / request`` (ties up)."""
    if request <= 0:
        return 0
    ratio = target / request
    gaps = [abs(ratio - lv) for lv in rules.LEVELS]
    best = min(gaps)
    return max(i for i, g in enumerate(gaps) if g <= best + 1e-9)


def order_level(qty: np.ndarray, gap: float, used: Any = None) -> int | None:
    """The next ``order`` quantity level for a remaining ``gap`` (units), ``used``: the levels
    of the (supplier, SKU) already on this round's orders (issue 31: a batch is ordered at most
    once a round). Of the sets of unused batches, the one whose units are nearest the gap (ties
    to more units, then to fewer batches); its largest level, or ``None`` for the empty set
    (nothing to order). Placing that batch leaves the rest of the set the nearest for the
    remaining gap, so the rule is stateless."""
    free = [k for k in range(len(qty)) if used is None or not used[k]]
    best: tuple[float, float, int] = (abs(gap), 0.0, 0)
    pick: int | None = None
    for bits in range(1, 1 << len(free)):
        chosen = [k for i, k in enumerate(free) if bits >> i & 1]
        units = float(sum(qty[k] for k in chosen))
        key = (abs(gap - units), -units, len(chosen))
        if key < best:
            best, pick = key, max(chosen)
    return pick


def reference_allocation(ref: Any, state: Any, params: Any) -> np.ndarray:
    """The reference's allocation (``ref``: a ``BaseStockAgent``) with its pooled products'
    ward share (``pool_issue``) applied: the plan ``base_stock_flat`` sets."""
    alloc = ref.allocation(state, params)
    for s in ref.pool_skus:  # the reference's pooled issue share (plan side)
        for w in (0, 1):
            alloc[w, s] = np.floor(alloc[w, s] * ref.pool_issue)
    return np.asarray(alloc)


def round_issue(params: Any, state: Any, alloc: np.ndarray) -> np.ndarray:
    """The part of ``alloc`` this round issues and uses (zero on a round without a top-up):
    what the order position subtracts (:func:`baselines.own_round_issue`)."""
    from lifeline.envs.pharmacy import baselines

    if restocks(params, state.round):
        return np.asarray(baselines.own_round_issue(params, state, alloc))
    return np.zeros_like(alloc)


def order_gaps(ref: Any, params: Any, state: Any, own: np.ndarray) -> dict[tuple[int, int], float]:
    """The reference's remaining base-stock orders now, units per (supplier, SKU), in the order
    :func:`baselines.replenish` places them (``ref``: a ``BaseStockAgent``; ``state`` may be
    any object with the fields ``replenish`` reads)."""
    from lifeline.envs.pharmacy import baselines

    calls = baselines.replenish(params, state, own, plt_z=ref.plt_z,
                                cover_rounds=ref.cover_rounds)
    gap: dict[tuple[int, int], float] = {}
    for c in calls:
        if isinstance(c, SubmitPo):
            key = (SUPPLIER_NAMES.index(c.supplier_id), SKU_NAMES.index(c.product_id))
            gap[key] = gap.get(key, 0.0) + float(c.quantity)
    return gap


def pending_orders(ref: Any, params: Any, order_qty: np.ndarray, state: Any, own: np.ndarray
                   ) -> list[tuple[int, int, int, float]]:
    """``(supplier, sku, level, gap units)`` of each order ``base_stock_flat`` would still
    place now (:func:`order_gaps` with a quantity level among the batches not yet on this
    round's orders, ``state.ordered``: :func:`order_level`), in its order."""
    out = []
    for (p, s), units in order_gaps(ref, params, state, own).items():
        k = order_level(order_qty[s], units, state.ordered[p, :, s])
        if k is not None:
            out.append((p, s, k, units))
    return out


class FlatBaseStockAgent(Agent):
    """The reference's decisions as console actions (module docstring); reads only what the
    reference reads."""

    name = "base_stock_flat"

    def __init__(self) -> None:
        from lifeline.envs.pharmacy import baselines

        self.b = baselines
        self.ref = baselines.BaseStockAgent()

    def reset(self, env: Environment, seed: int) -> None:
        self.ref.reset(env, seed)

    def act(self, env: Environment, state: Any) -> Action | int:
        pe = self.b._env(env)
        st: PharmacyState = state
        mask = pe.action_mask(st)
        for action in self._candidates(pe, st):
            if mask[pe.encode(action)]:
                return action
        return AdvanceRound()

    def _candidates(self, env: PharmacyEnv, state: PharmacyState) -> Any:
        params = env.params
        stocked = rules.LINES
        for w in range(len(params.wards)):  # evidence, ward by ward
            if not any(state.evidence_seen[ww, s] for ww, s in stocked if ww == w):
                yield ReviewWard(w)
                return
        sus = self.b.suspicion(state)
        if state.reviews_used < params.reviews_per_round:
            worst = np.argsort(-sus, axis=None, kind="stable")[:params.reviews_per_round]
            for flat in worst:
                w, s = divmod(int(flat), sus.shape[1])
                if sus[w, s] > self.ref.slack and not state.escalated[w, s]:
                    yield Escalate(w, s)
                    return
        if rules.alert_lots(state, params):
            yield Quarantine(0)
            return
        if state.wms_round != state.round:  # after quarantine: the position counts live lots
            yield Scan()
            return
        alloc = reference_allocation(self.ref, state, params)
        if restocks(params, state.round):
            for w, s in stocked:
                req = float(state.requests[w, s])
                k = nearest_level(float(alloc[w, s]), req)
                if req > 0 and abs(state.plan[w, s] - req * rules.LEVELS[k]) > 1e-9:
                    yield SetAllocation(k, w, s)
                    return
        yield from self._orders(env, state, round_issue(params, state, alloc))

    def _orders(self, env: PharmacyEnv, state: PharmacyState, own: np.ndarray) -> Any:
        params = env.params
        r = min(state.round, params.rounds - 1)
        placed = False
        for p, s, k, _units in pending_orders(self.ref, params, env.layout.order_qty, state, own):
            cost = float(env.layout.order_cost[s, p, k])
            large = (state.supplier_spend[r, p] + cost > params.approval_threshold
                     and not state.supplier_cleared[r, p, s])
            if large and not any(s in skus for skus in state.prefiled_skus) \
                    and rules.citable_id(state, s):
                yield Justify(s)
            yield Order(p, k, s)
            placed = True
        if not placed:
            yield from self._stat(env, state, own)

    def _stat(self, env: PharmacyEnv, state: PharmacyState, own: np.ndarray) -> Any:
        """The reference's STAT units after the round's orders, as the largest level not above
        them (nothing below the smallest level), for each blood product not yet authorised."""
        params = env.params
        for c in self.b.stat_calls(params, state, own, [], self.ref.stat_rule,
                                   self.ref.stat_margin):
            assert isinstance(c, AuthorizeStat)
            s = SKU_NAMES.index(c.product_id)
            if s not in rules.STAT_SKUS or state.stat_auth[s] > 0:
                continue
            qty = env.layout.stat_qty[rules.STAT_SKUS.index(s)]
            fits = [k for k in range(len(qty)) if qty[k] <= float(c.max_units) + 1e-9]
            if fits:
                yield Stat(s, max(fits))


__all__ = ["FlatBaseStockAgent", "nearest_level", "order_gaps", "order_level", "pending_orders",
           "reference_allocation", "round_issue"]
