"""Dispatch step + observe throughput, before/after the issue-15 speed work (JSON-ready dicts).

One loop, the one an agent runs: ``action_mask`` → masked-random choice → ``step`` →
``observe``, with auto-reset (a fresh seed) when an episode ends, as ``lifeline bench`` does.
Variants measured side by side in one process, interleaved over rounds (medians reported):

* ``after``: the current ``observe`` / ``action_mask``;
* ``v1_observe``: the same loop with the pre-optimisation ``observe`` and ``action_mask`` kept in
  ``tests/oracles/dispatch_reference.py`` (isolates what those two functions gained);
* ``baseline_tree`` (optional): the identical loop run in a subprocess on another source tree
  (e.g. a checkout of the commit before the speed work), for the whole before/after.

Each rate is reported with resets included (what ``lifeline bench`` reports) and excluded (the
per-step cost alone; a dispatch reset solves the grader's reference-plan MILP), in wall-clock
time and in process CPU time (``time.process_time``: less sensitive to other jobs on a shared
machine). Every variant is warmed up first (one reset, mask and observe: numba loads its cached
kernels on the first call), and the machine's load average is recorded at start and end.

``python bench/dispatch_speed.py`` prints this section alone (issue 15's ≥ 2× target).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

# The repository root, for ``tests.oracles`` (the v1 reference kept as a test oracle) and ``bench``.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LOOP_SOURCE = '''
import time
import numpy as np
import lifeline


def measure(env_id, scenario, steps, observe=None, mask=None):
    """Steps/s of mask + masked-random + step + observe: (wall with resets, wall without
    resets, CPU time with resets, CPU time without resets)."""
    env = lifeline.make(env_id, scenario)
    observe = observe or env.observe
    mask = mask or env.action_mask
    rng = np.random.default_rng(0)
    seed = 0
    state = env.reset(seed)
    observe(state)  # warm-up: compiled kernels are loaded on their first call
    mask(state)
    reset_s = reset_cpu = 0.0
    start, start_cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        if state.done:
            seed += 1
            r0, c0 = time.perf_counter(), time.process_time()
            state = env.reset(seed)
            reset_s += time.perf_counter() - r0
            reset_cpu += time.process_time() - c0
        legal = np.flatnonzero(mask(state))
        env.step(state, int(legal[rng.integers(legal.size)]))
        observe(state)
    wall = time.perf_counter() - start
    cpu = time.process_time() - start_cpu
    return steps / wall, steps / (wall - reset_s), steps / cpu, steps / (cpu - reset_cpu)
'''

_NS: dict[str, Any] = {}
exec(compile(LOOP_SOURCE, "<dispatch_speed loop>", "exec"), _NS)  # the same code in both places


def _env_id(scenario: str) -> str:
    return "dispatch_metro" if scenario.startswith("metro_") else "dispatch"


def _in_tree(tree: str, scenario: str, steps: int) -> tuple[float, ...]:
    code = LOOP_SOURCE + (f"\nimport json\nprint(json.dumps(measure({_env_id(scenario)!r}, "
                          f"{scenario!r}, {steps})))\n")
    env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True, timeout=600)
    return tuple(float(x) for x in json.loads(out.stdout.strip().splitlines()[-1]))


def run(scenarios: tuple[str, ...] = ("expert", "metro_expert"), steps: int = 20_000,
        rounds: int = 5, baseline_tree: str | None = None) -> dict[str, Any]:
    """Medians over ``rounds`` interleaved rounds for each scenario (see the module docstring)."""
    import lifeline
    from lifeline.envs.dispatch import observation
    from tests.oracles.dispatch_reference import action_mask_v1, observe_v1

    load_start = list(os.getloadavg())
    rows = []
    for scenario in scenarios:
        env_id = _env_id(scenario)
        core = lifeline.make(env_id, scenario)
        v1_observe = partial(observe_v1, ctx=core.ctx)  # type: ignore[attr-defined]
        v1_mask = partial(action_mask_v1, ctx=core.ctx, lay=core.layout)  # type: ignore[attr-defined]
        samples: dict[str, list[tuple[float, ...]]] = {"after": [], "v1_observe": []}
        if baseline_tree:
            samples["baseline_tree"] = []
        for _ in range(rounds):
            samples["after"].append(_NS["measure"](env_id, scenario, steps))
            samples["v1_observe"].append(_NS["measure"](
                env_id, scenario, steps, observe=v1_observe, mask=v1_mask))
            if baseline_tree:
                samples["baseline_tree"].append(_in_tree(baseline_tree, scenario, steps))
        row: dict[str, Any] = {"env": env_id, "scenario": scenario, "steps": steps,
                               "rounds": rounds}
        suffixes = ("", "_no_reset", "_cpu", "_cpu_no_reset")
        for name, vals in samples.items():
            for i, suffix in enumerate(suffixes):
                row[f"{name}_steps_per_s{suffix}"] = round(statistics.median(v[i] for v in vals))
        for ref in ("v1_observe", "baseline_tree"):
            if ref in samples:
                for suffix in suffixes:
                    row[f"speedup_vs_{ref}{suffix}"] = round(
                        row[f"after_steps_per_s{suffix}"] / row[f"{ref}_steps_per_s{suffix}"], 2)
        rows.append(row)
    try:
        import numba
        numba_version: str | None = numba.__version__
    except ImportError:
        numba_version = None
    return {"benchmark": "dispatch_step_observe", "policy": "masked_random",
            "loop": "action_mask + masked-random choice + step + observe, auto-reset",
            "after_path": "numba kernels" if observation._kernels is not None else "numpy",
            "numba": numba_version, "baseline_tree": baseline_tree,
            "load_avg_start": load_start, "load_avg_end": list(os.getloadavg()),
            "results": rows}


def observe_micro(scenario: str = "expert", reps: int = 30, n_states: int = 40) -> dict[str, Any]:
    """Per-call microseconds of ``observe`` and ``action_mask``, new vs v1, on the same states.

    ``n_states`` states are sampled along masked-random episodes (30% holds, so the clock and
    the queues move); each function is called ``reps`` times in a row on each state (a hot
    state, as in an agent's loop) and the per-state minimum is kept; the median over states is
    reported, with the ratio v1 / new.
    """
    import numpy as np

    import lifeline
    from tests.oracles.dispatch_reference import action_mask_v1, observe_v1

    env = lifeline.make(_env_id(scenario), scenario)
    ctx, lay = env.ctx, env.layout  # type: ignore[attr-defined]
    rng = np.random.default_rng(1)
    states: list[Any] = []
    seed = 0
    while len(states) < n_states:
        s = env.reset(seed)
        seed += 1
        while not s.done and len(states) < n_states:
            legal = np.flatnonzero(env.action_mask(s))
            env.step(s, lay.hold if rng.random() < 0.3 else int(legal[rng.integers(legal.size)]))
            if s.steps % 37 == 0:
                states.append(pickle_copy(s))
    fns: dict[str, Callable[[Any], Any]] = {
        "observe_us": env.observe, "observe_v1_us": partial(observe_v1, ctx=ctx),
        "mask_us": env.action_mask, "mask_v1_us": partial(action_mask_v1, ctx=ctx, lay=lay)}
    per_state: dict[str, list[float]] = {k: [] for k in fns}
    for s in states:
        for k, f in fns.items():
            best = float("inf")
            for _ in range(3):
                t0 = time.perf_counter()
                for _ in range(reps):
                    f(s)
                best = min(best, (time.perf_counter() - t0) / reps * 1e6)
            per_state[k].append(best)
    out: dict[str, Any] = {"scenario": scenario, "states": len(states), "reps": reps}
    out.update({k: round(statistics.median(v), 2) for k, v in per_state.items()})
    out["observe_speedup"] = round(out["observe_v1_us"] / out["observe_us"], 2)
    out["mask_speedup"] = round(out["mask_v1_us"] / out["mask_us"], 2)
    return out


def pickle_copy(obj: Any) -> Any:
    import pickle

    return pickle.loads(pickle.dumps(obj, 4))


def main() -> None:
    """``python bench/dispatch_speed.py [--quick] [--steps N] [--rounds R]``: one JSON document."""
    import argparse

    parser = argparse.ArgumentParser(description="dispatch step + observe vs the v1 path (JSON)")
    parser.add_argument("--quick", action="store_true", help="3,000 steps, 1 round (smoke run)")
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline-tree", metavar="PATH",
                        help="Also run the loop on this source tree (subprocess).")
    args = parser.parse_args()
    steps, rounds = (3000, 1) if args.quick else (args.steps, args.rounds)
    out = run(("expert", "metro_expert"), steps, rounds, args.baseline_tree)
    out["micro"] = [observe_micro(s, reps=8 if args.quick else 30)
                    for s in ("expert", "metro_expert")]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
