"""Unit busy fraction (unit-hour utilisation) per dispatch scenario; prints JSON.

Plays ``closest_idle`` (the calibration cards' policy) on training seeds (default 0-9: nothing
here may be tuned on held-out seeds) and reads the busy fraction with the card's own
:class:`lifeline.calibrate.dispatch.Probe` (staffed units committed to a call: en route, on
scene, transporting, at hospital), so the numbers are the card's statistic on other seeds.
Also reports the share of genuine calls held for lack of a free unit and, for the stress
scenarios, the busy fraction in the two hours after a mass-casualty burst (minutes 120-240).
Issue 26 (Dispatch-v4): the evidence for the busy-fraction acceptance item.

    PYTHONPATH=. python bench/dispatch_busy.py [--episodes 10] [--seed-start 0]
        [--scenarios advanced,expert,...|all]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np

from lifeline.calibrate.dispatch import Probe
from lifeline.envs.dispatch.params import SCENARIO_NAMES, DispatchParams

BAND = {"warmup": (0.0, 16.0), "learning": (16.0, 24.0)}
"""Henrico commitment-factor regime per difficulty (the card's); every other: (25, 35)."""


class WindowProbe(Probe):
    """The card's probe, plus the busy unit-minutes inside one window of the shift."""

    def __init__(self, window: tuple[float, float] = (120.0, 240.0)) -> None:
        super().__init__()
        self.window = window
        self.win_busy = 0.0
        self.win_staffed = 0.0

    def on_step(self, env: Any, state: Any) -> None:
        if self._last is not None:
            t0, n_busy = self._last
            t1 = min(float(state.t), self.shift)
            lo, hi = max(t0, self.window[0]), min(t1, self.window[1])
            if hi > lo:
                self.win_busy += n_busy * (hi - lo)
                self.win_staffed += self._in_service * (hi - lo)
        super().on_step(env, state)

    def window_pct(self) -> float:
        """Busy fraction (%) of the units in service inside the window."""
        return 100.0 * self.win_busy / self.win_staffed if self.win_staffed else float("nan")


def busy(scenario: str, seeds: list[int], params: DispatchParams | None = None,
         agent_name: str = "closest_idle") -> dict[str, Any]:
    """Busy fraction (mean, s.d. over episodes), held share and window busy fraction."""
    from lifeline.agents import make_agent
    from lifeline.envs.dispatch.env import DispatchEnv, DispatchMetroEnv

    metro = scenario.startswith("metro_")
    env_name = "dispatch_metro" if metro else "dispatch"
    cls = DispatchMetroEnv if metro else DispatchEnv
    uhu, held, win = [], [], []
    t0 = time.process_time()
    for seed in seeds:
        agent = make_agent(agent_name, env_name)
        env = agent.prepare(cls(scenario, params=params))
        probe = WindowProbe()
        state = env.reset(seed)
        agent.reset(env, seed)
        probe.on_step(env, state)
        while not state.done:
            env.step(state, agent.act(env, state))
            probe.on_step(env, state)
        v = probe.values()
        uhu.append(v["uhu_pct"])
        held.append(v.get("held_pct", float("nan")))
        win.append(probe.window_pct())
    lo, hi = BAND.get(scenario.removeprefix("metro_"), (25.0, 35.0))
    m = float(np.mean(uhu))
    return {"scenario": scenario, "agent": agent_name, "seeds": [seeds[0], seeds[-1]],
            "busy_pct_mean": m, "busy_pct_sd": float(np.std(uhu, ddof=1)) if len(uhu) > 1
            else float("nan"), "busy_pct_min": float(np.min(uhu)),
            "busy_pct_max": float(np.max(uhu)), "band": [lo, hi], "in_band": lo <= m <= hi,
            "held_pct_mean": float(np.nanmean(held)),
            "busy_pct_min120_240": float(np.mean(win)),
            "cpu_s": time.process_time() - t0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=10)
    ap.add_argument("--seed-start", type=int, default=0)
    ap.add_argument("--scenarios", default="all")
    args = ap.parse_args()
    names = SCENARIO_NAMES if args.scenarios == "all" else tuple(args.scenarios.split(","))
    seeds = list(range(args.seed_start, args.seed_start + args.episodes))
    rows = []
    for sc in names:
        row = busy(sc, seeds)
        rows.append(row)
        print(f"{sc:22s} busy {row['busy_pct_mean']:5.1f} % (sd {row['busy_pct_sd']:4.1f}) "
              f"band {row['band']} in={row['in_band']} held {row['held_pct_mean']:4.1f} % "
              f"min120-240 {row['busy_pct_min120_240']:5.1f} % cpu {row['cpu_s']:.0f}s",
              file=sys.stderr, flush=True)
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
