"""The agent contract and the two environment-agnostic baselines (``noop`` and masked ``random``).

An agent chooses an action for a core ``state`` of a core ``Environment``. Agents that play on a
*modified* environment (the upper bounds, which relax capacity) override :meth:`Agent.prepare`;
the harness scores them with the same grader on the same seeds.
Well-behaved agents only read ``env.observe(state)`` / ``env.action_mask(state)`` — the state
is passed so that upper bounds may be clairvoyant, which they say in their docstring.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from lifeline.core.env import Action, Environment


class Agent(ABC):
    """A policy. ``reset`` is called at the start of every episode with the episode seed."""

    name: str = "agent"

    def prepare(self, env: Environment) -> Environment:
        """The environment this agent plays on (default: ``env`` itself)."""
        return env

    def reset(self, env: Environment, seed: int) -> None:  # noqa: B027 - optional hook
        """Start of an episode; stochastic agents seed themselves from ``seed`` here."""

    @abstractmethod
    def act(self, env: Environment, state: Any) -> Action | int:
        """The action to take in ``state`` (semantic or encoded)."""

    def set_trial(self, trial: int) -> None:  # noqa: B027 - optional hook
        """Called after :meth:`reset` when a seed is played several times (``--trials``):
        stochastic agents draw a different stream per trial (trial 0 = the plain seed)."""

    def episode_metrics(self) -> dict[str, float]:
        """Agent-side metrics of the episode just played (merged into the record's metrics)."""
        return {}


class NoopAgent(Agent):
    """Always does nothing (``wait``/``hold``): the floor of every ladder."""

    name = "noop"

    def act(self, env: Environment, state: Any) -> Action | int:
        return env.noop_action()


class RandomAgent(Agent):
    """Uniform over the *legal* actions (masked random), seeded from the episode seed."""

    name = "random"

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)
        self._seed = 0

    def reset(self, env: Environment, seed: int) -> None:
        # A stream of its own, disjoint from the environment's streams for the same seed.
        self._rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5EED]))
        self._seed = seed

    def set_trial(self, trial: int) -> None:
        if trial:
            self._rng = np.random.default_rng(np.random.SeedSequence([self._seed, 0x5EED, trial]))

    def act(self, env: Environment, state: Any) -> Action | int:
        legal = np.flatnonzero(env.action_mask(state))
        if legal.size == 0:
            return env.noop_action()
        return int(legal[self._rng.integers(legal.size)])


class InvalidSpamAgent(Agent):
    """Sends only invalid or malformed actions (an exploit probe: it must never beat ``noop``).

    Cycles through a masked-out index (when one exists), an out-of-range index and a value that is
    not an action at all, so every path that rejects an action is exercised.
    """

    name = "invalid_spam"

    def __init__(self) -> None:
        self._turn = 0

    def reset(self, env: Environment, seed: int) -> None:
        self._turn = 0

    def act(self, env: Environment, state: Any) -> Action | int:
        self._turn += 1
        kind = self._turn % 3
        if kind == 0:
            illegal = np.flatnonzero(~env.action_mask(state))
            if illegal.size:
                return int(illegal[self._turn % illegal.size])
        if kind == 1:
            return env.num_actions + self._turn % 7
        return -1


class AlwaysSameAgent(Agent):
    """Always sends encoded action ``index``, legal or not (the 'always-the-same-action' probe)."""

    name = "same"

    def __init__(self, index: int) -> None:
        self.index = index
        self.name = f"same:{index}"

    def act(self, env: Environment, state: Any) -> Action | int:
        return self.index
