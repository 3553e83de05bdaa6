"""Training-loop helpers that choose the *next* episode: a curriculum and an adversarial designer.

Both are explicit objects owned by the training loop. They never touch an environment's
``reset``: they only decide which scenario (or which parameters) to build an environment with and
which seed to use, so a ``(params, seed)`` pair still means exactly one episode, whatever they
have seen before.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

import numpy as np

from lifeline.core.env import Grade
from lifeline.envs.dispatch.params import (
    CALL_TYPES,
    TARGET_MIN,
    TYPE_MIX,
    DispatchParams,
    scenario_params,
)
from lifeline.envs.dispatch.types import REAL, DispatchState


@dataclass
class Curriculum:
    """Performance-gated difficulty: escalate when a batch's mean score stays above ``up``.

    ``record(score)`` after each episode; after every ``batch`` episodes the level moves up if the
    batch mean is above ``up`` and down if below ``down``. ``next_episode()`` gives the scenario
    name and a fresh seed (seeds count up from ``seed_start``; they never repeat).
    """

    levels: tuple[str, ...] = ("warmup", "learning", "advanced", "expert")
    batch: int = 8
    up: float = 0.65
    down: float = 0.30
    seed_start: int = 0
    level: int = 0
    _scores: list[float] = field(default_factory=list)
    _next_seed: int = -1
    history: list[tuple[int, str]] = field(default_factory=list)
    """``(episodes seen, new level name)`` at every change."""

    def next_episode(self) -> tuple[str, int]:
        """``(scenario, seed)`` for the next episode."""
        if self._next_seed < 0:
            self._next_seed = self.seed_start
        seed = self._next_seed
        self._next_seed += 1
        return self.levels[self.level], seed

    def record(self, score: float) -> str:
        """Record an episode's score; returns the (possibly new) current scenario."""
        self._scores.append(float(score))
        if len(self._scores) >= self.batch:
            mean = float(np.mean(self._scores[-self.batch:]))
            old = self.level
            if mean > self.up:
                self.level = min(self.level + 1, len(self.levels) - 1)
            elif mean < self.down:
                self.level = max(self.level - 1, 0)
            if self.level != old:
                self.history.append((len(self._scores), self.levels[self.level]))
            self._scores.clear()
        return self.levels[self.level]


@dataclass
class AdversarialDesigner:
    """Biases the call mix toward the agent's failures (late or unanswered real calls).

    ``observe(state)`` after an episode tallies, per call type and per zone, the share of real
    calls answered late; ``params()`` returns the base scenario's parameters with ``type_mix``
    and ``zone_weights`` tilted toward the worst types and zones (strength ``alpha``, failure
    rates smoothed over the last ``window`` episodes). Build a new environment from them:
    ``DispatchEnv(scenario, params=designer.params())``.
    """

    scenario: str = "advanced"
    alpha: float = 1.5
    window: int = 20
    _type_fail: deque[np.ndarray] = field(default_factory=deque)
    _zone_fail: deque[np.ndarray] = field(default_factory=deque)

    def observe(self, state: DispatchState, grade: Grade | None = None) -> None:
        """Record one finished episode (uses realised calls; ``grade`` is optional context)."""
        base = scenario_params(self.scenario)
        n_types, zones = len(CALL_TYPES), np.asarray(base.city.zone_of)
        real = state.c_kind == REAL
        resp = state.c_first - state.c_time
        target = np.asarray(TARGET_MIN)[state.c_type]
        late = real & ~(resp <= target)
        tf = np.zeros((2, n_types))
        zf = np.zeros((2, len(base.city.zone_names)))
        np.add.at(tf[0], state.c_type[late], 1.0)
        np.add.at(tf[1], state.c_type[real], 1.0)
        np.add.at(zf[0], zones[state.c_node[late]], 1.0)
        np.add.at(zf[1], zones[state.c_node[real]], 1.0)
        for store, value in ((self._type_fail, tf), (self._zone_fail, zf)):
            store.append(value)
            while len(store) > self.window:
                store.popleft()

    def params(self) -> DispatchParams:
        """The base scenario tilted toward observed failures (unchanged before any episode)."""
        base = scenario_params(self.scenario)
        if not self._type_fail:
            return base
        tf = np.sum(self._type_fail, axis=0)
        zf = np.sum(self._zone_fail, axis=0)
        type_rate = (tf[0] + 1.0) / (tf[1] + 2.0)
        zone_rate = (zf[0] + 1.0) / (zf[1] + 2.0)
        mix = np.asarray(TYPE_MIX) * np.exp(self.alpha * (type_rate - type_rate.mean()))
        zone_w = np.exp(self.alpha * (zone_rate - zone_rate.mean()))
        return replace(base, type_mix=tuple(float(x) for x in mix / mix.sum()),
                       zone_weights=tuple(float(x) for x in zone_w),
                       tags=(*base.tags, "adversarial"))


DIFFICULTY_LEVELS = ("warmup", "learning", "advanced", "expert")


def make_curriculum(target: str, seed_start: int = 0, batch: int = 8) -> Curriculum:
    """A curriculum that climbs the difficulties of ``target``'s city up to ``target`` itself.

    ``"expert"`` → warmup, learning, advanced, expert; a stress scenario (e.g. ``"heatwave"``)
    → warmup, learning, advanced, heatwave; ``metro_*`` targets use the metro levels.
    """
    prefix = "metro_" if target.startswith("metro_") else ""
    base = target.removeprefix("metro_")
    scenario_params(target)  # ValueError listing the choices if unknown
    if base in DIFFICULTY_LEVELS:
        levels = DIFFICULTY_LEVELS[:DIFFICULTY_LEVELS.index(base) + 1]
    else:
        levels = (*DIFFICULTY_LEVELS[:3], base)
    return Curriculum(levels=tuple(prefix + lv for lv in levels), batch=batch,
                      seed_start=seed_start)
