"""Batch ED vs scalar ED, side by side in one run (JSON on stdout).

    python bench/batch.py [--scenario surge] [--sizes 1,64,1024,4096] [--seconds 2] [--rounds 3]

Measures ED-v3: the array kernel ``kernel_v3`` through ``batch_v3.EDBatchV3``, and the scalar
``EDEnv`` (which steps through the same kernel with N = 1).

Measures CPU time (``time.process_time``: the machine is shared, wall time is not the env's),
random legal actions chosen outside the timed region, ``rounds`` interleaved rounds, medians:

* ``scalar``: the core ``EDEnv`` — ``step`` only, and ``step + observe + action_mask`` (what the
  batch kernel does per env-step), and ``reset``;
* ``batch[N]``: :class:`lifeline.envs.ed.batch_v3.EDBatchV3` — the kernel call alone
  (``kernel``, with finished envs reset outside the clock), and the steady state with resets
  (``with_resets``: the batch's measured per-env reset time spread over the random policy's
  episode length; ``reset_share`` of that time), as ratios to the scalar core's
  ``step + observe + action_mask`` and ``step`` only;
* ``vector[N]``: the Gymnasium faces — :class:`EDVectorEnv` (``gymnasium.make_vec``'s default
  for ``lifeline/ED-v3``) vs Gymnasium's ``SyncVectorEnv`` over the scalar env (the Python
  loop), both with auto-reset, and their ratio.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

import lifeline
from lifeline.core.registry import spec
from lifeline.envs.ed.batch import EDVectorEnv
from lifeline.envs.ed.batch_v3 import EDBatchV3
from lifeline.envs.ed.env import EDEnv
from lifeline.faces.gymnasium import LifelineGymEnv

STAGGER = {"on": True}
"""``--no-stagger``: time the batch from a common start (every env at 00:00), as before."""

def _scalar_gym(scenario: str) -> gym.Env:
    """The scalar ED as a Gymnasium env (what SyncVectorEnv loops over)."""
    return LifelineGymEnv("ed", core=EDEnv(scenario))


def pick(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (vectorised)."""
    counts = masks.cumsum(axis=1)
    target = (rng.random(masks.shape[0]) * counts[:, -1]).astype(np.int64)
    return (counts <= target[:, None]).sum(axis=1)


