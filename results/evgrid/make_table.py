"""Markdown table of the evgrid ladder from ``lifeline compare ... --json``.

    PYTHONPATH=$PWD python -m lifeline compare evgrid \\
        --agents never_route,random,nearest,greedy,mpc,bound --scenario all --episodes 30 \\
        --json results/evgrid/ladder_v2.json
    python results/evgrid/make_table.py results/evgrid/ladder_v2.json

Prints mean score [95% bootstrap CI] per scenario and agent, then per scenario whether the
acceptance order holds: never_route < nearest < greedy with disjoint CIs, greedy < bound with
disjoint CIs, and mpc ≥ greedy on the mean (with the paired mean difference mpc − greedy and
its 95% bootstrap CI over seeds).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

import numpy as np

AGENTS = ("never_route", "random", "nearest", "greedy", "mpc", "bound")


def paired_ci(a: list[float], b: list[float], reps: int = 5000) -> tuple[float, float, float]:
    d = np.asarray(a) - np.asarray(b)
    rng = np.random.default_rng(0)
    boot = d[rng.integers(0, d.size, (reps, d.size))].mean(axis=1)
    return float(d.mean()), float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))


def main(paths: list[str]) -> None:
    rows: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    scores: dict[tuple[str, str], dict[int, float]] = defaultdict(dict)
    for path in paths:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        for r in data["summary"]:
            rows[r["scenario"]][r["agent"]] = r
        for r in data["records"]:
            scores[(r["scenario"], r["agent"])][r["seed"]] = r["score"]
    agents = [a for a in AGENTS if any(a in by for by in rows.values())]
    print("| scenario | " + " | ".join(agents) + " |")
    print("|---" * (len(agents) + 1) + "|")
    for sc in sorted(rows):
        by = rows[sc]
        cells = [f"{by[a]['mean']:.3f} [{by[a]['ci_low']:.3f}, {by[a]['ci_high']:.3f}]"
                 if a in by else "–" for a in agents]
        print(f"| {sc} (n={next(iter(by.values()))['n']}) | " + " | ".join(cells) + " |")
    print()
    print("| scenario | never_route < nearest < greedy (disjoint CIs) | greedy < bound "
          "(disjoint CIs) | mpc ≥ greedy (mean) | mpc − greedy, paired [95% CI] |")
    print("|---|---|---|---|---|")
    for sc in sorted(rows):
        by = rows[sc]
        low = all(by[x]["ci_high"] < by[y]["ci_low"]
                  for x, y in (("never_route", "nearest"), ("nearest", "greedy")))
        top = by["greedy"]["ci_high"] < by["bound"]["ci_low"]
        g, m = scores[(sc, "greedy")], scores[(sc, "mpc")]
        seeds = sorted(set(g) & set(m))
        d, lo, hi = paired_ci([m[s] for s in seeds], [g[s] for s in seeds])
        yes = {True: "yes", False: "**no**"}
        print(f"| {sc} | {yes[low]} | {yes[top]} | {yes[by['mpc']['mean'] >= by['greedy']['mean']]}"
              f" | {d:+.4f} [{lo:+.4f}, {hi:+.4f}] |")


if __name__ == "__main__":
    main(sys.argv[1:] or ["results/evgrid/ladder_v1.json"])
