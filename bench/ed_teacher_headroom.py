"""Headroom for the ED student, per scenario, on validation seeds (issue 31): the reference
heuristic, each single-rule ablation of its recipe (:mod:`lifeline.train.ed.teacher`, paired
score gain with a 95 % normal interval and the paired deaths difference) and the
capacity-unconstrained bound.

``python bench/ed_teacher_headroom.py [--episodes 60] [--bound-episodes 10] [--json PATH]``
prints JSON. Validation seeds only (``validation_seeds``): never the held-out ones.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from lifeline.core.registry import spec
from lifeline.envs.ed.baselines import EDHeuristicAgent
from lifeline.eval.episode import Task, run_episode
from lifeline.eval.seeds import validation_seeds
from lifeline.train.ed.teacher import ABLATABLE, AblatedHeuristic, play_scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=60)
    ap.add_argument("--bound-episodes", type=int, default=10)
    ap.add_argument("--scenarios", default=",".join(spec("ed").scenarios))
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    seeds = validation_seeds(args.episodes)
    cpu0 = time.process_time()
    out: dict[str, object] = {"seeds": f"validation_seeds({args.episodes})",
                              "bound_seeds": f"validation_seeds({args.bound_episodes})",
                              "scenarios": {}}
    for scenario in args.scenarios.split(","):
        base, base_deaths = play_scores(EDHeuristicAgent(), scenario, seeds)
        row: dict[str, object] = {"heuristic": float(base.mean()),
                                  "heuristic_deaths": float(base_deaths.mean())}
        for rule in ABLATABLE:
            teacher = AblatedHeuristic([rule])
            scores, deaths = play_scores(teacher, scenario, seeds)
            diff = scores - base
            row[teacher.name] = {
                "gain": float(diff.mean()),
                "ci_half_width": float(1.96 * diff.std(ddof=1) / np.sqrt(len(diff))),
                "wins": int((diff > 0).sum()), "losses": int((diff < 0).sum()),
                "deaths_diff": float((deaths - base_deaths).mean())}
        bound = [run_episode(Task("ed", scenario, "bound", s))["score"]
                 for s in validation_seeds(args.bound_episodes)]
        row["bound"] = float(np.mean(bound))
        row["heuristic_on_bound_seeds"] = float(base[:args.bound_episodes].mean())
        out["scenarios"][scenario] = row  # type: ignore[index]
        print(json.dumps({scenario: row}), flush=True)
    out["cpu_s"] = round(time.process_time() - cpu0, 1)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
