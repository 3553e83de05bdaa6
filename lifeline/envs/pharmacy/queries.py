"""Read-only tools: each returns text built from what the agent may see, and costs one tool call
of the round's budget (no simulated time). Reached only through :data:`QUERIES`.

Hidden truth (true need, padding flags, pressure, trust, the board's estimate, realised demand)
is never read here; ``tests/envs/pharmacy/test_pharmacy_env.py`` swaps it and checks every output
is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lifeline.core.env import Action
from lifeline.envs.pharmacy import inventory, rules
from lifeline.envs.pharmacy.dynamics import JUSTIFICATIONS
from lifeline.envs.pharmacy.generator import N_SKUS, N_WARDS, STOCKED, cover_days, restocks
from lifeline.envs.pharmacy.params import (
    NO_EXPIRY,
    SKU_NAMES,
    SUPPLIER_NAMES,
    SUPPLIERS,
    WARDS,
    PharmacyParams,
)
from lifeline.envs.pharmacy.types import (
    ErpOracleGetInventory,
    ErpOracleGetPipeline,
    FinanceSapGetBudget,
    GetRoundBriefing,
    PharmacyState,
    QueryErp,
    QuerySupplier,
    QueryWardHistory,
    ReadInbox,
    Scan,
    SupplierPortalGetQuote,
    ViewRequests,
    WmsScanInventory,
)

ERP, WMS, PORTAL, FINANCE, MESSAGING = range(5)
SYSTEM_NAMES = ("ERP", "WMS", "supplier portal", "finance", "messaging")


def event_lines(state: PharmacyState, params: PharmacyParams) -> list[str]:
    """Published events, each visible from its announcement to the end of the episode."""
    dpr = params.days_per_round
    out = []
    for ev in state.events:
        if ev.announce_round > state.round:
            continue
        days = f"days {ev.start_day}-{ev.end_day - 1}"
        if ev.kind == "mci":
            text = (f"MASS CASUALTY INCIDENT expected {days}: ICU/ER blood demand about "
                    f"x{params.mci_mult:g}")
        elif ev.kind == "disruption":
            text = (f"SUPPLIER DISRUPTION at {SUPPLIER_NAMES[ev.supplier]} {days}: lead time "
                    f"+{params.disruption_extra_days} days")
        elif ev.kind == "recall":
            text = f"PRODUCT RECALL {SKU_NAMES[ev.sku]} lot(s) {', '.join(ev.lots) or '-'}"
        else:
            text = (f"COLD-CHAIN BREACH {SKU_NAMES[ev.sku]} lot(s) {', '.join(ev.lots) or '-'} "
                    f"must be quarantined")
        status = "active" if ev.start_day <= state.round * dpr < ev.end_day else (
            "upcoming" if state.round * dpr < ev.start_day else "past")
        out.append(f"{ev.eid} [{status}] {text}")
    return out


def _overview(state: PharmacyState) -> None:
    if state.round < len(state.overview_calls):
        state.overview_calls[state.round] += 1


def _topup_line(state: PharmacyState, params: PharmacyParams) -> str:
    """Round 4: whether this round's plan is issued, and the days the requests cover."""
    r = min(state.round, params.rounds - 1)
    if restocks(params, r):
        return (f"Ward top-up runs this round: requests and evidence cover "
                f"{cover_days(params, r)} days")
    return ("No ward top-up this round (weekend): the plan is not issued; the blood bank still "
            "issues ICU/ER blood the same day, and transfer_stock moves ward stock")


def briefing(state: PharmacyState, params: PharmacyParams, a: Any) -> str:
    _overview(state)
    req = state.requests.sum(axis=1)
    lines = [f"Round {state.round + 1}/{params.rounds} (day {state.round * 2}); tool calls left "
             f"{params.tool_calls_per_round - state.calls_used}; reviews left "
             f"{params.reviews_per_round - state.reviews_used}",
             f"Budget ${state.budget:,.0f}: spent ${state.counters.spent:,.0f}, available "
             f"${rules.available_budget(state):,.0f}",
             _topup_line(state, params),
             "Requests (units): " + ", ".join(f"{WARDS[w]} {req[w]:g}" for w in range(N_WARDS)),
             "ERP stock (last round): " + ", ".join(f"{SKU_NAMES[s]} {state.erp_stock[s]:g}"
                                                    for s in range(N_SKUS))]
    lines += event_lines(state, params) or ["No events published."]
    return "\n".join(lines)


def view_requests(state: PharmacyState, params: PharmacyParams, a: Any) -> str:
    _overview(state)
    lines = []
    for w in range(N_WARDS):
        for s in np.flatnonzero(STOCKED[w]):
            lines.append(f"{WARDS[w]} {SKU_NAMES[s]}: {state.requests[w, s]:g} units "
                         f"('{JUSTIFICATIONS[int(state.justification[w, s])]}')")
    return "\n".join(lines)


def read_inbox(state: PharmacyState, params: PharmacyParams, a: Any) -> str:
    _overview(state)
    lines = event_lines(state, params)
    lines += [f"{tid}: {text}" for tid, text in list(state.tickets.items())[-8:]]
    ready = [q for q, v in state.quotes.items() if v[0] < state.round]
    if ready:
        lines.append("Quotes ready: " + ", ".join(ready[-8:]))
    held = [po.approval_id for po in state.pos if po.status == "held"]
    if held:
        lines.append("Awaiting approval: " + ", ".join(held))
    return "\n".join(lines) or "Inbox empty."


