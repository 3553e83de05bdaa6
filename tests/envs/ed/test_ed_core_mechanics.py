"""Mechanics of the ED environment: each test fails if its mechanic is removed or broken."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from lifeline.envs.ed import generator
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.params import SCENARIOS, TRAUMA
from lifeline.envs.ed.types import (
    GENERAL,
    AdmitGeneral,
    AdmitICU,
    DischargeGeneral,
    DischargeICU,
    EDState,
    StepDown,
    TransferToICU,
    Ventilate,
    Wait,
)
from lifeline.eval.episode import Task, run_episode


def ed(scenario: str = "normal_day") -> EDEnv:
    env = EDEnv(scenario)
    assert isinstance(env, EDEnv)
    return env


def fill_general(env: EDEnv, state: EDState, beds: int) -> None:
    """Admit waiting patients into general beds (waiting between admissions as needed)."""
    while sum(p is not None for p in state.general) < beds:
        if state.waiting:
            assert env.step(state, AdmitGeneral(slot=0)).valid
        else:
            env.step(state, Wait())


def test_default_action_count_is_142() -> None:
    # 1 + 10 + 10 + 5 + 24 + 5 + 24 + 5, then see and expedite per bed: 2 x (24 + 5)
    assert ed().num_actions == 142


def test_every_bed_reachable_by_every_kind() -> None:
    env = ed()
    state = env.reset(3)
    fill_general(env, state, env.params.general_beds)
    mask = env.action_mask(state)
    off = env.layout.offsets
    for b in range(env.params.general_beds):
        assert mask[off["transfer_to_icu"] + b], f"transfer_to_icu({b}) unreachable"
        assert mask[off["discharge_general"] + b], f"discharge_general({b}) unreachable"
    while None in state.icu:
        if not state.waiting:
            env.step(state, Wait())
            continue
        env.step(state, AdmitICU(slot=0))
    # Step-down needs a free general bed: free one.
    env.step(state, DischargeGeneral(bed=0))
    mask = env.action_mask(state)
    for b in range(env.params.icu_beds):
        assert mask[off["step_down"] + b] and mask[off["discharge_icu"] + b]


def test_wait_advances_one_tick_and_kth_action_too() -> None:
    env = ed()
    state = env.reset(1)
    env.step(state, Wait())
    assert state.tick == 1
    while len(state.waiting) < env.params.actions_per_tick:
        env.step(state, Wait())
    tick = state.tick
    for k in range(env.params.actions_per_tick):
        assert state.tick == tick, f"clock moved after {k} admissions"
        assert env.step(state, AdmitGeneral(slot=0)).valid
    assert state.tick == tick + 1


def test_invalid_action_uses_one_decision_slot_with_message_and_penalty() -> None:
    env = ed()
    state = env.reset(2)
    ts = env.step(state, DischargeICU(bed=0))
    assert not ts.valid and "empty" in ts.message
    assert ts.reward == pytest.approx(-1.0)  # nothing happened but the slot and the penalty
    assert state.invalid_actions == 1 and state.tick == 0 and state.actions_this_tick == 1
    ts = env.step(state, 999)
    assert not ts.valid and "out of range" in ts.message
    for _ in range(env.params.actions_per_tick - 2):
        env.step(state, DischargeICU(bed=0))
    assert state.tick == 1 and state.actions_this_tick == 0  # the K-th invalid action: a tick


def test_mistriage_rate_and_reveal() -> None:
    env = ed("surge")  # 10% mis-triage (20% under-triage of ESI 1-2)
    rng = np.random.default_rng(0)
    for acuities, low, high in (((3, 4, 5), 0.06, 0.14), ((1, 2), 0.15, 0.25)):
        patients = [generator.make_patient(0, 0, int(rng.choice(acuities)), None,
                                           np.random.default_rng(rng.integers(1 << 30)),
                                           env.params) for _ in range(1000)]
        assert low < np.mean([p.triage_error != 0 for p in patients]) < high
        if acuities == (1, 2):  # critical patients are only ever under-triaged
            assert all(p.triage_error in (0, 1) for p in patients)
    normal = SCENARIOS["normal_day"]
    assert all(generator.make_patient(0, 0, 3, None, np.random.default_rng(s), normal)
               .triage_error == 0 for s in range(200))
    state = env.reset(5)
    visible = env.params.queue_slots
    while not (any(p.triage_error for p in state.waiting[:visible]) and None in state.general):
        env.step(state, Wait())
    slot = next(i for i, p in enumerate(state.waiting[:visible]) if p.triage_error)
    patient = state.waiting[slot]
    env.step(state, AdmitGeneral(slot=slot))
    env.step(state, Wait())
    assert patient.triage_error == 0 and patient.observed_acuity == patient.true_acuity


def test_waiting_patients_deteriorate_and_die_but_treated_mostly_do_not() -> None:
    noop_deaths, heur_deaths = [], []
    for seed in range(5):
        for agent, out in (("noop", noop_deaths), ("heuristic", heur_deaths)):
            record = run_episode(Task("ed", "normal_day", agent, seed))
            out.append(record["metrics"]["deaths"])
    assert np.mean(noop_deaths) > 3 * max(np.mean(heur_deaths), 1.0)


def test_deterioration_hazard_removed_means_no_worsening() -> None:
    from dataclasses import replace

    # No outside deaths or returns either: in v3 every acuity can leave unseen, with the
    # outside outcomes of an early discharge.
    env = EDEnv("normal_day", params=replace(SCENARIOS["normal_day"],
                                             worsen_hazard=(0.0,) * 5,
                                             death_hazard_untreated=0.0,
                                             outside_death_prob=(0.0,) * 5, return_prob=0.0))
    state = env.reset(0)
    acuities = {p.pid: p.true_acuity for t in state.schedule for p in t}
    while not state.done:
        env.step(state, Wait())
    assert state.counters.deaths == 0
    assert all(p.true_acuity == acuities[p.pid] for t in state.schedule for p in t)


def test_lwbs_happens_to_low_acuity_waiting_patients() -> None:
    env = ed()
    state = env.reset(4)
    while not state.done:
        env.step(state, Wait())
    assert state.counters.lwbs > 0
    assert env.grade(state).components["lwbs"] < 1.0


def test_early_discharge_penalised_and_may_return_worse() -> None:
    env = ed()
    returned = 0
    for seed in range(20):
        state = env.reset(seed)
        while not state.waiting:
            env.step(state, Wait())
        patient = state.waiting[0]
        acuity = patient.true_acuity
        env.step(state, AdmitGeneral(slot=0))
        ts = env.step(state, DischargeGeneral(bed=patient.bed if patient.bed >= 0 else 0))
        assert ts.reward <= -3.0 * (6 - acuity) + 1e-9
        assert state.counters.early_discharges == 1
        while not state.done:
            env.step(state, Wait())
            if patient.returned:
                returned += 1
                assert patient.true_acuity <= max(1, acuity - 1)
                break
    assert returned >= 3


def test_ventilator_attach_and_detach_on_step_down() -> None:
    env = ed()
    state = env.reset(0)
    while not state.waiting:
        env.step(state, Wait())
    env.step(state, AdmitICU(slot=0))
    assert env.step(state, Ventilate(bed=0)).valid
    assert state.ventilators_in_use == 1
    assert env.step(state, StepDown(bed=0)).valid
    assert state.ventilators_in_use == 0 and state.icu[0] is None
    patient = next(p for p in state.general if p is not None)
    assert patient.location == GENERAL and not patient.ventilated
    assert env.step(state, TransferToICU(bed=patient.bed)).valid


def test_mass_casualty_brings_15_to_25_trauma_patients_between_8_and_17() -> None:
    env = ed("mass_casualty")
    base = ed("normal_day")
    for seed in range(5):
        mci = env.reset(seed)
        normal = base.reset(seed)
        extra = sum(map(len, mci.schedule)) - sum(map(len, normal.schedule))
        assert 15 <= extra <= 25
        trauma_by_hour = np.zeros(24)
        for t, arrivals in enumerate(mci.schedule):
            trauma_by_hour[t // 4] += sum(p.condition == TRAUMA for p in arrivals)
        peak = int(np.argmax(trauma_by_hour))
        assert 8 <= peak <= 17


def test_icu_boarding_starts_80_percent_full() -> None:
    state = ed("icu_boarding").reset(0)
    assert sum(p is not None for p in state.icu) == 4


def test_scenarios_change_arrivals() -> None:
    counts = {sc: np.mean([sum(map(len, ed(sc).reset(s).schedule)) for s in range(5)])
              for sc in ("normal_day", "surge", "night_shift")}
    assert counts["surge"] > 1.4 * counts["normal_day"] > 1.4 * 2 * counts["night_shift"]


def test_diurnal_profile_swings_about_3x_with_two_peaks() -> None:
    values = np.array([generator.diurnal_profile(h / 4) for h in range(96)])
    assert 2.5 < values.max() / values.min() < 3.5
    assert abs(values.mean() - 1.0) < 0.01
    assert 10 <= np.argmax(values) / 4 <= 12


def test_no_utilisation_bonus_for_hoarding() -> None:
    """Admitting and holding patients past ready earns nothing over discharging them."""
    env = ed()
    state = env.reset(0)
    hoard = copy.deepcopy(state)
    fill_general(env, hoard, 5)
    rewards = [env.step(hoard, Wait()).reward for _ in range(10)]
    assert max(rewards) <= 0.0


def test_text_render_shows_queue_and_beds() -> None:
    env = ed()
    state = env.reset(0)
    while len(state.waiting) < 2:
        env.step(state, Wait())
    text = env.render_text(state)
    assert "Queue" in text and "slot 0" in text and "ICU beds" in text
