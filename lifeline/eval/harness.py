"""Run agents on environments over seeds and collect plain records (no printing).

Every agent on the same (env, scenario, seed) faces the same realised stream (common random
numbers), so differences between agents are paired. Parallel evaluation (``workers > 1``, one
process per worker) returns records identical to serial evaluation, in the same order.
"""

from __future__ import annotations

import datetime as _dt
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lifeline.agents import make_agent
from lifeline.core.provenance import git_commit
from lifeline.core.registry import make, resolve_scenario, spec
from lifeline.core.rng import check_seed
from lifeline.eval.episode import Task
from lifeline.eval.runner import run_local
from lifeline.eval.seeds import EVAL_SEED_BASE
from lifeline.eval.stats import pass_hat_k, summarise

BACKENDS = ("process", "ray")
"""Where episodes run: local worker processes (``workers``), or Ray tasks (``dist`` extra)."""


def plan(env: str, agents: Sequence[str], scenarios: Sequence[str] | None,
         seeds: Sequence[int], trials: int = 1) -> list[Task]:
    """Validated task list: every agent × scenario × seed × trial (``None`` scenarios = all)."""
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    env_spec = spec(env)
    names = list(scenarios) if scenarios else list(env_spec.scenarios)
    names = [resolve_scenario(env_spec, s) for s in names]
    for a in agents:
        make_agent(a, env_spec.name)  # fail fast with a clear message
    seeds = [check_seed(s) for s in seeds]
    return [Task(env_spec.name, s, a, seed, t) for s in names for a in agents for seed in seeds
            for t in range(trials)]


def run_tasks(tasks: Sequence[Task], workers: int = 1,
              on_record: Callable[[dict[str, Any]], None] | None = None,
              record_dir: str | None = None, backend: str = "process",
              address: str | None = None) -> list[dict[str, Any]]:
    """Run ``tasks``; records come back in task order whatever ``workers`` is.

    ``record_dir`` writes every episode's replay there (:mod:`lifeline.eval.replay`).
    ``backend="ray"`` fans the episodes out as Ray tasks instead of local processes
    (:mod:`lifeline.eval.ray_backend`; ``address`` names a running cluster, default: a private
    local one); ``workers`` is then ignored."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of: {', '.join(BACKENDS)}")
    if record_dir is not None:
        Path(record_dir).mkdir(parents=True, exist_ok=True)
    if backend == "ray":
        from lifeline.eval.ray_backend import run_tasks_ray

        return run_tasks_ray(tasks, address=address, on_record=on_record, record_dir=record_dir)
    return run_local(tasks, workers=workers, on_record=on_record, record_dir=record_dir)


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
             on_record: Callable[[dict[str, Any]], None] | None = None, trials: int = 1,
             pass_threshold: float | None = None,
             record_dir: str | None = None, backend: str = "process",
             address: str | None = None) -> dict[str, Any]:
    """Evaluate ``agents`` on paired seeds ``seed_start .. seed_start+episodes-1``.

    The default start is the held-out evaluation set (:mod:`lifeline.eval.seeds`); the summary
    has bootstrap 95% CIs (:func:`lifeline.eval.stats.summarise`). With ``trials > 1`` every
    seed is played ``trials`` times and the result gains ``pass_k``
    (:func:`lifeline.eval.stats.pass_hat_k` at ``pass_threshold``, default: the env's
    ``PASS_THRESHOLD`` from its baselines module).
    """
    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    seeds = range(check_seed(seed_start), seed_start + episodes)
    tasks = plan(env, agents, scenarios, seeds, trials)
    threshold = resolve_pass_threshold(env, trials, pass_threshold)
    start = time.perf_counter()
    records = run_tasks(tasks, workers=workers, on_record=on_record, record_dir=record_dir,
                        backend=backend, address=address)
    result = {"records": records, "summary": summarise(records),
              "meta": meta([tasks[0].env], time.perf_counter() - start)}
    if trials > 1:
        result["pass_k"] = pass_hat_k(records, threshold)
    return result


def resolve_pass_threshold(env: str, trials: int, given: float | None) -> float:
    """The pass^k threshold of an evaluation: ``given``, else (with ``trials > 1``) the env's
    ``PASS_THRESHOLD``. Called before any episode runs, so a missing one fails before the work."""
    if given is not None:
        return given
    return env_pass_threshold(env) if trials > 1 else 0.0


def env_pass_threshold(env: str) -> float:
    """The score an episode must reach to 'pass' (pass^k): the env's ``PASS_THRESHOLD``."""
    value = spec(env).baselines_value("PASS_THRESHOLD")
    if value is None:
        raise ValueError(f"{env} defines no PASS_THRESHOLD; pass one explicitly")
    return float(value)
