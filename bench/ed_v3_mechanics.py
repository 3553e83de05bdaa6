"""ED-v3 mechanic sensitivity: the heuristic with each v3 mechanic switched off, on paired seeds.

For each scenario and probe (``unlimited_physicians``, ``no_imaging_queue``,
``unlimited_inpatient_beds``, ``without_workup`` from ``lifeline.envs.ed.params``) it plays the
heuristic on the same seeds with and without the mechanic and reports the paired difference of
the score, door-to-provider, deaths, LWBS, the mean length of stay and the mean boarding time
of admissions, with bootstrap 95% CIs
(``lifeline.eval.stats.paired_compare``). Seeds: the exploit range ``1_500_000 + i`` (never the
held-out evaluation seeds). Writes ``results/ed/mechanics_v3.json``.

    python bench/ed_v3_mechanics.py --episodes 30
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from lifeline.core.env import Environment
from lifeline.envs.ed import params as P
from lifeline.envs.ed.baselines import EDHeuristicAgent
from lifeline.envs.ed.env import EDEnv
from lifeline.eval.stats import paired_compare
from lifeline.testing.exploits import EXPLOIT_SEED_BASE

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--episodes", type=int, default=30)
    ap.add_argument("--scenarios", default="normal_day,surge")
    ap.add_argument("--out", default="results/ed/mechanics_v3.json")
    args = ap.parse_args()
    seeds = [EXPLOIT_SEED_BASE + i for i in range(args.episodes)]
    rows = [compare(sc, probe, seeds) for sc in args.scenarios.split(",") for probe in PROBES]
    Path(args.out).write_text(json.dumps({"env": "ed", "version": EDEnv.version,
                                          "episodes": args.episodes, "rows": rows}, indent=1))
    for r in rows:
        s, d = r["score"], r["door_to_provider_h"]
        print(f"{r['scenario']:12s} {r['probe']:26s} score {s['with']:.4f} -> {s['without']:.4f} "  # type: ignore[index]
              f"({s['diff']:+.4f} [{s['ci'][0]:+.4f}, {s['ci'][1]:+.4f}]); d2p "  # type: ignore[index]
              f"{d['with']:.2f} -> {d['without']:.2f} h")  # type: ignore[index]


if __name__ == "__main__":
    main()
