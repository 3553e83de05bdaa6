"""``frame(state)``: a JSON-ready picture of the moment (plain Python types, no aliasing).

For the designed view it also carries (read from the state and the scenario, nothing changed):
the day, the par levels the bars are drawn against (a ward: one round of its mean demand; the
central pharmacy: its opening level, ``initial_days`` of network demand), central lots of
expiring products as ``[days left, units]``, spend so far, and the open POs' order days.
"""

from __future__ import annotations

from typing import Any

from lifeline.envs.pharmacy import inventory, rules
from lifeline.envs.pharmacy.params import NO_EXPIRY, SKU_NAMES, SKUS, WARDS, PharmacyParams
from lifeline.envs.pharmacy.queries import event_lines
from lifeline.envs.pharmacy.types import PharmacyState


def frame(state: PharmacyState, params: PharmacyParams) -> dict[str, Any]:
    """Round, budget, stock levels (central and wards), requests, plan, POs, events."""
    return {
        "progress": min(1.0, state.round / params.rounds),
        "round": int(state.round),
        "budget": float(state.budget),
        "available": float(rules.available_budget(state)),
        "central": {SKU_NAMES[s]: float(inventory.total(lots))
                    for s, lots in enumerate(state.central)},
        "wards": {WARDS[w]: {SKU_NAMES[s]: float(inventory.total(lots))
                             for s, lots in enumerate(row) if lots}
                  for w, row in enumerate(state.wards)},
        "requests": [[float(x) for x in row] for row in state.requests.tolist()],
        "plan": [[float(x) for x in row] for row in state.plan.tolist()],
        "purchase_orders": [{"id": po.po_id, "sku": SKU_NAMES[po.sku], "qty": float(po.qty),
                             "status": po.status, "eta_day": int(po.eta_day),
                             "order_day": int(po.order_day), "expedite": bool(po.expedite)}
                            for po in state.pos],
        "day": int(state.round * params.days_per_round),
        "days": int(params.rounds * params.days_per_round),
        "spent": float(state.counters.spent),
        "par": {"central": {sku.name: round(sku.initial_days * sum(sku.daily_demand), 1)
                            for sku in SKUS},
                "wards": {WARDS[w]: {sku.name: round(params.days_per_round * sku.daily_demand[w],
                                                     1)
                                     for sku in SKUS if sku.daily_demand[w] > 0}
                          for w in range(len(WARDS))}},
        "lots": {SKU_NAMES[s]: [[int(lot.expiry - state.round * params.days_per_round),
                                 float(lot.qty)] for lot in lots]
                 for s, lots in enumerate(state.central)
                 if lots and lots[0].expiry < NO_EXPIRY},
        "events": event_lines(state, params),
        "last_result": state.last_result,
    }
