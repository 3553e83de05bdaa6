"""Throughput of the dispatch core under the masked-random policy; prints JSON.

Counts core steps per second where one step is ``action_mask`` + ``step`` (the policy's own
sampling and episode resets are excluded from the step timing; reset time is reported apart).

    PYTHONPATH=. python bench/dispatch_throughput.py [--steps N]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from lifeline.envs.dispatch.env import DispatchEnv


def measure(scenario: str, steps: int, seed: int = 0) -> dict[str, float]:
    """Masked-random steps/s and mean reset milliseconds for one scenario."""
    env = DispatchEnv(scenario)
    rng = np.random.default_rng(seed)
    t_step = 0.0
    t_reset = 0.0
    resets = 0
    done_steps = 0
    ep = seed
    while done_steps < steps:
        t0 = time.perf_counter()
        state = env.reset(ep)
        t_reset += time.perf_counter() - t0
        resets += 1
        ep += 1
        while not state.done and done_steps < steps:
            t0 = time.perf_counter()
            mask = env.action_mask(state)
            t1 = time.perf_counter()
            legal = np.flatnonzero(mask)
            action = int(legal[rng.integers(legal.size)])
            t2 = time.perf_counter()
            env.step(state, action)
            t_step += (t1 - t0) + (time.perf_counter() - t2)
            done_steps += 1
    return {"env": "dispatch", "scenario": scenario, "steps": done_steps,
            "core_steps_per_s": round(done_steps / t_step, 1),
            "reset_ms": round(1000 * t_reset / resets, 3), "episodes_started": resets}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--scenarios", default="expert,metro_expert")
    args = ap.parse_args()
    out = [measure(s, args.steps) for s in args.scenarios.split(",")]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
