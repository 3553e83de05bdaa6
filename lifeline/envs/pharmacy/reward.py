"""The episode grader (the seed's named components, made sound) and the dense reward.

Score = ``0.25 network_service + 0.18 critical_service + 0.18 allocation_accuracy
+ 0.12 event_response + 0.07 budget_efficiency + 0.04 waste_control + 0.05 audit
+ 0.05 approval_workflow + 0.03 tool_discovery + 0.03 briefing_efficiency
- justification_penalty`` (penalty = 0.03 per invalid justification/approval request, cap 0.15),
clipped to [0, 1].

* ``network_service`` = mean fill rate (units consumed / demanded over the episode) of the 26
  stocked (ward, SKU) lines, weighted by criticality (CRIT 3, HIGH 2, NORMAL 1): a line-fill
  measure, so cheap high-volume consumables do not drown the blood lines;
* ``critical_service`` = CRIT-SKU (blood) units consumed / demanded at ICU and ER;
* ``allocation_accuracy`` = criticality-weighted mean over issued-or-needed lines of
  ``1 - min(1, |issued - true net need| / max(true net need, 1))``;
* ``event_response`` = mean over events: MCI -> CRIT service inside its window; disruption ->
  weighted service inside its window; recall / cold chain -> ``G x (1 - unsafe units issued /
  affected units)``.

Every process component is multiplied by the gate ``G = network_service``, so none of them pays
a do-nothing or tool-spamming agent: ``budget_efficiency = G (1 - premium / spent)`` (1 - 0 if
nothing was bought, still x G), ``waste_control = G (1 - waste $ / (issued $ + waste $))``,
``audit = G (0.5 cited-rounds fraction + 0.5 correct escalations / escalations)``,
``approval_workflow = G x clean approvals / max(1, large POs + approval requests - clean)``
(G when no large PO), ``tool_discovery = G x systems used / 5``, ``briefing_efficiency = G x mean
over rounds of (1 for one overview call, 0.5 for two, 0.25 for three, 0 otherwise)``.

Dense reward: the change of the score at every round (it telescopes to the final score) plus
capped shaping (at most 0.006 per round for auditing wards); invalid actions -0.01.
"""

from __future__ import annotations

import numpy as np

from lifeline.core.env import Grade
from lifeline.envs.pharmacy.generator import STOCKED
from lifeline.envs.pharmacy.params import CRIT_WEIGHT, SKUS, PharmacyParams
from lifeline.envs.pharmacy.types import PharmacyState

INVALID_PENALTY = -0.01
WEIGHTS = {"network_service": 0.25, "critical_service": 0.18, "allocation_accuracy": 0.18,
           "event_response": 0.12, "budget_efficiency": 0.07, "waste_control": 0.04,
           "audit": 0.05, "approval_workflow": 0.05, "tool_discovery": 0.03,
           "briefing_efficiency": 0.03}
PENALTY_PER_BAD = 0.03
PENALTY_CAP = 0.15
_BRIEFING = {1: 1.0, 2: 0.5, 3: 0.25}


def _ratio(num: float, den: float, empty: float = 1.0) -> float:
    return num / den if den > 0 else empty


def event_scores(state: PharmacyState, gate: float) -> list[float]:
    """One score per event in [0, 1] (see the module docstring)."""
    out = []
    for ev in state.events:
        if ev.kind in ("mci", "disruption"):
            out.append(_ratio(ev.served, ev.need, empty=gate))
        else:
            out.append(gate * (1.0 - min(1.0, _ratio(ev.unsafe_units, ev.affected_units, 0.0))))
    return out


LINE_WEIGHT = STOCKED * np.array([CRIT_WEIGHT[s.criticality] for s in SKUS])
"""Weight of each (ward, SKU) line in network service (0 where the ward does not stock it)."""


def network_service(state: PharmacyState) -> float:
    """Criticality-weighted mean over stocked lines of the line's fill rate (served / demanded)."""
    c = state.counters
    live = c.line_need > 0
    if not live.any():
        return 0.0
    fill = np.where(live, c.line_served / np.maximum(c.line_need, 1e-9), 0.0)
    w = LINE_WEIGHT * live
    return float((fill * w).sum() / w.sum())


def grade(state: PharmacyState, params: PharmacyParams) -> Grade:
    """Score in [0, 1] with the seed's components (final at the end of the episode)."""
    c = state.counters
    gate = network_service(state)
    events = event_scores(state, gate)
    rounds = max(1, min(state.round, params.rounds))
    brief = float(np.mean([_BRIEFING.get(int(n), 0.0) for n in state.overview_calls[:rounds]]))
    esc = _ratio(c.correct_escalations, c.escalations, empty=0.0)
    unresolved = c.large_pos + c.approval_requests - c.clean_approvals
    parts = {
        "network_service": gate,
        "critical_service": _ratio(c.crit_served, c.crit_need, empty=0.0),
        "allocation_accuracy": _ratio(c.accuracy_sum, c.accuracy_weight, empty=0.0),
        "event_response": float(np.mean(events)) if events else gate,
        "budget_efficiency": gate * (1.0 - _ratio(c.premium, c.spent, empty=0.0)),
        "waste_control": gate * (1.0 - _ratio(c.waste_cost, c.issued_cost + c.waste_cost, 0.0)),
        "audit": gate * (0.5 * float(state.cited[:rounds].mean()) + 0.5 * esc),
        "approval_workflow": gate * (_ratio(c.clean_approvals, max(1, unresolved), 1.0)
                                     if c.large_pos else 1.0),
        "tool_discovery": gate * float(state.systems.sum()) / 5.0,
        "briefing_efficiency": gate * brief,
    }
    parts = {k: float(min(1.0, max(0.0, v))) for k, v in parts.items()}
    penalty = min(PENALTY_CAP, PENALTY_PER_BAD * c.bad_justifications)
    score = sum(WEIGHTS[k] * v for k, v in parts.items()) - penalty
    components = {**parts, "justification_penalty": penalty}
    unsafe = float(sum(ev.unsafe_units for ev in state.events))
    metrics = {
        "harm_units": c.unmet_critical + unsafe,
        "unmet_critical_units": c.unmet_critical, "critical_need_units": c.crit_need,
        "spent": c.spent, "budget": state.budget, "premium": c.premium,
        "waste_units": c.waste_units, "waste_cost": c.waste_cost,
        "quarantined_units": c.quarantined_units, "escalations": float(c.escalations),
        "correct_escalations": float(c.correct_escalations),
        "unsafe_units": unsafe,
        "mean_pressure_general": float(state.pressure[2]), "rounds": float(state.round),
        "invalid_actions": float(state.invalid_actions),
    }
    return Grade(score=float(min(1.0, max(0.0, score))), components=components, metrics=metrics)
