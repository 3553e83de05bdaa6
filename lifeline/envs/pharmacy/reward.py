"""The episode grader (v2: outcomes only) and the dense reward.

Score = ``0.50 patient_safety + 0.17 high_service + 0.08 normal_service + 0.10 event_response
+ 0.08 waste_control + 0.07 cost_control - 0.001 x invalid calls``, clipped to [0, 1].

* ``patient_safety`` ``S = max(0, 1 - harm / N_c)``: harm = ICU/ER blood units demanded and not
  served + units of recalled or breached lots issued after the announcement (the exploit
  suite's ``harm_units``); ``N_c`` = blood units demanded at ICU/ER over the episode.
* ``high_service`` / ``normal_service``: units served / demanded of the HIGH (saline,
  antibiotics, oxygen masks) and NORMAL (consumables) SKUs, all wards.
* ``event_response``: mean over events of: MCI -> ``1 - unmet / need`` of ICU/ER blood inside
  its window; supplier disruption -> criticality-weighted (3/2/1) service inside its window;
  recall / cold chain -> ``S x (1 - unsafe issued / affected units)``. No event: ``S``.
* ``waste_control = S x max(0, 1 - waste $ / (WASTE_VALUE x N_c))``: waste = expired units
  (central and wards) and lots destroyed without a recall or breach, at standard price.
* ``cost_control = S x max(0, 1 - net spend / (SPEND_VALUE x N_c))``: net spend = $ charged for
  POs - the terminal credit (stock on hand at the end, central and wards, at standard price, up
  to ``terminal_days`` of expected network demand per SKU and only what would be used before
  it expires at the expected rate).

Exchange rates (stated in the README, tested in ``tests/envs/pharmacy/test_pharmacy_grader.py``):
an extra
unmet critical unit (or unsafe unit) lowers the score by at least ``0.50 / N_c`` (more through
the S-gated terms); an extra $ of net spend by at most ``0.07 / (SPEND_VALUE x N_c)`` and an
extra $ of waste by at most ``0.08 / (WASTE_VALUE x N_c)``; so leaving one more critical unit
unmet to save money or waste pays only if it saves more than $7,142 of spend (the dearest blood
unit costs $1,215: platelets, FASTMED, expedited) or $6,250 of waste. An invalid call costs
0.001. Nothing is paid for touching tools, approvals, briefings or rationales: those are metrics.

Dense reward: the change of ``score_before_invalid_calls`` (the unclipped score without the
invalid-call cost) at every round end, plus -0.001 for each invalid call at once
(:data:`INVALID_PENALTY`, its score cost): it telescopes to the final score unless the score is
clipped at 0, and the world an invalid call leaves does not depend on the call.
"""

from __future__ import annotations

import numpy as np

from lifeline.core.env import Grade
from lifeline.envs.pharmacy.generator import COST, STOCKED, expected_daily
from lifeline.envs.pharmacy.params import CRIT_WEIGHT, HIGH, NORMAL, SKUS, PharmacyParams
from lifeline.envs.pharmacy.types import Lot, PharmacyState

INVALID_COST = 0.001
"""Score cost of one invalid or malformed call (and of a rejected approval / invalid
justification): uncapped, so padding a round with invalid calls always lowers the score."""
INVALID_PENALTY = -INVALID_COST
WEIGHTS = {"patient_safety": 0.50, "high_service": 0.17, "normal_service": 0.08,
           "event_response": 0.10, "waste_control": 0.08, "cost_control": 0.07}
SPEND_VALUE = 1000.0
"""$ of net spend, per unit of critical need, that takes ``cost_control`` from 1 to 0."""
WASTE_VALUE = 1000.0
"""$ of waste, per unit of critical need, that takes ``waste_control`` from 1 to 0."""
CLASS = np.array([s.criticality for s in SKUS])


def _ratio(num: float, den: float, empty: float = 1.0) -> float:
    return num / den if den > 0 else empty


def terminal_credit(state: PharmacyState, params: PharmacyParams) -> np.ndarray:
    """$ credited per SKU for stock on hand at the end (central + wards), standard price.

    Per SKU, lots in expiry order are used at the expected network rate (mean daily demand,
    no events) after the last day: a lot counts only for what that rate would use before it
    expires, and the total only up to ``terminal_days`` of the rate."""
    if params.terminal_days <= 0:
        return np.zeros(len(SKUS))
    end = min(state.round, params.rounds) * params.days_per_round
    rate = expected_daily(params).sum(axis=0)
    out = np.zeros(len(SKUS))
    for s in range(len(SKUS)):
        lots: list[Lot] = list(state.central[s])
        for w in range(len(state.wards)):
            lots += state.wards[w][s]
        lots.sort(key=lambda lot: (lot.expiry, lot.lot_id))
        cap = params.terminal_days * float(rate[s])
        used = 0.0
        for lot in lots:
            horizon = min(float(lot.expiry - end), params.terminal_days) * float(rate[s])
            take = max(0.0, min(lot.qty, horizon - used, cap - used))
            used += take
        out[s] = used * float(COST[s])
    return out


