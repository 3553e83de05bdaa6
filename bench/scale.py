"""Scale benchmark (issue 15, dispatch and Ray parts): prints one JSON document.

    python bench/scale.py [--quick] [--baseline-tree PATH] [--no-ray]

Sections, each measured side by side in this one run (compare ratios across machines):

* ``dispatch_step_observe``: mask + masked-random choice + step + observe, current code vs the
  v1 ``observe``/``action_mask`` (``tests/oracles/dispatch_reference.py``), optionally vs the
  same loop on another source tree (``--baseline-tree``, e.g. a checkout of the commit before the
  speed work); plus per-call microseconds of ``observe`` and ``action_mask`` on the same states;
* ``dispatch_vector``: aggregate env-steps/s of ``dispatch`` through a plain Python loop over N
  core envs, Gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv`` (one process per copy) — the
  process-level alternative to a batch kernel for event-driven envs (``docs/scale.md``);
* ``ray_eval``: wall seconds of ``lifeline eval`` work (episodes of a scripted agent) serial
  (``--workers 1``) vs ``--backend ray`` on a local 2-CPU Ray instance, with and without the
  instance's start-up, and a check that the records are identical.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

# The repository root, so ``bench.dispatch_speed`` imports however this script is started.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def vector_rates(scenario: str = "expert", num_envs: int = 4, steps: int = 4000,
                 rounds: int = 3) -> dict[str, Any]:
    """Aggregate env-steps/s of masked-random play: Python loop, SyncVectorEnv, AsyncVectorEnv.

    All three run ``num_envs`` copies for ``steps`` vector steps each round (medians reported;
    vector-env construction and process start-up are excluded, resets inside are included).
    """
    import statistics

    import gymnasium as gym

    import lifeline
    from lifeline.faces.gymnasium import make_vector_env

    env_id = "dispatch_metro" if scenario.startswith("metro_") else "dispatch"
    total = num_envs * steps

    def python_loop() -> float:
        envs = [lifeline.make(env_id, scenario) for _ in range(num_envs)]
        states = [e.reset(i) for i, e in enumerate(envs)]
        rng = np.random.default_rng(0)
        seed = num_envs
        start = time.perf_counter()
        for _ in range(steps):
            for i, env in enumerate(envs):
                s = states[i]
                if s.done:
                    states[i] = s = env.reset(seed)
                    seed += 1
                legal = np.flatnonzero(env.action_mask(s))
                env.step(s, int(legal[rng.integers(legal.size)]))
                env.observe(s)
        return total / (time.perf_counter() - start)

    def vector(asynchronous: bool) -> float:
        venv = make_vector_env(num_envs, env_id, scenario, asynchronous=asynchronous)
        try:
            obs, _ = venv.reset(seed=0)
            rng = np.random.default_rng(0)
            start = time.perf_counter()
            for _ in range(steps):
                mask = obs["action_mask"].astype(bool)
                logits = np.where(mask, rng.random(mask.shape), -1.0)
                obs, *_ = venv.step(logits.argmax(axis=1))
            return total / (time.perf_counter() - start)
        finally:
            venv.close()

    samples: dict[str, list[float]] = {"python_loop": [], "sync_vector_env": [],
                                       "async_vector_env": []}
    for _ in range(rounds):
        samples["python_loop"].append(python_loop())
        samples["sync_vector_env"].append(vector(False))
        samples["async_vector_env"].append(vector(True))
    out: dict[str, Any] = {"scenario": scenario, "num_envs": num_envs, "vector_steps": steps,
                           "rounds": rounds, "cpus": os.cpu_count(),
                           "gymnasium": gym.__version__}
    for k, v in samples.items():
        out[f"{k}_steps_per_s"] = round(statistics.median(v))
    out["async_vs_sync"] = round(out["async_vector_env_steps_per_s"]
                                 / out["sync_vector_env_steps_per_s"], 2)
    out["sync_vs_python_loop"] = round(out["sync_vector_env_steps_per_s"]
                                       / out["python_loop_steps_per_s"], 2)
    return out


def ray_eval(env: str = "dispatch", agent: str = "closest_idle", scenario: str = "expert",
             episodes: int = 8, num_cpus: int = 2) -> dict[str, Any]:
    """Serial vs Ray evaluation wall time on ``num_cpus`` local CPUs (records must match)."""
    import ray

    from lifeline.eval.harness import plan, run_tasks

    tasks = plan(env, [agent], [scenario], range(episodes))
    t0 = time.perf_counter()
    serial = run_tasks(tasks, workers=1)
    serial_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        startup_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        first = run_tasks(tasks, backend="ray")  # cold: workers start and import lifeline
        cold_s = time.perf_counter() - t1
        t2 = time.perf_counter()
        warm = run_tasks(tasks, backend="ray")  # warm workers (a long evaluation's steady state)
        warm_s = time.perf_counter() - t2
    finally:
        ray.shutdown()
    return {"env": env, "agent": agent, "scenario": scenario, "episodes": episodes,
            "num_cpus": num_cpus, "ray": ray.__version__,
            "serial_s": round(serial_s, 3), "ray_startup_s": round(startup_s, 3),
            "ray_cold_s": round(cold_s, 3), "ray_warm_s": round(warm_s, 3),
            "speedup_warm": round(serial_s / warm_s, 2),
            "speedup_incl_startup": round(serial_s / (startup_s + cold_s), 2),
            "records_identical": first == serial and warm == serial}


def run(quick: bool = False, baseline_tree: str | None = None,
        with_ray: bool = True) -> dict[str, Any]:
    """Every section (``quick``: smaller budgets, for a smoke run)."""
    from bench import dispatch_speed

    steps, rounds = (3000, 1) if quick else (20_000, 5)
    out: dict[str, Any] = {
        "benchmark": "scale", "python": platform.python_version(),
        "machine": platform.machine(), "cpus": os.cpu_count(),
        "load_avg_start": list(os.getloadavg()),
        "dispatch_step_observe": dispatch_speed.run(("expert", "metro_expert"), steps, rounds,
                                                    baseline_tree),
        "dispatch_observe_micro": [dispatch_speed.observe_micro(s, reps=8 if quick else 30)
                                   for s in ("expert", "metro_expert")],
        "dispatch_vector": vector_rates("expert", num_envs=4, steps=300 if quick else 3000,
                                        rounds=1 if quick else 3),
    }
    if with_ray:
        out["ray_eval"] = ray_eval(episodes=4 if quick else 8)
    out["load_avg_end"] = list(os.getloadavg())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Small budgets (smoke run).")
    parser.add_argument("--baseline-tree", metavar="PATH",
                        help="Also run the dispatch loop on this source tree (subprocess).")
    parser.add_argument("--no-ray", action="store_true", help="Skip the Ray section.")
    args = parser.parse_args()
    print(json.dumps(run(args.quick, args.baseline_tree, not args.no_ray), indent=1))


if __name__ == "__main__":
    main()
