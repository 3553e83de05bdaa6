"""Text view for humans and LLM agents: what the agent may see, plus the last tool result."""

from __future__ import annotations

import numpy as np

from lifeline.envs.pharmacy import rules
from lifeline.envs.pharmacy.generator import STOCKED
from lifeline.envs.pharmacy.params import SKU_NAMES, WARD_NAMES, PharmacyParams
from lifeline.envs.pharmacy.queries import event_lines
from lifeline.envs.pharmacy.types import PharmacyState


def render_text(state: PharmacyState, params: PharmacyParams) -> str:
    """Round, budgets, events, the request/plan table and the last tool's output."""
    r = min(state.round, params.rounds - 1)
    lines = [
        f"MedChain central pharmacy — round {min(state.round + 1, params.rounds)}/{params.rounds}"
        f" (day {state.round * params.days_per_round}); tool calls left "
        f"{params.tool_calls_per_round - state.calls_used}/{params.tool_calls_per_round}; "
        f"clinical reviews left {params.reviews_per_round - state.reviews_used}",
        f"Budget available ${rules.available_budget(state):,.0f} of ${state.budget:,.0f}",
    ]
    lines += event_lines(state, params)
    alerts = rules.alert_lots(state, params)
    if alerts:
        lines.append("Quarantine slots: " + ", ".join(
            f"{k}: {('CENTRAL' if loc < 0 else WARD_NAMES[loc])} {SKU_NAMES[s]} {lot}"
            for k, (loc, s, lot) in enumerate(alerts[:rules.ALERT_SLOTS])))
    if state.round < params.rounds:
        lines.append(f"Round {r + 1} lines (request / plan / evidence):")
        for w, s in np.argwhere(STOCKED):
            ev = {0: "-", 1: f"{state.evidence_est[w, s]:g}", 2: "REDACTED"}[
                int(state.evidence_seen[w, s])]
            verdict = ("", " APPROVE", " REDUCE", " DENY")[int(state.verdicts[w, s])]
            lines.append(f"  {WARD_NAMES[w]:<7} {SKU_NAMES[s]:<10} {state.requests[w, s]:>6g} "
                         f"{state.plan[w, s]:>7g} {ev:>8}{verdict}")
    else:
        lines.append("Episode over.")
    if state.last_result:
        lines += ["Last tool result:", state.last_result]
    return "\n".join(lines)
