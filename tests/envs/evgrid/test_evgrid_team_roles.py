"""evgrid v3, two roles: violations have consequences, the operator's choices cost or earn
something, the PettingZoo rewards make the team optimum a near-equilibrium (best-response
probes lose), and the faces accept the same scenarios."""

from __future__ import annotations

import numpy as np
import pytest

import lifeline
from lifeline.agents import make_agent
from lifeline.envs.evgrid.baselines import ObeyingGreedyAgent, operator_reference
from lifeline.envs.evgrid.marl import DISPATCHER, OPERATOR, flat_parallel_env, play_roles
from lifeline.envs.evgrid.team import VIOLATION_COST, Blacklist, EVGridTeamEnv, SetCap
from lifeline.envs.evgrid.types import Hold


def _team_score(agent: str, seed: int, scenario: str = "baseline") -> tuple[float, float]:
    """(score, violations) under fixed directives: three stations blacklisted, caps on the
    central (30 %) and east (60 %) feeders."""
    env = EVGridTeamEnv(scenario)
    a = make_agent(agent, "evgrid")
    s = env.reset(seed)
    a.reset(env, seed)
    for st in (1, 8, 10):
        env.step(s, Blacklist(station=st))
    env.step(s, SetCap(zone=1, level=1))
    env.step(s, SetCap(zone=0, level=2))
    while not s.done:
        env.step(s, a.act(env, s))
    g = env.grade(s)
    return g.score, g.metrics["violations"]


def test_ignoring_every_directive_scores_clearly_below_obeying() -> None:
    ignore = [_team_score("greedy", sd) for sd in (0, 1)]
    obey = [_team_score("obeying_greedy", sd) for sd in (0, 1)]
    assert np.mean([o[0] for o in obey]) > np.mean([i[0] for i in ignore]) + 0.03
    assert np.mean([o[1] for o in obey]) < np.mean([i[1] for i in ignore])


def test_caps_are_enforced_by_protection_and_violations_cost_the_team() -> None:
    env = EVGridTeamEnv("baseline")
    a = make_agent("greedy", "evgrid")
    s = env.reset(2)
    a.reset(env, 2)
    for z in range(env.ctx.Z):
        env.step(s, SetCap(zone=z, level=2))
    while not s.done and s.tick < 60:
        caps = env.zone_caps(s)
        env.step(s, a.act(env, s))
        assert np.all(s.ev_load <= np.maximum(caps, s.tick_caps) + 1e-6)
    g = env.grade(s)
    assert g.metrics["violations"] > 0
    assert g.score == pytest.approx(max(0.0, g.metrics["score_before_violations"]
                                        - VIOLATION_COST * g.metrics["violations"]))


def _disp_ref():
    agent = ObeyingGreedyAgent()
    return lambda e, s: agent.act(e, s)


def _blacklist_all(e, s):
    idx = np.flatnonzero(~s.blacklisted)
    return Blacklist(station=int(idx[0])) if idx.size else None


def test_best_response_probes_lose_in_the_pettingzoo_face() -> None:
    """Against the other role's reference, a dispatcher that stops charging and an operator
    that blacklists every station both earn less than their own reference (v2: the operator's
    return was 0.214 whatever it did, and stopping was the dispatcher's best response)."""
    ref = play_roles("station_outage", 0, operator_reference, _disp_ref())
    stop = play_roles("station_outage", 0, operator_reference, lambda e, s: Hold())
    black = play_roles("station_outage", 0, _blacklist_all, _disp_ref())
    assert stop[DISPATCHER] < ref[DISPATCHER] - 0.3
    assert black[OPERATOR] < ref[OPERATOR] - 0.3
    assert ref["score"] > max(stop["score"], black["score"]) + 0.3


def test_flat_face_passes_the_parallel_api_test() -> None:
    from pettingzoo.test import parallel_api_test

    env = flat_parallel_env("station_outage")
    parallel_api_test(env, num_cycles=30)
    obs, _ = env.reset(seed=3)
    d = env.unflatten(DISPATCHER, obs[DISPATCHER])
    assert d["action_mask"].shape == (env.n_dispatcher,)
    assert obs[OPERATOR].dtype == np.float32 and obs[OPERATOR].ndim == 1


def test_team_faces_accept_the_same_scenarios() -> None:
    from lifeline.core.registry import spec

    team = spec("evgrid_team").scenarios
    assert set(team) == set(spec("evgrid").scenarios)
    assert spec("evgrid_team").gym_id == "lifeline/EVGridTeam-v3"
    for sc in team:
        lifeline.envs.evgrid.parallel_env(sc)
    with pytest.raises(ValueError):
        lifeline.envs.evgrid.parallel_env("no_such_scenario")
