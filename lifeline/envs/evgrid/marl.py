"""The two-role face: a PettingZoo ``ParallelEnv`` with a grid ``operator`` and a ``dispatcher``.

Each parallel step the ``operator`` may issue one directive and the ``dispatcher`` plays one
action of the single-agent encoding (route / defer / load_shift / hold). The game is the served
two-role environment ``evgrid_team`` (:mod:`lifeline.envs.evgrid.team`): the operator's
``Discrete`` action is ``0`` (no directive) or ``1 + i`` for the i-th operator action of that
environment (``set_cap(zone, level)``, ``blacklist(station)``, ``set_price(zone, level)``), played
before the dispatcher's action; each uses a decision slot of the tick, as there.

Violations are detected and reported, never silently rewritten (routing a walk-up to a
blacklisted station, a zone's charging load over its cap during a tick): ``infos[...]
["violations"]``, and each costs the dispatcher 0.01 of reward. Role objectives (rewards from the
grader's component increments): the operator is paid the overload, cost and renewable terms; the
dispatcher the energy, wait, tail wait, balking and validity terms, minus violations and the
operator's price surcharge (₹ / 10⁴). The team score is exactly the single-agent grader
(``env.grade``) of the shared episode.

Observations: the dispatcher sees the single-agent arrays plus ``action_mask`` and the operator's
``directives`` (Z × 3: cap kW or −1, price multiplier, blacklisted stations in the zone); the
operator sees ``zones``, ``headroom_forecast``, ``stations`` and its own ``directives``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from lifeline.envs.evgrid.reward import WEIGHTS
from lifeline.envs.evgrid.team import PRICE_LEVELS, EVGridTeamEnv, EVGridTeamState

OPERATOR, DISPATCHER = "operator", "dispatcher"
OPERATOR_TERMS = ("overload", "cost", "renewable")
DISPATCHER_TERMS = ("energy", "wait", "tail_wait", "balking", "validity")
VIOLATION_PENALTY = 0.01


class EVGridParallelEnv(ParallelEnv):
    """PettingZoo parallel face of ``evgrid`` (agents ``operator`` and ``dispatcher``)."""

    metadata = {"name": "evgrid_ma_v0", "render_modes": ["ansi"],  # noqa: RUF012
                "is_parallelizable": True}

    def __init__(self, scenario: str = "baseline", render_mode: str | None = None) -> None:
        self.core = EVGridTeamEnv(scenario)
        self.render_mode = render_mode
        self.possible_agents = [OPERATOR, DISPATCHER]
        self.agents: list[str] = []
        self.Z, self.S = self.core.ctx.Z, self.core.ctx.S
        self.n_dispatcher = self.core.layout.total
        self.n_operator = 1 + self.core.n_operator
        self.state_: EVGridTeamState | None = None
        self._rng = np.random.default_rng(0)
        self.max_cycles = self.core.max_steps

    # ----- spaces -------------------------------------------------------------------------
    @functools.cache  # noqa: B019 - PettingZoo requires the same object back
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        spec = self.core.observation_spec()
        directives = spaces.Box(-1.0, 1.0e5, shape=(self.Z, 3), dtype=np.float32)
        if agent == DISPATCHER:
            items: dict[str, spaces.Space[Any]] = {
                k: spaces.Box(v.low, v.high, v.shape, dtype=np.dtype(v.dtype))
                for k, v in spec.items()}
            items["action_mask"] = spaces.Box(0, 1, shape=(self.n_dispatcher,), dtype=np.int8)
        else:
            items = {k: spaces.Box(spec[k].low, spec[k].high, spec[k].shape, dtype=np.float32)
                     for k in ("zones", "headroom_forecast", "stations")}
            items["action_mask"] = spaces.Box(0, 1, shape=(self.n_operator,), dtype=np.int8)
        items["directives"] = directives
        return spaces.Dict(items)

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        return spaces.Discrete(self.n_dispatcher if agent == DISPATCHER else self.n_operator)

    # ----- helpers ------------------------------------------------------------------------
    @property
    def blacklist(self) -> np.ndarray:
        assert self.state_ is not None
        return self.state_.blacklisted

    def _directives(self) -> np.ndarray:
        s = self.state_
        assert s is not None
        caps = self.core.zone_caps(s)
        out = np.zeros((self.Z, 3), np.float32)
        out[:, 0] = np.where(np.isfinite(caps), caps, -1.0)
        out[:, 1] = [PRICE_LEVELS[i] for i in s.price_level]
        out[:, 2] = np.bincount(self.core.ctx.st_zone[s.blacklisted], minlength=self.Z)
        return out

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        s = self.state_
        assert s is not None
        obs = self.core.observe(s)
        mask = self.core.action_mask(s).astype(np.int8)
        directives = self._directives()
        disp = {**obs, "action_mask": mask[:self.n_dispatcher], "directives": directives}
        op_mask = np.concatenate([[1], mask[self.n_dispatcher:]]).astype(np.int8)
        op = {"zones": obs["zones"], "headroom_forecast": obs["headroom_forecast"],
              "stations": obs["stations"], "directives": directives, "action_mask": op_mask}
        return {OPERATOR: op, DISPATCHER: disp}

    # ----- PettingZoo API ------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is None:
            seed = int(self._rng.integers(0, 2**31 - 1))
        self._rng = np.random.default_rng(seed + 1)
        self.state_ = self.core.reset(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float],
                                                   dict[str, bool], dict[str, bool],
                                                   dict[str, Any]]:
        s = self.state_
        assert s is not None, "call reset() first"
        before = self.core.grade(s)
        surcharge0 = s.surcharge_inr
        violations: list[str] = []
        messages: list[str] = []
        op = int(actions.get(OPERATOR, 0))
        if op != 0 and not s.done:
            index = self.n_dispatcher + op - 1 if 0 < op < self.n_operator else -1
            ts_op = self.core.step(s, index)
            violations += ts_op.info.get("violations", [])
            if not ts_op.valid:
                messages.append(f"operator: {ts_op.message}")
        act = actions.get(DISPATCHER, self.core.encode(self.core.noop_action()))
        if not (0 <= int(act) < self.n_dispatcher):
            act = -1  # the dispatcher may not issue operator actions
        ts = self.core.step(s, int(act))
        violations += ts.info.get("violations", [])
        if not ts.valid:
            messages.append(f"dispatcher: {ts.message}")
        after = self.core.grade(s)
        d = {k: after.components[k] - before.components[k] for k in after.components}
        r_op = sum(WEIGHTS[k] * d[k] for k in OPERATOR_TERMS)
        r_disp = (sum(WEIGHTS[k] * d[k] for k in DISPATCHER_TERMS)
                  - VIOLATION_PENALTY * len(violations) - 1e-4 * (s.surcharge_inr - surcharge0))
        terminated = {a: bool(s.done and self.core.is_terminal(s)) for a in self.agents}
        truncated = {a: bool(s.done and not self.core.is_terminal(s)) for a in self.agents}
        info = {"violations": violations, "messages": messages,
                "team_reward": after.score - before.score}
        infos = {a: dict(info) for a in self.agents}
        if s.done:
            for a in self.agents:
                infos[a].update(score=after.score, total_violations=s.violations)
        obs = self._observations()
        rewards = {OPERATOR: float(r_op), DISPATCHER: float(r_disp)}
        if s.done:
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
