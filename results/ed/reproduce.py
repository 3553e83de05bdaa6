"""Reproduce ``results/ed``: train MaskablePPO per ed scenario, evaluate on held-out seeds, report.

Usage (from the repository root)::

    python results/ed/reproduce.py train [SCENARIO ...]    # one run per scenario, in turn
    python results/ed/reproduce.py eval  [SCENARIO ...]    # held-out evaluation -> <scenario>.json
    python results/ed/reproduce.py train-lives [SCENARIO ...]  # variant with a per-death penalty
    python results/ed/reproduce.py eval-lives  [SCENARIO ...]  # -> <scenario>_lives.json
    python results/ed/reproduce.py report                  # report.md + plots from the JSON files

Models are written to ``runs/ppo/ed-<scenario>`` (not committed: ``*.zip`` is git-ignored);
their ``metadata.json`` and ``learning_curve.csv`` are copied to ``results/ed/training/``.
The equivalent CLI is ``lifeline train ppo ed --scenario S ...``, ``lifeline compare ed
--agents noop,random,heuristic,bound,ppo:runs/ppo/ed-S --scenario S --episodes 100 --json ...``
and ``lifeline report results/ed/*.json --runs results/ed/training --out results/ed``.
"""

from __future__ import annotations

import dataclasses
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
TIMESTEPS = 800_000
"""Per scenario; about 7-8 minutes of one CPU core on the development machine."""
MAX_MINUTES = 9.0
"""Hard wall-clock stop (recorded in metadata if it cut a run short)."""
CONFIG = PPOConfig(bc_episodes=100, bc_epochs=20, learning_rate=1e-4, ent_coef=0.001,
                   clip_range=0.1, reward="grader", reward_scale=0.1, select_every=100_000,
                   select_episodes=30)
"""Chosen on surge with validation seeds (900_000 + i), never the held-out set: the dense
reward gave +0.005 over the heuristic, the grader reward +0.039; a 3x larger learning rate was
unstable. On normal_day the policy drifted below its behaviour-cloned start, hence checkpoint
selection on validation seeds (the start competes too)."""
RUNS_LIVES = Path("runs/ppo_lives")
TIMESTEPS_LIVES = 400_000
MAX_MINUTES_LIVES = 4.5
CONFIG_LIVES = dataclasses.replace(CONFIG, death_penalty=5.0)
"""The same recipe with 5 grader points charged per death during training: the plain grader
reward learned to trade deaths for shorter waits (early discharges); this variant asks whether
PPO can beat the heuristic's score without that trade. Shorter budget (time ran out)."""

EPISODES = 100
"""Held-out evaluation episodes per scenario and agent (paired seeds 1_000_000 + i)."""
AGENTS = ("noop", "random", "heuristic", "bound")


def run_dir(scenario: str, runs: Path = RUNS) -> Path:
    return runs / f"ed-{scenario}"


def train(scenarios: list[str], lives: bool = False) -> None:
    runs, steps, minutes, config = ((RUNS_LIVES, TIMESTEPS_LIVES, MAX_MINUTES_LIVES, CONFIG_LIVES)
                                    if lives else (RUNS, TIMESTEPS, MAX_MINUTES, CONFIG))
    for scenario in scenarios:
        result = train_ppo("ed", scenario, steps, run_dir(scenario, runs), seed=0, config=config,
                           progress_bar=False, max_minutes=minutes)
        dest = HERE / ("training_lives" if lives else "training") / scenario
        dest.mkdir(parents=True, exist_ok=True)
        for name in (METADATA_FILE, CURVE_FILE, VALIDATION_FILE):
            shutil.copy(result.out_dir / name, dest / name)
        print(scenario, result.metadata["timesteps"], result.metadata["wall_s"], flush=True)


def evaluate_all(scenarios: list[str], lives: bool = False) -> None:
    for scenario in scenarios:
        if lives:  # paired with the baselines in <scenario>.json through the common seeds
            agents, name = [f"ppo:{run_dir(scenario, RUNS_LIVES)}"], f"{scenario}_lives.json"
        else:
            agents, name = [*AGENTS, f"ppo:{run_dir(scenario)}"], f"{scenario}.json"
        results = evaluate("ed", agents, [scenario], EPISODES, eval_seeds(1)[0], workers=1)
        (HERE / name).write_text(json.dumps(results, indent=1) + "\n")
        print(scenario, "evaluated", flush=True)


def report() -> None:
    names = [n for s in spec("ed").scenarios for n in (f"{s}.json", f"{s}_lives.json")]
    files = [HERE / n for n in names if (HERE / n).is_file()]
    path = write_report(files, HERE, curves=find_curves_in(HERE / "training"),
                        title="ed: MaskablePPO vs the baseline ladder (held-out seeds)")
    print("report:", path)


def main(argv: list[str]) -> None:
    torch.set_num_threads(1)
    command, names = argv[0], argv[1:] or list(spec("ed").scenarios)
    if command in ("train", "train-lives"):
        train(names, lives=command == "train-lives")
    elif command in ("eval", "eval-lives"):
        evaluate_all(names, lives=command == "eval-lives")
    else:
        report()


if __name__ == "__main__":
    main(sys.argv[1:] or ["report"])
