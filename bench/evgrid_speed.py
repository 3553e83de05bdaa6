"""evgrid speed benchmark (JSON): core steps/s next to a reference env in the same run, and
the cost of each piece of a step (``action_mask``, ``step``, ``observe``, a tick's ``advance``
with its score) in microseconds.

    python bench/evgrid_speed.py [--steps 20000] [--scenario baseline] [--reference dispatch]
                                 [--against /path/to/other/checkout] [--rounds 3]

``--against`` also measures the evgrid of another checkout (e.g. the v0 code on ``main``) in
subprocesses interleaved with this tree's, so the two are compared under the same load.

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
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

import lifeline
from lifeline.envs.evgrid import dynamics, reward
from lifeline.eval.throughput import core_steps_per_s

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


def _subprocess_steps(tree: str, env: str, scenario: str, steps: int) -> float:
    code = ("import sys; from lifeline.eval.throughput import core_steps_per_s; "
            f"print(core_steps_per_s({env!r}, {scenario!r}, {steps}))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": tree},
                         capture_output=True, text=True, check=True, cwd=tree)
    return float(out.stdout.strip().splitlines()[-1])


def side_by_side(against: str, scenario: str, steps: int, rounds: int) -> dict[str, object]:
    """Median core steps/s of this tree's evgrid and ``against``'s, measured alternately."""
    here = str(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ours, theirs = [], []
    for _ in range(rounds):
        theirs.append(_subprocess_steps(against, "evgrid", scenario, steps))
        ours.append(_subprocess_steps(here, "evgrid", scenario, steps))
    mo, mt = float(np.median(ours)), float(np.median(theirs))
    return {"against": against, "rounds": rounds, "this_tree": round(mo),
            "against_tree": round(mt), "speedup": round(mo / mt, 2)}


def run(steps: int, scenario: str, reference: str, against: str | None = None,
        rounds: int = 3) -> dict[str, object]:
    ref_scenario = lifeline.spec(reference).scenarios[0]
    ev = core_steps_per_s("evgrid", scenario, steps)
    ref = core_steps_per_s(reference, ref_scenario, steps)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    extra = {"side_by_side": side_by_side(against, scenario, steps, rounds)} if against else {}
    return {**extra,
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
    parser.add_argument("--against", help="another checkout whose evgrid to time alongside")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(run(args.steps, args.scenario, args.reference, args.against, args.rounds),
                     indent=1))


if __name__ == "__main__":
    main()