def without_gc(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a measurement as ``timeit`` does: garbage collected before it, the collector off
    during it. Measured: in one process after the vector-env runs (4,096 scalar envs and their
    garbage), the N = 4,096 kernel read 672k env-steps/s with the collector on and 814k in a
    run without them, the collector's passes over the earlier objects landing inside the
    timed step calls."""
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        gc.collect()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()
    return run


@without_gc
def time_scalar(scenario: str, seconds: float, observe: bool) -> dict[str, float]:
    env = EDEnv(scenario)
    rng = np.random.default_rng(1)
    seed = 0
    state = env.reset(seed)
    mask = env.action_mask(state)
    steps, busy, resets, reset_time = 0, 0.0, 0, 0.0
    while busy < seconds:
        action = int(pick(rng, mask[None])[0])
        t0 = time.process_time()
        env.step(state, action)
        if observe:
            env.observe(state)
        mask = env.action_mask(state)
        busy += time.process_time() - t0
        steps += 1
        if state.done:
            seed += 1
            t0 = time.process_time()
            state = env.reset(seed)
            reset_time += time.process_time() - t0
            resets += 1
            mask = env.action_mask(state)
    return {"steps_per_s": steps / busy, "reset_us": 1e6 * reset_time / max(resets, 1),
            "episode_steps": steps / max(resets, 1)}


@without_gc
def time_batch(scenario: str, n: int, seconds: float, episode_steps: float) -> dict[str, float]:
    batch = EDBatchV3(n, scenario)
    t0 = time.process_time()
    for i in range(n):
        batch.reset_env(i, i)
    first_resets_us = 1e6 * (time.process_time() - t0) / n  # arrays grow here
    rng = np.random.default_rng(2)
    next_seed = n
    reset_count, reset_time = 0, 0.0

    def advance(skip: np.ndarray | None) -> tuple[float, float, int]:
        nonlocal next_seed, reset_count, reset_time
        actions = pick(rng, batch.mask)
        t0 = time.process_time()
        batch.step(actions, skip)
        t1 = time.process_time()
        for i in np.flatnonzero(batch.terminated | batch.truncated).tolist():
            if skip is None or not skip[i]:
                batch.reset_env(i, next_seed)
                next_seed += 1
                reset_count += 1
        t2 = time.process_time()
        reset_time += t2 - t1
        return t1 - t0, t2 - t1, n if skip is None else int((~skip).sum())

    # Untimed stagger: env i starts after a uniform random delay of up to one episode, so the
    # timed window sees every phase of the shift in the random policy's proportions (started
    # together, a short window would time only the quiet first hours of every env).
    if STAGGER["on"]:
        delay = rng.integers(0, max(1, round(episode_steps)), size=n)
        for r in range(int(delay.max())):
            advance(delay > r)
    steps, kernel, resets = 0, 0.0, 0.0
    while kernel + resets < seconds:
        k, r, m = advance(None)
        kernel += k
        resets += r
        steps += m
    # Steady state: every env resets once per episode; reset cost per env-step = the batch's
    # reset time (of the resets after the start, once the arrays have grown) / the random
    # policy's episode length.
    reset_us = 1e6 * reset_time / reset_count if reset_count else first_resets_us
    per_step = 1.0 / (steps / kernel)
    reset_per_step = 1e-6 * reset_us / episode_steps
    return {"kernel_steps_per_s": steps / kernel,
            "with_resets_steps_per_s": 1.0 / (per_step + reset_per_step),
            "reset_share": reset_per_step / (per_step + reset_per_step), "reset_us": reset_us,
            "resets_timed": reset_count}


@without_gc
def time_vector(make: Callable[[], Any], n: int, seconds: float) -> float:
    venv = make()
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(3)
    steps, busy = 0, 0.0
    while busy < seconds:
        actions = pick(rng, obs["action_mask"].astype(bool))
        t0 = time.process_time()
        obs, *_ = venv.step(actions)
        busy += time.process_time() - t0
        steps += n
    venv.close()
    return steps / busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="surge")
    parser.add_argument("--sizes", default="1,64,1024,4096")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="CPU seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-stagger", action="store_true",
                        help="time the batch from a common start instead of a staggered one")
    parser.add_argument("--no-vector", action="store_true",
                        help="skip the Gymnasium vector-env comparison")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    STAGGER["on"] = not args.no_stagger
    gym_id = spec("ed").gym_id
    warm = EDBatchV3(1, args.scenario)  # compile (or load the cached kernel) first
    warm.reset_env(0, 0)
    warm.step(np.zeros(1, dtype=np.int64))
    core = EDEnv(args.scenario)
    state = core.reset(0)
    for _ in range(3):
        core.step(state, 0)
    raw: dict[str, list[Any]] = {}

    def add(key: str, value: Any) -> None:
        raw.setdefault(key, []).append(value)

    for _ in range(args.rounds):
        add("scalar_step", time_scalar(args.scenario, args.seconds, observe=False))
        add("scalar_step_observe", time_scalar(args.scenario, args.seconds, observe=True))
        episode_steps = raw["scalar_step"][-1]["episode_steps"]
        for n in sizes:
            add(f"batch_{n}", time_batch(args.scenario, n, args.seconds, episode_steps))
            if not args.no_vector:
                add(f"vector_{n}", time_vector(partial(EDVectorEnv, n, args.scenario), n,
                                               args.seconds))
                add(f"loop_{n}", time_vector(
                    partial(gym.vector.SyncVectorEnv,
                            [partial(_scalar_gym, args.scenario) for _ in range(n)]),
                    n, args.seconds))

    def med(key: str, field: str | None = None) -> float:
        values = [r[field] if field else r for r in raw[key]]
        return float(statistics.median(values))

    scalar_obs = med("scalar_step_observe", "steps_per_s")
    scalar_step = med("scalar_step", "steps_per_s")
    out: dict[str, Any] = {
        "env": gym_id, "scenario": args.scenario, "clock": "process_time (CPU), median of "
        f"{args.rounds} interleaved rounds of {args.seconds} s", "numpy": np.__version__,
        "python": platform.python_version(), "cpus": os.cpu_count(),
        "load_avg_1m_5m_15m": [round(x, 2) for x in os.getloadavg()],
        "scalar": {"step_steps_per_s": round(scalar_step),
                   "step_observe_mask_steps_per_s": round(scalar_obs),
                   "reset_us": round(med("scalar_step", "reset_us")),
                   "episode_steps_random_policy": round(med("scalar_step", "episode_steps"))},
        "batch": {}, "vector": {},
    }
    for n in sizes:
        kernel = med(f"batch_{n}", "kernel_steps_per_s")
        with_resets = med(f"batch_{n}", "with_resets_steps_per_s")
        out["batch"][str(n)] = {
            "kernel_steps_per_s": round(kernel),
            "with_resets_steps_per_s": round(with_resets),
            "reset_share": round(med(f"batch_{n}", "reset_share"), 3),
            "reset_us": round(med(f"batch_{n}", "reset_us")),
            "resets_timed": int(med(f"batch_{n}", "resets_timed")),
            "kernel_vs_scalar_step_observe_mask": round(kernel / scalar_obs, 1),
            "kernel_vs_scalar_step_only": round(kernel / scalar_step, 1),
            "with_resets_vs_scalar_step_observe_mask": round(with_resets / scalar_obs, 1),
        }
        if not args.no_vector:
            vec, loop = med(f"vector_{n}"), med(f"loop_{n}")
            out["vector"][str(n)] = {"EDVectorEnv_steps_per_s": round(vec),
                                     "SyncVectorEnv_steps_per_s": round(loop),
                                     "ratio": round(vec / loop, 1)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    lifeline.make("ed")  # registers the Gymnasium ids
    main()
