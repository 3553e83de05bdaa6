"""What the RL agent sees (the Gymnasium face): the round's requests and audit results, the ERP
view of stock (one round stale), the pipeline, events and alerts — never the true need.

All arrays are float32 and freshly allocated. Units: ``requests``, ``evidence``, ``on_hand``,
``plan``, ``consumption``: units per (ward, SKU) for this 2-day round (0 where a ward does not
stock the SKU); ``stock``/``pipeline``/``expiring``: units per SKU.
"""

from __future__ import annotations

import numpy as np

from lifeline.core.specs import ArraySpec
from lifeline.envs.pharmacy import rules
from lifeline.envs.pharmacy.generator import N_SKUS, N_WARDS
from lifeline.envs.pharmacy.params import EVENT_KINDS, SUPPLIERS, PharmacyParams
from lifeline.envs.pharmacy.types import PharmacyState

MAX_UNITS = 1_000_000.0


def observation_spec(params: PharmacyParams) -> dict[str, ArraySpec]:
    """Shapes, dtypes and bounds of :func:`observe`'s arrays."""
    ws = (N_WARDS, N_SKUS)
    return {
        "clock": ArraySpec((4,), "float32", 0.0, 1.0,
                           "[round fraction, tool calls left fraction, reviews left fraction, "
                           "budget available fraction]"),
        "requests": ArraySpec(ws, "float32", 0.0, MAX_UNITS, "this round's requests, units"),
        "evidence": ArraySpec(ws, "float32", 0.0, MAX_UNITS,
                              "evidence 2-day clinical estimate, units (0 if not shown)"),
        "evidence_status": ArraySpec(ws, "float32", 0.0, 2.0, "0 none, 1 shown, 2 redacted"),
        "on_hand": ArraySpec(ws, "float32", 0.0, MAX_UNITS,
                             "ward-reported stock (units; known once evidence is requested)"),
        "verdicts": ArraySpec(ws, "float32", 0.0, 3.0, "0 none, 1 approve, 2 reduce, 3 deny"),
        "plan": ArraySpec(ws, "float32", 0.0, MAX_UNITS, "draft allocation, units"),
        "consumption": ArraySpec(ws, "float32", 0.0, MAX_UNITS,
                                 "recorded consumption last round, units"),
        "stock": ArraySpec((N_SKUS,), "float32", 0.0, MAX_UNITS,
                           "ERP central stock (end of last round), units"),
        "expiring": ArraySpec((N_SKUS,), "float32", 0.0, MAX_UNITS,
                              "ERP units expiring within 2 rounds"),
        "scanned_stock": ArraySpec((N_SKUS,), "float32", -1.0, MAX_UNITS,
                                   "issue 31: live central stock of this round's WMS scan, "
                                   "units (-1: not scanned this round)"),
        "stat_authorised": ArraySpec((N_SKUS,), "float32", 0.0, MAX_UNITS,
                                     "issue 31: STAT units still authorised this round"),
        "justified": ArraySpec((N_SKUS,), "float32", 0.0, 1.0,
                               "issue 31: 1 if a justification filed this round covers the SKU "
                               "or a supplier's orders of it are cleared this round"),
        "pipeline": ArraySpec((N_SKUS,), "float32", 0.0, MAX_UNITS,
                              "units on order (open, held, approved)"),
        "events": ArraySpec((len(EVENT_KINDS),), "float32", 0.0, 1.0,
                            "published and not yet past: mci, disruption, recall, cold_chain"),
        "alerts": ArraySpec((rules.ALERT_SLOTS,), "float32", 0.0, 1.0,
                            "quarantine slot holds an affected lot"),
        "quoted_lead": ArraySpec((len(SUPPLIERS),), "float32", 0.0, 30.0,
                                 "v2: lead time (days) each supplier quoted last round for "
                                 "orders placed this round (0 = no quote)"),
        "ordered": ArraySpec((len(SUPPLIERS), len(rules.ORDER_DAYS), N_SKUS), "float32", 0.0,
                             1.0, "issue 31: 1 if the console's order(supplier, level, sku) "
                             "batch is on this round's orders (ordering it again changes "
                             "nothing)"),
    }


def observe(state: PharmacyState, params: PharmacyParams) -> dict[str, np.ndarray]:
    """The structured observation of ``state``."""
    f32 = np.float32
    seen = state.evidence_seen
    pipeline = np.zeros(N_SKUS)
    for po in state.pos:
        if po.status in ("open", "held", "approved"):
            pipeline[po.sku] += po.qty
    events = np.zeros(len(EVENT_KINDS))
    day = state.round * params.days_per_round
    for ev in state.events:
        if ev.announce_round <= state.round and day < ev.end_day:
            events[EVENT_KINDS.index(ev.kind)] = 1.0
    alerts = np.zeros(rules.ALERT_SLOTS)
    alerts[:min(rules.ALERT_SLOTS, len(rules.alert_lots(state, params)))] = 1.0
    consumption = state.history[-1][2] if state.history else np.zeros((N_WARDS, N_SKUS))
    left = max(0.0, rules.available_budget(state))
    justified = np.zeros(N_SKUS)
    for skus in state.prefiled_skus:
        justified[sorted(skus)] = 1.0
    r = min(state.round, params.rounds - 1)
    justified = np.maximum(justified, state.supplier_cleared[r].any(axis=0))
    quoted = np.zeros(len(SUPPLIERS))
    for rnd, p, _s, _q, _price, lead in state.quotes.values():
        if rnd == state.round - 1:
            quoted[p] = lead
    return {
        "clock": np.array([min(1.0, state.round / params.rounds),
                           1.0 - state.calls_used / params.tool_calls_per_round,
                           1.0 - state.reviews_used / params.reviews_per_round,
                           min(1.0, left / state.budget) if state.budget > 0 else 0.0], dtype=f32),
        "requests": state.requests.astype(f32),
        "evidence": np.where(seen == 1, state.evidence_est, 0.0).astype(f32),
        "evidence_status": seen.astype(f32),
        "on_hand": np.where(seen > 0, state.on_hand, 0.0).astype(f32),
        "verdicts": state.verdicts.astype(f32),
        "plan": state.plan.astype(f32),
        "consumption": consumption.astype(f32),
        "stock": state.erp_stock.astype(f32),
        "expiring": state.erp_expiring.astype(f32),
        "scanned_stock": (state.wms_seen if state.wms_round == state.round
                          else np.full(N_SKUS, -1.0)).astype(f32),
        "stat_authorised": np.maximum(state.stat_auth, 0.0).astype(f32),
        "justified": justified.astype(f32),
        "pipeline": pipeline.astype(f32),
        "events": events.astype(f32),
        "alerts": alerts.astype(f32),
        "quoted_lead": quoted.astype(f32),
        "ordered": state.ordered.astype(f32),
    }
