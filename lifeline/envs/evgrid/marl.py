"""The two-role face: a PettingZoo ``ParallelEnv`` with a grid ``operator`` and a ``dispatcher``.

Each parallel step the ``operator`` may issue one directive and the ``dispatcher`` plays one
action of the single-agent encoding (route / defer / load_shift / hold). The game is the served
two-role environment ``evgrid_team`` (:mod:`lifeline.envs.evgrid.team`): the operator's
``Discrete`` action is ``0`` (no directive) or ``1 + i`` for the i-th operator action of that
environment (``set_cap(zone, level)``, ``blacklist(station)``, ``set_price(zone, level)``), played
before the dispatcher's action; each uses a decision slot of the tick, as there.

Violations are detected and reported, never silently rewritten (routing a walk-up to a
blacklisted station, a tick in which our sessions ask for more than a zone's cap — enforced by
protection): ``infos[...]["violations"]``; each costs the *team* score ``VIOLATION_COST``.

Rewards (v3, designed so the team optimum is a near-equilibrium): each role is paid the team
reward (the increase of the two-role env's score, violations included) plus ``ROLE_SHARE`` (0.1)
of the increase of its own terms — the operator: cost + renewable − the grid harm (loads cut by
protection, transformer ageing); the dispatcher: energy + wait + tail wait + validity. A role's
own terms are parts of the team score, so a role can only gain by hurting the team if it gains
ten times more on its terms than the team loses; the best-response probes (a dispatcher that
stops charging, an operator that blacklists everything) lose
(``tests/envs/evgrid/test_evgrid_team_roles.py``).
The price multiplier is a transfer inside the team: in no reward (``surcharge_inr`` in infos).
The team score is exactly the two-role env's grade (``env.grade``) of the shared episode.

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
OPERATOR_TERMS = ("cost", "renewable")
"""The operator's own terms: these weighted components minus the grid harm (``harm_grid``)."""
DISPATCHER_TERMS = ("energy", "wait", "tail_wait", "validity")
ROLE_SHARE = 0.1
"""Weight of a role's own terms next to the shared team reward (1)."""


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
        team = after.score - before.score
        r_op = team + ROLE_SHARE * (sum(WEIGHTS[k] * d[k] for k in OPERATOR_TERMS)
                                    - d["harm_grid"])
        r_disp = team + ROLE_SHARE * sum(WEIGHTS[k] * d[k] for k in DISPATCHER_TERMS)
        terminated = {a: bool(s.done and self.core.is_terminal(s)) for a in self.agents}
        truncated = {a: bool(s.done and not self.core.is_terminal(s)) for a in self.agents}
        info = {"violations": violations, "messages": messages, "team_reward": team,
                "surcharge_inr": s.surcharge_inr - surcharge0}
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


class FlatEVGridParallelEnv(EVGridParallelEnv):
    """The same game with each agent's observation flattened to one float32 ``Box``
    (``gymnasium.spaces.flatten`` of its ``Dict``; the action mask is part of it, first keys in
    sorted order): what SuperSuit's vector wrappers and RLlib's ``ParallelPettingZooEnv`` expect.
    ``unflatten(agent, x)`` gives the ``Dict`` back (e.g. to read ``action_mask``)."""

    metadata = {**EVGridParallelEnv.metadata, "name": "evgrid_ma_flat_v0"}  # noqa: RUF012

    @functools.cache  # noqa: B019 - PettingZoo requires the same object back
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return spaces.flatten_space(super().observation_space(agent))

    def dict_space(self, agent: str) -> spaces.Dict:
        space = EVGridParallelEnv.observation_space(self, agent)
        assert isinstance(space, spaces.Dict)
        return space

    def _flat(self, obs: dict[str, dict[str, np.ndarray]]) -> dict[str, Any]:
        return {a: np.asarray(spaces.flatten(self.dict_space(a), o), np.float32)
                for a, o in obs.items()}

    def unflatten(self, agent: str, x: np.ndarray) -> dict[str, np.ndarray]:
        out = spaces.unflatten(self.dict_space(agent), x)
        assert isinstance(out, dict)
        return {k: np.asarray(v) for k, v in out.items()}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, infos = super().reset(seed, options)
        return self._flat(obs), infos

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float],
                                                   dict[str, bool], dict[str, bool],
                                                   dict[str, Any]]:
        obs, rewards, term, trunc, infos = super().step(actions)
        return self._flat(obs), rewards, term, trunc, infos


def flat_parallel_env(scenario: str = "baseline", render_mode: str | None = None
                      ) -> FlatEVGridParallelEnv:
    """The two-role ``evgrid`` with flattened per-agent observations (SuperSuit / RLlib)."""
    return FlatEVGridParallelEnv(scenario, render_mode=render_mode)


RolePolicy = Any
"""``policy(core_env, state) -> action`` (an ``Action`` of its role, or ``None`` = no-op)."""


def play_roles(scenario: str, seed: int, operator: RolePolicy, dispatcher: RolePolicy
               ) -> dict[str, float]:
    """One episode of the PettingZoo face with a policy per role; returns each role's return,
    the team score and the violations (the best-response probes' yardstick)."""
    env = parallel_env(scenario)
    env.reset(seed=seed)
    core, s = env.core, env.state_
    assert s is not None
    ret = {OPERATOR: 0.0, DISPATCHER: 0.0}
    while env.agents:
        op = operator(core, s)
        op_i = 0 if op is None else 1 + core.encode(op) - env.n_dispatcher
        d = dispatcher(core, s)
        d_i = core.encode(core.noop_action() if d is None else d)
        _, rewards, _, _, _ = env.step({OPERATOR: op_i, DISPATCHER: d_i})
        for a, r in rewards.items():
            ret[a] += r
    g = core.grade(s)
    return {**ret, "score": g.score, "violations": g.metrics["violations"],
            "unmet_critical_kwh": g.metrics["unmet_critical_kwh"]}
