"""Observation-only improvement probes of codered's reference heuristic (issue 24).

Each probe is the heuristic with one knob moved (``HeuristicAgent`` class attributes) or one v3
rule switched back to v2's; played on paired seeds against the heuristic, it shows whether an
obvious rule change still beats the reference (the acceptance: by no more than 0.005) and what
each folded-in rule is worth. The knobs were tuned on training seeds 0-39; the held-out seeds
(1,000,000 + i) are only for the final comparison::

    PYTHONPATH=. python bench/codered_probes.py --episodes 30 \\
        --json results/codered/codered_probes_knobs.json
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from lifeline.envs.codered.env import CodeRedEnv
from lifeline.envs.codered.params import SCENARIOS
from lifeline.eval.stats import paired_compare

PROBES: dict[str, dict[str, Any]] = {
    "als_window=0": {"als_window": 0.0},
    "als_window=10 (v2)": {"als_window": 10.0},
    "no spare-ALS rule (v3 first cut)": {"als_if_spare": False},
    "load_cost=0": {"load_cost": 0.0},
    "load_cost=25 (v3 first cut)": {"load_cost": 25.0},
    "load_cost=60": {"load_cost": 60.0},
    "callback_below=0 (never call back)": {"callback_below": 0.0},
    "callback_below=0.8": {"callback_below": 0.8},
    "callbacks also with a free unit (v2)": {"callback_busy_only": False},
    "hinted minor calls closed (v2)": {"minor_self": False},
    "no pre-alerts during work-up (v2)": {"alert_in_hospital": False},
    "O- for cardiac patients (v2)": {"cardiac_blood": True},
    "O- only for shock (need >= 4)": {"oneg_min_need": 4},
    "aid at 2 waiting (v2)": {"aid_gap": 2},
    "aid at 3 waiting": {"aid_gap": 3},
    "never request aid": {"aid": False},
}
"""Probe name -> heuristic knobs it changes."""

MECHANICS: dict[str, tuple[dict[str, Any], str]] = {
    "invalid actions cost score": ({"invalid_score": 0.0}, "invalid_padding"),
    "re-assignment costs crew time": ({"reassign_min": 0.0}, "churn"),
    "transferred blood is waste until used": ({"transfer_waste": 0.0}, "blood_shuttle"),
    "pre-alert saves 26 min": ({"prealert": False}, "dispatch_only"),
    "shock-only trauma penalty": ({"mech_shock": False}, "heuristic"),
    "sourced outcome tables": ({"sourced_outcome": False}, "dispatch_only"),
    "typing from the hospital sample": ({"hospital_typing": False}, "oneg_everything"),
}
"""v3 mechanic -> (params that switch it off, the agent it is measured on besides the
heuristic)."""


def play(scenario: str, knobs: dict[str, Any], seeds: range, agent_name: str = "heuristic",
         params: dict[str, Any] | None = None) -> list[tuple[float, float]]:
    """(score, harm) of ``agent_name`` with ``knobs`` on each seed (``params``: fields of the
    scenario's parameters replaced, e.g. a mechanic switched off)."""
    from dataclasses import replace

    from lifeline.agents import make_agent

    env = CodeRedEnv(scenario, params=replace(SCENARIOS[scenario], **(params or {})))
    out = []
    for seed in seeds:
        agent = make_agent(agent_name, "codered")
        for k, v in knobs.items():
            setattr(agent, k, v)
        agent.reset(env, seed)
        s = env.reset(seed)
        while not s.done:
            env.step(s, agent.act(env, s))  # type: ignore[arg-type]
        g = env.grade(s)
        out.append((g.score, g.metrics["harm"]))
    return out


def _mean(x: list[tuple[float, float]], k: int) -> float:
    return float(np.mean([r[k] for r in x]))


def mechanics(seeds: range, only: str = "") -> list[dict[str, Any]]:
    """Mean score of the heuristic and of each mechanic's probe with the mechanic on and off
    (``only``: just the mechanics whose name contains it)."""
    rows = []
    for sc in SCENARIOS:
        for name, (off, probe) in MECHANICS.items():
            if only not in name:
                continue
            row: dict[str, Any] = {"scenario": sc, "mechanic": name, "off": off}
            for agent in dict.fromkeys(("heuristic", probe)):
                on_r, off_r = play(sc, {}, seeds, agent), play(sc, {}, seeds, agent, off)
                row[agent] = {"on": _mean(on_r, 0), "off": _mean(off_r, 0),
                              "harm_on": _mean(on_r, 1), "harm_off": _mean(off_r, 1)}
            rows.append(row)
            print(sc, name, {k: v for k, v in row.items() if isinstance(v, dict)
                             and "on" in v}, flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=30)
    ap.add_argument("--seed-start", type=int, default=1_000_000)
    ap.add_argument("--json", default="")
    ap.add_argument("--mechanics", action="store_true",
                    help="measure each v3 mechanic switched off instead (heuristic and probe)")
    ap.add_argument("--only", default="", help="with --mechanics: names containing this")
    args = ap.parse_args()
    seeds = range(args.seed_start, args.seed_start + args.episodes)
    t0 = time.time()
    rows = []
    if args.mechanics:
        rows = mechanics(seeds, args.only)
    for sc in SCENARIOS if not args.mechanics else ():
        base = play(sc, {}, seeds)
        for name, knobs in PROBES.items():
            r = play(sc, knobs, seeds)
            ds = paired_compare({k: x[0] for k, x in zip(seeds, r, strict=True)},
                                {k: x[0] for k, x in zip(seeds, base, strict=True)})
            dh = paired_compare({k: x[1] for k, x in zip(seeds, r, strict=True)},
                                {k: x[1] for k, x in zip(seeds, base, strict=True)})
            rows.append({"scenario": sc, "probe": name, "knobs": knobs,
                         "heuristic": float(np.mean([x[0] for x in base])),
                         "score": float(np.mean([x[0] for x in r])),
                         "d_score": [ds.mean_diff, ds.ci_low, ds.ci_high],
                         "d_harm": [dh.mean_diff, dh.ci_low, dh.ci_high]})
            print(f"{sc:15s} {name:38s} d_score {ds.mean_diff:+.4f} [{ds.ci_low:+.4f}, "
                  f"{ds.ci_high:+.4f}]  d_harm {dh.mean_diff:+.2f}", flush=True)
    out = {"seeds": [seeds.start, seeds.stop - 1], "rows": rows, "wall_s": time.time() - t0}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