def ward_history(state: PharmacyState, params: PharmacyParams, a: QueryWardHistory) -> str:
    w = WARDS.index(a.ward_id)
    skus = np.flatnonzero(STOCKED[w])
    pre = state.pre_history[:, :, w]
    lines = [f"{a.ward_id} history (request / recorded consumption per round):"]
    for s in skus:
        past = " ".join(f"{pre[r, 0, s]:g}/{pre[r, 1, s]:g}" for r in range(pre.shape[0]))
        cur = " ".join(f"{h[0, w, s]:g}/{h[2, w, s]:g}" for h in state.history)
        lines.append(f"  {SKU_NAMES[s]}: before {past} | episode {cur or '-'}")
    return "\n".join(lines)


def _inventory_text(state: PharmacyState) -> str:
    return "ERP inventory (end of last round): " + ", ".join(
        f"{SKU_NAMES[s]} {state.erp_stock[s]:g} (expiring soon {state.erp_expiring[s]:g})"
        for s in range(N_SKUS))


def _pipeline_text(state: PharmacyState) -> str:
    rows = [f"{po.po_id} {SKU_NAMES[po.sku]} {po.qty:g} from {SUPPLIER_NAMES[po.supplier]} "
            f"{po.status}" + (f" ETA day {po.eta_day} (nominal)" if po.status == "open" else "")
            + (f" ({po.approval_id})" if po.approval_id else "")
            for po in state.pos if po.status in ("open", "held", "approved")]
    return "ERP pipeline: " + ("; ".join(rows) if rows else "no open POs")


def _budget_text(state: PharmacyState) -> str:
    reserved = state.budget - state.counters.spent - rules.available_budget(state)
    return (f"Budget ${state.budget:,.2f}; spent ${state.counters.spent:,.2f}; reserved "
            f"${reserved:,.2f}; available ${rules.available_budget(state):,.2f}")


def erp_inventory(state: PharmacyState, params: PharmacyParams, a: Any) -> str:
    state.systems[ERP] = True
    return _inventory_text(state)


def erp_pipeline(state: PharmacyState, params: PharmacyParams, a: Any) -> str:
    state.systems[ERP] = True
    return _pipeline_text(state)


def query_erp(state: PharmacyState, params: PharmacyParams, a: QueryErp) -> str:
    state.systems[ERP] = True
    if a.table == "inventory":
        return _inventory_text(state)
    if a.table == "budget":
        return _budget_text(state)
    if a.table == "pipeline":
        return _pipeline_text(state)
    rows = [f"{po.po_id} {SKU_NAMES[po.sku]} {po.qty:g} ${po.cost:,.2f} {po.status}"
            for po in state.pos]
    return "Purchase orders: " + ("; ".join(rows) if rows else "none")


def wms_scan(state: PharmacyState, params: PharmacyParams, a: Any) -> str:
    """Live lots with +-5% noise per lot (its own stream: scanning never shifts other dice)."""
    state.systems[WMS] = True
    state.wms_round = state.round
    rng = state.rng["wms"]
    rows = []
    for s in range(N_SKUS):
        parts = []
        state.wms_seen[s] = 0.0
        for lot in state.central[s]:
            seen = lot.qty * (1.0 + rng.uniform(-0.05, 0.05))
            state.wms_seen[s] += seen
            exp = "no expiry" if lot.expiry >= NO_EXPIRY else f"exp day {lot.expiry}"
            parts.append(f"{lot.lot_id} ~{seen:.0f} ({exp})")
        rows.append(f"{SKU_NAMES[s]}: " + (", ".join(parts) if parts else "empty"))
    return "WMS scan (live, +-5% per lot): " + "; ".join(rows)


def query_supplier(state: PharmacyState, params: PharmacyParams, a: QuerySupplier) -> str:
    state.systems[PORTAL] = True
    p = SUPPLIER_NAMES.index(a.supplier_id)
    sup = SUPPLIERS[p]
    status = [ev.eid for ev in state.events if ev.kind == "disruption" and ev.supplier == p
              and ev.announce_round <= state.round and state.round * 2 < ev.end_day]
    return (f"{sup.name}: nominal lead {sup.lead_days} d, price x{sup.cost_mult:g}; expedite "
            f"x1.5 for -2 d (min 1); status "
            + (f"DISRUPTED ({', '.join(status)})" if status else "normal"))


def get_quote(state: PharmacyState, params: PharmacyParams, a: SupplierPortalGetQuote) -> str:
    state.systems[PORTAL] = True
    rnd, p, s, qty, price, lead = state.quotes[a.quote_id]
    if rnd >= state.round:
        return f"{a.quote_id} pending (available next round)"
    return (f"{a.quote_id}: {SUPPLIER_NAMES[p]} {SKU_NAMES[s]} {qty:g} units at "
            f"${price:,.2f}/unit, lead time {lead} days (as quoted in round {rnd + 1})")


def finance_budget(state: PharmacyState, params: PharmacyParams, a: Any) -> str:
    state.systems[FINANCE] = True
    return _budget_text(state)


Query = Callable[[PharmacyState, PharmacyParams, Any], str]
QUERIES: dict[type[Action], Query] = {
    GetRoundBriefing: briefing, ViewRequests: view_requests, ReadInbox: read_inbox,
    QueryWardHistory: ward_history, QueryErp: query_erp, QuerySupplier: query_supplier,
    ErpOracleGetInventory: erp_inventory, ErpOracleGetPipeline: erp_pipeline,
    WmsScanInventory: wms_scan, Scan: wms_scan, SupplierPortalGetQuote: get_quote,
    FinanceSapGetBudget: finance_budget,
}
"""Read-only tools -> query function."""


def lot_units(state: PharmacyState) -> float:
    """Units in central stock (used by the frame)."""
    return sum(inventory.total(lots) for lots in state.central)
