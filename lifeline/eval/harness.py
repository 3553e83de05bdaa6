"""Run agents on environments over seeds and collect plain records (no printing).

Every agent on the same (env, scenario, seed) faces the same realised stream (common random
numbers), so differences between agents are paired. Parallel evaluation (``workers > 1``, one
process per worker) returns records identical to serial evaluation, in the same order.
"""

from __future__ import annotations

import datetime as _dt
import platform
import subprocess
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lifeline.agents import Agent, make_agent
from lifeline.core.registry import make, resolve_scenario, spec
from lifeline.core.rng import check_seed
from lifeline.eval.seeds import EVAL_SEED_BASE
from lifeline.eval.stats import summarise


@dataclass(frozen=True)
class Task:
    """One episode to run."""

    env: str
    scenario: str
    agent: str
    seed: int


def run_episode(task: Task, agent: Agent | None = None,
                on_step: Callable[[Any, Any], None] | None = None) -> dict[str, Any]:
    """Play one episode and return its record (``on_step(env, state)`` sees every state)."""
    base = make(task.env, task.scenario)
    agent = agent if agent is not None else make_agent(task.agent, task.env)
    env = agent.prepare(base)
    state = env.reset(task.seed)
    agent.reset(env, task.seed)
    total = 0.0
    if on_step is not None:
        on_step(env, state)
    while not state.done:
        ts = env.step(state, agent.act(env, state))
        total += ts.reward
        if on_step is not None:
            on_step(env, state)
    grade = env.grade(state)
    return {
        "env": task.env, "scenario": task.scenario, "agent": task.agent, "seed": task.seed,
        "score": grade.score, "components": dict(grade.components),
        "metrics": dict(grade.metrics), "steps": state.steps, "return": total,
        "invalid": state.invalid_actions,
    }


@lru_cache(maxsize=32)
def _cached_agent(name: str, env: str) -> Agent:
    return make_agent(name, env)


def _run_task(task: Task) -> dict[str, Any]:
    return run_episode(task, _cached_agent(task.agent, task.env))


def plan(env: str, agents: Sequence[str], scenarios: Sequence[str] | None,
         seeds: Sequence[int]) -> list[Task]:
    """Validated task list: every agent × scenario × seed (``None`` scenarios = all)."""
    env_spec = spec(env)
    names = list(scenarios) if scenarios else list(env_spec.scenarios)
    names = [resolve_scenario(env_spec, s) for s in names]
    for a in agents:
        make_agent(a, env_spec.name)  # fail fast with a clear message
    seeds = [check_seed(s) for s in seeds]
    return [Task(env_spec.name, s, a, seed) for s in names for a in agents for seed in seeds]


def run_tasks(tasks: Sequence[Task], workers: int = 1,
              on_record: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run ``tasks``; records come back in task order whatever ``workers`` is."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    records: list[dict[str, Any]] = []
    if workers == 1:
        for task in tasks:
            records.append(_run_task(task))
            if on_record:
                on_record(records[-1])
        return records
    with ProcessPoolExecutor(max_workers=workers) as pool:
        # Small chunks (an episode takes >= ~10 ms, far above the per-chunk overhead): records
        # arrive steadily, so progress is honest and Ctrl-C loses at most a few episodes.
        chunk = max(1, min(8, len(tasks) // (8 * workers)))
        for record in pool.map(_run_task, tasks, chunksize=chunk):
            records.append(record)
            if on_record:
                on_record(record)
    return records


def git_commit() -> str | None:
    """The current git commit of the source tree, if it is a git checkout."""
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=5, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def meta(envs: Sequence[str], wall_s: float | None = None) -> dict[str, Any]:
    """Provenance for a results file."""
    from lifeline import __version__

    return {
        "package_version": __version__,
        "env_versions": {e: make(e).version for e in envs},
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "wall_s": wall_s,
    }


def evaluate(env: str, agents: Sequence[str], scenarios: Sequence[str] | None = None,
             episodes: int = 30, seed_start: int = EVAL_SEED_BASE, workers: int = 1,
             on_record: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Evaluate ``agents`` on paired seeds ``seed_start .. seed_start+episodes-1``.

    The default start is the held-out evaluation set (:mod:`lifeline.eval.seeds`); the summary
    has bootstrap 95% CIs (:func:`lifeline.eval.stats.summarise`).
    """
    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    seeds = range(check_seed(seed_start), seed_start + episodes)
    tasks = plan(env, agents, scenarios, seeds)
    start = time.perf_counter()
    records = run_tasks(tasks, workers=workers, on_record=on_record)
    return {"records": records, "summary": summarise(records),
            "meta": meta([tasks[0].env], time.perf_counter() - start)}
