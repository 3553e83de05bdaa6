"""v4.3 (issue 26): the mass-casualty plan recalls off-duty crews and calls in mutual aid, and
the metro call count follows the 20-node city's calls per staffed unit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from lifeline.envs.dispatch.baselines import ClosestIdleAgent
from lifeline.envs.dispatch.env import DispatchEnv
from lifeline.envs.dispatch.params import metro_calls, scenario_params
from lifeline.envs.dispatch.types import AID_INBOUND, INACTIVE


def _play_to(env: DispatchEnv, seed: int, minute: float):
    agent = ClosestIdleAgent()
    s = env.reset(seed)
    agent.reset(env, seed)
    while not s.done and s.t < minute:
        env.step(s, agent.act(env, s))
    return s


def test_mci_plan_recalls_off_duty_slots_and_calls_aid() -> None:
    p = scenario_params("mass_casualty")
    assert p.mci_plan and p.on_duty == 10
    env = DispatchEnv("mass_casualty")
    n = env.ctx.n_fleet
    s = _play_to(env, 0, 121.0)
    assert set(s.u_status[p.on_duty:n].tolist()) <= {AID_INBOUND}  # recalled, on the way
    assert s.mutual_aid_left == 0
    s = _play_to(env, 0, 120.0 + p.mci_recall_delay_min + 1.0)
    assert INACTIVE not in s.u_status[p.on_duty:n].tolist()
    assert np.isinf(s.u_loan_end[p.on_duty:n]).all()  # own crews: on duty for the shift
    # switched off, the off-duty slots stay inactive and no aid is called
    off = DispatchEnv("mass_casualty", params=replace(p, mci_plan=False))
    s_off = _play_to(off, 0, 120.0 + p.mci_recall_delay_min + 1.0)
    assert (s_off.u_status[p.on_duty:n] == INACTIVE).all()
    assert s_off.mutual_aid_left == p.city.aid_slots


def test_mci_plan_lowers_the_fleet_busy_fraction() -> None:
    """The card's busy fraction (units in service) falls with the plan on (training seeds)."""
    from lifeline.calibrate.dispatch import Probe

    p = scenario_params("mass_casualty")
    res = {}
    for on in (True, False):
        env = DispatchEnv("mass_casualty", params=replace(p, mci_plan=on))
        vals = []
        for seed in range(4):
            agent, probe = ClosestIdleAgent(), Probe()
            s = env.reset(seed)
            agent.reset(env, seed)
            probe.on_step(env, s)
            while not s.done:
                env.step(s, agent.act(env, s))
                probe.on_step(env, s)
            vals.append(probe.values()["uhu_pct"])
        res[on] = float(np.mean(vals))
    assert res[True] < res[False] - 2.0


def test_random_bursts_elsewhere_keep_v4_dynamics() -> None:
    for name in ("advanced", "expert", "heatwave", "metro_advanced"):
        assert not scenario_params(name).mci_plan


def test_metro_calls_carry_the_20_node_unit_minutes_per_staffed_unit() -> None:
    """v4.4: calls per staffed unit × the measured service-time ratio (METRO_SERVICE_RATIO)."""
    assert [metro_calls(d) for d in ("warmup", "learning", "advanced", "expert")] == \
        [28, 60, 89, 93]
    assert scenario_params("metro_expert").calls_per_shift == 93
    assert scenario_params("metro_mass_casualty").calls_per_shift == 89
    assert scenario_params("metro_warmup").calls_per_shift == 28
