"""A trivial reference environment implementing the full :class:`Environment` contract.

``counter`` is deliberately cheap: the agent adds to a counter until it reaches a seeded target.
It exists for two reasons:

* the server/tool adapters are tested on it independently of any real simulation, and
* the server benchmark uses it as the *reference* throughput — whatever the server costs on top of
  a near-free ``step`` is overhead that a real environment cannot avoid either.

It is **not** registered in the built-in registry; use :data:`COUNTER_SPEC` explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, CoreState, Environment, Grade
from lifeline.core.registry import EnvSpec
from lifeline.core.rng import make_streams
from lifeline.core.specs import ArraySpec

MAX_INCREMENT = 3
"""Largest amount one ``increment`` may add."""
TARGET_RANGE = (5, 15)
"""Inclusive range the seeded target is drawn from."""


@dataclass(frozen=True)
class Hold(Action):
    """Do nothing this step (always legal while the episode runs)."""

    kind: ClassVar[str] = "hold"


@dataclass(frozen=True)
class Increment(Action):
    """Add ``amount`` to the counter; overshooting the target is not allowed."""

    kind: ClassVar[str] = "increment"
    amount: int = field(metadata={"doc": f"How much to add, 1–{MAX_INCREMENT}."})


@dataclass
class CounterState(CoreState):
    """The whole episode: counter value, seeded target and the RNG stream used to draw it."""

    count: int = 0
    """Current counter value."""
    target: int = 0
    """Value to reach (drawn from :data:`TARGET_RANGE` at reset)."""
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    """Stream for the (tiny) per-step noise in the observation's ``phase``."""
    phase: float = 0.0
    """A seeded random number redrawn each valid step (makes rollouts seed-dependent)."""


class CounterEnv(Environment[CounterState, Action]):
    """Reach the target count in as few steps as possible. Reward +1 per unit, −1 if invalid."""

    name: ClassVar[str] = "counter"
    version: ClassVar[int] = 0
    action_types: ClassVar[tuple[type[Action], ...]] = (Hold, Increment)

    @property
    def num_actions(self) -> int:
        return 1 + MAX_INCREMENT

    @property
    def max_steps(self) -> int:
        return 40

    def observation_spec(self) -> dict[str, ArraySpec]:
        return {
            "count": ArraySpec((1,), "int64", 0, TARGET_RANGE[1], "counter value"),
            "remaining": ArraySpec((1,), "int64", 0, TARGET_RANGE[1], "target minus count"),
            "phase": ArraySpec((1,), "float32", 0.0, 1.0, "seeded noise"),
        }

    def reset(self, seed: int) -> CounterState:
        streams = make_streams(seed, ("target", "phase"))
        target = int(streams["target"].integers(TARGET_RANGE[0], TARGET_RANGE[1] + 1))
        return CounterState(target=target, rng=streams["phase"])

    def validate(self, state: CounterState, action: Action) -> str | None:
        if isinstance(action, Hold):
            return None
        if isinstance(action, Increment):
            if not 1 <= action.amount <= MAX_INCREMENT:
                return f"amount must be between 1 and {MAX_INCREMENT}, got {action.amount}"
            if state.count + action.amount > state.target:
                return (f"increment by {action.amount} would overshoot: count {state.count}, "
                        f"target {state.target}")
            return None
        return f"unknown action {action!r}"

    def action_mask(self, state: CounterState) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        if state.done:
            return mask
        mask[0] = True
        for amount in range(1, MAX_INCREMENT + 1):
            mask[amount] = state.count + amount <= state.target
        return mask

    def encode(self, action: Action) -> int:
        if isinstance(action, Hold):
            return 0
        if isinstance(action, Increment) and 1 <= action.amount <= MAX_INCREMENT:
            return action.amount
        raise ValueError(f"{action!r} has no encoding")

    def decode(self, index: int) -> Action:
        if not 0 <= index < self.num_actions:
            raise ValueError(f"action index {index} out of range [0, {self.num_actions})")
        return Hold() if index == 0 else Increment(amount=index)

    def _apply(self, state: CounterState, action: Action) -> tuple[float, dict[str, Any]]:
        state.phase = float(state.rng.random())
        if isinstance(action, Increment):
            state.count += action.amount
            return float(action.amount), {"added": action.amount}
        return 0.0, {}

    def is_terminal(self, state: CounterState) -> bool:
        return state.count >= state.target

    def noop_action(self) -> Action:
        return Hold()

    def progress(self, state: CounterState) -> float:
        # No simulated clock: the step budget is the horizon.
        return 1.0 if self.is_terminal(state) else min(1.0, state.steps / self.max_steps)

    def invalid_penalty(self) -> float:
        return -1.0

    def observe(self, state: CounterState) -> dict[str, np.ndarray]:
        return {
            "count": np.array([state.count], dtype=np.int64),
            "remaining": np.array([state.target - state.count], dtype=np.int64),
            "phase": np.array([state.phase], dtype=np.float32),
        }

    def render_text(self, state: CounterState) -> str:
        return (f"Counter at {state.count}; target {state.target} "
                f"({state.target - state.count} to go) after {state.steps} steps.")

    def grade(self, state: CounterState) -> Grade:
        progress = state.count / state.target if state.target else 0.0
        speed = 1.0 - min(state.steps, self.max_steps) / self.max_steps
        score = 0.7 * progress + 0.3 * speed * (progress >= 1.0)
        return Grade(float(score), {"progress": float(progress), "speed": float(speed)},
                     {"steps": float(state.steps), "invalid": float(state.invalid_actions)})


COUNTER_SPEC = EnvSpec(
    name="counter",
    gym_id="lifeline/Counter-v0",
    entry_point="lifeline.testing.counter:CounterEnv",
    scenarios=("default", "same"),
    tags=("reference", "testing"),
    description="Trivial reference environment: count up to a seeded target.",
    agents=("noop", "random"),
)
"""Spec of the counter env (deliberately *not* registered in the built-in registry)."""
