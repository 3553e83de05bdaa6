"""Issue 31: what the projection of ``base_stock`` onto the console loses (validation seeds).

``PYTHONPATH=$PWD python results/pharmacy/projection_check.py SCENARIO [N]`` plays on the first N
(default 10) validation seeds: ``base_stock``, ``base_stock`` without STAT, without the WMS scan,
without transfers, without feedback, and ``base_stock_flat``; prints mean score and harm units
and the paired mean difference to ``base_stock``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from lifeline.envs.pharmacy import baselines as b
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.flat_reference import FlatBaseStockAgent
from lifeline.envs.pharmacy.types import WmsScanInventory
from lifeline.eval.seeds import validation_seeds


class NoWms(b.BaseStockAgent):
    """``base_stock`` that never scans: its position reads the ERP's stock (one round stale)."""

    def phase(self, env: PharmacyEnv, state: Any, k: int) -> Any:
        out = super().phase(env, state, k)
        return None if out is None else [a for a in out if not isinstance(a, WmsScanInventory)]


def run(env: PharmacyEnv, make: Callable[[], Any], n: int) -> tuple[np.ndarray, np.ndarray]:
    scores, harm = [], []
    for seed in validation_seeds(n):
        agent = make()
        state = env.reset(seed)
        agent.reset(env, seed)
        while not state.done:
            env.step(state, agent.act(env, state))
        grade = env.grade(state)
        scores.append(grade.score)
        harm.append(grade.metrics["harm_units"])
    return np.array(scores), np.array(harm)


def main() -> None:
    scenario = sys.argv[1] if len(sys.argv) > 1 else "light"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    env = PharmacyEnv(scenario)

    def variant(**kw: Any) -> Callable[[], Any]:
        return lambda: type("Variant", (b.BaseStockAgent,), kw)()

    base_s, base_h = run(env, b.BaseStockAgent, n)
    print(f"base_stock {base_s.mean():.4f} harm {base_h.mean():.2f}")
    for name, make in [("no_stat", variant(stat_rule="never")), ("no_wms", NoWms),
                       ("no_transfers", variant(use_transfers=False)),
                       ("no_feedback", variant(feedback=False)),
                       ("base_stock_flat", FlatBaseStockAgent)]:
        s, h = run(env, make, n)
        print(f"{name} {s.mean():.4f} harm {h.mean():.2f} diff {(s - base_s).mean():+.4f} "
              f"harm diff {(h - base_h).mean():+.2f}")


if __name__ == "__main__":
    main()
