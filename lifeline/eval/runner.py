"""Many episodes on this machine: one task's record (optionally recorded as a replay) and a
local pool of worker processes. Records come back in task order whatever the worker count.

:mod:`lifeline.eval.harness` (planning, summaries) and :mod:`lifeline.eval.ray_backend` (the same
tasks as Ray tasks) build on this module; it imports neither.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from lifeline.agents import Agent, make_agent
from lifeline.eval.episode import Task, run_episode
from lifeline.eval.replay import record_episode


@lru_cache(maxsize=32)
def cached_agent(name: str, env: str) -> Agent:
    """Agent ``name`` for ``env``, built once per process."""
    return make_agent(name, env)


def run_task(task: Task, record_dir: str | None = None) -> dict[str, Any]:
    """The record of ``task`` (its replay written under ``record_dir`` when given); agents are
    built once per process and reused (they are reset every episode)."""
    if record_dir is not None:  # opt-in replay recording (lifeline eval --record DIR)
        return record_episode(task, Path(record_dir), cached_agent(task.agent, task.env),
                              directory=True)
    return run_episode(task, cached_agent(task.agent, task.env))


def run_local(tasks: Sequence[Task], workers: int = 1,
              on_record: Callable[[dict[str, Any]], None] | None = None,
              record_dir: str | None = None) -> list[dict[str, Any]]:
    """Run ``tasks`` in this process (``workers == 1``) or a pool of ``workers`` processes;
    records in task order either way."""
    run_one = run_task if record_dir is None else partial(run_task, record_dir=record_dir)
    records: list[dict[str, Any]] = []
    if workers == 1:
        for task in tasks:
            records.append(run_one(task))
            if on_record:
                on_record(records[-1])
        return records
    with ProcessPoolExecutor(max_workers=workers) as pool:
        # Small chunks (an episode takes >= ~10 ms, far above the per-chunk overhead): records
        # arrive steadily, so progress is honest and Ctrl-C loses at most a few episodes.
        chunk = max(1, min(8, len(tasks) // (8 * workers)))
        for record in pool.map(run_one, tasks, chunksize=chunk):
            records.append(record)
            if on_record:
                on_record(record)
    return records
