"""The environment-agnostic baselines (``noop``, masked ``random``, ``invalid_spam``, ``same:K``).

The contract they implement, :class:`lifeline.core.agent.Agent`, lives in the core (every env's
``baselines.py`` subclasses it); it is re-exported here for the agents of this package.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lifeline.core.agent import Agent
from lifeline.core.env import Action, Environment

__all__ = ["Agent", "AlwaysSameAgent", "InvalidSpamAgent", "NoopAgent", "RandomAgent"]


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
