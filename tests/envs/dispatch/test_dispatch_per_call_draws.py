"""dispatch v3 (issue 18, calibration round 2): call processing and turn-out drawn per call in
the call stream, and the 20-node city staffed per difficulty — each with a test that fails when
the mechanic is switched off (run on the default and on a switched-off variant, told apart).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lifeline.calibrate.dispatch import Probe
from lifeline.envs.dispatch import baselines as B
from lifeline.envs.dispatch.env import DispatchEnv, DispatchMetroEnv
from lifeline.envs.dispatch.generator import toy_params
from lifeline.envs.dispatch.params import (
    DISPATCHR_20,
    PEAK_STATIONS,
    DispatchParams,
    scenario_params,
)
from lifeline.envs.dispatch.types import EN_ROUTE, IDLE, INACTIVE, Dispatch, Hold


def _intervals(p: DispatchParams, seeds: range) -> tuple[np.ndarray, np.ndarray]:
    env = DispatchEnv("toy", p)
    proc, turnout = [], []
    for seed in seeds:
        s = env.reset(seed)
        assert np.all(np.diff(s.c_open) >= 0)  # calls open in ring order
        assert np.all(s.c_open >= s.c_time)
        proc.append(s.c_open - s.c_time)
        turnout.append(s.c_turnout)
    return np.concatenate(proc), np.concatenate(turnout)


def test_call_processing_and_turnout_are_drawn_per_call() -> None:
    p = scenario_params("advanced")
    proc, turnout = _intervals(p, range(40))
    assert proc.size > 500
    # Lognormal around the medians 1.25 / 1.0 with sigma 0.4: p90 = median x e^(1.28 x 0.4).
    # (Processing can only lengthen: a call never opens before one that rang earlier.)
    assert np.median(proc) == pytest.approx(1.25, abs=0.1)
    assert np.percentile(proc, 90) == pytest.approx(2.09, abs=0.25)
    assert np.median(turnout) == pytest.approx(1.0, abs=0.08)
    assert np.percentile(turnout, 90) == pytest.approx(1.67, abs=0.15)
    # Switched off (v2's constants): no spread at all.
    proc0, turnout0 = _intervals(replace(p, call_processing_sigma=0.0, turnout_sigma=0.0),
                                 range(5))
    assert np.allclose(proc0, 1.25) and np.allclose(turnout0, 1.0)


def test_the_calls_own_intervals_drive_the_episode_and_the_plan() -> None:
    """Toy unit 0 (ALS at node 0, reliability 1): the call becomes visible at its drawn
    ``c_open``; the unit arrives ``c_turnout + road minutes x traffic`` after the dispatch; the
    reference plan's minutes for a one-call shift are the same lead plus the free-flow drive."""
    env = DispatchEnv("toy", replace(toy_params(calls_per_shift=1), call_processing_sigma=0.4,
                                     turnout_sigma=0.4))
    leads = []
    for seed in range(4):
        s = env.reset(seed)
        c = 0
        lead = float(s.c_open[c] - s.c_time[c] + s.c_turnout[c])
        leads.append(lead)
        planned = int(s.c_bound_unit[c])
        if planned >= 0:
            mult = env.ctx.traffic.multiplier(s.start_hour + float(s.c_time[c]) / 60.0)
            drive = float(env.ctx.free_graph.dist[int(s.u_home[planned]), int(s.c_node[c])])
            assert s.c_bound[c] == pytest.approx(lead + drive * mult)
        while s.visible[0] < 0:
            env.step(s, Hold())
        assert s.t == pytest.approx(float(s.c_open[c]))
        t0 = s.t
        assert env.step(s, Dispatch(unit=0, call=0)).valid
        assert s.u_status[0] == EN_ROUTE
        drive = float(s.graph.dist[0, int(s.c_node[c])]) * s.mult
        assert s.u_next[0] == pytest.approx(t0 + float(s.c_turnout[c]) + drive)
    assert np.ptp(leads) > 0.1  # drawn, not constant


def test_difficulties_staff_their_units_and_the_rest_stay_off_duty() -> None:
    assert len(DISPATCHR_20.unit_home) == 12
    assert DISPATCHR_20.unit_home[6:] == PEAK_STATIONS
    assert set(PEAK_STATIONS) == set(DISPATCHR_20.unit_home[:6])  # second units at stations
    for name, on in (("warmup", 6), ("learning", 8), ("advanced", 10), ("expert", 11),
                     ("mass_casualty", 10)):
        env = DispatchEnv(name)
        assert env.params.on_duty == on
        s = env.reset(3)
        assert (s.u_status[:on] == IDLE).all()
        assert (s.u_status[on:] == INACTIVE).all()  # off-duty slots, then the aid slots
        assert (s.c_bound_unit < on).all()  # the reference plan uses staffed units only
        mask = env.action_mask(s)
        while not mask[[env.encode(Dispatch(unit=u, call=0)) for u in range(on)]].any():
            env.step(s, Hold())
            mask = env.action_mask(s)
        for u in range(on, 12):
            assert not mask[env.encode(Dispatch(unit=u, call=0))]
            assert env.validate(s, Dispatch(unit=u, call=0)) == f"unit {u} is not in service"
    metro = DispatchMetroEnv("metro_expert")
    assert metro.params.units_on_duty is None
    assert metro.params.on_duty == len(metro.params.city.unit_home)


CARD_SEEDS = range(1_000_000, 1_000_030)
"""The calibration card's held-out seeds (a pooled p90 over fewer shifts is noisy: 16.7 min over
the first 12 of them on expert)."""


def _p90(p: DispatchParams, seeds: range) -> tuple[float, float]:
    """closest_idle's pooled call-to-arrival 90th percentile and mean score."""
    env = DispatchEnv("expert", params=p)
    probes, scores = [], []
    for seed in seeds:
        s = env.reset(seed)
        agent, probe = B.ClosestIdleAgent(), Probe()
        agent.reset(env, seed)
        probe.on_step(env, s)
        while not s.done:
            env.step(s, agent.act(env, s))
            probe.on_step(env, s)
        probes.append(probe)
        scores.append(env.grade(s).score)
    r = np.concatenate([pr.responses() for pr in probes])
    return float(np.percentile(r, 90)), float(np.mean(scores))


def test_staffing_brings_the_expert_tail_into_band_and_off_it_does_not() -> None:
    p = scenario_params("expert")
    staffed, score = _p90(p, CARD_SEEDS)
    seed_fleet, score6 = _p90(replace(p, units_on_duty=6), CARD_SEEDS)
    # v4: expert is in the stressed regime (Poisson load, stochastic travel), so its tail is
    # above v3's 15-min band edge; staffing still shortens it and raises the score.
    assert staffed < seed_fleet - 3.0
    assert score > score6


def test_probe_reports_unit_hour_utilisation() -> None:
    env = DispatchEnv("advanced")
    s = env.reset(1)
    agent, probe = B.ClosestIdleAgent(), Probe()
    agent.reset(env, 1)
    probe.on_step(env, s)
    while not s.done:
        env.step(s, agent.act(env, s))
        probe.on_step(env, s)
    uhu = probe.values()["uhu_pct"]
    assert 0.0 < uhu < 100.0
    assert probe.staffed == 10
