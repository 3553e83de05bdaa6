"""ED-v3's grader exchange rates (README, "Grader"): a death outweighs the whole flow range, the
wait is door-to-*provider* (a bed without a physician is still waiting), one hour of average
door-to-provider is 0.08 of the flow term, leaving unseen is charged like an early discharge,
a deterioration in the ED is harm like a return one level worse,
and no baseline or exploit that causes more deaths ranks above the heuristic on a few paired
seeds (the full suite is ``bench/ed_mechanics.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.core.env import Environment
from lifeline.envs.ed import reward
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.params import SCENARIOS
from lifeline.envs.ed.types import AdmitGeneral, SeeGeneral, Wait
from tests.envs.ed.test_ed_v3_clinicians_workup import arrive, patient, quiet


def test_a_death_costs_more_than_the_whole_flow_range_in_v3() -> None:
    """Same N: one more death with perfect flow still scores below zero flow without it."""
    env, s = quiet()
    arrive(env, s, *[patient(i) for i in range(10)])
    best = env.grade(s)
    n = s.counters.patients
    s.counters.deaths += 1
    worse = env.grade(s)
    assert best.score - worse.score == pytest.approx(1.0 / (n + 1))
    assert 1.0 / (n + 1) >= max(reward.FLOW_WEIGHTS.values()) / (n + 1)


def test_a_bed_without_a_physician_is_still_waiting() -> None:
    env, s = quiet()
    p = patient(0)
    arrive(env, s, p)
    env.step(s, AdmitGeneral(slot=0))
    for _ in range(4):
        env.step(s, Wait())
    g = env.grade(s)
    assert g.metrics["avg_wait_h"] == 0.0  # admitted at once: no waiting-room wait
    assert g.metrics["door_to_provider_h"] == pytest.approx(s.tick * 0.25)
    assert g.components["wait"] == pytest.approx(1 - s.tick * 0.25 / 5.0)
    env.step(s, SeeGeneral(bed=0))
    seen = env.grade(s).metrics["door_to_provider_h"]
    for _ in range(4):
        env.step(s, Wait())
    assert env.grade(s).metrics["door_to_provider_h"] == pytest.approx(seen)


def test_one_hour_of_door_to_provider_is_0_08_of_the_flow_term() -> None:
    env, s = quiet()
    arrive(env, s, patient(0))
    for _ in range(4):  # one hour in the waiting room
        env.step(s, Wait())
    g = env.grade(s)
    assert g.metrics["door_to_provider_h"] == pytest.approx(1.0)
    assert reward.FLOW_WEIGHTS["wait"] * (1 - g.components["wait"]) == pytest.approx(0.08)


def test_leaving_unseen_is_charged_like_an_early_discharge() -> None:
    env, s = quiet()
    p = patient(0, esi=2)
    p.patience_ticks = 2
    arrive(env, s, p)
    s.patient_draws[0, 2:5] = (0.0, 0.0, 0.0)  # dies outside (ESI 2: 10 %)
    for _ in range(3):
        env.step(s, Wait())
    g = env.grade(s)
    assert g.metrics["lwbs"] == 1 and g.metrics["deaths"] == 1 and g.metrics["harm"] == 1.0


def test_a_deterioration_in_the_ed_is_harm_like_a_return_worse() -> None:
    """A patient left waiting who worsens one ESI level costs RETURN_HARM (0.1 death) and the
    dense reward's -1.5, as a return one level worse does (ED-v2 never counted it)."""
    env, s = quiet(worsen_hazard=SCENARIOS["normal_day"].worsen_hazard)
    arrive(env, s, patient(0, esi=3))
    before = env.grade(s).metrics["harm"]
    s.hazard_draws[0, s.tick] = 0.0  # worsens this tick (ESI 3: 1 % per tick)
    ts = env.step(s, Wait())
    g = env.grade(s)
    assert s.waiting[0].true_acuity == 2 and g.metrics["deteriorations"] == 1
    assert g.metrics["harm"] - before == pytest.approx(reward.RETURN_HARM)
    assert g.metrics["deaths"] == 0
    assert ts.reward == pytest.approx(-15.0 * reward.RETURN_HARM - 0.5)  # + a tick as ESI 2


@pytest.mark.parametrize("scenario", ["surge", "icu_boarding"])
def test_no_v3_exploit_has_more_deaths_and_a_higher_score(scenario: str) -> None:
    seeds = [1_500_000 + i for i in range(3)]

    def run(name: str) -> tuple[float, float]:
        scores, deaths = [], []
        for seed in seeds:
            env: Environment = EDEnv(scenario)
            agent = make_agent(name, "ed")
            s = env.reset(seed)
            agent.reset(env, seed)
            while not s.done:
                env.step(s, agent.act(env, s))
            g = env.grade(s)
            scores.append(g.score)
            deaths.append(g.metrics["deaths"])
        return float(np.mean(scores)), float(np.mean(deaths))

    ref_score, ref_deaths = run("heuristic")
    for name in ("discharge_boarders", "see_least_urgent", "expedite_last"):
        score, deaths = run(name)
        assert not (score > ref_score and deaths > ref_deaths + 0.5), (name, score, deaths)


def test_the_bound_has_every_resource() -> None:
    """The upper bound plays the same seeds with beds, physicians, scanners and inpatient beds
    to spare (and clairvoyant care needs), so no policy can out-wait or out-survive it by
    capacity."""
    bound = make_agent("bound", "ed")
    env = bound.prepare(EDEnv("surge"))
    assert isinstance(env, EDEnv)
    assert min(env.params.physicians_by_hour) >= 200 and env.params.scanners >= 200
    assert env.params.ward_free_start >= 400 and env.params.hospital_icu_free_start >= 200
    assert env.params.general_beds >= 200 and env.params.arrivals_per_hour == pytest.approx(
        SCENARIOS["surge"].arrivals_per_hour)
