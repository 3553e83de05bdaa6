"""Reproduce ``results/dispatch``: MaskablePPO on ``dispatch_metro``/``metro_expert``, evaluated.

Usage (from the repository root)::

    python results/dispatch/reproduce.py train   # one run -> runs/ppo/dispatch_metro-metro_expert
    python results/dispatch/reproduce.py eval    # 30 held-out seeds -> metro_expert.json

The model is written to ``runs/ppo/dispatch_metro-metro_expert`` (not committed: ``*.zip`` is
git-ignored); its ``metadata.json``, ``learning_curve.csv`` and ``validation_curve.csv`` are copied
to ``results/dispatch/training/``. The equivalent CLI is ``lifeline train ppo dispatch_metro
--scenario metro_expert --bc-episodes 12 ...`` and ``lifeline compare dispatch_metro --agents
closest_idle,dmexclp,verify_then_dispatch,bound,ppo:runs/ppo/dispatch_metro-metro_expert
--scenario metro_expert --episodes 30 --json ...``.

The budget is small on purpose (the development machine had 2 shared CPU cores): see README.md.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import torch

from lifeline.eval.harness import evaluate
from lifeline.eval.seeds import eval_seeds
from lifeline.train.ppo import CURVE_FILE, METADATA_FILE, VALIDATION_FILE, PPOConfig, train_ppo

HERE = Path(__file__).resolve().parent
ENV, SCENARIO = "dispatch_metro", "metro_expert"
RUN = Path("runs/ppo") / f"{ENV}-{SCENARIO}"
TIMESTEPS = 20_000
MAX_MINUTES = 15.0
CONFIG = PPOConfig(bc_episodes=12, bc_epochs=10, learning_rate=1e-4, ent_coef=0.001,
                   clip_range=0.1, reward="grader", reward_scale=0.1, select_every=10_000,
                   select_episodes=5)
"""The ``results/ed`` recipe (behaviour cloning of closest-idle, grader-points reward, checkpoint
selection on validation seeds — the cloned start competes) at a budget that fits the machine."""
EPISODES = 30
AGENTS = ("closest_idle", "verify_then_dispatch", "bound")
"""The rest of the ladder on the same seeds is in ``results/dispatch_ladder_metro.json``."""


def train() -> None:
    torch.set_num_threads(1)
    train_ppo(ENV, SCENARIO, TIMESTEPS, RUN, seed=0, config=CONFIG, progress_bar=False,
              max_minutes=MAX_MINUTES)
    dest = HERE / "training"
    dest.mkdir(parents=True, exist_ok=True)
    for name in (METADATA_FILE, CURVE_FILE, VALIDATION_FILE):
        if (RUN / name).exists():
            shutil.copy(RUN / name, dest / name)


def evaluate_heldout() -> None:
    seeds = eval_seeds(EPISODES)
    res = evaluate(ENV, (*AGENTS, f"ppo:{RUN}"), [SCENARIO], episodes=EPISODES,
                   seed_start=seeds[0])
    (HERE / f"{SCENARIO}.json").write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    {"train": train, "eval": evaluate_heldout}[sys.argv[1]]()
