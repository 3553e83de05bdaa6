"""Issue 26's acceptance CIs: ``verify_dmexclp − closest_idle`` (score, late fraction, expected
deaths; paired, 30 held-out seeds) on ``advanced``, ``expert``, ``heatwave`` and
``mass_casualty`` of both cities (v4.4: ``results/dispatch/accept_v44.json``; v4.3's run on
the five scenarios it changed is ``accept_v43.json``), JSON on stdout.

    PYTHONPATH=. python bench/dispatch_accept.py [--scenarios a,b] [--episodes 30]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

sys.path.insert(0, "bench")
from dispatch_ladder import ladder

from lifeline.eval.seeds import EVAL_SEED_BASE

ACCEPTANCE = ("advanced", "expert", "heatwave", "mass_casualty", "metro_advanced", "metro_expert",
              "metro_heatwave", "metro_mass_casualty")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=30)
    ap.add_argument("--scenarios", default=",".join(ACCEPTANCE))
    args = ap.parse_args()
    rows = []
    for sc in args.scenarios.split(","):
        t0 = time.process_time()
        row = ladder(sc, args.episodes, EVAL_SEED_BASE, only=("closest_idle", "verify_dmexclp"))
        row["cpu_s"] = time.process_time() - t0
        rows.append(row)
        p = row["paired"]["verify_dmexclp-closest_idle"]  # type: ignore[index]
        print(f"{sc:22s} verify_dmexclp - closest_idle {p['mean']:+.3f} "
              f"[{p['ci_low']:+.3f}, {p['ci_high']:+.3f}] deaths "
              f"{p['expected_fatalities'][0]:+.3f} [{p['expected_fatalities'][1]:+.3f}, "
              f"{p['expected_fatalities'][2]:+.3f}] cpu {row['cpu_s']:.0f}s",
              file=sys.stderr, flush=True)
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
