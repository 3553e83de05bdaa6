"""The agent contracts an environment's baselines implement: :class:`Agent`, :class:`TextPolicy`.

They live in the core (not in ``lifeline.agents``) because every ``envs/<env>/baselines.py``
subclasses :class:`Agent` and every ``envs/<env>/text_agent.py`` subclasses :class:`TextPolicy`:
an environment depends on the core only, never on the layer that runs its agents.

An agent chooses an action for a core ``state`` of a core ``Environment``. Agents that play on a
*modified* environment (the upper bounds, which relax capacity) override :meth:`Agent.prepare`;
the harness scores them with the same grader on the same seeds.
Well-behaved agents only read ``env.observe(state)`` / ``env.action_mask(state)`` — the state
is passed so that upper bounds may be clairvoyant, which they say in their docstring.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

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


class TextPolicy(ABC):
    """Text in, tool-call text out (the env's reference heuristic reading only the text face).

    Built once per episode from what an LLM's system prompt holds (the env name and scenario);
    sees nothing else of the episode but the strings. Each env names its own subclass in its
    ``baselines.TEXT_POLICY`` (``"module:Class"``); :mod:`lifeline.agents.text_heuristic` plays it.
    """

    def __init__(self, env_name: str, scenario: str) -> None:
        self.env_name, self.scenario = env_name, scenario

    @abstractmethod
    def reply(self, observation: str) -> str:
        """The answer to one observation: a tool call written as text."""
