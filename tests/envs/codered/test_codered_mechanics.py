"""codered: every mechanic is causal (each check is shown to fail with its switch off), the grader
against hand-computed episodes, the clock, the tools."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.envs.codered.dynamics import workup_minutes
from lifeline.envs.codered.env import CodeRedEnv
from lifeline.envs.codered.params import (
    CARDIAC,
    SCENARIOS,
    STROKE,
    SURVIVAL_SLOPE,
    TRAUMA,
    CodeRedParams,
)
from lifeline.envs.codered.reward import grade
from lifeline.envs.codered.types import (
    AID_INBOUND,
    AT_HOSPITAL,
    DEAD,
    HANDOVER,
    IDLE,
    OR_ELECTIVE,
    OR_READY,
    SP_PRESENT,
    STABILISED,
    TREATED,
    AllocateBlood,
    AssignHospital,
    CodeRedState,
    DispatchALS,
    DispatchAmbulance,
    MaintainPlan,
    PageSpecialist,
    PreemptOR,
    PrepareOR,
    QueryBloodType,
    RequestMutualAid,
    TransferBlood,
)
from lifeline.faces.tools import LegalView, openai_tools, parse_tool_call

T1 = SCENARIOS["task1"]


def make(params: CodeRedParams) -> CodeRedEnv:
    return CodeRedEnv("task1", params=params)


def wait_until(env: CodeRedEnv, s: CodeRedState, minute: float) -> None:
    while not s.done and s.t < minute:
        env.step(s, MaintainPlan())


def run_to_end(env: CodeRedEnv, s: CodeRedState) -> None:
    while not s.done:
        env.step(s, MaintainPlan())


def deliver(env: CodeRedEnv, s: CodeRedState, patient: int, unit: int, hospital: int) -> None:
    for a in (DispatchAmbulance(unit, patient), AssignHospital(patient, hospital)):
        ts = env.step(s, a)
        assert ts.valid, ts.message


# ----- ambulance pipeline -------------------------------------------------------------------------
def test_own_ambulance_pipeline_end_to_end() -> None:
    env = make(T1)
    s = env.reset(3)
    deliver(env, s, 0, 0, 1)
    seen = []
    while not s.done:
        p = s.patients[0]
        seen.append((p.status, s.units[0].status))
        env.step(s, MaintainPlan())
    statuses = [x for x, _ in seen]
    for st in (3, 4, 5, 6, 7):  # assigned, on scene, transporting, handover, awaiting treatment
        assert st in statuses or st in (6, 7), (st, statuses)
    assert s.patients[0].status == TREATED and s.patients[0].survival > 0.2  # v2: work-up
    assert s.units[0].status == IDLE and s.units[0].node == s.units[0].home


def test_routes_start_from_where_the_ambulance_is() -> None:
    env = make(replace(T1, patients=((3, 0.0), (3, 30.0)), horizon_min=150.0))
    s = env.reset(5)
    deliver(env, s, 0, 2, 2)
    # wait until unit 2 is returning, then redirect it
    while s.units[2].status != 6 and not s.done:
        env.step(s, MaintainPlan())
    wait_until(env, s, 30.0)
    un = s.units[2]
    if un.status == 6:
        from lifeline.envs.codered.dynamics import unit_position
        origin, lead = unit_position(s, 2)
        ts = env.step(s, DispatchAmbulance(2, 1))
        assert ts.valid
        assert s.units[2].node == origin
        assert s.units[2].t_arrive == pytest.approx(s.t + lead + s.graph.dist[origin,
                                                                               s.patients[1].node])


# ----- vitals and mortality inside the horizon ----------------------------------------------------
def passive_cardiac_dies(params: CodeRedParams) -> bool:
    env = make(params)
    s = env.reset(1)
    v0 = s.patients[0].v_ref
    wait_until(env, s, 30.0)
    from lifeline.envs.codered.dynamics import vitals
    falling = vitals(s.patients[0], s.t) < v0 - 0.1
    run_to_end(env, s)
    return falling and s.patients[0].status == DEAD


V2_CURVES = replace(T1, sourced_ischaemia=False, sourced_outcome=False)
"""v2's invented pre-hospital curves and survival from vitals (v3 charges cardiac / stroke the
sourced gradient from onset and scores them by the sourced outcome tables;
tests/envs/codered/test_codered_audit_fixes.py checks that)."""


def test_vitals_fall_and_untreated_patients_die_within_the_horizon() -> None:
    assert passive_cardiac_dies(V2_CURVES)
    assert not passive_cardiac_dies(replace(V2_CURVES, mech_deterioration=False))


def survival_after_delay(params: CodeRedParams, delay: float) -> float:
    env = make(params)
    s = env.reset(2)
    wait_until(env, s, delay)
    deliver(env, s, 0, 0, 1)
    env.step(s, PrepareOR(1, "cardiac"))
    env.step(s, PageSpecialist(1, "cardiologist"))
    run_to_end(env, s)
    return s.patients[0].survival


def test_time_to_treatment_changes_survival() -> None:
    assert survival_after_delay(V2_CURVES, 0.0) > survival_after_delay(V2_CURVES, 20.0) + 0.1
    # v3: Terkelsen 2010's system-delay table: 20 min later costs 1.3 points per 10 min there
    assert survival_after_delay(T1, 0.0) > survival_after_delay(T1, 20.0) + 0.015
    off = replace(T1, mech_deterioration=False)
    assert survival_after_delay(off, 0.0) == pytest.approx(survival_after_delay(off, 20.0))


# ----- OR preparation, specialist paging, preemption ----------------------------------------------
def readiness_run(params: CodeRedParams, prealert: bool) -> tuple[float, float, CodeRedState]:
    env = make(replace(params, elective_prob=0.0))
    s = env.reset(4)
    deliver(env, s, 0, 0, 0)
    if prealert:
        assert env.step(s, PrepareOR(0, "cardiac")).valid
        assert env.step(s, PageSpecialist(0, "cardiologist")).valid
    run_to_end(env, s)
    p = s.patients[0]
    return p.treated_at - p.arrived, p.survival, s


def test_or_prep_and_paging_keep_resources_ready_and_save_time() -> None:
    wait_ready, surv_ready, s = readiness_run(T1, True)
    wait_cold, surv_cold, _ = readiness_run(T1, False)
    work = workup_minutes(T1, s.patients[0])
    assert work > 30.0  # v2: the door-to-balloon work-up
    assert wait_ready == pytest.approx(work) and s.patients[0].or_ready_arr
    assert s.patients[0].spec_ready_arr
    # unalerted, the hospital activates its team only after the work-up: + the page (15 min)
    assert wait_cold >= work + 14.9 and surv_cold < surv_ready
    off = replace(T1, mech_readiness=False)
    assert readiness_run(off, False)[0] == pytest.approx(work)
    none = replace(T1, workup_factor=0.0)
    assert readiness_run(none, True)[0] == pytest.approx(0.0)
    assert readiness_run(none, False)[0] == pytest.approx(15.0)


def test_workup_is_drawn_from_the_sourced_distributions() -> None:
    env = make(T1)
    pts = [env.reset(seed).patients[0] for seed in range(400)]
    for p in pts:  # the drawn work-up is that of a pre-alerted arrival (v3)
        p.prealerted = True
    work = [workup_minutes(T1, p) for p in pts]
    assert 58.0 < float(np.median(work)) < 70.0  # Krumholz 2011: median 64
    assert 0.86 < float(np.mean(np.asarray(work) <= 90.0)) < 0.96  # 91.4 % within 90 min
    p = env.reset(0).patients[0]
    p.workup_z, p.prealerted = 0.0, True
    assert workup_minutes(T1, p) == pytest.approx(64.0)
    p.cond = STROKE
    p.workup_z = 0.6745  # upper quartile of the standard normal
    assert workup_minutes(T1, p) == pytest.approx(87.0, abs=1.0)  # Fonarow 2014: IQR 51-87
    p.cond = TRAUMA
    assert workup_minutes(T1, p) == 0.0
    assert workup_minutes(replace(T1, workup_factor=0.0), env.reset(0).patients[0]) == 0.0


def in_hospital_slope(params: CodeRedParams, cond: int) -> tuple[float, float]:
    """Survival points the env charges per 10 minutes between the door and treatment of a
    pre-alerted patient treated at the end of their work-up, and the pre-hospital vitals rate."""
    env = make(replace(params, elective_prob=0.0))
    s = env.reset(4)
    s.patients[0].cond = cond
    deliver(env, s, 0, 0, 0)
    if cond == STROKE:
        assert env.step(s, PageSpecialist(0, "neurologist")).valid
    else:
        assert env.step(s, PrepareOR(0, "cardiac")).valid
        assert env.step(s, PageSpecialist(0, "cardiologist")).valid
    run_to_end(env, s)
    p = s.patients[0]
    assert p.status == TREATED and p.treated_at == pytest.approx(p.workup_until)
    minutes = p.treated_at - p.arrived
    assert minutes > 30.0
    pre = (1.0 - p.vitals_door) / (p.arrived - p.onset)
    return 100.0 * SURVIVAL_SLOPE[cond] * (p.vitals_door - p.vitals_at) / minutes * 10.0, pre


def test_in_hospital_minutes_cost_the_published_survival_gradient() -> None:
    # Rathore 2009: 1-yr mortality 10.9 % at D2B 30 min, 25.3 % at 180 -> 14.4 / 15 per 10 min
    cardiac, _ = in_hospital_slope(T1, CARDIAC)
    assert cardiac == pytest.approx((25.3 - 10.9) / 15.0, abs=0.01)
    # Saver 2013: OR 0.96 per 15 min at 8.8 % in-hospital mortality
    odds = 0.088 / 0.912 / 0.96
    stroke, _ = in_hospital_slope(T1, STROKE)
    assert stroke == pytest.approx((odds / (1 + odds) - 0.088) * 100.0 / 1.5, abs=0.01)
    # switched back to the generic rate (half the untreated one): ~5 points per 10 min
    old = replace(V2_CURVES, in_hospital_calibrated=False)
    old_c, old_pre = in_hospital_slope(old, CARDIAC)
    assert old_c > 4.0 and old_pre == pytest.approx(in_hospital_slope(V2_CURVES, CARDIAC)[1])
    assert in_hospital_slope(old, STROKE)[0] > 2.0


def test_prealerted_team_waits_through_a_long_workup() -> None:
    # no deterioration and a long horizon: the patient lives to the end of a long work-up
    env = make(replace(T1, elective_prob=0.0, mech_deterioration=False, horizon_min=400.0))
    s = env.reset(4)
    s.patients[0].workup_z = 3.0  # 64 * e^0.75 = 135 min, longer than the 60-min hold
    deliver(env, s, 0, 0, 0)
    assert env.step(s, PrepareOR(0, "cardiac")).valid
    assert env.step(s, PageSpecialist(0, "cardiologist")).valid
    while not s.done and s.patients[0].status != AT_HOSPITAL:
        env.step(s, MaintainPlan())
    work = workup_minutes(T1, s.patients[0])
    assert work > 130.0 and s.patients[0].workup_until > s.t + 100.0
    wait_until(env, s, s.t + 100.0)  # past the 60-min hold (epochs overshoot by < 10 min)
    assert s.t < s.patients[0].workup_until
    assert s.patients[0].status == AT_HOSPITAL  # no treatment before the work-up ends
    assert any(o.state == OR_READY and o.claimed == 0 for o in s.hospitals[0].ors)
    assert any(sp.kind == 0 and sp.state == SP_PRESENT for sp in s.hospitals[0].specialists)
    run_to_end(env, s)
    p = s.patients[0]
    assert p.status == TREATED and p.treated_at == pytest.approx(p.workup_until)
    g = env.grade(s)
    assert g.metrics["preps_wasted"] == 0 and g.metrics["pages_wasted"] == 0


def test_prepared_or_and_paged_specialist_stay_available() -> None:
    env = make(replace(T1, elective_prob=0.0))
    s = env.reset(0)
    env.step(s, PrepareOR(0, "cardiac"))
    env.step(s, PageSpecialist(0, "neurologist"))
    wait_until(env, s, 40.0)
    assert any(o.state == OR_READY for o in s.hospitals[0].ors)
    assert any(sp.kind == 1 and sp.state == SP_PRESENT for sp in s.hospitals[0].specialists)
    run_to_end(env, s)  # never used: both wasted
    g = env.grade(s)
    assert g.metrics["preps_wasted"] + g.metrics["pages_wasted"] >= 1


def test_preempt_frees_an_elective_or() -> None:
    env = make(replace(T1, elective_prob=1.0))
    s = env.reset(0)
    assert all(o.state == OR_ELECTIVE for o in s.hospitals[1].ors)
    assert not env.step(s, PrepareOR(1, "cardiac")).valid
    assert env.step(s, PreemptOR(1, 0)).valid
    assert env.step(s, PrepareOR(1, "cardiac")).valid


# ----- blood --------------------------------------------------------------------------------------
def trauma_run(params: CodeRedParams, how: str) -> tuple[float, float, int]:
    env = make(replace(params, patients=((TRAUMA, 0.0),), elective_prob=0.0))
    s = env.reset(6)
    deliver(env, s, 0, 0, 0)
    env.step(s, PrepareOR(0, "trauma"))
    env.step(s, PageSpecialist(0, "trauma_surgeon"))
    p = s.patients[0]
    if how == "oneg":
        assert env.step(s, AllocateBlood(0, 0, "O-", min(4, p.blood_need), True)).valid
    if how == "empty":  # send every unit away first
        for b in ("A+", "A-", "B+", "B-", "AB+", "AB-", "O+", "O-"):
            while s.hospitals[0].stock[("A+", "A-", "B+", "B-", "AB+", "AB-", "O+",
                                        "O-").index(b)] > 0:
                n = min(4, s.hospitals[0].stock[("A+", "A-", "B+", "B-", "AB+", "AB-", "O+",
                                                 "O-").index(b)])
                env.step(s, TransferBlood(0, 2, b, n))
    stock0 = sum(s.hospitals[0].stock)
    run_to_end(env, s)
    return p.treated_at - p.arrived, p.survival, stock0 - sum(s.hospitals[0].stock)


def test_trauma_waits_for_blood_uses_it_and_suffers_without() -> None:
    wait_none, surv_none, used = trauma_run(T1, "none")
    wait_oneg, surv_oneg, _ = trauma_run(T1, "oneg")
    assert wait_none >= 19.9 and used > 0  # hospital types and crossmatches on arrival
    assert wait_oneg < wait_none and surv_oneg > surv_none
    _, surv_empty, _ = trauma_run(T1, "empty")
    assert surv_empty < surv_none - 0.2
    assert trauma_run(replace(T1, mech_blood=False), "none")[0] < 19.9


def test_typed_blood_needs_a_known_type_and_a_crossmatch() -> None:
    env = make(replace(T1, patients=((TRAUMA, 0.0),)))
    s = env.reset(6)
    deliver(env, s, 0, 0, 0)
    p = s.patients[0]
    typed = AllocateBlood(0, 0, ("A+", "A-", "B+", "B-", "AB+", "AB-", "O+", "O-")[p.blood_type],
                          2, False)
    assert "unknown" in (env.validate(s, typed) or "")
    while p.status not in (HANDOVER, AT_HOSPITAL):  # v3: the sample is drawn at the hospital
        env.step(s, MaintainPlan())
    assert env.step(s, QueryBloodType(0)).valid
    wait_until(env, s, s.t + 5.0)
    assert p.type_known
    assert env.step(s, typed).valid and p.blood_pending == 2
    wait_until(env, s, s.t + 15.0)
    assert p.blood_ready >= 2 or p.status == TREATED


def test_blood_transfer_arrives_after_travel_time() -> None:
    env = make(T1)
    s = env.reset(0)
    before = s.hospitals[2].stock[0]
    assert env.step(s, TransferBlood(0, 2, "A+", 3)).valid
    assert s.hospitals[2].stock[0] == before
    wait_until(env, s, 25.0)
    assert s.hospitals[2].stock[0] == before + 3


# ----- diversion, mutual aid ----------------------------------------------------------------------
def diversion_seen(params: CodeRedParams) -> tuple[bool, bool]:
    env = CodeRedEnv("task3", params=params)
    started = ended = False
    for seed in range(40):
        s = env.reset(seed)
        while not s.done:
            env.step(s, MaintainPlan())
            d = [h.divert_until > s.t for h in s.hospitals]
            if any(d):
                started = True
            elif started:
                ended = True
        if started and ended:
            break
    return started, ended


def test_diversions_start_and_end() -> None:
    p = replace(SCENARIOS["task3"], disruption_rate=0.1)
    assert diversion_seen(p) == (True, True)
    assert diversion_seen(replace(p, mech_diversion=False)) == (False, False)


def aid_arrival_delay(params: CodeRedParams) -> float:
    env = make(replace(params, mutual_aid=1))
    s = env.reset(0)
    t0 = s.t
    assert env.step(s, RequestMutualAid()).valid
    u = 5
    assert s.units[u].status == AID_INBOUND
    from lifeline.envs.codered.dynamics.events import AidArrives
    delay = min(ev[0] for ev in s.heap if isinstance(ev[2], AidArrives)) - t0
    while s.units[u].status != IDLE:
        assert env.validate(s, DispatchAmbulance(u, 0)) is not None
        env.step(s, MaintainPlan())
    assert env.step(s, DispatchAmbulance(u, 0)).valid  # then it obeys like any unit
    env.step(s, AssignHospital(0, 1))
    run_to_end(env, s)
    assert s.patients[0].arrived >= 0  # the mutual-aid crew delivered the patient
    assert env.grade(s).metrics["mutual_aid_penalty"] == 0.0  # v3: priced in the dynamics
    return delay


def test_mutual_aid_is_delayed_costly_and_then_controlled() -> None:
    assert aid_arrival_delay(T1) >= 15.0
    assert aid_arrival_delay(replace(T1, mech_aid_delay=False)) == pytest.approx(0.0)


# ----- phase 2 calls, escalation, cascade, stabilisation ------------------------------------------
def test_call_conditions_hidden_until_on_scene_and_escalation() -> None:
    env = CodeRedEnv("task4")
    s = env.reset(11)
    while not any(p.status == 2 for p in s.patients):
        env.step(s, MaintainPlan())
    i = next(k for k, p in enumerate(s.patients) if p.status == 2)
    assert env.observe(s)["patients"][i, 3] == 0  # condition unknown
    u = next(k for k, un in enumerate(s.units) if un.als and un.status == IDLE)
    assert env.step(s, DispatchALS(u, i)).valid
    while s.patients[i].status == 3:
        env.step(s, MaintainPlan())
    assert env.observe(s)["patients"][i, 3] == s.patients[i].cond + 1


def escalations(params: CodeRedParams) -> int:
    env = CodeRedEnv("task4", params=params)
    s = env.reset(11)
    run_to_end(env, s)
    return int(env.grade(s).metrics["escalations"])


def test_unhandled_calls_escalate() -> None:
    p = SCENARIOS["task4"]
    assert escalations(p) > 0
    assert escalations(replace(p, mech_escalation=False)) == 0


def secondary_patients(params: CodeRedParams) -> int:
    env = CodeRedEnv("task5", params=params)
    n = 0
    for seed in range(3):
        s = env.reset(seed)
        run_to_end(env, s)
        n += sum(1 for p in s.patients if p.secondary and p.onset != float("inf"))
    return n


def test_cascade_deaths_spawn_secondary_patients() -> None:
    assert secondary_patients(SCENARIOS["task5"]) > 0
    assert secondary_patients(replace(SCENARIOS["task5"], cascade=False)) == 0


def test_community_hc_stabilises_and_transfer_completes_treatment() -> None:
    env = make(replace(T1, patients=((STROKE, 0.0),), horizon_min=180.0))
    s = env.reset(2)
    deliver(env, s, 0, 0, 2)
    while s.patients[0].status != STABILISED and not s.done:
        env.step(s, MaintainPlan())
    p = s.patients[0]
    assert p.status == STABILISED and p.mult == pytest.approx(0.25)
    u = next(k for k, un in enumerate(s.units) if un.status == IDLE)
    deliver(env, s, 0, u, 0)
    run_to_end(env, s)
    assert p.status == TREATED and p.hosp == 0


# ----- clock, invalid actions, grader -------------------------------------------------------------
def test_invalid_action_uses_one_slot_and_the_last_slot_advances_the_clock() -> None:
    env = make(T1)
    s = env.reset(0)
    t0 = s.t
    for k in range(1, 4):
        assert not env.step(s, PreemptOR(2, 0)).valid
        assert s.epoch_actions == k and s.t == t0
    env.step(s, PreemptOR(2, 0))
    assert s.t > t0 and s.epoch_actions == 0


def test_llm_episode_is_tens_of_turns() -> None:
    for sc in ("task3", "task5"):
        env = CodeRedEnv(sc)
        agent = make_agent("heuristic", "codered")
        s = env.reset(0)
        n = 0
        while not s.done:
            env.step(s, agent.act(env, s))  # type: ignore[arg-type]
            n += 1
        assert 15 <= n <= 200, (sc, n)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_passive_agents_score_zero(scenario: str) -> None:
    for name in ("noop", "mutual_aid_only"):
        env = CodeRedEnv(scenario)
        agent = make_agent(name, "codered")
        s = env.reset(3)
        total = 0.0
        while not s.done:
            total += env.step(s, agent.act(env, s)).reward  # type: ignore[arg-type]
        assert env.grade(s).score == 0.0 and total == pytest.approx(0.0, abs=1e-9)


def hand_state(survival: float, treated_at: float, vitals_at: float, aid: int) -> Any:
    env = make(replace(T1, aid_penalty=0.04))  # v3's scenarios charge 0; the cap still works
    s = env.reset(0)
    p = s.patients[0]
    p.status, p.survival, p.treated_at, p.vitals_at = TREATED, survival, treated_at, vitals_at
    p.or_ready_arr, p.spec_ready_arr = True, False
    s.tally.preps_used, s.tally.pages_wasted = 3, 1
    s.tally.aid_requests = aid
    return grade(s, env.params)


def test_grader_against_a_hand_computed_episode() -> None:
    # one cardiac patient, survival 0.8, treated 120 min after onset (target 90), vitals 0.5,
    # OR ready but specialist not (readiness 1/2), 3 useful preps and 1 wasted page.
    g = hand_state(0.8, 120.0, 0.5, aid=0)
    assert g.components["time"] == pytest.approx(0.8 * 0.75)
    assert g.components["vitals"] == pytest.approx(0.4)
    assert g.components["prep_ready"] == pytest.approx(0.4)
    assert g.components["efficiency"] == pytest.approx(0.6)
    # (0.32*0.6 + 0.16*0.6 + 0.16*0.4 + 0.10*0.4) / 0.74 = 0.392 / 0.74
    assert g.score == pytest.approx(0.392 / 0.74)
    capped = hand_state(0.8, 120.0, 0.5, aid=3)
    assert capped.score == pytest.approx(0.392 / 0.74 - 0.10)


def test_dense_reward_sums_to_the_score() -> None:
    env = CodeRedEnv("task3")
    agent = make_agent("heuristic", "codered")
    s = env.reset(4)
    total = 0.0
    while not s.done:
        total += env.step(s, agent.act(env, s)).reward  # type: ignore[arg-type]
    assert total == pytest.approx(env.grade(s).score, abs=1e-9)
    assert env.grade(s).score > 0.3


def test_heuristic_beats_passive_and_exploits_lose_on_harm() -> None:
    env = CodeRedEnv("task4")
    scores: dict[str, float] = {}
    harm: dict[str, float] = {}
    for name in ("heuristic", "close_all_calls", "dispatch_only"):
        agent = make_agent(name, "codered")
        tot = h = 0.0
        for seed in range(4):
            s = env.reset(seed)
            agent.reset(env, seed)
            while not s.done:
                env.step(s, agent.act(env, s))  # type: ignore[arg-type]
            g = env.grade(s)
            tot += g.score
            h += g.metrics["harm"]
        scores[name], harm[name] = tot, h
    assert scores["close_all_calls"] < scores["heuristic"]
    assert harm["close_all_calls"] > harm["heuristic"]
    assert scores["dispatch_only"] < scores["heuristic"]


def test_tools_cover_all_fourteen_actions_with_typed_arguments() -> None:
    env = CodeRedEnv("task5")
    tools = openai_tools(env)
    assert len(tools) == 14
    alloc = next(t for t in tools if t["function"]["name"] == "allocate_blood")
    props = alloc["function"]["parameters"]["properties"]
    assert props["blood_type"]["type"] == "string" and props["emergency"]["type"] == "boolean"
    a = parse_tool_call(env, "triage_call", '{"call": 2, "decision": "callback"}')
    assert env.decode(env.encode(a)) == a  # type: ignore[arg-type]
    s = env.reset(0)
    lines = LegalView(env, s).lines()
    assert lines[0].startswith("Legal actions") and any("transfer_blood" in x for x in lines)
    bad = env.step(s, parse_tool_call(env, "prepare_or", '{"hospital": 2, "procedure": "x"}'))  # type: ignore[arg-type]
    assert not bad.valid and "procedure" in bad.message


def test_aware_of_or_status_query() -> None:
    env = make(replace(T1, elective_prob=1.0))
    s = env.reset(0)
    from lifeline.envs.codered.types import QueryORStatus
    obs = env.observe(s)
    assert obs["ors"][0, 0, 4] == 0
    assert env.step(s, QueryORStatus(0, 0)).valid
    assert env.observe(s)["ors"][0, 0, 4] > 0
    assert env.validate(s, QueryORStatus(0, 0)) is not None


def test_hospital_capabilities_decide_treatment() -> None:
    env = make(replace(T1, patients=((STROKE, 0.0),)))
    s = env.reset(1)
    deliver(env, s, 0, 0, 1)  # District Hospital cannot treat stroke: it stabilises
    while s.patients[0].status not in (STABILISED, AT_HOSPITAL, TREATED, DEAD):
        env.step(s, MaintainPlan())
    assert s.patients[0].status == STABILISED
    assert s.patients[0].status != AT_HOSPITAL


def test_frame_is_plain_json() -> None:
    import json
    env = CodeRedEnv("task5")
    agent = make_agent("heuristic", "codered")
    s = env.reset(2)
    for _ in range(30):
        env.step(s, agent.act(env, s))  # type: ignore[arg-type]
    f = env.frame(s)
    assert json.loads(json.dumps(f)) == f
    assert f["patients"] and len(f["ambulances"]) == 7 and 0.0 < f["progress"] <= 1.0


def test_bound_plays_the_relaxed_city_on_the_same_draws() -> None:
    """The bound's world differs only in delays: same patients, calls, blood, hospitals at 08:00;
    and removing the delays helps (the heuristic scores higher there on the same seeds)."""
    from lifeline.envs.codered.baselines import RELAXATION, BoundAgent

    for scenario in ("task3", "task5_surge"):
        real = CodeRedEnv(scenario)
        relaxed_env = BoundAgent().prepare(real)
        assert isinstance(relaxed_env, CodeRedEnv)
        for key, value in RELAXATION.items():
            assert getattr(relaxed_env.params, key) == value
        for seed in range(3):
            a, b = real.reset(seed), relaxed_env.reset(seed)
            fields = ("cond", "onset", "node", "category", "blood_type", "blood_need", "v_ref",
                      "base_rate", "void")
            assert [[getattr(p, f) for f in fields] for p in a.patients] == \
                [[getattr(p, f) for f in fields] for p in b.patients]
            assert [(o.state, o.until) for h in a.hospitals for o in h.ors] == \
                [(o.state, o.until) for h in b.hospitals for o in h.ors]
            assert [h.icu_free for h in a.hospitals] == [h.icu_free for h in b.hospitals]
    gains = []
    for seed in range(6):
        scores = []
        for env in (CodeRedEnv("task2"), BoundAgent().prepare(CodeRedEnv("task2"))):
            agent = make_agent("heuristic", "codered")
            s = env.reset(seed)
            while not s.done:
                env.step(s, agent.act(env, s))  # type: ignore[arg-type]
            scores.append(env.grade(s).score)
        gains.append(scores[1] - scores[0])
    assert min(gains) >= 0.0 and sum(gains) > 0.2


def test_road_refresh_matches_the_graph_built_step_by_step() -> None:
    """The road cache's miss path (one shortest-path pass, connectivity by a node search) gives
    the same arrays as slowing/removing roads one by one on a RoadGraph (the original method)."""
    import random

    from lifeline.core.graph import RoadGraph
    from lifeline.envs.codered.dynamics import roads as dyn
    from lifeline.envs.codered.params import ARTERIALS, NODES, ROADS

    for a, b, _ in ROADS:
        assert dyn.connected_without(frozenset(), a, b) == RoadGraph(
            len(NODES), list(ROADS)).stays_connected_without(a, b)
    env = CodeRedEnv("task3_gridlock")
    rnd = random.Random(3)
    for _ in range(60):
        roads = [(rnd.choice((dyn.ACCIDENT, dyn.CLOSURE)), *ROADS[rnd.randrange(len(ROADS))][:2])
                 for _ in range(rnd.randint(1, 5))]
        s = env.reset(0)
        s.disruptions = [(0.0, kind, a, b, 10.0) for kind, a, b in roads]
        s.active = [True] * len(roads)
        s.rush = rnd.random() < 0.5
        dyn._ROAD_CACHE.clear()
        dyn.refresh_roads(s, env.params)
        g = RoadGraph(len(NODES), list(ROADS))
        if s.rush:
            for u, v in ARTERIALS:
                g.factor[u, v] = g.factor[v, u] = env.params.rush_factor
        for kind, a, b in roads:
            if kind == dyn.ACCIDENT:
                g.factor[a, b] = g.factor[b, a] = g.factor[a, b] * 3.0
        g.recompute()
        for kind, a, b in roads:
            if kind == dyn.CLOSURE:
                if g.stays_connected_without(a, b):
                    g.removed[a, b] = g.removed[b, a] = True
                else:
                    g.factor[a, b] = g.factor[b, a] = g.factor[a, b] * 3.0
                g.recompute()
        for name in ("factor", "removed", "weight", "dist", "pred"):
            assert getattr(s.graph, name).tobytes() == getattr(g, name).tobytes(), name


@pytest.mark.slow
def test_task3_card_door_to_needle_and_balloon_within_band() -> None:
    """CodeRed-v2's work-up keeps task3's card (docs/calibration/codered_task3.md) within band:
    door-to-needle and door-to-balloon medians and target shares (30 held-out episodes); the
    calibrated in-hospital rate keeps the survival lost per 10 in-hospital minutes within the
    Rathore / Saver bands for both conditions."""
    from lifeline.calibrate import calibrate

    card = calibrate("codered", "task3", 30)
    for key in ("dtn_median", "dtn_le60", "d2b_median", "d2b_le90", "inhosp_cardiac",
                "inhosp_stroke"):
        row = card.row(key)
        assert row.within, (row.stat.label, row.value, row.stat.band)
