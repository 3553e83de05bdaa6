"""Dispatch environment: road graph, mechanics that must matter, rules, grader, determinism.

Each mechanics test compares the same episode with the mechanic switched on and off (or checks
its direct effect), so it fails if the mechanic is removed.
"""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from lifeline.agents.base import RandomAgent
from lifeline.core.graph import RoadGraph, TrafficProfile
from lifeline.envs.dispatch import dynamics
from lifeline.envs.dispatch.baselines import (
    BoundAgent,
    ClosestIdleAgent,
    DMEXCLPAgent,
    HoldAgent,
    VerifyDMEXCLPAgent,
)
from lifeline.envs.dispatch.curriculum import AdversarialDesigner, Curriculum
from lifeline.envs.dispatch.env import DispatchEnv, DispatchMetroEnv
from lifeline.envs.dispatch.generator import generate_calls, generate_events, toy_params
from lifeline.envs.dispatch.params import (
    BREAKDOWN,
    CARDIAC,
    HEATWAVE,
    MCI,
    TRAUMA,
    scenario_params,
)
from lifeline.envs.dispatch.types import (
    AID_INBOUND,
    EN_ROUTE,
    FALSE_ALARM,
    GHOST,
    IDLE,
    ON_SCENE,
    OUT_OF_SERVICE,
    REAL,
    Dispatch,
    DispatchState,
    Hold,
    RequestMutualAid,
    Reroute,
)
from lifeline.testing.checker import after_invalid_turn, world_bytes


def _run(env: DispatchEnv, agent: object, seed: int) -> tuple[DispatchState, float]:
    state = env.reset(seed)
    agent.reset(env, seed)  # type: ignore[attr-defined]
    total = 0.0
    while not state.done:
        total += env.step(state, agent.act(env, state)).reward  # type: ignore[attr-defined]
    return state, total


def _hold_until(env: DispatchEnv, s: DispatchState, cond: object, limit: int = 500) -> None:
    for _ in range(limit):
        if cond(s):  # type: ignore[operator]
            return
        env.step(s, Hold())
    raise AssertionError("condition never reached")


# ----- road graph -------------------------------------------------------------------------------
def test_graph_shortest_paths_positions_and_incidents() -> None:
    g = RoadGraph(4, [(0, 1, 2.0), (1, 2, 3.0), (0, 3, 10.0), (2, 3, 1.0)])
    assert g.dist[0, 3] == pytest.approx(6.0)
    assert g.path(0, 3) == [0, 1, 2, 3]
    pos = g.locate(0, 3, lead=1.0, elapsed=4.0, multiplier=1.0)  # 1 lead + 2 on 0-1, 1 into 1-2
    assert (pos.prev_node, pos.next_node) == (1, 2) and pos.remaining == pytest.approx(2.0)
    assert g.locate(0, 3, 1.0, 4.0, 2.0).next_node == 1  # twice as slow: still on 0-1
    g.slow_edge(1, 2, 3.0)
    assert g.dist[0, 3] == pytest.approx(10.0)
    g.remove_edge(0, 3)
    assert g.dist[0, 3] == pytest.approx(12.0) and not g.has_edge(0, 3)
    assert not g.stays_connected_without(2, 3) or g.has_edge(1, 2)
    g.restore_edge(1, 2)
    assert g.dist[0, 3] == pytest.approx(6.0)
    assert TrafficProfile().multiplier(8) == 1.2 and TrafficProfile().multiplier(3) == 0.8


# ----- mechanics --------------------------------------------------------------------------------
def test_unit_on_the_calls_own_node_serves_it_and_comes_back() -> None:
    env = DispatchEnv("warmup")
    s = env.reset(3)
    _hold_until(env, s, lambda st: st.visible[0] >= 0)
    c = int(s.visible[0])
    node = int(s.c_node[c])
    # Put unit 0 (idle) on the caller's node and make it perfectly reliable.
    s.u_node[0] = s.u_dest[0] = s.u_obs_node[0] = s.u_obs_dest[0] = node
    s.u_rel[0] = 1.0
    t_dispatch = s.t
    assert env.step(s, Dispatch(unit=0, call=0)).valid
    env.step(s, Hold())
    assert s.c_first[c] == pytest.approx(t_dispatch + s.c_turnout[c])  # turn-out only (v3: drawn)
    assert s.u_status[0] == ON_SCENE
    _hold_until(env, s, lambda st: st.u_status[0] == IDLE or st.done)
    assert s.u_status[0] == IDLE and np.isfinite(s.c_outcome[c])


