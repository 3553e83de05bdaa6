"""Headroom for the ED student, per scenario, on validation seeds (issue 31): the reference
heuristic, each single-rule ablation of its recipe (:mod:`lifeline.train.ed.teacher`, paired
score gain with a 95 % normal interval and the paired deaths difference) and the
capacity-unconstrained bound.

``python bench/ed_teacher_headroom.py [--episodes 60] [--bound-episodes 10] [--json PATH]``
prints JSON. Validation seeds only (``validation_seeds``): never the held-out ones.

``--expedite-signal SCENARIO`` instead measures what the one-state lookahead teacher could see
of the ``expedite`` rule: on ``--episodes`` training episodes (seeds 5000...) driven by the
heuristic, at a share ``--branch-prob`` of the states where the heuristic expedites, the paired
rollout score of the recipe's next action (the same recipe with ``expedite`` skipped) minus
that of expediting, both followed by the heuristic to the end of the episode.
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


def expedite_signal(scenario: str, episodes: int, prob: float) -> dict[str, float]:
    """Paired rollout gain of skipping the heuristic's expedite at single states (docstring)."""
    from lifeline.envs.ed.rules import Layout
    from lifeline.train.ed.clone import heuristic_labels
    from lifeline.train.ed.lookahead import rollout_scores, snapshot
    from lifeline.train.ed.vec import EDv3Vec

    venv = EDv3Vec(episodes, scenario)
    obs = venv.reset(list(range(5000, 5000 + episodes)))
    layout = Layout(venv.params)
    plain, skip = EDHeuristicAgent(), AblatedHeuristic(["expedite"])
    lo = layout.offsets["expedite_general"]
    hi = layout.offsets["expedite_icu"] + layout.sizes["expedite_icu"]
    rng = np.random.default_rng(0)
    rows = np.arange(episodes)
    snaps, firsts = [], []
    while not venv.finished.all():
        live = rows[~venv.finished]
        action = np.zeros(episodes, dtype=np.int64)
        action[live] = heuristic_labels(plain, obs, layout, live)
        for e in live[(action[live] >= lo) & (action[live] < hi)]:
            if rng.random() < prob:
                alt = int(heuristic_labels(skip, obs, layout, np.array([e]))[0])
                snaps += [snapshot(venv.batch, int(e))] * 2
                firsts += [int(action[e]), alt]
        obs, *_ = venv.step(action)
    scores = rollout_scores(scenario, snaps, firsts, venv.batch.capacity)
    diff = scores[1::2] - scores[0::2]
    return {"scenario_episodes": episodes, "branched_states": len(diff),
            "mean_gain_of_skipping": float(diff.mean()),
            "standard_error": float(diff.std(ddof=1) / np.sqrt(len(diff))),
            "share_positive": float((diff > 0).mean()), "share_tied": float((diff == 0).mean())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=60)
    ap.add_argument("--bound-episodes", type=int, default=10)
    ap.add_argument("--scenarios", default=",".join(spec("ed").scenarios))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--expedite-signal", metavar="SCENARIO")
    ap.add_argument("--branch-prob", type=float, default=0.3)
    args = ap.parse_args()
    if args.expedite_signal:
        print(json.dumps(expedite_signal(args.expedite_signal, args.episodes, args.branch_prob)))
        return
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
