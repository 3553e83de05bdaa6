"""What does the default MaskablePPO's argmax *do*? A look, not a selection (issue 31).

Trains the model of :mod:`bench.maskable_defaults` once (same construction, training seeds, 50k
steps; saved to ``--model`` and reused if the file exists), then plays its argmax, its sampled
policy and masked random on a few held-out seeds and prints one JSON line per episode: steps,
decision epochs (distinct simulated minutes), the action histogram by action type, the grade,
its components and metrics. For dispatch ids it also counts *moves back within an epoch*: a
relocation to the post the unit was heading to before its previous relocation at the same
minute, and the same for hospital choices. Nothing here is used to choose anything.

    python bench/maskable_argmax_look.py --id lifeline/DispatchMetro-v4 --model /tmp/metro.zip
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import time
from typing import Any

import gymnasium as gym
import numpy as np

import lifeline  # noqa: F401  (registers the ids)
from lifeline.eval.seeds import eval_seeds
from lifeline.faces.gymnasium import FlattenMasked


def train(gym_id: str, steps: int, path: str) -> Any:
    import torch
    from sb3_contrib import MaskablePPO

    from bench.maskable_defaults import TrainingSeeds

    torch.set_num_threads(1)
    if os.path.exists(path):
        return MaskablePPO.load(path, device="cpu")
    env = TrainingSeeds(FlattenMasked(gym.make(gym_id, reward="grade")), seed=0)
    cpu = time.process_time()
    model = MaskablePPO("MlpPolicy", env, seed=0, verbose=0, device="cpu")
    model.learn(total_timesteps=steps)
    print(json.dumps({"train_cpu_s": round(time.process_time() - cpu, 1)}), flush=True)
    model.save(path)
    return model


def episode(env: gym.Env, seed: int, policy: str, model: Any,
            rng: np.random.Generator) -> dict[str, Any]:
    obs, info = env.reset(seed=seed)
    core = env.unwrapped.core  # type: ignore[attr-defined]
    hist, back = collections.Counter[str](), collections.Counter[str]()
    before: dict[tuple[str, int], tuple[float, int]] = {}  # (kind, unit) -> (minute, old target)
    minutes: set[float] = set()
    steps, done = 0, False
    while not done:
        mask = np.asarray(info["action_mask"], dtype=bool)
        if policy == "random":
            a = int(rng.choice(np.flatnonzero(mask)))
        else:
            a = int(model.predict(obs, action_masks=mask, deterministic=policy == "argmax")[0])
        act, s = core.decode(a), env.unwrapped.state  # type: ignore[attr-defined]
        kind = type(act).__name__
        t = float(getattr(s, "t", steps))
        minutes.add(t)
        if kind in ("Relocate", "AssignHospital"):
            u = int(act.unit)
            target = int(act.post) if kind == "Relocate" else int(act.hospital)
            posts, dest = core.ctx.posts.tolist(), int(s.u_dest[u])
            old = ((posts.index(dest) if dest in posts else -1) if kind == "Relocate"
                   else int(s.u_hosp[u]))
            if before.get((kind, u)) == (t, target):
                back[kind + "_back_same_minute"] += 1
            before[(kind, u)] = (t, old)
        hist[kind] += 1
        steps += 1
        obs, _, term, trunc, info = env.step(a)
        done = term or trunc
    return {"policy": policy, "seed": seed, "steps": steps, "epochs": len(minutes),
            "score": round(float(info["score"]), 4), "actions": dict(hist), "back": dict(back),
            "components": {k: round(float(v), 3) for k, v in info["components"].items()},
            "metrics": {k: round(float(v), 3) for k, v in info["metrics"].items()}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--id", default="lifeline/DispatchMetro-v4")
    p.add_argument("--model", required=True, help="where the trained model is saved / read")
    p.add_argument("--steps", type=int, default=50_000)
    p.add_argument("--seeds", type=int, default=3, help="held-out seeds to look at")
    p.add_argument("--policies", default="argmax,sampled,random")
    args = p.parse_args()
    model = train(args.id, args.steps, args.model)
    env = FlattenMasked(gym.make(args.id))
    for policy in args.policies.split(","):
        rng = np.random.default_rng(0)
        for seed in eval_seeds(args.seeds):
            print(json.dumps(episode(env, seed, policy, model, rng)), flush=True)


if __name__ == "__main__":
    main()
