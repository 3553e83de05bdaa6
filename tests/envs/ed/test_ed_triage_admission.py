"""Mechanics from ED-v2's calibration (issue 18) that v3 keeps, each with a test that fails when
it is switched off: the triage step, ward admissions drawn by ESI at arrival (they board until
the hospital has a bed: ``test_ed_v3_clinicians_workup``), ICU need of ESI-1 patients drawn per
patient; and the retired versions fail with a clear message.

Hand-worked episodes reuse the one-bed ED of ``test_ed_grader`` (patients and draws set by the
test); the expected numbers are worked out in the comments.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lifeline.envs.ed import generator
from lifeline.envs.ed.params import ED_V2_COMMIT, SCENARIOS, EDParams
from lifeline.envs.ed.types import AdmitGeneral, DischargeGeneral, Wait
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
    # Door to bed = 1 tick (the triage tick) = 0.25 h. Door to provider (never seen): arrival
    # at 1 to the discharge at 4 = 3 ticks = 0.75 h -> wait 1 - 0.75/5 = 0.85; treated 1 of 1.
    # flow = 0.4*0.85 + 0.3 + 0.2 + 0.1 = 0.94; score = (1 + 0.94) / 2 = 0.97
    assert g.metrics["avg_wait_h"] == pytest.approx(0.25)
    assert g.score == pytest.approx(0.97)


def test_triage_step_switched_off_admits_in_the_arrival_tick() -> None:
    env, state = tiny(replace(TRIAGE, triage_ticks=0))
    add(state, 1, acuity=3, treatment=2)
    env.step(state, Wait())
    assert len(state.waiting) == 1 and env.validate(state, AdmitGeneral(slot=0)) is None


def test_ward_admissions_are_drawn_by_acuity_and_switched_off_by_params() -> None:
    params = SCENARIOS["normal_day"]
    rng = np.random.default_rng(1)
    shares = []
    for esi in range(1, 6):
        ps = [generator.make_patient(0, 0, esi, None, rng, params) for _ in range(4000)]
        assert all(not (p.needs_ward and p.needs_icu) for p in ps)
        assert all(p.awaiting_bed == (p.needs_ward or p.needs_icu) for p in ps)
        shares.append(np.mean([p.needs_ward or p.needs_icu for p in ps]))
    # Admitted by ESI (ICU need or ward): about 32 / 32 / 15.5 / 4 / 5 % (Hocker 2018 + margin).
    assert 0.27 < shares[0] < 0.40 and 0.26 < shares[1] < 0.38 and 0.12 < shares[2] < 0.19
    assert 0.02 < shares[3] < 0.06 and 0.03 < shares[4] < 0.07
    off = replace(params, ward_admit_prob=(0.0,) * 5)
    ps = [generator.make_patient(0, 0, 3, None, rng, off) for _ in range(500)]
    assert not any(p.needs_ward or p.awaiting_bed for p in ps)


def test_esi1_icu_need_is_drawn_per_patient() -> None:
    """v1: every ESI-1 patient needed the ICU; since v2: 30 % (Munich: 27 % ICU, 37 % IMC)."""
    params = SCENARIOS["normal_day"]
    rng = np.random.default_rng(2)
    need = np.mean([generator.make_patient(0, 0, 1, None, rng, params).needs_icu
                    for _ in range(3000)])
    assert 0.27 < need < 0.33
    always = replace(params, esi1_icu_prob=1.0)
    assert all(generator.make_patient(0, 0, 1, None, rng, always).needs_icu for _ in range(200))


def test_the_v1_id_fails_with_a_clear_message() -> None:
    """v1 is not kept: Gymnasium names the current version (v3) when the old id is asked for."""
    import gymnasium as gym

    with pytest.raises(gym.error.DeprecatedEnv, match="lifeline/ED-v3"):
        gym.make("lifeline/ED-v1")


def test_retired_ed_v2_fails_with_one_line_naming_its_commit() -> None:
    """ED-v2 was retired from the tree: its params, its vector env and ``make_vec(version=2)``
    fail with one line that names the commit to check out."""
    import gymnasium as gym

    from lifeline.envs.ed.batch import EDVectorEnv

    for make in (lambda: EDParams(version=2), lambda: EDVectorEnv(1, version=2),
                 lambda: gym.make_vec("lifeline/ED-v3", num_envs=1, version=2)):
        with pytest.raises(ValueError, match=f"git checkout {ED_V2_COMMIT}") as err:
            make()
        assert "\n" not in str(err.value)
