"""The ED env README's v3 measured tables, written from the committed result files so the
README's numbers are never typed by hand:

* the ladder (score, deaths, door-to-provider) and its paired differences, from
  ``results/ed/S.json`` (``lifeline compare ed -a noop,random,heuristic,bound -s S --episodes 30
  --json results/ed/S.json``);
* the v3 mechanic sensitivity, from ``results/ed/mechanics_v3.json``
  (``python bench/ed_v3_mechanics.py --episodes 30``);
* the exploits against the heuristic, from ``results/ed/mechanics.json``
  (``python bench/ed_mechanics.py --episodes 30``).

``python bench/ed_ladder_tables.py [--root DIR]`` prints the rows of all four markdown tables.
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


def _mech_cell(m: dict[str, Any], digits: int, with_ci: bool) -> str:
    fmt = f"{{:.{digits}f}}"
    cell = f"{fmt.format(m['with'])} → {fmt.format(m['without'])}"
    if with_ci:
        sign = f"{{:+.{digits}f}}"
        cell += (f" ({sign.format(m['diff'])} [{sign.format(m['ci'][0])}, "
                 f"{sign.format(m['ci'][1])}])")
    return cell


def mechanic_rows(root: Path) -> list[str]:
    """Rows of the v3 mechanic-sensitivity table (with → without each mechanic)."""
    rows = json.loads((root / "mechanics_v3.json").read_text())["rows"]
    return [f"| {r['scenario']} | `{r['probe']}` | {_mech_cell(r['score'], 4, True)} | "
            f"{_mech_cell(r['door_to_provider_h'], 2, True)} | {_mech_cell(r['deaths'], 1, False)}"
            f" | {_mech_cell(r['lwbs'], 1, False)} | {_mech_cell(r['los_h'], 2, False)} | "
            f"{_mech_cell(r['boarding_h'], 2, False)} |" for r in rows]


def exploit_rows(root: Path) -> list[str]:
    """Rows of the exploits table: score − heuristic / deaths − heuristic per policy."""
    by_scenario = json.loads((root / "mechanics.json").read_text())["scenarios"]
    scenarios = [s for s in SCENARIOS if s in by_scenario]
    rows = ["| heuristic (score, deaths) | " + " | ".join(
        f"{by_scenario[s]['heuristic']['score']:.3f} ({by_scenario[s]['heuristic']['deaths']:.1f})"
        for s in scenarios) + " |"]
    for policy in by_scenario[scenarios[0]]["exploits"]:
        cells = []
        for s in scenarios:
            e = by_scenario[s]["exploits"][policy]
            cells.append(f"{e['score_minus_heuristic']['diff']:+.3f} / "
                         f"{e['deaths_minus_heuristic']['diff']:+.1f}")
        rows.append(f"| `{policy}` | " + " | ".join(cells) + " |")
    rows.append("| `invalid_spam` − `noop` (score) | " + " | ".join(
        f"{by_scenario[s]['invalid_spam_minus_noop']['diff']:+.4f}" for s in scenarios) + " |")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", default="results/ed")
    root = Path(ap.parse_args().root)
    ladder, paired = tables(root)
    for block in (ladder, paired, mechanic_rows(root), exploit_rows(root)):
        print("\n".join(block))
        print()


if __name__ == "__main__":
    main()
