"""``frame(state)``: a JSON-ready picture of the moment (plain Python types, no aliasing)."""

from __future__ import annotations

from typing import Any

from lifeline.envs.pharmacy import inventory, rules
from lifeline.envs.pharmacy.params import SKU_NAMES, WARDS, PharmacyParams
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
                             "status": po.status, "eta_day": int(po.eta_day)}
                            for po in state.pos],
        "events": event_lines(state, params),
        "last_result": state.last_result,
    }