def event_scores(state: PharmacyState, safety: float) -> list[float]:
    """One score per event in [0, 1] (see the module docstring)."""
    out = []
    for ev in state.events:
        if ev.kind == "mci":
            out.append(max(0.0, 1.0 - _ratio(ev.need - ev.served, ev.need, 0.0)))
        elif ev.kind == "disruption":
            out.append(_ratio(ev.served, ev.need, empty=safety))
        else:
            out.append(safety * (1.0 - min(1.0, _ratio(ev.unsafe_units, ev.affected_units, 0.0))))
    return out


LINE_WEIGHT = STOCKED * np.array([CRIT_WEIGHT[s.criticality] for s in SKUS])
"""Weight of each (ward, SKU) line (0 where the ward does not stock it): reported metric."""


def network_service(state: PharmacyState) -> float:
    """Criticality-weighted mean over stocked lines of the line's fill rate (a metric now)."""
    c = state.counters
    live = c.line_need > 0
    if not live.any():
        return 0.0
    fill = np.where(live, c.line_served / np.maximum(c.line_need, 1e-9), 0.0)
    w = LINE_WEIGHT * live
    return float((fill * w).sum() / w.sum())


def class_service(state: PharmacyState, k: int) -> float:
    """Units served / demanded of SKUs of criticality class ``k`` (all wards); 1 while nothing
    was demanded (issue 31: nothing has gone wrong yet)."""
    c = state.counters
    cols = k == CLASS
    return _ratio(float(c.line_served[:, cols].sum()), float(c.line_need[:, cols].sum()), 1.0)


def grade(state: PharmacyState, params: PharmacyParams) -> Grade:
    """Score in [0, 1] from outcomes (final at the end of the episode)."""
    c = state.counters
    unsafe = float(sum(ev.unsafe_units for ev in state.events))
    harm = c.unmet_critical + unsafe
    n_c = c.crit_need
    # before any blood was demanded (the first round, before advance_round) nobody has been
    # harmed: every component is 1, as ED's grade is before its first patient (issue 31: the
    # Gymnasium face's grade reward anchors its potential at this grade at reset; it was 0)
    safety = max(0.0, 1.0 - harm / n_c) if n_c > 0 else 1.0
    events = event_scores(state, safety)
    credit = terminal_credit(state, params)
    net_spend = max(0.0, c.spent - float(credit.sum()))
    scale = max(n_c, 1.0)
    parts = {
        "patient_safety": safety,
        "high_service": class_service(state, HIGH),
        "normal_service": class_service(state, NORMAL),
        "event_response": float(np.mean(events)) if events else safety,
        "waste_control": safety * max(0.0, 1.0 - c.waste_cost / (WASTE_VALUE * scale)),
        "cost_control": safety * max(0.0, 1.0 - net_spend / (SPEND_VALUE * scale)),
    }
    parts = {k: float(min(1.0, max(0.0, v))) for k, v in parts.items()}
    invalid = state.invalid_actions + c.bad_justifications
    penalty = INVALID_COST * invalid
    before_invalid = sum(WEIGHTS[k] * v for k, v in parts.items()) \
        - INVALID_COST * c.bad_justifications
    score = before_invalid - INVALID_COST * state.invalid_actions
    components = {**parts, "invalid_penalty": penalty}
    rounds = max(1, min(state.round, params.rounds))
    outdate = {}
    for s, name in ((0, "rbc"), (1, "plt")):
        outdate[f"outdate_{name}_pct"] = 100.0 * _ratio(
            float(c.waste_sku[s]), float(c.waste_sku[s] + c.consumed_sku[s]), 0.0)
    metrics = {
        "harm_units": harm,
        "unmet_critical_units": c.unmet_critical, "critical_need_units": n_c,
        "unsafe_units": unsafe,
        "network_service": network_service(state),
        "spent": c.spent, "budget": state.budget, "premium": c.premium,
        "terminal_credit": float(credit.sum()), "net_spend": net_spend,
        "waste_units": c.waste_units, "waste_cost": c.waste_cost, **outdate,
        "quarantined_units": c.quarantined_units, "escalations": float(c.escalations),
        "correct_escalations": float(c.correct_escalations),
        "transfers": float(c.transfers),
        "cited_rounds": float(state.cited[:rounds].mean()),
        "systems_used": float(state.systems.sum()),
        "mean_pressure_general": float(state.pressure[2]), "rounds": float(state.round),
        "invalid_actions": float(state.invalid_actions),
        "bad_justifications": float(c.bad_justifications),
        "score_before_invalid_calls": before_invalid,
    }
    return Grade(score=float(min(1.0, max(0.0, score))), components=components, metrics=metrics)
