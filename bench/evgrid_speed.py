"""evgrid speed benchmark (JSON): core steps/s next to a reference env in the same run, and
the cost of each piece of a step (``action_mask``, ``step``, ``observe``, a tick's ``advance``
with its score) in microseconds.

    python bench/evgrid_speed.py [--steps 20000] [--scenario baseline] [--reference dispatch]

Numbers from one run on one machine are comparable with each other; across machines or under
different load, compare ratios (``ratio_to_reference``). The original EV Grid Oracle did
2.4-2.9k steps/s on the issue author's machine (issue 12); no copy of it is here, so that figure
is quoted, not re-measured.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import time
from collections.abc import Callable

import numpy as np

import lifeline
from lifeline.bench.throughput import core_steps_per_s
from lifeline.envs.evgrid import dynamics, reward

ORIGINAL_STEPS_PER_S = (2400.0, 2900.0)
"""The original project's throughput as reported in issue 12 (not measured here)."""


def _per_call_us(fn: Callable[[], object], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return 1e6 * (time.perf_counter() - start) / n


def pieces(scenario: str, n: int = 2000) -> dict[str, float]:
    """Microseconds per call of the step's pieces on a mid-episode state (masked random play)."""
    env = lifeline.make("evgrid", scenario)
    state = env.reset(3)
    rng = np.random.default_rng(0)
    for _ in range(300):
        legal = np.flatnonzero(env.action_mask(state))
        env.step(state, int(legal[rng.integers(legal.size)]))
    legal = np.flatnonzero(env.action_mask(state))
    action = int(legal[0])
    copies = [copy.deepcopy(state) for _ in range(min(n, 300))]
    it = iter(copies)
    advance_us = _per_call_us(lambda: dynamics.advance(next(it), env.ctx), len(copies))
    copies = [copy.deepcopy(state) for _ in range(min(n, 300))]
    it = iter(copies)
    step_us = _per_call_us(lambda: env.step(next(it), action), len(copies))
    return {
        "action_mask_us": round(_per_call_us(lambda: env.action_mask(state), n), 2),
        "step_us": round(step_us, 2),
        "observe_us": round(_per_call_us(lambda: env.observe(state), n), 2),
        "score_us": round(_per_call_us(lambda: reward.score(state, env.ctx), n), 2),
        "grade_us": round(_per_call_us(lambda: env.grade(state), n), 2),
        "advance_tick_us": round(advance_us, 2),
    }


def run(steps: int, scenario: str, reference: str) -> dict[str, object]:
    ref_scenario = lifeline.spec(reference).scenarios[0]
    ev = core_steps_per_s("evgrid", scenario, steps)
    ref = core_steps_per_s(reference, ref_scenario, steps)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return {
        "benchmark": "evgrid_speed", "policy": "masked_random", "steps": steps,
        "python": platform.python_version(), "machine": platform.machine(),
        "load_average_1min": round(load, 2),
        "evgrid": {"scenario": scenario, "core_steps_per_s": round(ev)},
        "reference": {"env": reference, "scenario": ref_scenario,
                      "core_steps_per_s": round(ref)},
        "ratio_to_reference": round(ev / ref, 3),
        "times_original": [round(ev / ORIGINAL_STEPS_PER_S[1], 2),
                           round(ev / ORIGINAL_STEPS_PER_S[0], 2)],
        "pieces": pieces(scenario),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--scenario", default="baseline")
    parser.add_argument("--reference", default="dispatch")
    args = parser.parse_args()
    print(json.dumps(run(args.steps, args.scenario, args.reference), indent=1))


if __name__ == "__main__":
    main()
