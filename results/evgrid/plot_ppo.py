"""Learning curve of the evgrid PPO run next to the ladder's held-out means (PNG).

    python results/evgrid/plot_ppo.py

Reads ``training/baseline/progress.csv`` (SB3 log: training episodes' mean grader score over the
last 20 episodes, on training seeds) and ``ladder_v1.json`` / ``ppo_baseline.json`` (held-out
seeds), writes ``ppo_baseline_curve.png``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = Path(__file__).resolve().parent


def main() -> None:
    steps, score = [], []
    with open(HERE / "training" / "baseline" / "progress.csv", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row.get("rollout/ep_score_mean"):
                steps.append(int(row["time/total_timesteps"]))
                score.append(float(row["rollout/ep_score_mean"]))
    ladder = {r["agent"]: r for r in json.loads((HERE / "ladder_v1.json").read_text())["summary"]
              if r["scenario"] == "baseline"}
    ppo = {r["agent"]: r for r in json.loads((HERE / "ppo_baseline.json").read_text())["summary"]}
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, score, marker="o", ms=3, label="PPO, training episodes (mean of last 20)")
    colours = {"never_route": "grey", "random": "tab:brown", "nearest": "tab:orange",
               "greedy": "tab:green", "mpc": "tab:olive", "bound": "tab:red"}
    for agent, colour in colours.items():
        if agent in ladder:
            ax.axhline(ladder[agent]["mean"], ls="--", lw=1, color=colour,
                       label=f"{agent} (held-out mean {ladder[agent]['mean']:.3f})")
    name = next(a for a in ppo if a.startswith("ppo"))
    ax.axhline(ppo[name]["mean"], ls="-", lw=2, color="tab:blue",
               label=f"PPO final, held-out mean {ppo[name]['mean']:.3f}")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("grader score (baseline scenario)")
    ax.set_title("evgrid v1: MaskablePPO (BC warm start, 41k steps) vs the ladder")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(HERE / "ppo_baseline_curve.png", dpi=110)


if __name__ == "__main__":
    main()
