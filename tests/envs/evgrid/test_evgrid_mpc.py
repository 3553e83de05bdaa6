"""evgrid ``mpc`` (issue 25 follow-up): its thermal lookahead prices a plugged-in plan by the
transformer ageing it adds, and that price is the derivative of the excess ageing along the
expected load path; ``mpc`` scores above ``greedy`` with less harm where critical energy is
short."""

from __future__ import annotations

import numpy as np

from lifeline.envs.evgrid import thermal
from lifeline.envs.evgrid.baselines import GreedyAgent, MPCAgent, hot_spot_path
from lifeline.envs.evgrid.env import EVGridEnv
from lifeline.eval.episode import Task, run_episode


def _excess_h(e: EVGridEnv, oil, rise, k_pu, tick: int) -> np.ndarray:
    v = thermal.ageing_rate(e.ctx.p, hot_spot_path(e, oil, rise, k_pu, tick)[1:])
    return np.maximum(v - 1.0, 0.0).sum(axis=0) * e.ctx.p.tick_min / 60.0


def test_ageing_price_is_the_derivative_of_excess_ageing() -> None:
    env = EVGridEnv("heatwave_peak")
    agent = MPCAgent()
    s = env.reset(0)
    agent.reset(env, 0)
    while s.tick < 50:
        env.step(s, agent.act(env, s))  # type: ignore[arg-type]
    obs = env.observe(s)
    price = agent.ageing_price(env, s, obs)
    ctx, tick = env.ctx, s.tick
    assert price[tick].max() > 0  # the heat makes some zone age faster than normal
    # rebuild the path the price was taken along, then add 1 kWh in one tick of each zone
    load = ctx.base_mean + ctx.out_mean
    fc = obs["headroom_forecast"]
    n_fc = min(fc.shape[1], ctx.T + 1 - tick)
    load[tick:tick + n_fc] = ctx.zone_cap[None, :] - fc[:, :n_fc].T
    planned = agent._table(env, s)
    walk = np.maximum(obs["zones"][:, 2] - planned[tick], 0.0)
    load[tick:] += planned[tick:] + (0.85 ** np.arange(ctx.T + 1 - tick))[:, None] * walk
    oil = obs["zones"][:, 7].astype(float)
    rise = (obs["zones"][:, 8] - obs["zones"][:, 7]).astype(float)
    base = _excess_h(env, oil, rise, load / ctx.zone_cap, tick)
    t = tick + 2
    kw = 1.0 / (ctx.p.tick_min / 60.0)  # 1 kWh in one tick
    bumped = load.copy()
    bumped[t] += kw
    fd = _excess_h(env, oil, rise, bumped / ctx.zone_cap, tick) - base
    hot = fd > 1e-9
    assert hot.any()
    assert np.allclose(price[t][hot], fd[hot], rtol=0.15)
    assert np.all(price[t][~hot] < 1e-6)


def test_mpc_beats_greedy_with_less_critical_energy_unmet() -> None:
    """Training seeds 0-1 of ``baseline``; switching ``mpc``'s additions off (greedy's settings)
    gives greedy's score exactly."""
    for seed in (0, 1):
        g = run_episode(Task("evgrid", "baseline", "greedy", seed))
        m = run_episode(Task("evgrid", "baseline", "mpc", seed))
        assert m["score"] > g["score"] + 0.0005  # seeds 0-3: +0.0009 to +0.0041
        assert m["metrics"]["unmet_critical_kwh"] < g["metrics"]["unmet_critical_kwh"]
    off = type("Off", (MPCAgent,), {"commit": False, "thermal_lookahead": False,
                                    "overload_value": GreedyAgent.overload_value,
                                    "critical_harm_min": 0.0})()
    o = run_episode(Task("evgrid", "baseline", "mpc", 0), agent=off)
    assert o["score"] == run_episode(Task("evgrid", "baseline", "greedy", 0))["score"]


def test_critical_premium_off_where_nearly_every_walkup_is_critical() -> None:
    """``airport_rush`` (77 % critical walk-ups) falls back to greedy's walk-up rule; the other
    scenarios keep the premium. With the premium on, airport_rush's training seed 14 loses
    0.0098 and seed 45 0.0041 (seed 7 gains 0.0045; over seeds 0-199 the fallback gains
    +0.0005)."""
    agent = MPCAgent()
    assert agent.critical_premium(EVGridEnv("airport_rush")) == 0.0
    for sc in ("baseline", "festival_surge", "monsoon_storm"):
        assert agent.critical_premium(EVGridEnv(sc)) == MPCAgent.critical_harm_min > 0
    on = type("On", (MPCAgent,), {"critical_share_max": 1.0})()
    for seed in (14, 45):
        off_score, on_score = (run_episode(Task("evgrid", "airport_rush", "mpc", seed),
                                           agent=a)["score"] for a in (MPCAgent(), on))
        assert off_score > on_score + 0.002
