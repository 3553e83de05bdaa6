"""Markdown table of the evgrid ladder from ``lifeline compare ... --json ladder.json``.

    for sc in baseline heatwave_peak ...; do
      PYTHONPATH=$PWD python -m lifeline compare evgrid \
        --agents never_route,nearest,greedy,mpc,bound --scenario $sc --episodes 30 \
        --json results/evgrid/ladder_$sc.json
    done
    python results/evgrid/make_table.py

Prints mean score ± 95% bootstrap CI per scenario and agent, and whether the acceptance order
holds with disjoint CIs: never_route < nearest < greedy ≤ bound, and mpc ≥ greedy (paired mean).
"""

from __future__ import annotations

import glob
import json
import sys
from collections import defaultdict

AGENTS = ("never_route", "nearest", "greedy", "mpc", "bound")


def main(paths: list[str]) -> None:
    rows: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for r in json.load(f)["summary"]:
                rows[r["scenario"]][r["agent"]] = r
    print("| scenario | " + " | ".join(AGENTS) + " | order with disjoint CIs | mpc ≥ greedy |")
    print("|---" * (len(AGENTS) + 3) + "|")
    for sc, by in rows.items():
        cells = []
        n = next(iter(by.values()))["n"]
        for a in AGENTS:
            r = by.get(a)
            cells.append(f"{r['mean']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]" if r else "–")

        pairs = (("never_route", "nearest"), ("nearest", "greedy"), ("greedy", "bound"))
        order = all(by[x]["ci_high"] < by[y]["ci_low"] for x, y in pairs)
        mpc_ok = by["mpc"]["mean"] >= by["greedy"]["mean"]
        print(f"| {sc} (n={n}) | " + " | ".join(cells) + f" | {'yes' if order else 'no'} | "
              f"{'yes' if mpc_ok else 'no'} |")


if __name__ == "__main__":
    main(sys.argv[1:] or sorted(glob.glob("results/evgrid/ladder_*.json")))
