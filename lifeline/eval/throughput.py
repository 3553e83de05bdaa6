"""Throughput benchmark: prints JSON.

For each registered environment (and scenario, with ``--all-scenarios``): core steps/s under the
masked-random policy (each step = ``action_mask`` + sampling + ``step``), the same through the
Gymnasium face, and mean ``reset`` time. Numbers from one run on one machine are comparable with
each other; across machines, compare ratios.

    lifeline bench [--steps 20000] [--env ed] [--all-scenarios]
    python -m lifeline.eval.throughput [same options]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable

import numpy as np

import lifeline
from lifeline.faces.gymnasium import LifelineGymEnv


def _warm_up(env_name: str, scenario: str) -> None:
    """A few steps outside the clock: compiled kernels (numba, ``cache=True``) load on first use."""
    env = lifeline.make(env_name, scenario)
    state = env.reset(0)
    for _ in range(5):
        if state.done:
            break
        env.step(state, int(np.flatnonzero(env.action_mask(state))[0]))
        env.observe(state)


def core_steps_per_s(env_name: str, scenario: str, steps: int) -> float:
    env = lifeline.make(env_name, scenario)
    _warm_up(env_name, scenario)
    rng = np.random.default_rng(0)
    seed = 0
    state = env.reset(seed)
    start = time.perf_counter()
    for _ in range(steps):
        if state.done:
            seed += 1
            state = env.reset(seed)
        legal = np.flatnonzero(env.action_mask(state))
        env.step(state, int(legal[rng.integers(legal.size)]))
    return steps / (time.perf_counter() - start)


def gym_steps_per_s(env_name: str, scenario: str, steps: int) -> float:
    _warm_up(env_name, scenario)
    env = LifelineGymEnv(env_name, scenario)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        legal = np.flatnonzero(obs["action_mask"])
        obs, _, terminated, truncated, _ = env.step(int(legal[rng.integers(legal.size)]))
        if terminated or truncated:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def reset_ms(env_name: str, scenario: str, count: int = 50) -> float:
    env = lifeline.make(env_name, scenario)
    start = time.perf_counter()
    for seed in range(count):
        env.reset(seed)
    return 1000.0 * (time.perf_counter() - start) / count


def plan(envs: list[str] | None = None, all_scenarios: bool = False) -> list[tuple[str, str]]:
    """The ``(env, scenario)`` pairs :func:`run` measures, in order (validates env names)."""
    specs = [lifeline.spec(e) for e in envs] if envs else lifeline.all_specs()
    return [(spec.name, scenario) for spec in specs
            for scenario in (spec.scenarios if all_scenarios else spec.scenarios[:1])]


def run(steps: int = 20_000, envs: list[str] | None = None,
        all_scenarios: bool = False,
        on_done: Callable[[str, str], None] | None = None) -> dict[str, object]:
    """Measure every selected env (first scenario, or all); return the JSON-ready result.

    ``on_done(env, scenario)`` is called after each measurement (the CLI's progress bar).
    """
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    rows = []
    for env_name, scenario in plan(envs, all_scenarios):
        rows.append({
            "env": env_name, "scenario": scenario,
            "core_steps_per_s": round(core_steps_per_s(env_name, scenario, steps)),
            "gym_steps_per_s": round(gym_steps_per_s(env_name, scenario, max(1, steps // 2))),
            "reset_ms": round(reset_ms(env_name, scenario), 3),
        })
        if on_done is not None:
            on_done(env_name, scenario)
    return {"benchmark": "throughput", "policy": "masked_random",
            "python": platform.python_version(), "machine": platform.machine(), "results": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--env", action="append", help="Only these envs (repeatable).")
    parser.add_argument("--all-scenarios", action="store_true")
    args = parser.parse_args()
    print(json.dumps(run(args.steps, args.env, args.all_scenarios), indent=1))


if __name__ == "__main__":
    main()
