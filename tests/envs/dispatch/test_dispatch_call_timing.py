"""dispatch v2 (issue 18, calibration): call processing, turn-out, the stretched roads of the
20-node city, handover N(20, 8) floored at 10 and a 5 % arrest share of cardiac calls — each with
a test that fails when the mechanic is switched off (run on the default and on a switched-off
variant, and told apart).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lifeline.calibrate.dispatch import Probe
from lifeline.envs.dispatch import baselines as B
from lifeline.envs.dispatch.env import DispatchEnv
from lifeline.envs.dispatch.generator import generate_calls, generate_events, toy_params
from lifeline.envs.dispatch.params import (
    CARDIAC,
    DISPATCHR_20,
    ROAD_SCALE,
    SEED_ROADS,
    SEVERITY_P,
    DispatchParams,
    scenario_params,
)
from lifeline.envs.dispatch.types import EN_ROUTE, REAL, Dispatch, Hold


def _toy(**kw: float) -> DispatchEnv:
    return DispatchEnv("toy", replace(toy_params(calls_per_shift=1), **kw))


def _ring_to_visible(env: DispatchEnv, seed: int) -> tuple[float, float]:
    """(minute the call rang, minute it became visible and dispatchable)."""
    s = env.reset(seed)
    while s.visible[0] < 0:
        env.step(s, Hold())
    return float(s.c_time[0]), s.t


def test_call_processing_delays_the_call_reaching_the_dispatcher() -> None:
    ring, seen = _ring_to_visible(_toy(call_processing_sigma=0.0), 5)
    assert seen == pytest.approx(ring + 1.25)
    ring, seen = _ring_to_visible(_toy(call_processing_min=0.0), 5)
    assert seen == pytest.approx(ring)


@pytest.mark.parametrize("turnout", [1.0, 0.0])
def test_turnout_precedes_the_drive_of_a_unit_leaving_its_station(turnout: float) -> None:
    """Toy unit 0 is ALS at node 0 with reliability 1 (no extra delay): it arrives at the call
    ``turnout + road minutes × traffic`` after the dispatch."""
    env = _toy(turnout_min=turnout, turnout_sigma=0.0)
    s = env.reset(5)
    while s.visible[0] < 0:
        env.step(s, Hold())
    c = int(s.visible[0])
    t0 = s.t
    assert env.step(s, Dispatch(unit=0, call=0)).valid
    assert s.u_status[0] == EN_ROUTE
    drive = float(s.graph.dist[0, int(s.c_node[c])]) * s.mult
    assert s.u_next[0] == pytest.approx(t0 + turnout + drive)


def test_the_20_node_city_roads_are_stretched() -> None:
    assert pytest.approx(1.75) == ROAD_SCALE
    assert [w for _, _, w in DISPATCHR_20.edges] == pytest.approx(
        [ROAD_SCALE * w for _, _, w in SEED_ROADS])
    assert [(u, v) for u, v, _ in DISPATCHR_20.edges] == [(u, v) for u, v, _ in SEED_ROADS]


def _handover_median(p: DispatchParams) -> float:
    env = DispatchEnv("learning", params=p)
    xs: list[float] = []
    for seed in range(6):
        s = env.reset(seed)
        agent, probe = B.ClosestIdleAgent(), Probe()
        agent.reset(env, seed)
        while not s.done:
            env.step(s, agent.act(env, s))
            probe.on_step(env, s)
        xs += list(probe.handover.values())
    assert len(xs) > 20
    return float(np.median(xs))


def test_handover_is_about_twenty_minutes_and_follows_its_parameter() -> None:
    p = scenario_params("learning")
    assert 15.0 <= _handover_median(p) <= 25.0
    assert _handover_median(replace(p, handover_min=30.0, handover_sd_min=5.0)) >= 27.0


def _arrest_share(severity_p: tuple[tuple[float, ...], ...] | None = None) -> float:
    import lifeline.envs.dispatch.generator as G

    p = scenario_params("advanced")
    saved = G.SEVERITY_P
    if severity_p is not None:
        G.SEVERITY_P = severity_p
    try:
        cardiac = arrests = 0
        for seed in range(150):
            rng = [np.random.default_rng([seed, i]) for i in range(4)]
            calls = generate_calls(p, generate_events(p, rng[0]), 7.0, rng[1], rng[2], rng[3])
            ok = (calls.type == CARDIAC) & (calls.kind == REAL)
            cardiac += int(ok.sum())
            arrests += int((ok & (calls.sev == 3)).sum())
    finally:
        G.SEVERITY_P = saved
    return arrests / cardiac


def test_a_twentieth_of_cardiac_calls_are_arrests() -> None:
    assert SEVERITY_P[CARDIAC][3] == pytest.approx(0.05)
    assert 0.02 < _arrest_share() < 0.09
    v1 = ((0.20, 0.30, 0.30, 0.20), *SEVERITY_P[1:])
    assert _arrest_share(v1) > 0.15


def test_mass_casualty_calls_are_flagged() -> None:
    env = DispatchEnv("mass_casualty")
    s = env.reset(1)
    assert s.c_mci.any() and (s.c_kind[s.c_mci] == REAL).all()
    assert not DispatchEnv("warmup").reset(1).c_mci.any()


@pytest.mark.parametrize("old", [1, 2, 3])
def test_the_old_ids_fail_with_a_clear_message(old: int) -> None:
    import gymnasium as gym

    import lifeline  # noqa: F401  (registers the ids)

    with pytest.raises(gym.error.DeprecatedEnv, match="lifeline/Dispatch-v4"):
        gym.make(f"lifeline/Dispatch-v{old}")
    with pytest.raises(gym.error.DeprecatedEnv, match="lifeline/DispatchMetro-v4"):
        gym.make(f"lifeline/DispatchMetro-v{old}")
