"""CodeRed-v3, fourth round (issue 24): the blood group is typed from a sample drawn at the
hospital, so a bleeding patient arrives untyped and emergency O- is what lets surgery start at
once. Each test fails on the v3 second round's behaviour (typing from the scene) or with the
O- stock switched off."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from lifeline.agents import make_agent
from lifeline.envs.codered.env import CodeRedEnv
from lifeline.envs.codered.params import O_NEG, SCENARIOS, TRAUMA, CodeRedParams
from lifeline.envs.codered.types import (
    AT_HOSPITAL,
    HANDOVER,
    AssignHospital,
    CodeRedState,
    DispatchAmbulance,
    MaintainPlan,
    QueryBloodType,
)

T1 = SCENARIOS["task1"]
TRAUMA_ONLY = replace(T1, patients=((TRAUMA, 0.0),), elective_prob=0.0)


def _until_hospital(env: CodeRedEnv, s: CodeRedState) -> None:
    while not s.done and s.patients[0].status not in (HANDOVER, AT_HOSPITAL):
        env.step(s, MaintainPlan())


def test_typing_waits_for_the_hospital_sample() -> None:
    env = CodeRedEnv("task1", params=TRAUMA_ONLY)
    s = env.reset(6)
    for a in (DispatchAmbulance(0, 0), AssignHospital(0, 0)):
        assert env.step(s, a).valid
    msg = env.validate(s, QueryBloodType(0)) or ""
    assert "drawn at the hospital" in msg
    assert not env.action_mask(s)[env.encode(QueryBloodType(0))]
    _until_hospital(env, s)
    assert env.validate(s, QueryBloodType(0)) is None
    assert env.action_mask(s)[env.encode(QueryBloodType(0))]
    # switched off (v3's earlier rounds): typing may start from the scene
    env2 = CodeRedEnv("task1", params=replace(TRAUMA_ONLY, hospital_typing=False))
    s2 = env2.reset(6)
    for a in (DispatchAmbulance(0, 0), AssignHospital(0, 0)):
        assert env2.step(s2, a).valid
    assert env2.validate(s2, QueryBloodType(0)) is None


def _play(scenario: str, seeds: range, params: CodeRedParams,
          no_oneg: bool = False) -> tuple[int, int, list[float], list[float]]:
    """(O- units transfused, red cells transfused, door-to-surgery minutes and survival of
    every treated trauma patient) of the heuristic; ``no_oneg``: every O- unit removed at 08:00."""
    env = CodeRedEnv(scenario, params=params)
    oneg = rbc = 0
    waits: list[float] = []
    surv: list[float] = []
    for seed in seeds:
        agent = make_agent("heuristic", "codered")
        agent.reset(env, seed)
        s = env.reset(seed)
        if no_oneg:
            for h in s.hospitals:
                h.stock[O_NEG] = 0
        while not s.done:
            env.step(s, agent.act(env, s))  # type: ignore[arg-type]
        oneg += s.tally.oneg_used
        rbc += s.tally.rbc_used
        for p in s.patients:
            if p.cond == TRAUMA and p.treated_at >= 0 and p.blood_need > 0:
                waits.append(p.treated_at - p.arrived)
                surv.append(p.survival)
    return oneg, rbc, waits, surv


def test_emergency_release_raises_the_oneg_share_above_the_card_band() -> None:
    task3 = SCENARIOS["task3"]
    oneg, rbc, _, _ = _play("task3", range(8), task3)
    oneg_off, rbc_off, _, _ = _play("task3", range(8), replace(task3, hospital_typing=False))
    assert rbc > 0 and rbc_off > 0
    assert oneg / rbc >= 0.12  # the card's lower edge (UK O D-neg issue share)
    assert oneg_off / rbc_off < 0.12  # typed en route: O- was rarely needed


def test_the_oneg_stock_matters() -> None:
    """task5 (a trauma patient at the start, then calls): without O- the bleeding patients wait
    for the hospital's own typing and crossmatch and fewer survive. (On task3 the trauma patient
    waits for an OR behind two cardiac patients, so there blood is not what binds.)"""
    task5 = SCENARIOS["task5"]
    _, _, waits, surv = _play("task5", range(12), task5)
    _, _, waits0, surv0 = _play("task5", range(12), task5, no_oneg=True)
    assert len(waits) >= 12 and len(waits0) >= 12
    assert np.mean(waits0) > np.mean(waits) + 3.0
    assert np.mean(surv0) < np.mean(surv) - 0.015
