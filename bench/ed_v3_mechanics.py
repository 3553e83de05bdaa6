"""ED-v3 mechanic sensitivity (``bench/ed_sensitivity.py``) on the exploit seed range.

Seeds ``1_500_000 + i`` (never the held-out evaluation seeds). Writes
``results/ed/mechanics_v3.json``.

    python bench/ed_v3_mechanics.py --episodes 30
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ed_sensitivity import PROBES, compare  # bench/ed_sensitivity.py, beside this script

from lifeline.envs.ed.env import EDEnv
from lifeline.testing.exploits import EXPLOIT_SEED_BASE


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
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
