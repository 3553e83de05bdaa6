"""CodeRed-v3 (issue 24): each hole the audit opened is closed by a test that fails on v2's
behaviour, each new mechanic has a switch that makes its test fail, and every exchange rate the
README states is checked here."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.envs.codered import reward
from lifeline.envs.codered.env import CodeRedEnv
from lifeline.envs.codered.generator import STREAMS, generate
from lifeline.envs.codered.params import (
    CARDIAC,
    HOSPITAL_NODE,
    SCENARIOS,
    SERIOUS,
    STROKE,
    SURGE_SERIOUS_SHARE,
    CodeRedParams,
)
from lifeline.envs.codered.types import (
    AID_INBOUND,
    AT_HOSPITAL,
    EN_ROUTE,
    IDLE,
    ON_SCENE,
    STABILISED,
    TREATED,
    AllocateBlood,
    AssignHospital,
    CodeRedState,
    DispatchAmbulance,
    MaintainPlan,
    PageSpecialist,
    PrepareOR,
    RequestMutualAid,
    TransferBlood,
)

T1 = SCENARIOS["task1"]


def make(params: CodeRedParams) -> CodeRedEnv:
    return CodeRedEnv("task1", params=params)


def step_ok(env: CodeRedEnv, s: CodeRedState, a: object) -> None:
    ts = env.step(s, a)  # type: ignore[arg-type]
    assert ts.valid, ts.message


def until(env: CodeRedEnv, s: CodeRedState, done: object) -> None:
    while not s.done and not done():  # type: ignore[operator]
        env.step(s, MaintainPlan())


def play(scenario: str, agent: str, seed: int, params: CodeRedParams | None = None) -> CodeRedState:
    env = CodeRedEnv(scenario, params=params)
    a = make_agent(agent, "codered")
    a.reset(env, seed)
    s = env.reset(seed)
    while not s.done:
        env.step(s, a.act(env, s))  # type: ignore[arg-type]
    return s


# ----- bug 1: transfers start from the hospital -----------------------------------------------
def test_a_transfer_ambulance_drives_to_the_hospital_not_the_incident_site() -> None:
    env = make(replace(T1, patients=((STROKE, 0.0),), horizon_min=180.0))
    s = env.reset(2)
    site = s.patients[0].node
    step_ok(env, s, DispatchAmbulance(0, 0))
    step_ok(env, s, AssignHospital(0, 2))  # the Community HC only stabilises a stroke
    until(env, s, lambda: s.patients[0].status == STABILISED)
    assert s.patients[0].node == HOSPITAL_NODE[2] != site  # v2: still the incident site
    u = next(k for k, un in enumerate(s.units) if un.status == IDLE)
    step_ok(env, s, DispatchAmbulance(u, 0))
    assert s.units[u].status == EN_ROUTE and s.units[u].dest == HOSPITAL_NODE[2]
    until(env, s, lambda: s.patients[0].status == TREATED)
    assert s.patients[0].status == TREATED and env.grade(s).metrics["transfers"] == 1


# ----- bug 2: blood that leaves stock is used or wasted ---------------------------------------
def blood_run(need: int, units: int) -> tuple[int, int, dict[str, float]]:
    env = make(replace(T1, elective_prob=0.0, horizon_min=200.0))
    s = env.reset(3)
    s.patients[0].blood_need = need
    step_ok(env, s, DispatchAmbulance(0, 0))
    step_ok(env, s, AssignHospital(0, 0))
    stock0 = sum(s.hospitals[0].stock)
    step_ok(env, s, AllocateBlood(0, 0, "O-", units, True))
    until(env, s, lambda: False)
    m = env.grade(s).metrics
    return stock0 - sum(s.hospitals[0].stock), s.patients[0].status, m


def test_reserved_blood_a_patient_did_not_need_is_wasted() -> None:
    taken, status, m = blood_run(need=0, units=4)
    assert status == TREATED and taken == 4
    assert m["blood_used"] == 0 and m["blood_wasted"] == 4  # v2: 0 (the units vanished)
    taken, status, m = blood_run(need=2, units=4)
    assert status == TREATED and m["blood_used"] == 2 and m["blood_wasted"] == 2
    assert m["blood_used"] + m["blood_wasted"] == taken  # every unit out of stock is accounted


def test_crossmatch_still_pending_at_treatment_is_wasted() -> None:
    env = make(replace(T1, elective_prob=0.0, horizon_min=200.0))
    s = env.reset(3)
    p = s.patients[0]
    step_ok(env, s, DispatchAmbulance(0, 0))
    step_ok(env, s, AssignHospital(0, 0))
    until(env, s, lambda: p.status == AT_HOSPITAL)
    p.type_known = True
    until(env, s, lambda: s.t >= p.workup_until - 5.0)
    step_ok(env, s, AllocateBlood(0, 0, "O-", 3, False))  # 15-min crossmatch, need 0
    until(env, s, lambda: False)
    assert p.status == TREATED and env.grade(s).metrics["blood_wasted"] == 3


# ----- bug 3: surge calls are mostly the worried well -----------------------------------------
def test_surge_calls_follow_the_stated_mix() -> None:
    from lifeline.core.rng import make_streams

    params = SCENARIOS["task5_surge"]
    surge = ordinary = serious_surge = serious_ordinary = 0
    for seed in range(300):
        s = generate(params, make_streams(seed, STREAMS))
        for p in s.patients:
            if p.is_call and not p.void:
                if p.surge_only:
                    surge += 1
                    serious_surge += p.cond in SERIOUS
                else:
                    ordinary += 1
                    serious_ordinary += p.cond in SERIOUS
    share = serious_surge / surge
    assert abs(share - SURGE_SERIOUS_SHARE) < 0.03, share  # v2: 0.59-0.71
    assert serious_ordinary / ordinary > 0.5  # ordinary calls keep the category table


# ----- nothing free: invalid actions, churn, transfers ----------------------------------------
def test_invalid_actions_cost_score_at_the_stated_rate() -> None:
    s = play("task1", "heuristic", 5)
    g0 = reward.grade(s, s_params := SCENARIOS["task1"])
    for k, expect in ((10, 0.02), (50, 0.10), (200, 0.10)):  # 0.002 each, capped at 0.10
        s.invalid_actions = k
        assert reward.grade(s, s_params).score == pytest.approx(max(0.0, g0.score - expect))
    off = replace(s_params, invalid_score=0.0)
    assert reward.grade(s, off).score == pytest.approx(g0.score)


def test_invalid_padding_lowers_the_score() -> None:
    for seed in range(3):
        clean = play("task3", "heuristic", seed)
        padded = play("task3", "invalid_padding", seed)
        assert padded.invalid_actions > 10
        p = CodeRedEnv("task3")
        assert p.grade(padded).score < p.grade(clean).score - 0.01


def reassign_delay(params: CodeRedParams, flips: int) -> float:
    env = make(replace(params, elective_prob=0.0))
    s = env.reset(1)
    step_ok(env, s, DispatchAmbulance(0, 0))
    step_ok(env, s, AssignHospital(0, 0))
    for k in range(flips):
        step_ok(env, s, AssignHospital(0, 1 - k % 2))
    if flips % 2:
        step_ok(env, s, AssignHospital(0, 0))
    until(env, s, lambda: s.patients[0].status not in (3, ON_SCENE))
    return s.units[0].t_start  # when the transport left the scene


def test_each_destination_change_costs_two_crew_minutes() -> None:
    base = reassign_delay(T1, 0)
    assert reassign_delay(T1, 2) == pytest.approx(base + 4.0)  # 2 changes x 2 min
    assert reassign_delay(T1, 3) == pytest.approx(base + 8.0)  # 3 changes + back = 4
    assert reassign_delay(replace(T1, reassign_min=0.0), 2) == pytest.approx(base)


def test_first_destination_of_a_transfer_is_free() -> None:
    env = make(replace(T1, patients=((STROKE, 0.0),), horizon_min=180.0))
    s = env.reset(2)
    step_ok(env, s, DispatchAmbulance(0, 0))
    step_ok(env, s, AssignHospital(0, 2))
    until(env, s, lambda: s.patients[0].status == STABILISED)
    step_ok(env, s, DispatchAmbulance(1, 0))
    step_ok(env, s, AssignHospital(0, 0))
    assert s.patients[0].replan_min == 0.0 and s.tally.reassignments == 0


def test_transferred_blood_is_waste_until_drawn() -> None:
    env = make(replace(T1, elective_prob=0.0, horizon_min=200.0))
    s = env.reset(3)
    step_ok(env, s, TransferBlood(1, 0, "O-", 2))
    step_ok(env, s, DispatchAmbulance(0, 0))
    step_ok(env, s, AssignHospital(0, 0))
    until(env, s, lambda: s.patients[0].status == TREATED)
    idle = env.grade(s)
    assert s.tally.transfer_sent == 2 and s.tally.transfer_used == 0
    comps_off = reward.grade(s, replace(env.params, transfer_waste=0.0)).components
    assert idle.components["efficiency"] < comps_off["efficiency"]
    # drawn for a patient, the moved units are useful
    p = s.patients[0]
    from lifeline.envs.codered.dynamics import take_stock

    take_stock(s, 0, 7, 2)
    assert s.tally.transfer_used == 2 and p.status == TREATED
    assert reward.grade(s, env.params).components["efficiency"] == pytest.approx(
        comps_off["efficiency"])


# ----- mutual aid priced by what it does ------------------------------------------------------
def test_mutual_aid_costs_no_score_its_price_is_the_delay() -> None:
    """A request costs no score; the unit arrives after the drawn delay (15-25 min) and then
    stays an ordinary unit for the rest of the episode (v3's first-cut recall was removed:
    it moved no policy measurably)."""
    env = make(replace(T1, mutual_aid=1, patients=((CARDIAC, 140.0),), horizon_min=200.0))
    s = env.reset(0)
    g0 = env.grade(s).score
    step_ok(env, s, RequestMutualAid())
    assert env.grade(s).score == g0 and env.grade(s).metrics["mutual_aid_penalty"] == 0.0
    assert s.units[5].status == AID_INBOUND
    until(env, s, lambda: s.units[5].status == IDLE)
    assert 15.0 <= s.t <= 25.0 + env.params.max_epoch_min
    until(env, s, lambda: s.t >= 130.0)
    assert s.units[5].status == IDLE
    instant = make(replace(T1, mutual_aid=1, mech_aid_delay=False))
    s2 = instant.reset(0)
    step_ok(instant, s2, RequestMutualAid())
    until(instant, s2, lambda: s2.units[5].status == IDLE)
    assert s2.t < s.t  # switched off, the unit arrives at once


# ----- pre-alert shortens door-to-treatment by the sourced amount ------------------------------
def prealert_gap(params: CodeRedParams) -> float:
    """Door-to-treatment without minus with a pre-alert (same patient, same draw)."""
    out = []
    for alert in (False, True):
        env = make(replace(params, elective_prob=0.0, mech_deterioration=False,
                           horizon_min=300.0))
        s = env.reset(4)
        step_ok(env, s, DispatchAmbulance(0, 0))
        step_ok(env, s, AssignHospital(0, 0))
        if alert:
            step_ok(env, s, PrepareOR(0, "cardiac"))
            step_ok(env, s, PageSpecialist(0, "cardiologist"))
        until(env, s, lambda: False)
        p = s.patients[0]
        assert p.status == TREATED and p.prealerted == alert
        out.append(p.treated_at - p.arrived)
    return out[0] - out[1]


def test_prealert_saves_26_minutes_of_door_to_balloon() -> None:
    assert prealert_gap(T1) == pytest.approx(26.0)  # PMC9072100: -26 min [-33, -19]
    assert prealert_gap(replace(T1, prealert=False)) == pytest.approx(15.0)  # v2: the page


def test_the_drawn_workup_is_not_changed_for_other_conditions() -> None:
    from lifeline.envs.codered.dynamics import workup_minutes

    p = CodeRedEnv("task2").reset(0).patients[1]
    assert p.cond == STROKE
    w0 = workup_minutes(T1, p)
    p.prealerted = True
    assert workup_minutes(T1, p) == pytest.approx(w0)


# ----- hidden truth stays hidden ---------------------------------------------------------------
def test_grade_and_dense_reward_do_not_move_with_an_unseen_call_condition() -> None:
    env = CodeRedEnv("task4")
    agent = make_agent("heuristic", "codered")
    agent.reset(env, 1)
    s = env.reset(1)
    checked = 0
    while not s.done:
        unseen = [p for p in s.patients if p.is_call and not p.known and not p.void
                  and p.status != 0]
        treated = any(p.status == TREATED for p in s.patients)
        if unseen and treated:
            v = reward.value(s, env.params)
            for p in unseen:
                old = p.cond
                p.cond = 4 if old in SERIOUS else CARDIAC
                assert reward.value(s, env.params) == v
                p.cond = old
            checked += 1
        env.step(s, agent.act(env, s))  # type: ignore[arg-type]
    assert checked > 5


def test_a_closed_calls_death_is_not_shown() -> None:
    from lifeline.envs.codered.types import TriageCall

    env = CodeRedEnv("task4")
    s = env.reset(0)
    until(env, s, lambda: any(p.status == 2 for p in s.patients))
    i = next(k for k, p in enumerate(s.patients) if p.status == 2)
    s.patients[i].cond = CARDIAC
    step_ok(env, s, TriageCall(i, "no_dispatch"))
    until(env, s, lambda: s.patients[i].status == 9)
    assert env.observe(s)["patients"][i, 6] == 10.0  # shown as resolved, not dead
    assert "dead" not in env.render_text(s).split(f"[{i}]")[1].split("\n")[0]


# ----- exploit probes lose ------------------------------------------------------------------------
@pytest.mark.parametrize("probe", ["invalid_padding", "churn", "blood_shuttle", "blood_grabber"])
def test_formerly_free_actions_now_lower_the_score(probe: str) -> None:
    env = CodeRedEnv("task3")
    diffs = [env.grade(play("task3", probe, seed)).score
             - env.grade(play("task3", "heuristic", seed)).score for seed in range(4)]
    assert float(np.mean(diffs)) < -0.005, diffs


def test_refusing_aid_does_not_pay_on_the_surge_task() -> None:
    env = CodeRedEnv("task5_surge")
    d = [env.grade(play("task5_surge", "no_mutual_aid", seed)).score
         - env.grade(play("task5_surge", "heuristic", seed)).score for seed in range(6)]
    assert float(np.mean(d)) <= 0.005, d


# ----- trauma: the time penalty for the shock subgroup ----------------------------------------
def trauma_minutes_to_death(params: CodeRedParams) -> tuple[list[float], list[float]]:
    """Untreated minutes to death of trauma patients in shock and not, over many draws."""
    from lifeline.core.rng import make_streams

    shock: list[float] = []
    other: list[float] = []
    for seed in range(200):
        s = generate(params, make_streams(seed, STREAMS))
        p = s.patients[0]
        (shock if p.blood_need >= 4 else other).append(p.v_ref / p.base_rate)
    return shock, other


def test_only_haemorrhagic_shock_keeps_the_golden_hour_deterioration() -> None:
    from lifeline.envs.codered.params import TRAUMA

    t = replace(T1, patients=((TRAUMA, 0.0),))
    shock, other = trauma_minutes_to_death(t)
    assert min(shock) >= 50.0 and max(shock) <= 80.0
    assert min(other) >= 220.0 and max(other) <= 320.0  # the general range
    assert 0.5 < len(shock) / 200 < 0.7  # needs 4-6 of 2-6 units
    _, other_off = trauma_minutes_to_death(replace(t, mech_shock=False))
    assert max(other_off) <= 80.0  # switched off: v2, every trauma patient on the fast range


def test_registered_exploits_are_the_baselines_list() -> None:
    import lifeline
    from lifeline.envs.codered.baselines import AGENTS, EXPLOITS

    assert lifeline.spec("codered").exploits == EXPLOITS
    assert set(EXPLOITS) <= set(AGENTS)
    assert lifeline.spec("codered").gym_id == "lifeline/CodeRed-v3"
    assert CodeRedEnv.version == 3


def test_card_labels_every_statistic() -> None:
    from lifeline.calibrate.codered import STATS

    judged = [s for s in STATS if s.band is not None]
    assert all(s.label.startswith(("[input]", "[tuned]", "[emergent]")) for s in judged)
    assert sum(s.label.startswith("[emergent]") for s in judged) >= 3


# ----- sourced time-to-outcome before the door ----------------------------------------------------
def untreated_points_per_10min(params: CodeRedParams, cond: int) -> tuple[float, int]:
    """Survival points an untreated, uncared-for patient loses per 10 min, and its status at
    the end of a 150-min episode."""
    from lifeline.envs.codered.dynamics import vitals
    from lifeline.envs.codered.params import SURVIVAL_SLOPE

    env = make(replace(params, patients=((cond, 0.0),)))
    s = env.reset(1)
    p = s.patients[0]
    v0 = p.v_ref
    until(env, s, lambda: s.t >= 60.0)
    pts = 100.0 * SURVIVAL_SLOPE[cond] * (v0 - vitals(p, s.t)) / s.t * 10.0
    until(env, s, lambda: False)
    return pts, p.status


def test_cardiac_and_stroke_deteriorate_at_the_sourced_gradient_from_onset() -> None:
    from lifeline.envs.codered.types import DEAD

    cardiac, status = untreated_points_per_10min(T1, CARDIAC)
    assert cardiac == pytest.approx(0.96, abs=0.01) and status != DEAD  # Rathore 2009
    stroke, _ = untreated_points_per_10min(T1, STROKE)
    assert stroke == pytest.approx(0.22, abs=0.01)  # Saver 2013
    v2 = replace(T1, sourced_ischaemia=False)
    old, status = untreated_points_per_10min(v2, CARDIAC)
    assert old > 8.0 and status == DEAD  # v2: dead within 60-90 min, ~11x the sourced rate


def test_dense_reward_with_invalid_actions_sums_to_the_score_minus_the_reward_penalty() -> None:
    env = CodeRedEnv("task2")
    agent = make_agent("invalid_padding", "codered")
    agent.reset(env, 0)
    s = env.reset(0)
    total = 0.0
    while not s.done:
        total += env.step(s, agent.act(env, s)).reward  # type: ignore[arg-type]
    assert s.invalid_actions > 10
    assert total == pytest.approx(env.grade(s).score - 0.01 * s.invalid_actions, abs=1e-9)


# ----- sourced time-to-outcome: STEMI by system delay, stroke by functional outcome -----------
def test_outcome_tables_read_back_their_sources() -> None:
    from lifeline.envs.codered.params import STROKE, SURVIVAL_MAX, outcome_at

    assert outcome_at(CARDIAC, 10.0) == SURVIVAL_MAX[CARDIAC]  # first bin: no loss
    assert outcome_at(CARDIAC, 90.0) == pytest.approx(SURVIVAL_MAX[CARDIAC] - 0.079)
    assert outcome_at(CARDIAC, 150.0) == pytest.approx(SURVIVAL_MAX[CARDIAC] - 0.127)
    odds = 0.26 / 0.74
    assert outcome_at(STROKE, 45.0) == pytest.approx(odds * 2.8 / (1 + odds * 2.8))
    assert outcome_at(STROKE, 400.0) == pytest.approx(0.26)  # past the window: placebo's share
    grid = [outcome_at(STROKE, t) for t in range(0, 400, 5)]
    assert grid == sorted(grid, reverse=True)


def test_stroke_scores_a_functional_outcome_and_stemi_the_system_delay() -> None:
    from lifeline.envs.codered.params import STROKE, SURVIVAL_SLOPE, outcome_at

    for sourced in (True, False):
        s = play("task2", "heuristic", 0, replace(SCENARIOS["task2"], sourced_outcome=sourced))
        for p in s.patients:
            if p.status != TREATED or p.cond not in (CARDIAC, STROKE):
                continue
            best = outcome_at(p.cond, p.treated_at - p.onset) - SURVIVAL_SLOPE[p.cond] * (
                1.0 - p.v_onset)
            if sourced:  # the table less the severity, less at most the care penalties
                assert best - 0.2 <= p.survival <= best + 1e-9
            if p.cond == STROKE:
                # a good functional outcome (mRS 0-1) is far rarer than survival
                assert (p.survival < 0.55) == sourced
