"""Variants of the ED heuristic's ``expedite`` rule (stop 37), paired on the same seeds
across the six ED-v3 scenarios.

``python bench/ed_expedite_variants.py [--seeds training|validation] [--episodes 60]
[--variants a,b,...] [--json PATH]`` prints JSON: per variant and scenario the mean paired score
gain over the *old* reference recipe (``old``: expedite before make_room/admit, any lower ESI
ahead of the front order) with its 95 % normal half-width, the paired deaths difference, and
the expedites and clock-advancing expedites (the tick's K-th decision) per episode; plus the
mean gain over the six scenarios (per seed, the mean of its six paired gains) and the same against
variant ``a_none`` (no expedite at all), which every run plays.

Training seeds are ``0..episodes-1``; validation seeds ``900_000...``. Never the held-out ones.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

import numpy as np

from lifeline.core.env import Action
from lifeline.envs.ed import kernel_v3 as K
from lifeline.envs.ed.baselines import _ESI, _IMG_POS, EDHeuristicAgent
from lifeline.envs.ed.params import SCENARIOS
from lifeline.envs.ed.rules import Layout
from lifeline.envs.ed.types import ExpediteGeneral, ExpediteICU, Wait
from lifeline.eval.seeds import validation_seeds
from lifeline.train.ed.clone import heuristic_labels
from lifeline.train.ed.vec import EDv3Vec


def _orders(gen: np.ndarray, icu: np.ndarray) -> list[tuple[float, float, str, int]]:
    return [(float(beds[b, _ESI]), float(beds[b, _IMG_POS]), ward, int(b))
            for ward, beds in (("icu", icu), ("general", gen))
            for b in np.flatnonzero(beds[:, _IMG_POS] > 0)]


def _expedite_if(gen: np.ndarray, icu: np.ndarray, ok: Callable[[float, float], bool],
                 least_urgent: bool = False) -> Action | None:
    """Most urgent order ahead of a less urgent front (``least_urgent``: the least urgent
    order ahead of a more urgent front), if ``ok(chosen ESI, front ESI)``."""
    rows = _orders(gen, icu)
    if len(rows) < 2:
        return None
    front = min(rows, key=lambda r: r[1])
    sign = -1.0 if least_urgent else 1.0
    best = min(rows, key=lambda r: (sign * r[0], r[1]))
    if sign * best[0] >= sign * front[0] or not ok(best[0], front[0]):
        return None
    return ExpediteICU(bed=best[3]) if best[2] == "icu" else ExpediteGeneral(bed=best[3])


class Variant(EDHeuristicAgent):
    """The heuristic's recipe with the expedite rule at ``position`` ("before_admit": the old
    place; "after_admit": only when nothing else applies; None: no expedite) and fired only when
    ``ok(best ESI, front ESI)``."""

    def __init__(self, name: str, position: str | None,
                 ok: Callable[[float, float], bool] = lambda best, front: True,
                 least_urgent: bool = False, beds_full: bool = False) -> None:
        self.name, self.position, self.ok = name, position, ok
        self.least_urgent, self.beds_full = least_urgent, beds_full
        self._queue: np.ndarray | None = None

    def expedite(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        if self.beds_full and self._queue is not None and not (
                self._queue[0, _ESI] > 0 and not (gen[:, _ESI] == 0).any()):
            return None
        return _expedite_if(gen, icu, self.ok, self.least_urgent)

    def decide(self, obs: dict[str, np.ndarray]) -> Action:
        gen, icu, queue = obs["general_beds"], obs["icu_beds"], obs["queue"]
        self._queue = queue
        rules: list[Callable[[], Action | None]] = [
            lambda: self.discharge(gen, icu), lambda: self.ventilate(icu, obs),
            lambda: self.transfer(gen, icu), lambda: self.see(gen, icu, obs)]
        tail: list[Callable[[], Action | None]] = [
            lambda: self.make_room(gen, icu, queue), lambda: self.admit(gen, icu, queue)]
        exp: list[Callable[[], Action | None]] = [lambda: self.expedite(gen, icu)]
        if self.position == "before_admit":
            rules += exp + tail
        elif self.position == "after_admit":
            rules += tail + exp
        else:
            rules += tail
        for propose in rules:
            action = propose()
            if action is not None:
                return action
        return Wait()


VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant("old", "before_admit"),
    Variant("a_none", None),
    Variant("b_after_admit", "after_admit"),
    Variant("c_esi12_over_4", "before_admit", lambda b, f: b <= 2 and f >= 4),
    Variant("c_after_admit", "after_admit", lambda b, f: b <= 2 and f >= 4),
    Variant("d_esi12_over_3", "before_admit", lambda b, f: b <= 2 and f >= 3),
    Variant("d_after_admit_esi12_over_3", "after_admit", lambda b, f: b <= 2 and f >= 3),
    Variant("d_esi1_only", "before_admit", lambda b, f: b <= 1),
    Variant("d_after_admit_esi1", "after_admit", lambda b, f: b <= 1),
    Variant("d_gap2", "before_admit", lambda b, f: f - b >= 2),
    Variant("d_after_admit_gap2", "after_admit", lambda b, f: f - b >= 2),
    # bed turnover: an order of a patient likely to go home (ESI 4-5) first
    Variant("e_home_first", "before_admit", lambda b, f: b >= 4, least_urgent=True),
    Variant("e_home_first_full", "before_admit", lambda b, f: b >= 4, least_urgent=True,
            beds_full=True),
    Variant("e_home_first_over_12_full", "before_admit", lambda b, f: b >= 4 and f <= 2,
            least_urgent=True, beds_full=True),
    Variant("e_home_first_after_admit", "after_admit", lambda b, f: b >= 4,
            least_urgent=True),
    Variant("e_esi345_first", "before_admit", lambda b, f: b >= 3, least_urgent=True),
    Variant("e_home_first_over_123", "before_admit", lambda b, f: b >= 4 and f <= 3,
            least_urgent=True),
    Variant("e_least_urgent", "before_admit", least_urgent=True),
    Variant("e_least_urgent_full", "before_admit", least_urgent=True, beds_full=True),
)}


METRICS = ("lwbs", "avg_wait_h", "treated", "deteriorations", "door_to_provider_h",
           "still_waiting")
"""Grade metrics whose paired differences explain a score difference."""


def play(agent: EDHeuristicAgent, scenario: str, seeds: list[int]) -> dict[str, np.ndarray]:
    """Scores, deaths, expedites and clock-advancing expedites per seed (batch kernel)."""
    venv = EDv3Vec(len(seeds), scenario)
    obs = venv.reset(seeds)
    layout = Layout(venv.params)
    lo = layout.offsets["expedite_general"]
    hi = layout.offsets["expedite_icu"] + layout.sizes["expedite_icu"]
    k = venv.params.actions_per_tick
    n = len(seeds)
    out = {key: np.zeros(n) for key in ("score", "deaths", "expedites", "expedites_kth",
                                        *METRICS)}
    out["score"][:] = np.nan
    rows = np.arange(n)
    while np.isnan(out["score"]).any():
        action = np.zeros(n, dtype=np.int64)
        live = rows[~venv.finished]
        action[live] = heuristic_labels(agent, obs, layout, live)
        exp = live[(action[live] >= lo) & (action[live] < hi)]
        out["expedites"][exp] += 1
        out["expedites_kth"][exp] += venv.batch.st.S[exp, K.S_ACT] == k - 1
        obs, _, _, _, score = venv.step(action)
        for i in np.flatnonzero(~np.isnan(score)):
            out["score"][i] = score[i]
            metrics = venv.batch.grade(int(i)).metrics
            out["deaths"][i] = metrics["deaths"]
            for key in METRICS:
                out[key][i] = metrics[key]
    return out


def _ci(diff: np.ndarray) -> tuple[float, float]:
    return float(diff.mean()), float(1.96 * diff.std(ddof=1) / np.sqrt(len(diff)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", choices=("training", "validation"), default="training")
    ap.add_argument("--episodes", type=int, default=60)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    seeds = (list(range(args.episodes)) if args.seeds == "training"
             else validation_seeds(args.episodes))
    names = [v for v in args.variants.split(",") if v not in ("old", "a_none")]
    names = ["a_none", *names]
    played = {s: {v: play(VARIANTS[v], s, seeds) for v in ["old", *names]} for s in SCENARIOS}
    report: dict[str, object] = {"seeds": f"{args.seeds} {seeds[0]}..{seeds[-1]}",
                                 "episodes": args.episodes, "reference": "old",
                                 "old": {s: {"score": float(played[s]["old"]["score"].mean()),
                                             "deaths": float(played[s]["old"]["deaths"].mean()),
                                             "expedites": float(
                                                 played[s]["old"]["expedites"].mean()),
                                             "expedites_kth": float(
                                                 played[s]["old"]["expedites_kth"].mean())}
                                         for s in SCENARIOS}}
    for v in names:
        rows: dict[str, object] = {}
        gains, dd = [], []
        for s in SCENARIOS:
            ref, got = played[s]["old"], played[s][v]
            diff = got["score"] - ref["score"]
            ddiff = got["deaths"] - ref["deaths"]
            gains.append(diff)
            dd.append(ddiff)
            g, h = _ci(diff)
            d, dh = _ci(ddiff)
            rows[s] = {"gain": g, "ci_half_width": h, "deaths_diff": d, "deaths_ci": dh,
                       "wins": int((diff > 0).sum()), "losses": int((diff < 0).sum()),
                       "expedites": float(got["expedites"].mean()),
                       "expedites_kth": float(got["expedites_kth"].mean()),
                       "metric_diffs": {m: float((got[m] - ref[m]).mean()) for m in METRICS}}
        g, h = _ci(np.mean(gains, axis=0))
        d, dh = _ci(np.sum(dd, axis=0))
        rows["all_six"] = {"gain": g, "ci_half_width": h, "deaths_diff_sum": d, "deaths_ci": dh}
        if v != "a_none":  # against no expedite at all (variant a)
            diff = np.mean([played[s][v]["score"] - played[s]["a_none"]["score"]
                            for s in SCENARIOS], axis=0)
            ddiff = np.sum([played[s][v]["deaths"] - played[s]["a_none"]["deaths"]
                            for s in SCENARIOS], axis=0)
            g, h = _ci(diff)
            d, dh = _ci(ddiff)
            rows["all_six_vs_a_none"] = {"gain": g, "ci_half_width": h, "deaths_diff_sum": d,
                                         "deaths_ci": dh}
        report[v] = rows
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
