"""ED-v3 mechanic sensitivity: the heuristic with each v3 mechanic switched off, on paired seeds.

``compare(scenario, probe, seeds)`` plays the heuristic on the same seeds with and without a
mechanic (``PROBES``, from :mod:`lifeline.envs.ed.params`) and returns the paired differences
with bootstrap 95% CIs. ``bench/ed_v3_mechanics.py`` runs it on 30 exploit-range seeds and
writes ``results/ed/mechanics_v3.json``; ``tests/envs/ed/test_ed_v3_mechanics.py`` uses
:func:`play`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from lifeline.core.env import Environment
from lifeline.envs.ed import params as P
from lifeline.envs.ed.baselines import EDHeuristicAgent
from lifeline.envs.ed.env import EDEnv
from lifeline.eval.stats import paired_compare

PROBES: dict[str, Callable[[P.EDParams], P.EDParams]] = {
    "unlimited_physicians": P.unlimited_physicians,
    "no_imaging_queue": P.no_imaging_queue,
    "unlimited_inpatient_beds": P.unlimited_inpatient_beds,
    "without_workup": P.without_workup,
}
KEYS = ("score", "door_to_provider_h", "deaths", "lwbs", "los_h", "boarding_h")


def play(params: P.EDParams, seed: int) -> dict[str, float]:
    """One heuristic episode: score, door-to-provider (h), deaths, LWBS, mean LOS of the visits
    that left treated (h) and mean boarding of admissions (h)."""
    env: Environment = EDEnv("custom", params=params)
    agent = EDHeuristicAgent()
    state = env.reset(seed)
    agent.reset(env, seed)
    while not state.done:
        env.step(state, agent.act(env, state))
    g = env.grade(state)
    hours = params.tick_minutes / 60.0
    stays = [d[1] for d in state.log.departures]  # EDState.log: per-visit records
    boarding = [d[3] for d in state.log.departures if d[2] > 0]
    return {"score": g.score, "door_to_provider_h": g.metrics["door_to_provider_h"],
            "deaths": g.metrics["deaths"], "lwbs": g.metrics["lwbs"],
            "los_h": float(np.mean(stays)) * hours if stays else 0.0,
            "boarding_h": float(np.mean(boarding)) * hours if boarding else 0.0}


def compare(scenario: str, probe: str, seeds: list[int]) -> dict[str, object]:
    base = P.SCENARIOS[scenario]
    on = [play(base, s) for s in seeds]
    off = [play(PROBES[probe](base), s) for s in seeds]
    out: dict[str, object] = {"scenario": scenario, "probe": probe, "episodes": len(seeds)}
    for k in KEYS:
        cmp = paired_compare({s: r[k] for s, r in zip(seeds, off, strict=True)},
                             {s: r[k] for s, r in zip(seeds, on, strict=True)})
        out[k] = {"with": cmp.mean_b, "without": cmp.mean_a, "diff": cmp.mean_diff,
                  "ci": [cmp.ci_low, cmp.ci_high]}
    return out
