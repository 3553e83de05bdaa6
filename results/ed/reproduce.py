"""Reproduce ``results/ed``: train MaskablePPO per ed scenario, evaluate on held-out seeds, report.

Usage (from the repository root)::

    python results/ed/reproduce.py train [SCENARIO ...]    # one run per scenario, in turn
    python results/ed/reproduce.py eval  [SCENARIO ...]    # held-out evaluation -> <scenario>.json
    python results/ed/reproduce.py report                  # report.md + plots from the JSON files

Models are written to ``runs/ppo/ed-<scenario>`` (not committed: ``*.zip`` is git-ignored);
their ``metadata.json`` and ``learning_curve.csv`` are copied to ``results/ed/training/``.
The equivalent CLI is ``lifeline train ppo ed --scenario S ...``, ``lifeline compare ed
--agents noop,random,heuristic,bound,ppo:runs/ppo/ed-S --scenario S --episodes 100 --json ...``
and ``lifeline report results/ed/*.json --runs results/ed/training --out results/ed``.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import torch

from lifeline.core.registry import spec
from lifeline.eval.harness import evaluate
from lifeline.eval.report import find_curves_in, write_report
from lifeline.eval.seeds import eval_seeds
from lifeline.train.ppo import CURVE_FILE, METADATA_FILE, VALIDATION_FILE, PPOConfig, train_ppo

HERE = Path(__file__).resolve().parent
RUNS = Path("runs/ppo")
TIMESTEPS = 150_000
"""Per scenario (ed v1). v0 used 800k; v1 was re-run on a CPU shared by several jobs, so the
budget is reduced (about 2-6 minutes per scenario there)."""
MAX_MINUTES = 8.0
"""Hard wall-clock stop (recorded in metadata if it cut a run short)."""
CONFIG = PPOConfig(bc_episodes=100, bc_epochs=20, learning_rate=1e-4, ent_coef=0.001,
                   clip_range=0.1, reward="grader", reward_scale=1.0, select_every=50_000,
                   select_episodes=20)
"""The v0 recipe (chosen on surge with validation seeds 900_000 + i, never the held-out set),
with the reward scale raised to 1 because the v1 grader moves ~0.7 points per death and much
less per hour of wait, and a shorter selection interval for the shorter budget."""

EPISODES = 100
"""Held-out evaluation episodes per scenario and agent (paired seeds 1_000_000 + i)."""
AGENTS = ("noop", "random", "heuristic", "bound")


def run_dir(scenario: str, runs: Path = RUNS) -> Path:
    return runs / f"ed-{scenario}"


def train(scenarios: list[str]) -> None:
    for scenario in scenarios:
        result = train_ppo("ed", scenario, TIMESTEPS, run_dir(scenario), seed=0, config=CONFIG,
                           progress_bar=False, max_minutes=MAX_MINUTES)
        dest = HERE / "training" / scenario
        dest.mkdir(parents=True, exist_ok=True)
        for name in (METADATA_FILE, CURVE_FILE, VALIDATION_FILE):
            shutil.copy(result.out_dir / name, dest / name)
        print(scenario, result.metadata["timesteps"], result.metadata["wall_s"], flush=True)


def evaluate_all(scenarios: list[str]) -> None:
    for scenario in scenarios:
        agents, name = [*AGENTS, f"ppo:{run_dir(scenario)}"], f"{scenario}.json"
        results = evaluate("ed", agents, [scenario], EPISODES, eval_seeds(1)[0], workers=1)
        (HERE / name).write_text(json.dumps(results, indent=1) + "\n")
        print(scenario, "evaluated", flush=True)


def report() -> None:
    names = [f"{s}.json" for s in spec("ed").scenarios]
    files = [HERE / n for n in names if (HERE / n).is_file()]
    path = write_report(files, HERE, curves=find_curves_in(HERE / "training"),
                        title="ed: MaskablePPO vs the baseline ladder (held-out seeds)")
    print("report:", path)


def main(argv: list[str]) -> None:
    torch.set_num_threads(1)
    command, names = argv[0], argv[1:] or list(spec("ed").scenarios)
    if command == "train":
        train(names)
    elif command == "eval":
        evaluate_all(names)
    else:
        report()


if __name__ == "__main__":
    main(sys.argv[1:] or ["report"])
