"""Mechanic sensitivity of the ``ed`` environment, printed as JSON.

Every number is a paired comparison on the same held-out seeds (the exploit suite's range, never
used for training or the published evaluation), mean difference with a 95% bootstrap CI:

* ``ventilators``: the heuristic's score on ``ventilator_crisis`` with and without any
  ventilator need (the issue asks for a change of at least 0.03);
* ``mistriage``: at 0 / 10 / 30 % mis-triage, the heuristic (re-triages: acts on the acuity a
  bed reveals) against ``ignore_retriage`` (acts on the triage acuity seen at admission), on
  ``MISTRIAGE_SCENARIOS``;
* ``conditions``: the heuristic with the condition profiles and with conditions as labels only;
* ``invalid_spam``: invalid-spam minus noop per scenario (must be <= 0);
* ``exploits``: every exploit policy minus the heuristic, per scenario (score and deaths).

Usage: ``python bench/ed_mechanics.py [--episodes 30] [--scenarios a,b] [--out file.json]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from typing import Any

import lifeline
from lifeline.agents import make_agent
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.params import (
    SCENARIOS,
    EDParams,
    neutral_conditions,
    without_ventilator_need,
)
from lifeline.eval.stats import paired_compare
from lifeline.testing.exploits import EXPLOIT_SEED_BASE


def play(params: EDParams, agent_name: str, seeds: list[int],
         scenario: str = "custom") -> dict[int, dict[str, Any]]:
    """Grade ``agent_name`` on ``params`` for each seed: ``{seed: {"score", "deaths", ...}}``."""
    base = EDEnv(scenario, params=params)
    agent = make_agent(agent_name, "ed")
    env = agent.prepare(base)
    out = {}
    for seed in seeds:
        state = env.reset(seed)
        agent.reset(env, seed)
        while not state.done:
            env.step(state, agent.act(env, state))
        g = env.grade(state)
        out[seed] = {"score": g.score, "deaths": g.metrics["deaths"], "harm": g.metrics["harm"]}
    return out


def _pair(a: dict[int, dict[str, Any]], b: dict[int, dict[str, Any]], key: str) -> dict[str, Any]:
    c = paired_compare({s: r[key] for s, r in a.items()}, {s: r[key] for s, r in b.items()})
    return {"diff": round(c.mean_diff, 4), "ci": [round(c.ci_low, 4), round(c.ci_high, 4)]}


def _mean(runs: dict[int, dict[str, Any]], key: str) -> float:
    return round(sum(r[key] for r in runs.values()) / len(runs), 4)


def ventilators(seeds: list[int]) -> dict[str, Any]:
    params = SCENARIOS["ventilator_crisis"]
    with_need = play(params, "heuristic", seeds)
    without = play(without_ventilator_need(params), "heuristic", seeds)
    return {"heuristic_score": _mean(with_need, "score"),
            "heuristic_score_without_ventilator_need": _mean(without, "score"),
            "without_minus_with": _pair(without, with_need, "score"),
            "deaths_with": _mean(with_need, "deaths"), "deaths_without": _mean(without, "deaths")}


MISTRIAGE_SCENARIOS = ("ventilator_crisis", "mass_casualty", "surge")
"""Where re-triage can act (ICU beds come free) and where it cannot (surge: the ICU is full)."""


def mistriage(seeds: list[int], scenario: str = "surge") -> dict[str, Any]:
    out: dict[str, Any] = {"scenario": scenario}
    for rate in (0.0, 0.1, 0.3):
        params = replace(SCENARIOS[scenario], mistriage_prob=rate)
        retriage = play(params, "heuristic", seeds)
        ignore = play(params, "ignore_retriage", seeds)
        out[f"{round(100 * rate)}%"] = {
            "retriage_score": _mean(retriage, "score"), "ignore_score": _mean(ignore, "score"),
            "retriage_minus_ignore": _pair(retriage, ignore, "score"),
            "deaths_ignore_minus_retriage": _pair(ignore, retriage, "deaths")}
    return out


def conditions(seeds: list[int], scenario: str = "normal_day") -> dict[str, Any]:
    params = SCENARIOS[scenario]
    profiled = play(params, "heuristic", seeds)
    labels = play(neutral_conditions(params), "heuristic", seeds)
    return {"scenario": scenario, "heuristic_score": _mean(profiled, "score"),
            "heuristic_score_labels_only": _mean(labels, "score"),
            "profiled_minus_labels_only": _pair(profiled, labels, "score")}


def per_scenario(seeds: list[int], scenarios: list[str]) -> dict[str, Any]:
    exploits = lifeline.spec("ed").exploits
    out: dict[str, Any] = {}
    for scenario in scenarios:
        params = SCENARIOS[scenario]
        runs = {name: play(params, name, seeds, scenario)
                for name in ("noop", "invalid_spam", "heuristic", *exploits)}
        heur = runs["heuristic"]
        out[scenario] = {
            "heuristic": {"score": _mean(heur, "score"), "deaths": _mean(heur, "deaths")},
            "invalid_spam_minus_noop": _pair(runs["invalid_spam"], runs["noop"], "score"),
            "exploits": {name: {"score": _mean(runs[name], "score"),
                                "deaths": _mean(runs[name], "deaths"),
                                "score_minus_heuristic": _pair(runs[name], heur, "score"),
                                "deaths_minus_heuristic": _pair(runs[name], heur, "deaths")}
                         for name in exploits}}
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--scenarios", default=",".join(lifeline.spec("ed").scenarios))
    parser.add_argument("--out", default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    seeds = list(range(EXPLOIT_SEED_BASE, EXPLOIT_SEED_BASE + args.episodes))
    start = time.perf_counter()
    result = {"env": "ed", "version": EDEnv.version, "episodes": args.episodes,
              "seeds": [seeds[0], seeds[-1]],
              "ventilators": ventilators(seeds),
              "mistriage": [mistriage(seeds, s) for s in MISTRIAGE_SCENARIOS],
              "conditions": conditions(seeds),
              "scenarios": per_scenario(seeds, args.scenarios.split(","))}
    result["wall_s"] = round(time.perf_counter() - start, 1)
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    print(text)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
