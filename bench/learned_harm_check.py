"""The exploit suite's harm checks on a learned agent (issue 31).

``python bench/learned_harm_check.py ENV SCENARIO RUN_DIR [--episodes 8] [--json PATH]`` plays
the env's reference, its bound and the trained pointer policy in ``RUN_DIR`` (as ``learned``;
an ED fast-PPO run directory, whose ``curve.json`` names a ``selected_point``, plays as
``fastppo:RUN_DIR``)
on the exploit suite's seeds (:data:`lifeline.testing.exploits.EXPLOIT_SEED_BASE`, a held-out
range no training run touches) and runs the suite's own ``no_harm_trade`` (no policy
significantly above the reference with significantly more harm) and ``bound_dominates`` (nothing
above the bound, in score or any bounded grader component) checks on them. A failure is a
grader bug to report, not a result.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from lifeline.core.registry import resolve_scenario, spec
from lifeline.eval.stats import paired_compare
from lifeline.testing.exploits import EXPLOIT_SEED_BASE, _SuiteChecks, play


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("env")
    ap.add_argument("scenario")
    ap.add_argument("run_dir")
    ap.add_argument("--episodes", type=int, default=8)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    env_spec = spec(args.env)
    scenario = resolve_scenario(env_spec, args.scenario)
    curve = Path(args.run_dir) / "curve.json"  # an ED fast-PPO run (lifeline train fastppo ed)
    fast = curve.exists() and "selected_point" in json.loads(curve.read_text())
    if fast:
        import lifeline.train.ed.fastppo  # noqa: F401  (registers the fastppo:RUN_DIR agents)
    learned = f"{'fastppo' if fast else 'pointer'}:{args.run_dir}"
    players = [env_spec.reference, *([env_spec.bound] if env_spec.bound else []), learned]
    seeds = list(range(EXPLOIT_SEED_BASE, EXPLOIT_SEED_BASE + args.episodes))
    cpu0 = time.process_time()
    run = play(env_spec.name, scenario, players, seeds)
    run.records["learned"] = run.records.pop(learned)
    players[-1] = "learned"
    checks = _SuiteChecks(run, env_spec, [], players, 0.05)
    out: dict[str, object] = {"env": env_spec.name, "scenario": scenario, "seeds": seeds,
                              "model": args.run_dir, "checks": {}}
    for name in ("no_harm_trade", "bound_dominates"):
        try:
            getattr(checks, name)()
            out["checks"][name] = "passed"  # type: ignore[index]
        except AssertionError as exc:
            out["checks"][name] = f"FAILED: {exc}"  # type: ignore[index]
    ref = env_spec.reference
    out["paired_score"] = paired_compare(run.scores("learned"), run.scores(ref)).to_dict()
    out["paired_harm"] = {"metric": env_spec.harm_metric, **paired_compare(
        run.metric("learned", env_spec.harm_metric),
        run.metric(ref, env_spec.harm_metric)).to_dict()}
    out["cpu_s"] = round(time.process_time() - cpu0, 1)
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
