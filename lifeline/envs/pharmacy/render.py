"""Text view for humans and LLM agents: what the agent may see, plus the last tool result."""

from __future__ import annotations

from lifeline.envs.pharmacy import rules
from lifeline.envs.pharmacy.params import SKU_NAMES, WARD_NAMES, PharmacyParams
from lifeline.envs.pharmacy.queries import event_lines
from lifeline.envs.pharmacy.types import PharmacyState


def render_text(state: PharmacyState, params: PharmacyParams) -> str:
    """Round, budgets, events, quarantine slots, a one-line request/plan summary and the last
    tool's output. The per-line tables are tools (``view_requests``, ``get_round_briefing``):
    the seed scores calling the dashboard once per round, so the view does not repeat it."""
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
        req = state.requests.sum(axis=1).tolist()
        lines.append("Requests this round (units): " + ", ".join(
            f"{WARD_NAMES[w]} {req[w]:g}" for w in range(len(WARD_NAMES)))
            + f"; plan lines set {int((state.plan > 0).sum())}, units {state.plan.sum():g}"
            + "  (view_requests / get_round_briefing for the details)")
    else:
        lines.append("Episode over.")
    if state.last_result:
        lines += ["Last tool result:", state.last_result]
    return "\n".join(lines)
