"""``EDEnv``: the emergency-department environment, composed from the modules beside it."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, Environment, Grade
from lifeline.core.rng import make_streams
from lifeline.core.specs import ArraySpec
from lifeline.envs.ed import frame as ed_frame
from lifeline.envs.ed import observation, render, reward, rules
from lifeline.envs.ed.generator import generate, inpatient_flow, schedule_of
from lifeline.envs.ed.params import SCENARIOS, EDParams, resolve
from lifeline.envs.ed.scalar_kernel import ScalarKernel
from lifeline.envs.ed.types import ACTION_TYPES, EDAction, EDState, Wait, max_returns

STREAMS = ("arrivals", "patients", "deterioration", "returns", "inpatient")
"""Named random streams, one per stochastic process (order is part of determinism);
``inpatient`` is the hospital's inpatient flow (discharges, elective admissions)."""


def return_bound(params: EDParams) -> int:
    """Rows of ``EDState.return_draws`` per patient (:func:`max_returns` for these params)."""
    min_delay = math.ceil(params.return_delay_hours[0] * 60.0 / params.tick_minutes)
    return max_returns(params.horizon_ticks, min_delay)


def draw_uniforms(params: EDParams, rng: dict[str, np.random.Generator], pids: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The episode's pre-drawn uniforms for ``pids`` patients (the scalar and the batch env
    both draw them here): ``hazard_draws`` (pid, tick), ``patient_draws`` (pid, 5) and
    ``return_draws`` (pid, :func:`return_bound`, 3)."""
    hazard = rng["deterioration"].random((pids, params.horizon_ticks))
    patient = rng["deterioration"].random((pids, 5))
    returns = rng["returns"].random((pids, return_bound(params), 3))
    return hazard, patient, returns


class EDEnv(Environment[EDState, EDAction]):
    """Triage, clinicians, diagnostics and bed/ICU/ventilator allocation over one 24-hour shift
    (ED-v3; see README.md). Every transition is ``kernel_v3``'s, stepped with N = 1 through
    :class:`~lifeline.envs.ed.scalar_kernel.ScalarKernel` (the batch env steps N with it)."""

    name: ClassVar[str] = "ed"
    version: ClassVar[int] = 3
    action_types: ClassVar[tuple[type[Action], ...]] = ACTION_TYPES
    scenarios: ClassVar[dict[str, EDParams]] = SCENARIOS

    def __init__(self, scenario: str = "normal_day", params: EDParams | None = None) -> None:
        params = resolve(scenario, params, self.scenarios)
        super().__init__(scenario)
        self.params = params
        self.layout = rules.Layout(params)
        self._spec = observation.observation_spec(params)
        self._kernel = ScalarKernel(params, return_bound(params))

    @property
    def num_actions(self) -> int:
        return self.layout.total

    @property
    def max_steps(self) -> int:
        # Valid play needs at most K steps per tick; twice that leaves room for invalid attempts.
        return 2 * self.params.horizon_ticks * self.params.actions_per_tick

    def observation_spec(self) -> dict[str, ArraySpec]:
        return dict(self._spec)

    def reset(self, seed: int) -> EDState:
        p = self.params
        rng = make_streams(seed, STREAMS)
        schedule, boarders = schedule_of(generate(p, rng["arrivals"], rng["patients"]))
        state = EDState(general=[None] * p.general_beds, icu=[None] * p.icu_beds,
                        schedule=schedule, rng=rng)
        pids = sum(len(t) for t in schedule) + len(boarders)
        state.hazard_draws, state.patient_draws, state.return_draws = draw_uniforms(p, rng, pids)
        for b in boarders:
            state.icu[b.bed] = b
        state.tick = 0
        state.inpatient_flow = inpatient_flow(p, rng["inpatient"])
        self._kernel.begin(state)  # kernel_v3.begin_episode (the batch env's too)
        return state

    def validate(self, state: EDState, action: EDAction) -> str | None:
        return rules.validate(state, self.params, action)

    def action_mask(self, state: EDState) -> np.ndarray:
        return rules.action_mask(state, self.params, self.layout)

    def encode(self, action: EDAction) -> int:
        return self.layout.encode(action)

    def decode(self, index: int) -> EDAction:
        return self.layout.decode(index)

    def progress(self, state: EDState) -> float:
        return min(1.0, state.tick / self.params.horizon_ticks)

    def noop_action(self) -> EDAction:
        return Wait()

    def invalid_penalty(self) -> float:
        return reward.INVALID_PENALTY

    def _apply(self, state: EDState, action: EDAction) -> tuple[float, dict[str, Any]]:
        return self._kernel.step(state, self.layout.encode(action))

    def _apply_invalid(self, state: EDState) -> tuple[float, dict[str, Any]]:
        """An invalid action uses one of the tick's K decision slots, like any action (the K-th
        advances the clock); nothing else happens."""
        return self._kernel.step(state, -1)

    def is_terminal(self, state: EDState) -> bool:
        return state.tick >= self.params.horizon_ticks

    def observe(self, state: EDState) -> dict[str, np.ndarray]:
        return observation.observe(state, self.params)

    def render_text(self, state: EDState) -> str:
        return render.render_text(state, self.params)

    def frame(self, state: EDState) -> dict[str, Any]:
        return ed_frame.frame(state, self.params, self.progress(state))

    def frame_static(self) -> dict[str, Any]:
        return ed_frame.static(self.params)

    def grade(self, state: EDState) -> Grade:
        return reward.grade(state, self.params)
