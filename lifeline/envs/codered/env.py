"""``CodeRedEnv``: multi-hospital mass-casualty coordination (see README.md)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, Environment, Grade
from lifeline.core.rng import check_seed, make_streams
from lifeline.core.specs import ArraySpec
from lifeline.envs.codered import dynamics, observation, render, reward, rules
from lifeline.envs.codered.frame import frame as make_frame
from lifeline.envs.codered.generator import STREAMS, generate, n_aid_slots, n_patient_slots
from lifeline.envs.codered.params import CodeRedParams, scenario_params
from lifeline.envs.codered.types import (
    ACTION_TYPES,
    AllocateBlood,
    AssignHospital,
    CodeRedAction,
    CodeRedState,
    MaintainPlan,
    PreemptOR,
    RequestMutualAid,
    TriageCall,
)

GRADED_ACTIONS = (AssignHospital, AllocateBlood, PreemptOR, TriageCall, RequestMutualAid)
"""Actions that can change the grade at once (waste, an immediate treatment, the aid penalty)."""
_GRADED_TYPES = frozenset(GRADED_ACTIONS)
"""The same as a set of exact types (action classes are not subclassed)."""
MAX_EPOCH_FACTOR = 2
"""Step budget: twice the slots of an episode made of minimum-length epochs (1 min)."""


class CodeRedEnv(Environment[CodeRedState, CodeRedAction]):
    """Coordinate ambulances, hospitals, ORs, specialists, blood and 911 calls (see README.md)."""

    name: ClassVar[str] = "codered"
    version: ClassVar[int] = 3
    action_types: ClassVar[tuple[type[Action], ...]] = ACTION_TYPES

    def __init__(self, scenario: str = "task1", params: CodeRedParams | None = None) -> None:
        super().__init__(scenario)
        self.params = scenario_params(scenario) if params is None else params
        self.n_units = 5 + n_aid_slots(self.params)
        self.n_patients = n_patient_slots(self.params)
        self.layout = rules.Layout(self.n_units, self.n_patients)
        self._spec = observation.observation_spec(self.n_units, self.n_patients)
        self._max_steps = int(MAX_EPOCH_FACTOR * self.params.horizon_min
                              * self.params.actions_per_epoch)

    @property
    def num_actions(self) -> int:
        return self.layout.total

    @property
    def max_steps(self) -> int:
        return self._max_steps

    def observation_spec(self) -> dict[str, ArraySpec]:
        return dict(self._spec)

    def reset(self, seed: int) -> CodeRedState:
        """A fresh episode at 08:00; the first epoch runs until the first decision event."""
        rng = make_streams(check_seed(seed), STREAMS)
        s = generate(self.params, rng)
        dynamics.settle(s, self.params)
        s.score_paid = reward.value(s, self.params)  # grade score + shaping, one pass
        return s

    def validate(self, state: CodeRedState, action: CodeRedAction) -> str | None:
        return rules.validate(state, self.params, action)

    def action_mask(self, state: CodeRedState) -> np.ndarray:
        return rules.action_mask(state, self.params, self.layout)

    def encode(self, action: CodeRedAction) -> int:
        return self.layout.encode(action)

    def decode(self, index: int) -> CodeRedAction:
        return self.layout.decode(index)

    def _apply(self, state: CodeRedState, action: CodeRedAction) -> tuple[float, dict[str, Any]]:
        p = self.params
        kind = type(action)
        if kind is MaintainPlan:
            state.last_report = ""
            dynamics.advance(state, p)
        else:
            state.last_report = dynamics.apply_action(state, p, action)
            if kind in _GRADED_TYPES:
                state.n_events += 1
            state.epoch_actions += 1
            if state.epoch_actions >= p.actions_per_epoch:
                dynamics.advance(state, p)
        return self._reward(state)

    def _apply_invalid(self, state: CodeRedState) -> tuple[float, dict[str, Any]]:
        """An invalid action uses one decision slot (the last slot advances the clock)."""
        state.epoch_actions += 1
        if state.epoch_actions >= self.params.actions_per_epoch:
            dynamics.advance(state, self.params)
        return self._reward(state)

    def _reward(self, state: CodeRedState) -> tuple[float, dict[str, Any]]:
        """Change of score + milestone shaping since the last step (re-graded only when a
        grade-relevant event or action happened, or the clock moved in cascade tasks)."""
        prm, t = self.params, state.t
        clock = t if prm.cascade or t >= prm.horizon_min else 0.0
        last = state.graded_key
        if (last and last[0] == state.n_events and last[1] == state.tally.aid_requests
                and last[2] == clock):  # the key below, compared without building it
            return 0.0, {"t": t}
        state.graded_key = (float(state.n_events), float(state.tally.aid_requests), clock)
        value = reward.value(state, self.params)
        r = value - state.score_paid
        state.score_paid = value
        return r, {"t": state.t}

    def is_terminal(self, state: CodeRedState) -> bool:
        return state.t >= self.params.horizon_min

    def progress(self, state: CodeRedState) -> float:
        return min(1.0, state.t / self.params.horizon_min)

    def noop_action(self) -> CodeRedAction:
        return MaintainPlan()

    def invalid_penalty(self) -> float:
        return -self.params.invalid_penalty

    def observe(self, state: CodeRedState) -> dict[str, np.ndarray]:
        return observation.observe(state, self.params)

    def render_text(self, state: CodeRedState) -> str:
        return render.render_text(state, self.params)

    def frame(self, state: CodeRedState) -> dict[str, Any]:
        return make_frame(state, self.params)

    def grade(self, state: CodeRedState) -> Grade:
        return reward.grade(state, self.params)
