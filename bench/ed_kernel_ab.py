"""Interleaved A/B of ED-v3's batch kernel: a reference revision's ``kernel_v3`` vs the working
tree's, CPU time, with a state-digest check that both produce the same trajectories (JSON on
stdout).

    PYTHONPATH=. python bench/ed_kernel_ab.py --ref HEAD [--envs 4096] [--iters 100] [--rounds 3]

Each measurement is a fresh worker process (``--worker``) that loads one kernel, builds one
staggered state of ``--envs`` surge envs with it (env i advanced by a random delay of up to one
episode, random legal actions, seeded), then times ``--iters`` batch steps with a fixed action
stream (finished envs reset outside the clock): env-steps per CPU second
(``time.process_time``) of the ``step`` calls alone, and a SHA-256 of every state,
observation, mask and reward array at the end. Workers alternate ref/new, new/ref, ... and the
medians are compared (the machine is shared and noisy: rerun).

Why processes: within one process the kernel that built the shared starting state measured
10-15 % faster than an identical copy of itself (``--ref HEAD``, either order), whichever it
was; a worker per measurement has no such shared history. Both kernels are loaded from
copies under one temporary folder (same kind of place, each with its own numba cache).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from types import ModuleType

import numpy as np

KERNEL = "lifeline/envs/ed/kernel_v3.py"


def kernel_source(rev: str | None) -> str:
    """The kernel's source at git revision ``rev``, or the working tree's for ``None``."""
    if rev is None:
        with open(KERNEL) as f:
            return f.read()
    return subprocess.run(["git", "show", f"{rev}:{KERNEL}"], check=True, capture_output=True,
                          text=True).stdout


def load_kernel(path: str) -> ModuleType:
    """The kernel copy at ``path`` as module ``kernel_v3_ab``."""
    spec = importlib.util.spec_from_file_location("kernel_v3_ab", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["kernel_v3_ab"] = module
    spec.loader.exec_module(module)
    return module


def worker(path: str, n: int, iters: int) -> dict[str, float | str]:
    """Build the staggered state with the kernel at ``path``, time ``iters`` steps."""
    kernel = load_kernel(path)
    from bench.batch import pick
    from lifeline.envs.ed import batch_v3

    batch_v3.K = kernel
    b = batch_v3.EDBatchV3(n, "surge")
    for i in range(n):
        b.reset_env(i, i)
    rng = np.random.default_rng(2)
    seed = n
    delay = rng.integers(0, 533, size=n)
    for r in range(int(delay.max())):
        skip = delay > r
        b.step(pick(rng, b.mask), skip)
        for i in np.flatnonzero(b.terminated | b.truncated).tolist():
            if not skip[i]:
                b.reset_env(i, seed)
                seed += 1
    actions_rng = np.random.default_rng(7)
    busy = 0.0
    for _ in range(iters):
        actions = pick(actions_rng, b.mask)
        t0 = time.process_time()
        b.step(actions)
        busy += time.process_time() - t0
        for i in np.flatnonzero(b.terminated | b.truncated).tolist():
            b.reset_env(i, seed)
            seed += 1
    digest = hashlib.sha256()
    for arr in (*b.st, *b.obs.values(), b.mask, b.reward):
        digest.update(np.ascontiguousarray(arr).tobytes())
    return {"rate": n * iters / busy, "digest": digest.hexdigest()[:16]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="HEAD", help="git revision of the reference kernel")
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--iters", type=int, default=100, help="batch steps per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.envs, args.iters)))
        return
    folder = tempfile.mkdtemp(prefix="ed_kernel_ab_")
    paths = {}
    for name, rev in (("ref", args.ref), ("new", None)):
        os.makedirs(os.path.join(folder, name))
        paths[name] = os.path.join(folder, name, "kernel_v3_ab.py")
        with open(paths[name], "w") as f:
            f.write(kernel_source(rev))

    def measure(name: str) -> dict[str, float | str]:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(folder, name, "cache"))
        out = subprocess.run([sys.executable, __file__, "--worker", paths[name], "--envs",
                              str(args.envs), "--iters", str(args.iters)], env=env, check=True,
                             capture_output=True, text=True).stdout
        result: dict[str, float | str] = json.loads(out.strip().splitlines()[-1])
        return result

    rates: dict[str, list[float]] = {"ref": [], "new": []}
    digests: dict[str, set[str]] = {"ref": set(), "new": set()}
    for r in range(args.rounds):
        for name in ("ref", "new") if r % 2 == 0 else ("new", "ref"):
            result = measure(name)
            rates[name].append(float(result["rate"]))
            digests[name].add(str(result["digest"]))
            print(f"round {r} {name}: {float(result['rate']):,.0f} env-steps/s",
                  file=sys.stderr)
    med = {k: statistics.median(v) for k, v in rates.items()}
    print(json.dumps({
        "ref": args.ref, "envs": args.envs, "iters": args.iters, "rounds": args.rounds,
        "clock": "process_time (CPU) of the step calls, one worker process per measurement",
        "steps_per_s": {k: [round(x) for x in v] for k, v in rates.items()},
        "median_ratio_new_over_ref": round(med["new"] / med["ref"], 3),
        "same_trajectories": digests["ref"] == digests["new"] and len(digests["ref"]) == 1,
        "load_avg_1m_5m_15m": [round(x, 2) for x in os.getloadavg()]}, indent=2))


if __name__ == "__main__":
    main()
