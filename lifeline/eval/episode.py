"""One episode: a :class:`Task` and :func:`run_episode`, the bottom of the evaluation layer.

Everything that plays episodes builds on this module and nothing here imports the rest of
``lifeline.eval``: episode <- replay (records one) <- runner (runs many) <- harness / Ray backend.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lifeline.agents import Agent, make_agent
from lifeline.core.env import TimeStep
from lifeline.core.registry import make


@dataclass(frozen=True)
class Task:
    """One episode to run."""

    env: str
    scenario: str
    agent: str
    seed: int
    trial: int = 0
    """Attempt number on this seed (``--trials k`` plays each seed k times: 0 .. k-1)."""


def run_episode(task: Task, agent: Agent | None = None,
                on_step: Callable[[Any, Any], None] | None = None,
                on_transition: Callable[[Any, Any, Any, TimeStep], None] | None = None,
                ) -> dict[str, Any]:
    """Play one episode and return its record (``on_step(env, state)`` sees every state;
    ``on_transition(env, state, action, timestep)`` every step, e.g. to record a replay)."""
    base = make(task.env, task.scenario)
    agent = agent if agent is not None else make_agent(task.agent, task.env)
    env = agent.prepare(base)
    state = env.reset(task.seed)
    agent.reset(env, task.seed)
    agent.set_trial(task.trial)
    total = 0.0
    if on_step is not None:
        on_step(env, state)
    while not state.done:
        action = agent.act(env, state)
        ts = env.step(state, action)
        total += ts.reward
        if on_transition is not None:
            on_transition(env, state, action, ts)
        if on_step is not None:
            on_step(env, state)
    grade = env.grade(state)
    record = {
        "env": task.env, "scenario": task.scenario, "agent": task.agent, "seed": task.seed,
        "score": grade.score, "components": dict(grade.components),
        "metrics": {**grade.metrics, **agent.episode_metrics()}, "steps": state.steps,
        "return": total, "invalid": state.invalid_actions,
    }
    if task.trial:
        record["trial"] = task.trial
    return record
