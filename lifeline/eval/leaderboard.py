"""The baseline-ladder leaderboard: results JSON plus a Markdown table per environment."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any


def ladder_table(summary: list[dict[str, Any]], env: str) -> list[str]:
    """Markdown rows: one per scenario, one column per agent (mean ± half CI)."""
    rows = [r for r in summary if r["env"] == env]
    agents = list(dict.fromkeys(r["agent"] for r in rows))
    scenarios = list(dict.fromkeys(r["scenario"] for r in rows))
    cell = {(r["scenario"], r["agent"]): r for r in rows}
    lines = ["| scenario | " + " | ".join(agents) + " | ordered |",
             "|---" * (len(agents) + 2) + "|"]
    for s in scenarios:
        cells = []
        for a in agents:
            r = cell[(s, a)]
            cells.append(f"{r['mean']:.3f} ± {(r['ci_high'] - r['ci_low']) / 2:.3f}")
        ordered = all(cell[(s, lo)]["ci_high"] < cell[(s, hi)]["ci_low"]
                      for lo, hi in itertools.pairwise(agents[:-1]))
        top = cell[(s, agents[-2])]["mean"] <= cell[(s, agents[-1])]["ci_high"] if len(
            agents) > 1 else True
        cells.append("yes" if ordered and top else "no")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return lines


def write_leaderboard(results: dict[str, Any], out: Path) -> Path:
    """Write ``results.json`` and ``leaderboard.md`` under ``out``; return the Markdown path."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1))
    meta = results.get("meta", {})
    lines = ["# Lifeline baseline leaderboard", "",
             f"Package {meta.get('package_version')} · commit `{meta.get('git_commit')}` · "
             f"created {meta.get('created')}", "",
             "Scores are the episode grader's score in [0, 1] (mean ± 95% CI over paired "
             "held-out seeds). *ordered* = every rung's CI lies strictly below the next rung's, "
             "and the heuristic does not beat the upper bound.", ""]
    for env in dict.fromkeys(r["env"] for r in results["summary"]):
        n = max(r["n"] for r in results["summary"] if r["env"] == env)
        lines += [f"## {env} ({n} seeds per cell)", "", *ladder_table(results["summary"], env),
                  ""]
    path = out / "leaderboard.md"
    path.write_text("\n".join(lines))
    return path
