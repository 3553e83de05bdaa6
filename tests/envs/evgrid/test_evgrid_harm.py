"""evgrid v3: harm that binds. The exchange rates the README states, and the exploit probes
(training seeds 0-2 only; the held-out comparison is ``results/evgrid/exploits_v3.json``)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.envs.evgrid import reward
from lifeline.envs.evgrid.env import EVGridEnv
from lifeline.eval.episode import Task, run_episode


def _finished(scenario: str, seed: int = 0):
    env = EVGridEnv(scenario)
    agent = make_agent("greedy", "evgrid")
    s = env.reset(seed)
    agent.reset(env, seed)
    while not s.done:
        env.step(s, agent.act(env, s))
    return env, s


@pytest.mark.parametrize("scenario", ["baseline", "monsoon_storm"])
def test_a_critical_kwh_costs_more_than_thirty_walkup_minutes(scenario: str) -> None:
    """README exchange rate: one critical kWh left unmet costs more score than 30 minutes of
    extra (mean-wait) waiting by one walk-up (v2: ~7-10e-5 per critical kWh, less than the wait
    terms paid for walk-ups sent to nearer, slower stations). The tail term is a quantile: a
    minute of p90 wait costs 0.10/120 ≈ 8e-4, ~2 critical kWh on ``baseline`` (README)."""
    env, s = _finished(scenario)
    base = reward.score(s, env.ctx)
    crit = np.flatnonzero((s.ev_weight > 1.0) & (s.ev_delivered - s.ev_drain >= s.ev_need)
                          & ~s.ev_dwell)
    s1 = copy.deepcopy(s)
    s1.ev_delivered[crit[0]] -= (s1.ev_delivered[crit[0]] - s1.ev_drain[crit[0]]
                                 - s1.ev_need[crit[0]]) + 1.0
    per_kwh = base - reward.score(s1, env.ctx)
    served = np.flatnonzero(~s.ev_dwell & np.isfinite(s.ev_start))
    s2 = copy.deepcopy(s)
    j = served[np.argmin(s.ev_start[served] - s.ev_arrive[served])]  # a short wait: p90 unmoved
    s2.ev_start[j] += 30.0
    w = reward.WEIGHTS["wait"]
    per_30min = w * (reward.grade(s, env.ctx).components["wait"]
                     - reward.grade(s2, env.ctx).components["wait"])
    assert per_kwh > per_30min > 0
    total_w = float(np.dot(s.ev_weight, s.ev_need))
    assert per_kwh >= reward.HARM_WEIGHT / total_w  # the harm price itself


def test_grid_harm_is_priced_by_its_consequences() -> None:
    """A kWh of other customers' load cut by protection costs as much score as an unmet
    critical kWh; an hour of excess insulation ageing costs AGEING_RATE of them."""
    env, s = _finished("baseline")
    base = reward.score(s, env.ctx)
    s1 = copy.deepcopy(s)
    s1.unserved_kwh += 10.0
    s2 = copy.deepcopy(s)
    s2.excess_ageing_min += 60.0 * 10.0 / reward.AGEING_RATE
    total_w = float(np.dot(s.ev_weight, s.ev_need))
    for si in (s1, s2):
        assert base - reward.score(si, env.ctx) == pytest.approx(
            reward.HARM_WEIGHT * 10.0 / total_w)


def _scores(scenario: str, agent: str, seeds: range) -> tuple[np.ndarray, np.ndarray]:
    runs = [run_episode(Task("evgrid", scenario, agent, sd)) for sd in seeds]
    return (np.array([r["score"] for r in runs]),
            np.array([r["metrics"]["harm_kwh"] for r in runs]))


def test_nearer_slower_stations_no_longer_buy_score() -> None:
    """The issue's trade on monsoon_storm (walk-ups to nearer, slower stations: shorter waits,
    more critical energy unmet) loses to greedy in v3 (switch the harm price off and it gains)."""
    g, g_harm = _scores("monsoon_storm", "greedy", range(3))
    n, n_harm = _scores("monsoon_storm", "near_slow", range(3))
    assert n_harm.mean() > g_harm.mean()
    assert n.mean() < g.mean() - 0.01


def test_ignoring_the_grid_does_not_pay_where_the_grid_binds() -> None:
    """On the tight east feeder at night, uncontrolled charging (nearest) heats the transformer,
    curtails outside EVs and scores far below greedy; a greedy blind to the grid does not beat
    greedy with more harm."""
    g, g_harm = _scores("whitefield_night", "greedy", range(2))
    i, i_harm = _scores("whitefield_night", "ignore_limits", range(2))
    n, n_harm = _scores("whitefield_night", "nearest", range(2))
    assert n_harm.mean() > 3 * g_harm.mean() and n.mean() < g.mean() - 0.2
    assert not (i.mean() > g.mean() + 0.005 and i_harm.mean() > g_harm.mean() + 1.0)
