"""``PharmacyEnv``: hospital supply coordination (MedChain), composed from the modules beside it.

One step = one tool call. Read-only queries cost one call of the round's budget and no simulated
time; ``advance_round`` (or running out of tool calls) simulates the round's two days.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, Environment, Grade
from lifeline.core.rng import make_streams
from lifeline.core.specs import ArraySpec
from lifeline.envs.pharmacy import dynamics, observation, render, reward, rules
from lifeline.envs.pharmacy.frame import frame as frame_of
from lifeline.envs.pharmacy.generator import new_state
from lifeline.envs.pharmacy.params import SCENARIOS, PharmacyParams
from lifeline.envs.pharmacy.queries import QUERIES
from lifeline.envs.pharmacy.types import (
    ACTION_TYPES,
    AdvanceRound,
    ErpOracleGetInventory,
    ErpOracleGetPipeline,
    FileJustification,
    FinanceSapGetBudget,
    FinanceSapRequestApproval,
    MessagingSendToWard,
    PharmacyState,
    QueryErp,
    QuerySupplier,
    Scan,
    SupplierPortalGetQuote,
    SupplierPortalRequestQuote,
    WmsScanInventory,
)

STREAMS = ("events", "demand", "stock", "actors", "history", "wms", "surges", "supply")
"""Named random streams, one per stochastic process (order is part of determinism)."""
SYSTEM_OF: dict[type[Action], int] = {
    ErpOracleGetInventory: 0, ErpOracleGetPipeline: 0, QueryErp: 0, WmsScanInventory: 1, Scan: 1,
    SupplierPortalRequestQuote: 2, SupplierPortalGetQuote: 2, QuerySupplier: 2,
    FinanceSapGetBudget: 3, FinanceSapRequestApproval: 3, FileJustification: 3,
    MessagingSendToWard: 4,
}
"""Enterprise system each tool belongs to (ERP, WMS, supplier portal, finance, messaging)."""


class PharmacyEnv(Environment[PharmacyState, Action]):
    """Central-pharmacy coordination over 8 rounds x 2 days (see README.md)."""

    name: ClassVar[str] = "pharmacy"
    version: ClassVar[int] = 2
    action_types: ClassVar[tuple[type[Action], ...]] = ACTION_TYPES

    def __init__(self, scenario: str = "light", params: PharmacyParams | None = None) -> None:
        if params is None:
            if scenario not in SCENARIOS:
                raise ValueError(f"unknown scenario {scenario!r} for pharmacy; choose one of: "
                                 f"{', '.join(SCENARIOS)}")
            params = SCENARIOS[scenario]
        super().__init__(scenario)
        self.params = params
        self.layout = rules.Layout(params)
        self._spec = observation.observation_spec(params)

    @property
    def num_actions(self) -> int:
        return self.layout.total

    @property
    def max_steps(self) -> int:
        # Running out of tool calls advances the round, so this is never reached.
        return self.params.rounds * self.params.tool_calls_per_round + 1

    def observation_spec(self) -> dict[str, ArraySpec]:
        return dict(self._spec)

    def reset(self, seed: int) -> PharmacyState:
        state = new_state(self.params, make_streams(seed, STREAMS))
        dynamics.start_round(state, self.params)
        return state

    def validate(self, state: PharmacyState, action: Action) -> str | None:
        return rules.validate(state, self.params, self.layout, action)

    def action_mask(self, state: PharmacyState) -> np.ndarray:
        return rules.action_mask(state, self.params, self.layout)

    def encode(self, action: Action) -> int:
        return self.layout.encode(action)

    def decode(self, index: int) -> Action:
        return self.layout.decode(index)

    def progress(self, state: PharmacyState) -> float:
        return min(1.0, state.round / self.params.rounds)

    def noop_action(self) -> Action:
        return AdvanceRound()

    def invalid_penalty(self) -> float:
        # the score's cost of one invalid call (reward.INVALID_COST), paid at once; the round-end
        # deltas leave it out (score_before_invalid_calls), so the reward still telescopes
        return reward.INVALID_PENALTY

    def _apply(self, state: PharmacyState, action: Action) -> tuple[float, dict[str, Any]]:
        kind = type(action)
        query = QUERIES.get(kind)
        if query is not None:
            state.last_result = query(state, self.params, action)
        else:
            state.last_result = dynamics.HANDLERS[kind](state, self.params, action)
        system = SYSTEM_OF.get(kind)
        if system is not None:
            state.systems[system] = True
        advanced = kind is AdvanceRound
        if not advanced:
            advanced = self._use_call(state)
        r = 0.0
        if advanced:
            r += self._score_delta(state)
        return r, {"round": state.round, "advanced": advanced}

    def _apply_invalid(self, state: PharmacyState) -> tuple[float, dict[str, Any]]:
        """An invalid call uses one tool call of the round (and may end the round); its score
        cost (``reward.INVALID_COST``) is :meth:`invalid_penalty`."""
        advanced = self._use_call(state)
        r = self._score_delta(state) if advanced else 0.0
        return r, {"round": state.round, "advanced": advanced}

    def _use_call(self, state: PharmacyState) -> bool:
        state.calls_used += 1
        if state.calls_used >= self.params.tool_calls_per_round:
            summary = dynamics.advance_round(state, self.params)
            state.last_result = f"{state.last_result}\n(tool calls exhausted) {summary}".strip()
            return True
        return False

    def _score_delta(self, state: PharmacyState) -> float:
        score = reward.grade(state, self.params).metrics["score_before_invalid_calls"]
        delta = score - state.last_score
        state.last_score = score
        return delta

    def is_terminal(self, state: PharmacyState) -> bool:
        return state.round >= self.params.rounds

    def observe(self, state: PharmacyState) -> dict[str, np.ndarray]:
        return observation.observe(state, self.params)

    def render_text(self, state: PharmacyState) -> str:
        return render.render_text(state, self.params)

    def frame(self, state: PharmacyState) -> dict[str, Any]:
        return frame_of(state, self.params)

    def grade(self, state: PharmacyState) -> Grade:
        return reward.grade(state, self.params)