def test_reroute_frees_the_old_call() -> None:
    env = DispatchEnv("expert")
    s = env.reset(6)  # v3: seed 5's stream breaks unit 0 down before the second call
    _hold_until(env, s, lambda st: (st.visible >= 0).sum() >= 2)
    a, b = int(s.visible[0]), int(s.visible[1])
    assert env.step(s, Dispatch(unit=0, call=0)).valid
    assert s.c_assigned[a] == 1 and s.u_status[0] == EN_ROUTE
    assert env.step(s, Reroute(unit=0, call=1)).valid
    assert s.c_assigned[a] == 0 and s.c_assigned[b] == 1 and s.u_call[0] == b
    mask = env.action_mask(s)
    assert mask[env.encode(Dispatch(unit=1, call=0))]  # the old call can be served again
    assert s.u_dest[0] == s.c_node[b]


def _mean_response(env: DispatchEnv, seeds: range) -> float:
    vals = []
    for seed in seeds:
        state, _ = _run(env, ClosestIdleAgent(), seed)
        vals.append(env.grade(state).metrics["mean_response_min"])
    return float(np.mean(vals))


def test_radio_delay_changes_outcomes() -> None:
    base = scenario_params("expert")
    on = DispatchEnv("expert", replace(base, radio_delay_p=1.0))
    off = DispatchEnv("expert", replace(base, radio_delay_p=0.0))
    s = on.reset(1)
    lagged = False
    for _ in range(300):
        on.step(s, Hold())
        lagged |= bool(np.any(s.u_obs_status != s.u_status) or np.isfinite(s.u_rep_t).any())
        s_dispatch = ClosestIdleAgent().act(on, s)
        on.step(s, s_dispatch)
        if s.done:
            break
    assert lagged, "with delay on, some report must lag the truth"
    assert _mean_response(on, range(8)) > _mean_response(off, range(8))


def test_traffic_changes_outcomes() -> None:
    base = scenario_params("advanced")
    slow = DispatchEnv("advanced", replace(base, traffic=((0.0, 2.0),)))
    free = DispatchEnv("advanced", replace(base, traffic=((0.0, 1.0),)))
    assert _mean_response(slow, range(3)) > 1.3 * _mean_response(free, range(3))


def test_bridge_collapse_reroutes_moving_units() -> None:
    env = DispatchEnv("warmup")
    s = env.reset(0)
    # Send unit 0 (node 0, downtown) to the hills across the 3-8 bridge, then collapse it.
    assert env.step(s, env.decode(env.layout.relocate + 0 * env.ctx.P + 9)).valid
    before = float(s.u_next[0])
    s.e_time = np.array([s.t + 0.5])
    s.e_kind, s.e_a, s.e_b, s.e_dur = (np.array([0]), np.array([0]), np.array([0]),
                                       np.array([np.inf]))
    s.next_event = 0
    env.step(s, Hold())
    assert not s.graph.has_edge(3, 8)
    assert s.u_next[0] > before  # the detour is longer, and the unit took it at once
    _hold_until(env, s, lambda st: st.u_status[0] == IDLE)
    assert s.u_node[0] == 9


def test_hospital_divert_changes_outcomes() -> None:
    env = DispatchEnv("advanced")
    results = []
    for diverted in (False, True):
        s = env.reset(2)
        if diverted:
            s.h_forced_until[:] = np.inf
        agent = HoldFreeClosest()
        while not s.done:
            env.step(s, agent.act(env, s))
        g = env.grade(s)
        results.append((g.components["survival"], int(s.c_divert.sum())))
    (surv_open, div_open), (surv_div, div_div) = results
    assert div_div > div_open and surv_div < surv_open


class HoldFreeClosest(ClosestIdleAgent):
    """Closest-idle that never picks hospitals (default: nearest), to isolate divert effects."""

    def _hospital(self, e, obs):  # type: ignore[no-untyped-def, override]
        return None


def test_heatwave_doubles_cardiac_calls_and_mass_casualty_adds_a_burst() -> None:
    p = replace(scenario_params("learning"), calls_per_shift=60, event_p=0.0)
    counts = {}
    for name, forced in (("none", ()), ("heatwave", ((0.0, HEATWAVE),)), ("mci", ((60.0, MCI),))):
        q = replace(p, forced_events=forced)
        cardiac, trauma_at_once = [], []
        for seed in range(10):
            rng = [np.random.default_rng([seed, i]) for i in range(4)]
            calls = generate_calls(q, generate_events(q, rng[0]), 7.0, rng[1], rng[2], rng[3])
            cardiac.append(np.sum(calls.type == CARDIAC))
            burst = (calls.time >= 60.0) & (calls.time <= 70.0) & (calls.type == TRAUMA)
            trauma_at_once.append(np.bincount(calls.node[burst], minlength=1).max()
                                  if burst.any() else 0)
        counts[name] = (np.mean(cardiac), np.mean(trauma_at_once))
    assert counts["heatwave"][0] > 1.6 * counts["none"][0]
    assert counts["mci"][1] >= 4 > counts["none"][1]


