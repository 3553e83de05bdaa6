"""dispatch v4 (issue 26): a priority-weighted grader with P1 components and sourced
time-dependent survival, and the exchange rates the README states (each checked here)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lifeline.envs.dispatch import reward
from lifeline.envs.dispatch.env import DispatchEnv
from lifeline.envs.dispatch.generator import toy_params
from lifeline.envs.dispatch.params import (
    CARDIAC,
    DECAY_MIN,
    MINOR,
    PRIORITY_TARGET_MIN,
    PRIORITY_WEIGHT,
    STROKE,
    TRAUMA,
    priority_of,
)
from lifeline.envs.dispatch.types import REAL


def _graded(prios: list[int], minutes: list[float], weights: tuple[float, ...] | None = None
            ) -> dict[str, float]:
    """Components of a toy shift whose real calls have these priorities and response minutes."""
    env = DispatchEnv("toy", toy_params(calls_per_shift=len(prios)))
    s = env.reset(0)
    assert s.c_time.size == len(prios)
    if weights is not None:
        env.ctx.prio_weight = np.asarray(weights)
    s.c_kind[:] = REAL
    s.c_prio[:] = prios
    s.c_type[:] = MINOR  # capability 1 whatever the unit
    s.c_first[:] = s.c_time + np.asarray(minutes)
    s.t = 480.0
    return env.grade(s).components


def test_a_late_p1_call_costs_four_times_a_late_p3_call() -> None:
    t1, _, t3 = PRIORITY_TARGET_MIN
    late = 30.0
    a = _graded([0, 2], [late, t3])  # the P1 call is late
    b = _graded([0, 2], [t1, late])  # the P3 call is late
    loss_a = 1.0 - a["response"]
    loss_b = 1.0 - b["response"]
    r1 = (t1 + 2.0) / (late + 2.0)
    r3 = (t3 + 2.0) / (late + 2.0)
    assert loss_a == pytest.approx(4.0 * (1.0 - r1) / 5.0)
    assert loss_b == pytest.approx(1.0 * (1.0 - r3) / 5.0)
    # switched off (equal weights), each late call costs its own ratio over 2 calls
    flat_a = _graded([0, 2], [late, t3], weights=(1.0, 1.0, 1.0))
    assert 1.0 - flat_a["response"] == pytest.approx((1.0 - r1) / 2.0)


def test_response_credit_is_absolute_and_full_within_the_target() -> None:
    assert _graded([0, 1, 2], list(PRIORITY_TARGET_MIN))["response"] == pytest.approx(1.0)
    assert reward.response_ratio(8.0, 8.0) == 1.0
    assert reward.response_ratio(8.0, 18.0) == pytest.approx(0.5)
    assert reward.response_ratio(8.0, math.inf) == 0.0


def test_p1_components_are_the_on_target_share_and_the_p90() -> None:
    t1 = PRIORITY_TARGET_MIN[0]
    minutes = [5.0] * 8 + [20.0, 30.0]
    c = _graded([0] * 10, minutes)
    assert c["p1_on_target"] == pytest.approx(0.8)
    p90 = float(np.percentile(minutes, 90))
    assert c["p1_p90"] == pytest.approx((t1 + 2.0) / (p90 + 2.0))
    fast = _graded([0] * 10, [5.0] * 10)
    assert fast["p1_on_target"] == 1.0 and fast["p1_p90"] == 1.0
    none = _graded([2, 2], [5.0, 40.0])  # no P1 call: both are the response component
    assert none["p1_on_target"] == none["p1_p90"] == none["response"] < 1.0
    unreached = _graded([0] * 10, [5.0] * 9 + [math.inf])
    assert unreached["p1_p90"] == 0.0 and unreached["p1_on_target"] == pytest.approx(0.9)


def test_the_weights_are_the_stated_exchange_rates() -> None:
    w = (reward.W_RESPONSE, reward.W_SURVIVAL, reward.W_COVERAGE, reward.W_P1_ON_TARGET,
         reward.W_P1_P90)
    assert w == (0.35, 0.25, 0.15, 0.15, 0.10) and sum(w) == pytest.approx(1.0)
    assert PRIORITY_WEIGHT == (4.0, 2.0, 1.0)
    assert PRIORITY_TARGET_MIN[0] == pytest.approx(8.0 + 59.0 / 60.0)


def test_priority_classes() -> None:
    assert priority_of(CARDIAC, 3) == 0 and priority_of(STROKE, 2) == 0
    assert priority_of(TRAUMA, 2) == 0 and priority_of(TRAUMA, 1) == 1
    assert priority_of(MINOR, 1) == 2 and priority_of(CARDIAC, 0) == 2


def test_time_critical_decay_constants_follow_their_sources() -> None:
    # Saver 2013: in-hospital death OR 0.96 per 15 min earlier treatment -> 1/tau per minute
    assert 1.0 / DECAY_MIN[STROKE] == pytest.approx(math.log(1 / 0.96) / 15.0, rel=0.01)
    # Clarke 2002: +0.35 pp death per minute at 40 % mortality
    assert 1.0 / DECAY_MIN[TRAUMA] == pytest.approx(0.0035 / 0.40, rel=0.01)
    # Rathore 2009: 10.9 % -> 13.6 % 1-yr mortality from 30 to 60 min (on ~11 %)
    assert 1.0 / DECAY_MIN[CARDIAC] == pytest.approx((0.136 - 0.109) / 30.0 / 0.11, rel=0.1)


@pytest.mark.parametrize("scenario", ["expert", "mass_casualty"])
def test_the_dense_reward_sums_to_the_score(scenario: str) -> None:
    from lifeline.envs.dispatch.baselines import DMEXCLPAgent

    env = DispatchEnv(scenario)
    agent = DMEXCLPAgent()
    s = env.reset(5)
    agent.reset(env, 5)
    total = 0.0
    while not s.done:
        total += env.step(s, agent.act(env, s)).reward
    assert total - s.shaping_used == pytest.approx(env.grade(s).score, abs=1e-9)
