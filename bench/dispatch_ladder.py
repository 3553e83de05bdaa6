"""Dispatch baseline ladder on paired seeds; prints JSON (and a table on stderr).

For each scenario: mean score ± 95% CI per agent over the same seeds, the paired differences
between neighbouring rungs (mean ± 95% CI of the per-seed difference), the margins of the
hidden-information probes over closest-idle (``oracle``: knows true severity and fake calls;
``verify_then_dispatch``: observation only; ``verify_dmexclp``: verification plus DMEXCLP,
against ``dmexclp`` and ``verify_then_dispatch`` too), and the late-arrival ratio
closest_idle / bound (the literature reports about 2.7 for closest-idle against the offline
optimum; Jagtenberg et al., EJOR 2017). ``metro_*`` scenarios run on the ``dispatch_metro``
environment.

    PYTHONPATH=. python bench/dispatch_ladder.py [--episodes 30] [--scenarios warmup,...|all]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys

import numpy as np

from lifeline.eval.harness import evaluate
from lifeline.eval.seeds import EVAL_SEED_BASE
from lifeline.eval.stats import mean_ci, paired_compare

LADDER = ("hold", "random", "closest_idle", "dmexclp", "bound")
PROBES = ("oracle", "verify_then_dispatch", "dmexclp_static", "verify_dmexclp")


def ladder(scenario: str, episodes: int, seed_start: int,
           only: tuple[str, ...] | None = None) -> dict[str, object]:
    """Scores, paired differences and late ratios of the ladder on one scenario (``only``: just
    these agents, and the pairs among them)."""
    env = "dispatch_metro" if scenario.startswith("metro_") else "dispatch"
    names = (*LADDER, *PROBES) if only is None else only
    res = evaluate(env, names, [scenario], episodes=episodes, seed_start=seed_start)
    by: dict[str, dict[int, dict]] = {}
    for r in res["records"]:
        by.setdefault(r["agent"], {})[r["seed"]] = r
    seeds = sorted(by[names[0]])
    out: dict[str, object] = {"env": env, "scenario": scenario, "episodes": episodes,
                              "seeds": [seeds[0], seeds[-1]], "agents": {}, "paired": {}}
    for a in names:
        m = mean_ci([by[a][s]["score"] for s in seeds])
        late = float(np.mean([by[a][s]["metrics"]["late_fraction"] for s in seeds]))
        p90 = float(np.mean([by[a][s]["metrics"]["p90_response_min"] for s in seeds]))
        deaths = float(np.mean([by[a][s]["metrics"]["expected_fatalities"] for s in seeds]))
        by_prio = {f"expected_fatalities_p{k}": float(np.mean(
            [by[a][s]["metrics"].get(f"expected_fatalities_p{k}", np.nan) for s in seeds]))
            for k in (1, 2, 3)}
        comps = {c: float(np.mean([by[a][s]["components"][c] for s in seeds]))
                 for c in by[a][seeds[0]].get("components", {})}
        out["agents"][a] = {"mean": m.mean, "ci_low": m.ci_low, "ci_high": m.ci_high,  # type: ignore[index]
                            "late_fraction": late, "p90_response_min": p90,
                            "expected_fatalities": deaths, **by_prio, "components": comps}
    pairs = [*itertools.pairwise(LADDER), *(("closest_idle", p) for p in PROBES),
             ("dmexclp_static", "dmexclp"), ("dmexclp", "verify_dmexclp"),
             ("verify_then_dispatch", "verify_dmexclp"), ("verify_dmexclp", "bound")]
    for lo_a, hi_a in pairs:
        if lo_a not in names or hi_a not in names:
            continue
        c = paired_compare({s: by[hi_a][s]["score"] for s in seeds},
                           {s: by[lo_a][s]["score"] for s in seeds})
        late_c = paired_compare({s: by[hi_a][s]["metrics"]["late_fraction"] for s in seeds},
                                {s: by[lo_a][s]["metrics"]["late_fraction"] for s in seeds})
        harm = paired_compare({s: by[hi_a][s]["metrics"]["expected_fatalities"] for s in seeds},
                              {s: by[lo_a][s]["metrics"]["expected_fatalities"] for s in seeds})
        out["paired"][f"{hi_a}-{lo_a}"] = {"mean": c.mean_diff, "ci_low": c.ci_low,  # type: ignore[index]
                                           "ci_high": c.ci_high, "wilcoxon_p": c.wilcoxon_p,
                                           "late_fraction": [late_c.mean_diff, late_c.ci_low,
                                                             late_c.ci_high],
                                           "expected_fatalities": [harm.mean_diff, harm.ci_low,
                                                                   harm.ci_high]}
    ag = out["agents"]
    if "bound" not in ag or "closest_idle" not in ag:  # type: ignore[operator]
        return out
    bound_late = ag["bound"]["late_fraction"]  # type: ignore[index]
    out["late_ratio_closest_idle_over_bound"] = (
        ag["closest_idle"]["late_fraction"] / bound_late if bound_late > 0 else None)  # type: ignore[index]
    return out


def merge(path: str, agents: tuple[str, ...], episodes: int, seed_start: int,
          scenarios: str) -> None:
    """Re-run ``agents`` on the scenarios of results file ``path`` and update it in place: the
    first agent's row and every pair among ``agents`` are replaced; the other agents are
    unchanged policies and must reproduce their stored means to 1e-9."""
    with open(path) as f:
        rows = json.load(f)
    keep = None if scenarios == "all" else set(scenarios.split(","))
    for row in rows:
        if keep is not None and row["scenario"] not in keep:
            continue
        new = ladder(row["scenario"], episodes, seed_start, only=agents)
        for a in agents[1:]:
            old, got = row["agents"][a]["mean"], new["agents"][a]["mean"]  # type: ignore[index]
            if abs(old - got) > 1e-9:
                raise SystemExit(f"{row['scenario']}: {a} scored {got} against stored {old}")
        row["agents"][agents[0]] = new["agents"][agents[0]]  # type: ignore[index]
        row["paired"].update(new["paired"])
        p = row["paired"][f"{agents[0]}-closest_idle"]
        print(f"{row['scenario']:22s} {agents[0]} - closest_idle {p['mean']:+.3f} "
              f"[{p['ci_low']:+.3f}, {p['ci_high']:+.3f}]", file=sys.stderr, flush=True)
        with open(path, "w") as f:
            json.dump(rows, f, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=30)
    ap.add_argument("--scenarios", default="all",
                    help="comma-separated scenario names, or 'all' (both cities)")
    ap.add_argument("--seed-start", type=int, default=EVAL_SEED_BASE)
    ap.add_argument("--rerun", default="",
                    help="comma-separated agents to re-run; with --merge, their rows and the "
                         "pairs among them replace those in the given results file, and every "
                         "other re-run agent must reproduce its stored mean (a determinism check)")
    ap.add_argument("--merge", default="", help="results JSON to update in place (--rerun)")
    args = ap.parse_args()
    if args.rerun:
        merge(args.merge, tuple(args.rerun.split(",")), args.episodes, args.seed_start,
              args.scenarios)
        return
    rows = []
    names = args.scenarios.split(",")
    if names == ["all"]:
        from lifeline.core.registry import spec

        names = [*spec("dispatch").scenarios, *spec("dispatch_metro").scenarios]
    for sc in names:
        row = ladder(sc, args.episodes, args.seed_start)
        rows.append(row)
        for a, v in row["agents"].items():  # type: ignore[attr-defined]
            print(f"{sc:22s} {a:13s} {v['mean']:.3f} [{v['ci_low']:.3f}, {v['ci_high']:.3f}] "
                  f"late {v['late_fraction']:.3f}", file=sys.stderr)
        for k, v in row["paired"].items():  # type: ignore[attr-defined]
            print(f"{sc:22s} {k:26s} {v['mean']:+.3f} [{v['ci_low']:+.3f}, {v['ci_high']:+.3f}]",
                  file=sys.stderr)
        print(f"{sc:22s} late ratio closest/bound {row['late_ratio_closest_idle_over_bound']}",
              file=sys.stderr, flush=True)
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