def test_mutual_aid_unit_arrives_after_the_delay_and_can_be_dispatched() -> None:
    env = DispatchEnv("warmup", replace(scenario_params("warmup"), mutual_aid_loan_min=480.0))
    s = env.reset(1)
    aid = env.step(s, RequestMutualAid()).info["mutual_aid_unit"]
    assert s.mutual_aid_left == 1 and s.u_obs_status[aid] == AID_INBOUND
    t0 = s.t
    _hold_until(env, s, lambda st: st.u_obs_status[aid] == IDLE)
    assert s.t == pytest.approx(t0 + env.params.mutual_aid_delay_min)
    assert s.u_node[aid] == env.params.city.aid_entry
    _hold_until(env, s, lambda st: st.visible[0] >= 0)
    assert env.step(s, Dispatch(unit=aid, call=0)).valid


def test_breakdown_takes_a_unit_out_and_frees_its_call() -> None:
    env = DispatchEnv("warmup")
    s = env.reset(2)
    _hold_until(env, s, lambda st: st.visible[0] >= 0)
    c = int(s.visible[0])
    assert env.step(s, Dispatch(unit=0, call=0)).valid
    s.e_time, s.e_kind, s.e_a = np.array([s.t + 0.1]), np.array([BREAKDOWN]), np.array([0])
    s.e_b, s.e_dur, s.next_event = np.array([0]), np.array([45.0]), 0
    env.step(s, Hold())
    assert s.u_status[0] == OUT_OF_SERVICE and s.u_obs_status[0] == OUT_OF_SERVICE
    assert s.c_assigned[c] == 0 and s.u_call[0] == -1
    assert not env.action_mask(s)[env.encode(Dispatch(unit=0, call=0))]
    assert env.action_mask(s)[env.encode(Dispatch(unit=1, call=0))]


def test_tone_correlates_with_hidden_severity_and_verify_is_informative() -> None:
    p = scenario_params("learning")
    sev, tone = [], []
    for seed in range(40):
        rng = [np.random.default_rng([seed, i]) for i in range(4)]
        ev = generate_events(p, rng[0])
        calls = generate_calls(p, ev, 7.0, rng[1], rng[2], rng[3])
        real = calls.kind == REAL
        sev.extend(calls.sev[real])
        tone.extend(calls.tone[real])
    assert np.corrcoef(sev, tone)[0, 1] > 0.4
    env = DispatchEnv("expert")
    s = env.reset(0)
    conf: dict[int, list[float]] = {REAL: [], FALSE_ALARM: [], GHOST: []}
    for c in range(s.c_time.size):
        for _ in range(20):
            conf[int(s.c_kind[c])].append(dynamics.apply_verify(s, env.ctx, c))
    assert np.mean(conf[REAL]) > np.mean(conf[FALSE_ALARM]) > np.mean(conf[GHOST])


# ----- rules, observation, grader --------------------------------------------------------------
@pytest.mark.parametrize("scenario", ["expert", "metro_advanced"])
def test_mask_equals_validate_and_invalid_is_a_noop(scenario: str) -> None:
    env = DispatchMetroEnv(scenario) if scenario.startswith("metro_") else DispatchEnv(scenario)
    agent = RandomAgent()
    s = env.reset(7)
    agent.reset(env, 7)
    rng = np.random.default_rng(0)
    for step in range(120):
        if step % 20 == 0:
            mask = env.action_mask(s)
            idx = range(env.num_actions) if env.num_actions < 400 else \
                rng.choice(env.num_actions, 300, replace=False)
            for i in idx:
                assert mask[i] == (env.validate(s, env.decode(int(i))) is None), env.decode(int(i))
            for k in range(5):  # each invalid action uses the turn, so re-mask every time
                illegal = np.flatnonzero(~env.action_mask(s))
                if s.done or not illegal.size:
                    break
                i = illegal[k % illegal.size]
                expected = after_invalid_turn(env, s)  # the turn is used, nothing else happens
                ts = env.step(s, int(i))
                assert not ts.valid and ts.message
                assert world_bytes(s) == expected
        env.step(s, agent.act(env, s))
        for name, spec in env.observation_spec().items():
            assert spec.validate(name, env.observe(s)[name]) is None
        if s.done:
            break


def test_dense_reward_sums_to_score_and_degenerate_policies_lose() -> None:
    env = DispatchEnv("advanced")
    for agent in (HoldAgent(), ClosestIdleAgent()):
        state, total = _run(env, agent, 4)
        g = env.grade(state)
        assert abs(total - g.score) <= env.params.shaping_cap + 1e-9
        assert set(g.metrics) >= {"mean_response_min", "p90_response_min", "late_fraction",
                                  "held_calls", "expected_fatalities"}
    hold_state, _ = _run(env, HoldAgent(), 4)
    assert env.grade(hold_state).score == 0.0


