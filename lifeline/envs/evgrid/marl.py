"""The two-role face: a PettingZoo ``ParallelEnv`` with a grid ``operator`` and a ``dispatcher``.

Each parallel step the ``operator`` may issue one directive and the ``dispatcher`` plays one
action of the single-agent encoding (route / defer / load_shift / hold; the clock advances as in
the single-agent env). Directives (operator ``Discrete`` encoding, in this order):

* ``0`` — keep the current directives;
* ``cap(zone, level)`` — cap *our* charging load in a zone at none / 60% / 30% of the zone's
  limit minus its forecast non-EV load (Z × 3 actions);
* ``blacklist(station)`` — toggle a station on/off the blacklist (S actions);
* ``price(zone, level)`` — a price multiplier 1.0 / 1.25 / 1.5 the operator charges the
  dispatcher in a zone (Z × 3 actions): it enters the dispatcher's role reward only.

Violations are detected and reported, never silently rewritten: routing to a blacklisted
station, or our zone load exceeding a cap during a tick, each count one violation (in ``infos``
and the ``violations`` metric) and cost the dispatcher 0.01 of reward; the action itself is
carried out. Role objectives (rewards, both from the grader's component increments): the
operator is paid the overload, cost and renewable terms; the dispatcher the energy, wait, tail
wait, balking and validity terms, minus violations and the operator's price surcharge. The team
score is exactly the single-agent grader (``env.grade``) of the shared episode.

Observations: the dispatcher sees the single-agent arrays plus ``action_mask`` and the operator's
``directives`` (Z × 3: cap kW or −1, price multiplier, blacklisted stations in the zone); the
operator sees ``zones``, ``headroom_forecast``, ``stations`` and its own ``directives``.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from lifeline.adapters.gymnasium import observation_space
from lifeline.envs.evgrid.env import EVGridEnv
from lifeline.envs.evgrid.reward import WEIGHTS
from lifeline.envs.evgrid.types import EVGridState, Route

OPERATOR, DISPATCHER = "operator", "dispatcher"
CAP_LEVELS = (None, 0.6, 0.3)
PRICE_LEVELS = (1.0, 1.25, 1.5)
OPERATOR_TERMS = ("overload", "cost", "renewable")
DISPATCHER_TERMS = ("energy", "wait", "tail_wait", "balking", "validity")
VIOLATION_PENALTY = 0.01


class EVGridParallelEnv(ParallelEnv):
    """PettingZoo parallel face of ``evgrid`` (agents ``operator`` and ``dispatcher``)."""

    metadata = {"name": "evgrid_ma_v0", "render_modes": ["ansi"], "is_parallelizable": True}  # noqa: RUF012

    def __init__(self, scenario: str = "baseline", render_mode: str | None = None) -> None:
        self.core = EVGridEnv(scenario)
        self.render_mode = render_mode
        self.possible_agents = [OPERATOR, DISPATCHER]
        self.agents: list[str] = []
        ctx = self.core.ctx
        self.Z, self.S = ctx.Z, ctx.S
        self.n_operator = 1 + self.Z * len(CAP_LEVELS) + self.S + self.Z * len(PRICE_LEVELS)
        self.state_: EVGridState | None = None
        self._rng = np.random.default_rng(0)
        self.cap_level = np.zeros(self.Z, np.int64)
        self.price_level = np.zeros(self.Z, np.int64)
        self.blacklist = np.zeros(self.S, bool)
        self.violations = 0
        self.max_cycles = self.core.max_steps

    # ----- spaces -------------------------------------------------------------------------
    @functools.cache  # noqa: B019 - PettingZoo requires the same object back
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        directives = spaces.Box(-1.0, 1.0e5, shape=(self.Z, 3), dtype=np.float32)
        if agent == DISPATCHER:
            base = observation_space(self.core)
            return spaces.Dict({**base.spaces, "directives": directives})
        spec = self.core.observation_spec()
        items: dict[str, spaces.Space[Any]] = {
            k: spaces.Box(spec[k].low, spec[k].high, spec[k].shape, dtype=np.float32)
            for k in ("zones", "headroom_forecast", "stations")}
        items["directives"] = directives
        items["action_mask"] = spaces.Box(0, 1, shape=(self.n_operator,), dtype=np.int8)
        return spaces.Dict(items)

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        if agent == DISPATCHER:
            return spaces.Discrete(self.core.num_actions)
        return spaces.Discrete(self.n_operator)

    # ----- helpers ------------------------------------------------------------------------
    def zone_caps(self) -> np.ndarray:
        """(Z,) cap on our charging load per zone, kW (inf: none)."""
        assert self.state_ is not None
        head = np.maximum(self.state_.forecast[:, 0], 0.0)
        frac = np.array([np.inf if CAP_LEVELS[i] is None else CAP_LEVELS[i]
                         for i in self.cap_level])
        return np.where(np.isfinite(frac), head * np.where(np.isfinite(frac), frac, 0.0), np.inf)

    def _directives(self) -> np.ndarray:
        caps = self.zone_caps()
        out = np.zeros((self.Z, 3), np.float32)
        out[:, 0] = np.where(np.isfinite(caps), caps, -1.0)
        out[:, 1] = [PRICE_LEVELS[i] for i in self.price_level]
        out[:, 2] = np.bincount(self.core.ctx.st_zone[self.blacklist], minlength=self.Z)
        return out

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        assert self.state_ is not None
        obs = self.core.observe(self.state_)
        directives = self._directives()
        disp = {**obs, "action_mask": self.core.action_mask(self.state_).astype(np.int8),
                "directives": directives}
        op = {"zones": obs["zones"], "headroom_forecast": obs["headroom_forecast"],
              "stations": obs["stations"], "directives": directives,
              "action_mask": np.ones(self.n_operator, np.int8)}
        return {OPERATOR: op, DISPATCHER: disp}

    def _apply_directive(self, a: int) -> None:
        if a <= 0 or a >= self.n_operator:
            return
        a -= 1
        n_cap = self.Z * len(CAP_LEVELS)
        if a < n_cap:
            self.cap_level[a // len(CAP_LEVELS)] = a % len(CAP_LEVELS)
            return
        a -= n_cap
        if a < self.S:
            self.blacklist[a] = not self.blacklist[a]
            return
        a -= self.S
        self.price_level[a // len(PRICE_LEVELS)] = a % len(PRICE_LEVELS)

    # ----- PettingZoo API ------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is None:
            seed = int(self._rng.integers(0, 2**31 - 1))
        self._rng = np.random.default_rng(seed + 1)
        self.state_ = self.core.reset(seed)
        self.agents = list(self.possible_agents)
        self.cap_level[:] = 0
        self.price_level[:] = 0
        self.blacklist[:] = False
        self.violations = 0
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float],
                                                   dict[str, bool], dict[str, bool],
                                                   dict[str, Any]]:
        s = self.state_
        assert s is not None, "call reset() first"
        self._apply_directive(int(actions.get(OPERATOR, 0)))
        before = self.core.grade(s).components
        act = actions.get(DISPATCHER, self.core.encode(self.core.noop_action()))
        violations: list[str] = []
        semantic = None
        with contextlib.suppress(ValueError, TypeError):
            semantic = self.core.decode(int(act))
        if isinstance(semantic, Route) and self.core.validate(s, semantic) is None:
            ev = int(s.visible[semantic.ev])
            if self.blacklist[semantic.station] and not s.ev_dwell[ev]:
                violations.append(f"routed to blacklisted station {semantic.station}")
        surcharge = 0.0
        tick = s.tick
        ts = self.core.step(s, act)
        if s.tick != tick:  # a tick ran: check caps, charge the operator's surcharge
            caps = self.zone_caps()
            over = np.flatnonzero(s.ev_load > caps + 1e-6)
            violations += [f"zone {z} load {s.ev_load[z]:.0f} kW over cap {caps[z]:.0f}"
                           for z in over]
            mult = np.array([PRICE_LEVELS[i] for i in self.price_level])
            surcharge = float(np.dot(mult - 1.0, s.ev_load)) * self.core.params.tick_min / 60.0
        self.violations += len(violations)
        after = self.core.grade(s).components
        d = {k: after[k] - before[k] for k in after}
        r_op = sum(WEIGHTS[k] * d[k] for k in OPERATOR_TERMS)
        r_disp = (sum(WEIGHTS[k] * d[k] for k in DISPATCHER_TERMS)
                  - VIOLATION_PENALTY * len(violations) - 1e-4 * surcharge)
        done = s.done
        terminated = {a: bool(ts.terminated) for a in self.agents}
        truncated = {a: bool(ts.truncated) for a in self.agents}
        info = {"valid": ts.valid, "message": ts.message, "violations": violations,
                "team_reward": ts.reward}
        infos = {a: dict(info) for a in self.agents}
        if done:
            g = self.core.grade(s)
            for a in self.agents:
                infos[a].update(score=g.score, total_violations=self.violations)
        obs = self._observations()
        rewards = {OPERATOR: float(r_op), DISPATCHER: float(r_disp)}
        if done:
            self.agents = []
        return obs, rewards, terminated, truncated, infos

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state_ is None:
            return None
        return self.core.render_text(self.state_)

    def close(self) -> None:
        self.state_ = None


def parallel_env(scenario: str = "baseline", render_mode: str | None = None
                 ) -> EVGridParallelEnv:
    """The two-role ``evgrid`` as a PettingZoo ``ParallelEnv``."""
    return EVGridParallelEnv(scenario, render_mode=render_mode)
