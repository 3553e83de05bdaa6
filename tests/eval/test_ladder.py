"""The grader ranks the ED baseline ladder: noop < random < heuristic <= bound on 30 paired seeds.

Neighbours' 95% confidence intervals must not overlap (the acceptance bar of the foundation
issue); the held-out evaluation seeds are used.
"""

from __future__ import annotations

import itertools

import pytest

import lifeline
from lifeline.eval.harness import evaluate

LADDER = ("noop", "random", "heuristic", "bound")


@pytest.mark.slow
@pytest.mark.parametrize("scenario", list(lifeline.spec("ed").scenarios))
def test_ed_ladder_ordered_with_separated_cis(scenario: str) -> None:
    results = evaluate("ed", LADDER, [scenario], episodes=30)
    rows = {r["agent"]: r for r in results["summary"]}
    for lo, hi in itertools.pairwise(LADDER):
        assert rows[lo]["ci_high"] < rows[hi]["ci_low"], (
            f"{scenario}: {lo} {rows[lo]['mean']:.3f} [{rows[lo]['ci_low']:.3f}, "
            f"{rows[lo]['ci_high']:.3f}] vs {hi} {rows[hi]['mean']:.3f} "
            f"[{rows[hi]['ci_low']:.3f}, {rows[hi]['ci_high']:.3f}]")
    assert all(r["invalid"] == 0 for r in results["records"] if r["agent"] != "noop")
