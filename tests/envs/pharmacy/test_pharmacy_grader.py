"""Pharmacy v2 grader: outcomes only, stated exchange rates, invalid calls cost, no split bypass."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.envs.pharmacy import reward
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.params import SCENARIOS
from lifeline.envs.pharmacy.types import Lot, PharmacyState, SubmitPo

DEAREST_BLOOD_UNIT = 450.0 * 1.8 * 1.5
"""$ of the dearest blood unit: a platelet from FASTMED, expedited."""


def _play(env: PharmacyEnv, name: str, seed: int) -> PharmacyState:
    agent = make_agent(name, "pharmacy")
    agent.reset(env, seed)
    state = env.reset(seed)
    while not state.done:
        env.step(state, agent.act(env, state))
    return state


@pytest.fixture(scope="module")
def finished() -> dict[str, PharmacyState]:
    return {s: _play(PharmacyEnv(s), "base_stock", 7) for s in SCENARIOS}


def test_components_are_outcomes_only() -> None:
    assert set(reward.WEIGHTS) == {"patient_safety", "high_service", "normal_service",
                                   "event_response", "waste_control", "cost_control"}
    assert sum(reward.WEIGHTS.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_one_more_unmet_critical_unit_never_pays(scenario: str,
                                                 finished: dict[str, PharmacyState]) -> None:
    """The stated exchange rates, on a finished episode: an extra unmet critical unit costs at
    least 0.50 / N_c; saving the dearest blood unit's price, or its waste, does not buy it back."""
    env = PharmacyEnv(scenario)
    state = finished[scenario]
    base = env.grade(state).score
    n_c = state.counters.crit_need
    worse = copy.deepcopy(state)
    worse.counters.unmet_critical += 1.0
    assert base - env.grade(worse).score >= reward.WEIGHTS["patient_safety"] / n_c - 1e-12
    saved = copy.deepcopy(worse)  # ... and it saved the money and the waste of that unit
    saved.counters.spent -= DEAREST_BLOOD_UNIT
    saved.counters.waste_cost = max(0.0, saved.counters.waste_cost - 450.0)
    assert env.grade(saved).score < base
    # the rates stated in reward.py's docstring
    per_dollar = reward.WEIGHTS["cost_control"] / (reward.SPEND_VALUE * n_c)
    per_waste = reward.WEIGHTS["waste_control"] / (reward.WASTE_VALUE * n_c)
    per_unit = reward.WEIGHTS["patient_safety"] / n_c
    assert per_unit / per_dollar == pytest.approx(7142.857, rel=1e-3)
    assert per_unit / per_waste == pytest.approx(6250.0)
    assert DEAREST_BLOOD_UNIT * per_dollar + 450.0 * per_waste < per_unit


def test_unsafe_units_count_as_harm(finished: dict[str, PharmacyState]) -> None:
    env = PharmacyEnv("medium")
    state = copy.deepcopy(finished["medium"])
    g0 = env.grade(state)
    if not state.events:
        pytest.skip("no event")
    state.events[0].unsafe_units += 3.0
    g1 = env.grade(state)
    assert g1.metrics["harm_units"] == g0.metrics["harm_units"] + 3.0
    assert g1.score < g0.score


def test_invalid_calls_lower_the_score_by_their_stated_cost() -> None:
    """Padding every round with 10 malformed calls changes nothing else and costs 0.001 each."""
    env = PharmacyEnv("light")
    for seed in (3, 4):
        ref = env.grade(_play(env, "base_stock", seed)).score
        padded = _play(env, "invalid_padding", seed)
        assert padded.invalid_actions == 10 * env.params.rounds
        assert env.grade(padded).score == pytest.approx(
            ref - reward.INVALID_COST * padded.invalid_actions)


def test_splitting_orders_does_not_bypass_finance() -> None:
    env = PharmacyEnv("medium")
    state = env.reset(5)
    for _ in range(4):  # 4 x 10 red cells = $8,800 with MEDLINE this round: placed
        env.step(state, SubmitPo("MEDLINE", "BLOOD-RBC", "CENTRAL", 10))
    assert [po.status for po in state.pos] == ["open"] * 4
    env.step(state, SubmitPo("MEDLINE", "BLOOD-RBC", "CENTRAL", 10))  # $11,000 this round
    assert state.pos[-1].status == "held"
    env.step(state, SubmitPo("FASTMED", "IV-SAL-500", "CENTRAL", 10))  # another supplier
    assert state.pos[-1].status == "open"


def test_terminal_credit_by_hand() -> None:
    """Stock at the end counts at standard price up to terminal_days of expected demand, and
    only what the expected rate would use before it expires."""
    env = PharmacyEnv("medium")
    state = env.reset(1)
    state.round = env.params.rounds
    end = env.params.days
    for lots in state.central:
        lots.clear()
    for row in state.wards:
        for lots in row:
            lots.clear()
    rate = 6.0  # expected platelets a day (3 ICU + 3 ER)
    state.central[1] = [Lot("a", 1, 10.0, end + 1), Lot("b", 1, 100.0, end + 3)]
    credit = reward.terminal_credit(state, env.params)
    # lot a: 1 day x 6 = 6 of 10 usable; lot b: until day 3, 3 x 6 - 6 = 12 more
    assert credit[1] == pytest.approx((6.0 + 12.0) * 450.0)
    state.central[0] = [Lot("c", 0, 1000.0, end + 40)]  # red cells: capped at 4 days
    assert reward.terminal_credit(state, env.params)[0] == pytest.approx(
        env.params.terminal_days * 12.0 * 220.0)
    assert rate == 6.0


def test_more_harm_never_ranks_higher_among_the_probes() -> None:
    """Every registered policy that scores above base-stock on these seeds leaves no more
    critical need unmet than it (mean over 3 seeds, medium)."""
    import lifeline

    env = PharmacyEnv("medium")
    names = ["base_stock", *lifeline.spec("pharmacy").exploits]
    out = {}
    for name in names:
        grades = [env.grade(_play(env, name, s)) for s in (11, 12, 13)]
        out[name] = (np.mean([g.score for g in grades]),
                     np.mean([g.metrics["harm_units"] for g in grades]))
    ref_score, ref_harm = out["base_stock"]
    for name, (score, harm) in out.items():
        if score > ref_score + 1e-9:
            assert harm <= ref_harm + 1e-9, (name, score, harm, ref_score, ref_harm)
