"""The ed v2 mechanics (issue 18, calibration), each with a test that fails when it is switched
off: the triage step, ward admissions that board in their ED bed, ICU need of ESI-1 patients
drawn per patient, and the outside death of a discharged ESI-1 patient.

Hand-worked episodes reuse the one-bed ED of ``test_ed_grader`` (patients and draws set by the
test); the expected numbers are worked out in the comments.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.core.env import Environment
from lifeline.envs.ed import dynamics, generator
from lifeline.envs.ed.env import EDv2Env as EDEnv
from lifeline.envs.ed.params import SCENARIOS_V2 as SCENARIOS
from lifeline.envs.ed.params import EDParams, v1_mechanics
from lifeline.envs.ed.types import GENERAL, AdmitGeneral, DischargeGeneral, Wait
from tests.envs.ed.test_ed_grader import TINY, add, play, tiny

TRIAGE = replace(TINY, triage_ticks=1)


def test_triage_step_by_hand() -> None:
    """A patient arriving in tick 1 reaches the waiting room at tick 2 and has waited one tick."""
    env, state = tiny(TRIAGE)
    add(state, 1, acuity=3, treatment=2)
    env.step(state, Wait())  # tick 0 -> 1: P0 arrives, in triage
    assert not state.waiting and state.counters.patients == 0
    assert env.validate(state, AdmitGeneral(slot=0)) is not None
    env.step(state, Wait())  # tick 1 -> 2: in the waiting room
    assert len(state.waiting) == 1 and state.counters.patients == 1
    play(env, state, [AdmitGeneral(slot=0), Wait(), Wait(), DischargeGeneral(bed=0)])
    g = env.grade(state)
    # Door to bed = 1 tick (the triage tick) = 0.25 h -> wait 1 - 0.25/5 = 0.95; treated 1 of 1.
    # flow = 0.4*0.95 + 0.3 + 0.2 + 0.1 = 0.98; score = (1 + 0.98) / 2 = 0.99
    assert g.metrics["avg_wait_h"] == pytest.approx(0.25)
    assert g.score == pytest.approx(0.99)


def test_triage_step_switched_off_admits_in_the_arrival_tick() -> None:
    env, state = tiny(replace(TRIAGE, triage_ticks=0))
    add(state, 1, acuity=3, treatment=2)
    env.step(state, Wait())
    assert len(state.waiting) == 1 and env.validate(state, AdmitGeneral(slot=0)) is None


def test_ward_admission_boards_in_its_bed_by_hand() -> None:
    """Treatment 2 ticks, then 3 ticks of boarding with no hazard; the bed is held until then."""
    env, state = tiny()
    p = add(state, 1, acuity=3, treatment=2)
    p.needs_ward, p.board_ticks = True, 3
    q = add(state, 1, acuity=4, treatment=1, patience=100)  # waits for the bed
    env.step(state, Wait())  # tick 0 -> 1: both arrive
    env.step(state, AdmitGeneral(slot=0))
    env.step(state, Wait())  # tick 1 -> 2: 1 tick of care
    env.step(state, Wait())  # tick 2 -> 3: 2 ticks: treatment complete, boarding starts
    assert p.treatment_done and p.boarding and not p.ready
    assert dynamics.hazard_factor(p, env.params) == 0.0  # no hazard while boarding
    assert env.observe(state)["general_beds"][0, 5] == 1.0
    assert "BOARDING" in env.render_text(state)
    for _ in range(2):  # ticks 3 -> 5: still boarding, the bed stays taken
        env.step(state, Wait())
        assert p.boarding and p.location == GENERAL and q in state.waiting
    env.step(state, Wait())  # tick 5 -> 6: 3 ticks of boarding: ready, off to the ward
    assert p.ready and not p.boarding
    obs = env.observe(state)
    assert obs["general_beds"][0, 3] == 1.0 and obs["general_beds"][0, 5] == 0.0
    env.step(state, DischargeGeneral(bed=0))
    assert state.counters.treated == 1 and state.counters.ward_admissions == 1
    # Without boarding (the mechanic off) the same patient is ready at tick 3.
    env, state = tiny()
    p = add(state, 1, acuity=3, treatment=2)
    play(env, state, [Wait(), AdmitGeneral(slot=0), Wait(), Wait()][:4])
    assert p.ready


def test_ward_admissions_are_drawn_by_acuity_and_switched_off_by_params() -> None:
    params = SCENARIOS["normal_day"]
    rng = np.random.default_rng(1)
    shares = []
    for esi in range(1, 6):
        ps = [generator.make_patient(0, 0, esi, None, rng, params) for _ in range(4000)]
        assert all(not (p.needs_ward and p.needs_icu) for p in ps)
        assert all((p.board_ticks > 0) == p.needs_ward for p in ps)
        shares.append(np.mean([p.needs_ward or p.needs_icu for p in ps]))
    # Admitted by ESI (ICU need or ward): about 32 / 32 / 15.5 / 4 / 5 % (Hocker 2018 + margin).
    assert 0.27 < shares[0] < 0.40 and 0.26 < shares[1] < 0.38 and 0.12 < shares[2] < 0.19
    assert 0.02 < shares[3] < 0.06 and 0.03 < shares[4] < 0.07
    off = v1_mechanics(params)
    ps = [generator.make_patient(0, 0, 3, None, rng, off) for _ in range(500)]
    assert not any(p.needs_ward or p.board_ticks for p in ps)


def test_esi1_icu_need_is_drawn_per_patient() -> None:
    """v1: every ESI-1 patient needed the ICU; v2: 30 % (Munich: 27 % ICU, 37 % IMC)."""
    params = SCENARIOS["normal_day"]
    rng = np.random.default_rng(2)
    need = np.mean([generator.make_patient(0, 0, 1, None, rng, params).needs_icu
                    for _ in range(3000)])
    assert 0.27 < need < 0.33
    assert all(generator.make_patient(0, 0, 1, None, rng, v1_mechanics(params)).needs_icu
               for _ in range(200))


def _episode(params: EDParams, seed: int, agent: str = "heuristic") -> tuple[float, float]:
    env: Environment = EDEnv("normal_day", params=params)
    a = make_agent(agent, "ed")
    state = env.reset(seed)
    a.reset(env, seed)
    while not state.done:
        env.step(state, a.act(env, state))
    g = env.grade(state)
    return g.metrics["general_utilisation"], g.metrics["avg_wait_h"]


def test_boarding_binds_general_beds() -> None:
    """Switching ward admissions off frees general beds: utilisation and waits fall."""
    params = SCENARIOS["normal_day"]
    on = [_episode(params, s) for s in range(3)]
    off = [_episode(replace(params, ward_admit_prob=(0.0,) * 5), s) for s in range(3)]
    assert all(u_on > u_off for (u_on, _), (u_off, _) in zip(on, off, strict=True))
    assert np.mean([u for u, _ in on]) > np.mean([u for u, _ in off]) + 0.02
    assert np.mean([w for _, w in on]) > np.mean([w for _, w in off])


def test_discharged_esi1_dies_outside_more_often_than_v1() -> None:
    """v1's 50 % outside death made dumping ESI-1 patients pay on surge; v2: 80 %."""
    assert SCENARIOS["surge"].outside_death_prob[0] == pytest.approx(0.8)
    assert v1_mechanics(SCENARIOS["surge"]).outside_death_prob[0] == pytest.approx(0.5)


def test_the_v1_id_fails_with_a_clear_message() -> None:
    """v1 is not kept: Gymnasium names the current version (v3) when the old id is asked for."""
    import gymnasium as gym

    with pytest.raises(gym.error.DeprecatedEnv, match="lifeline/ED-v3"):
        gym.make("lifeline/ED-v1")
