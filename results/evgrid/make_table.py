"""Markdown table of the evgrid ladder from ``lifeline compare ... --json ladder.json``.

    PYTHONPATH=$PWD python -m lifeline compare evgrid \
        --agents never_route,random,nearest,greedy,mpc,bound --episodes 30 --workers 2 \
        --json results/evgrid/ladder.json
    python results/evgrid/make_table.py results/evgrid/ladder.json

Prints mean score ± 95% bootstrap CI per scenario and agent, and whether the acceptance order
holds with disjoint CIs: never_route < nearest < greedy ≤ bound, and mpc ≥ greedy (paired mean).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

AGENTS = ("never_route", "random", "nearest", "greedy", "mpc", "bound")


def main(path: str) -> None:
    data = json.load(open(path, encoding="utf-8"))
    rows: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    for r in data["summary"]:
        rows[r["scenario"]][r["agent"]] = r
    print("| scenario | " + " | ".join(AGENTS) + " | order with disjoint CIs | mpc ≥ greedy |")
    print("|---" * (len(AGENTS) + 3) + "|")
    for sc, by in rows.items():
        cells = []
        for a in AGENTS:
            r = by.get(a)
            cells.append(f"{r['mean']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]" if r else "–")

        def below(x: str, y: str) -> bool:
            return by[x]["ci_high"] < by[y]["ci_low"]

        order = all(below(x, y) for x, y in (("never_route", "nearest"), ("nearest", "greedy"),
                                              ("greedy", "bound")))
        mpc_ok = by["mpc"]["mean"] >= by["greedy"]["mean"]
        print(f"| {sc} | " + " | ".join(cells) + f" | {'yes' if order else 'no'} | "
              f"{'yes' if mpc_ok else 'no'} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results/evgrid/ladder.json")
