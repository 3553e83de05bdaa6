"""The ED env README's v3 ladder tables (score, deaths, door-to-provider; paired differences),
written from ``results/ed/S.json`` (``lifeline compare ed -a noop,random,heuristic,bound -s S
--episodes 30 --json results/ed/S.json``), so the README's numbers are never typed by hand.

``python bench/ed_ladder_tables.py [--root DIR]`` prints both markdown tables' rows.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from lifeline.envs.ed.params import SCENARIOS
from lifeline.eval.stats import paired_compare

AGENTS = ("noop", "random", "heuristic", "bound")


def _by_seed(records: list[dict[str, Any]], agent: str, key: str) -> dict[int, float]:
    return {int(r["seed"]): float(r["score"] if key == "score" else r["metrics"][key])
            for r in records if r["agent"] == agent}


def tables(root: Path) -> tuple[list[str], list[str]]:
    """Rows of the ladder table and of the paired-differences table."""
    ladder, paired = [], []
    for s in SCENARIOS:
        data = json.loads((root / f"{s}.json").read_text())
        recs = data["records"]
        summ = {r["agent"]: r for r in data["summary"]}
        cells = [f"{summ[a]['mean']:.3f} [{summ[a]['ci_low']:.3f}, {summ[a]['ci_high']:.3f}]"
                 for a in AGENTS]
        deaths = {a: np.mean(list(_by_seed(recs, a, "deaths").values())) for a in AGENTS}
        d2p = {a: np.mean(list(_by_seed(recs, a, "door_to_provider_h").values()))
               for a in ("heuristic", "bound")}
        h = [r for r in recs if r["agent"] == "heuristic"]
        share = 100 * (sum(r["metrics"]["deaths"] for r in h)
                       / sum(r["metrics"]["patients"] for r in h))
        ladder.append(f"| {s} | " + " | ".join(cells) + " | "
                      + " / ".join(f"{deaths[a]:.1f}" for a in AGENTS)
                      + f" | {d2p['heuristic']:.2f} / {d2p['bound']:.2f} | {share:.2f} % |")
        row = []
        for a, b in (("random", "noop"), ("heuristic", "random"), ("bound", "heuristic")):
            c = paired_compare(_by_seed(recs, a, "score"), _by_seed(recs, b, "score"))
            dd = deaths[a] - deaths[b]
            row.append(f"{c.mean_diff:+.3f} [{c.ci_low:+.3f}, {c.ci_high:+.3f}] / "
                       f"{dd:+.1f}".replace("-", "−"))
        paired.append(f"| {s} | " + " | ".join(row) + " |")
    return ladder, paired


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", default="results/ed")
    ladder, paired = tables(Path(ap.parse_args().root))
    print("\n".join(ladder))
    print()
    print("\n".join(paired))


if __name__ == "__main__":
    main()