def test_snapshot_restores_identically() -> None:
    env = DispatchEnv("expert")
    agent = RandomAgent()
    s = env.reset(11)
    agent.reset(env, 11)
    for _ in range(80):
        env.step(s, agent.act(env, s))
    snap = pickle.dumps(s)
    twin = copy.deepcopy(s)
    actions = [agent.act(env, s) for _ in range(1)]
    a = actions[0]
    ra = [env.step(s, a).reward]
    rb = [env.step(pickle.loads(snap), a).reward]
    rc = [env.step(twin, a).reward]
    assert ra == rb == rc


def test_reset_ignores_history_and_curriculum() -> None:
    env = DispatchEnv("learning")
    first = pickle.dumps(env.observe(env.reset(9)))
    cur = Curriculum(batch=2)
    designer = AdversarialDesigner("learning")
    for _ in range(4):
        scenario, seed = cur.next_episode()
        state, _ = _run(DispatchEnv(scenario), ClosestIdleAgent(), seed)
        score = DispatchEnv(scenario).grade(state).score
        cur.record(score)
        designer.observe(state)
    assert cur.level >= 1  # closest-idle beats 0.65 on warmup: escalated
    assert designer.params() != scenario_params("learning")
    DispatchEnv("learning", designer.params()).reset(9)
    assert pickle.dumps(env.observe(env.reset(9))) == first


def test_bad_inputs_give_clear_errors() -> None:
    env = DispatchEnv("warmup")
    with pytest.raises(ValueError, match="seed"):
        env.reset(-1)
    with pytest.raises(ValueError, match="unknown scenario"):
        DispatchEnv("nope")
    with pytest.raises(ValueError, match="out of range"):
        env.decode(env.num_actions)
    s = env.reset(0)
    ts = env.step(s, Dispatch(unit=99, call=0))
    assert not ts.valid and "does not exist" in ts.message


def test_same_seed_same_episode_in_another_process() -> None:
    code = ("import hashlib,pickle; from lifeline.envs.dispatch.env import DispatchEnv;"
            "from lifeline.envs.dispatch.baselines import DMEXCLPAgent; e=DispatchEnv('expert');"
            "s=e.reset(21); a=DMEXCLPAgent(); h=hashlib.sha256();\n"
            "while not s.done:\n"
            " r=e.step(s,a.act(e,s)); h.update(pickle.dumps((r.reward, e.observe(s))))\n"
            "print(h.hexdigest(), e.grade(s).score)")
    outs = set()
    for hash_seed in ("0", "12345"):
        env_vars = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env_vars, check=True, timeout=120)
        outs.add(out.stdout.strip())
    assert len(outs) == 1


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["warmup", "expert"])
def test_ladder_orders_on_a_few_seeds(scenario: str) -> None:
    env = DispatchEnv(scenario)
    means = {}
    for agent in (HoldAgent(), RandomAgent(), ClosestIdleAgent(), DMEXCLPAgent(),
                  VerifyDMEXCLPAgent(), BoundAgent()):
        means[agent.name] = np.mean([env.grade(_run(env, agent, seed)[0]).score
                                     for seed in range(6)])
    assert means["hold"] < means["random"] < means["closest_idle"]
    assert means["bound"] >= means["closest_idle"] - 0.02
    assert means["dmexclp"] >= means["closest_idle"] - 0.03
    # the reference (issue 26): not below closest-idle, not above the bound
    assert means["closest_idle"] - 0.03 <= means["verify_dmexclp"] <= means["bound"] + 0.005


def test_travel_takes_real_edge_minutes_on_the_toy_city() -> None:
    env = DispatchEnv("toy", toy_params())
    s = env.reset(0)
    s.c_node[0] = 3  # the first call rings at the far end of the line 0 —2— 1 —3— 2 —4— 3
    _hold_until(env, s, lambda st: st.visible[0] >= 0)
    t0, mult = s.t, s.mult
    assert env.step(s, Dispatch(unit=0, call=0)).valid
    turnout = env.params.turnout_min  # reliability 1: the turn-out only, no extra delay
    assert s.u_next[0] == pytest.approx(t0 + turnout + 9.0 * mult)
    nxt, rem = dynamics.where(s, 0)
    assert (nxt, rem) == (0, pytest.approx(turnout))  # still rolling out of its station
    _hold_until(env, s, lambda st: st.u_status[0] == ON_SCENE)
    assert s.c_first[0] - t0 == pytest.approx(turnout + 9.0 * mult)
