"""Does sb3-contrib's MaskablePPO with *default* hyperparameters beat masked random on every id?

Issue 31's first check, as a new user would run it: ``MaskablePPO("MlpPolicy",
FlattenMasked(gym.make(id)))`` (squashed observations are the face's default), trained for
``--steps`` (50,000) on training seeds only, then the deterministic policy and masked random are
played on the same held-out seeds (``1_000_000 + i``; nothing is selected on them) and compared
paired (the headline; ``sampled`` also plays the policy's action distribution, torch's sampler
seeded by SB3 from ``seed=0``, on the same seeds). Training uses the face's ``reward="grade"``
(the increments of progress × score so far, whose return is the grade; ``--reward env`` for
the env's own shaping). Prints one JSON object: per id the two means, the paired difference with
its 95 % bootstrap CI, and the CPU seconds of training.

    python bench/maskable_defaults.py                      # every id, 50k steps, 30 seeds
    python bench/maskable_defaults.py --ids lifeline/CodeRed-v3 --steps 20000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np

import lifeline  # noqa: F401  (registers the ids)
from lifeline.core.registry import all_specs
from lifeline.eval.seeds import eval_seeds, train_seed_stream
from lifeline.eval.stats import paired_compare
from lifeline.faces.gymnasium import FlattenMasked


class TrainingSeeds(gym.Wrapper):  # type: ignore[type-arg]
    """Every reset takes the next training seed, whatever it is passed."""

    def __init__(self, env: gym.Env, seed: int) -> None:  # type: ignore[type-arg]
        super().__init__(env)
        self.seeds = train_seed_stream(seed)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        return self.env.reset(seed=next(self.seeds), options=options)


def play(env: gym.Env, seeds: list[int], model: Any | None,  # type: ignore[type-arg]
         deterministic: bool = True) -> dict[int, float]:
    """Grader score per seed of ``model`` (masked; its argmax action, or with ``deterministic``
    off a sample from its action distribution) or, with no model, masked random."""
    rng = np.random.default_rng(0)
    scores = {}
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            mask = np.asarray(info["action_mask"], dtype=bool)
            if model is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = int(model.predict(obs, action_masks=mask,
                                           deterministic=deterministic)[0])
            obs, _, term, trunc, info = env.step(action)
            done = term or trunc
        scores[seed] = float(info["score"])
    return scores


def run(gym_id: str, steps: int, n_seeds: int, reward: str = "grade") -> dict[str, Any]:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)  # torch's own threads on a shared 2-core machine cost CPU, not speed
    train_env = TrainingSeeds(FlattenMasked(gym.make(gym_id, reward=reward)), seed=0)
    cpu = time.process_time()
    model = MaskablePPO("MlpPolicy", train_env, seed=0, verbose=0, device="cpu")
    model.learn(total_timesteps=steps)
    cpu = time.process_time() - cpu
    test_env = FlattenMasked(gym.make(gym_id))
    seeds = eval_seeds(n_seeds)
    learned, random_ = play(test_env, seeds, model), play(test_env, seeds, None)
    cmp = paired_compare(learned, random_)
    sampled = paired_compare(play(test_env, seeds, model, deterministic=False), random_)
    return {"id": gym_id, "steps": steps, "seeds": n_seeds, "reward": reward,
            "train_cpu_s": round(cpu, 1),
            "maskable_ppo": round(cmp.mean_a, 4), "random": round(cmp.mean_b, 4),
            "diff": round(cmp.mean_diff, 4), "ci": [round(cmp.ci_low, 4), round(cmp.ci_high, 4)],
            "beats_random": cmp.ci_low > 0,
            "sampled": {"maskable_ppo": round(sampled.mean_a, 4),
                        "diff": round(sampled.mean_diff, 4),
                        "ci": [round(sampled.ci_low, 4), round(sampled.ci_high, 4)],
                        "beats_random": sampled.ci_low > 0}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ids", nargs="*", default=[s.gym_id for s in all_specs()])
    p.add_argument("--steps", type=int, default=50_000)
    p.add_argument("--seeds", type=int, default=30,
                   help="held-out seeds (the project's 30 by default; 10 before stop 40)")
    p.add_argument("--reward", choices=("grade", "env"), default="grade",
                   help="the face's reward: the grade's increments (default) or the env's shaping")
    args = p.parse_args()
    rows = []
    for gym_id in args.ids:
        print(f"{gym_id}: training {args.steps} steps ...", file=sys.stderr, flush=True)
        rows.append(run(gym_id, args.steps, args.seeds, args.reward))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"benchmark": "maskable_defaults", "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
