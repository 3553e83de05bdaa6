"""Throughput benchmark: prints JSON.

For each registered environment (and scenario, with ``--all-scenarios``): core steps/s under the
masked-random policy (each step = ``action_mask`` + sampling + ``step``), the same through the
Gymnasium face, and mean ``reset`` time. Numbers from one run on one machine are comparable with
each other; across machines, compare ratios.

    python bench/throughput.py [--steps 20000] [--env ed] [--all-scenarios]
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np

import lifeline
from lifeline.adapters.gymnasium import LifelineGymEnv


def core_steps_per_s(env_name: str, scenario: str, steps: int) -> float:
    env = lifeline.make(env_name, scenario)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--env", action="append", help="Only these envs (repeatable).")
    parser.add_argument("--all-scenarios", action="store_true")
    args = parser.parse_args()
    rows = []
    for spec in lifeline.all_specs():
        if args.env and spec.name not in args.env:
            continue
        for scenario in spec.scenarios if args.all_scenarios else spec.scenarios[:1]:
            rows.append({
                "env": spec.name, "scenario": scenario,
                "core_steps_per_s": round(core_steps_per_s(spec.name, scenario, args.steps)),
                "gym_steps_per_s": round(gym_steps_per_s(spec.name, scenario, args.steps // 2)),
                "reset_ms": round(reset_ms(spec.name, scenario), 3),
            })
    print(json.dumps({"benchmark": "throughput", "policy": "masked_random",
                      "python": platform.python_version(), "machine": platform.machine(),
                      "results": rows}, indent=1))


if __name__ == "__main__":
    main()
