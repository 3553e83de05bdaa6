"""ED-v3 mechanics, each checked against the same world with the mechanic off or hand-worked:
physicians (care starts with an assessment, their number limits it), the work-up (labs and a
scanner queue the agent can reorder), inpatient beds (admissions board until the hospital has a
bed), LWBS of every acuity with outside outcomes, and the return fix."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import lifeline
from lifeline.envs.ed import care
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.params import SCENARIOS
from lifeline.envs.ed.types import (
    WAITING,
    AdmitGeneral,
    DischargeGeneral,
    EDState,
    ExpediteGeneral,
    Patient,
    SeeGeneral,
    Wait,
)

QUIET = replace(SCENARIOS["normal_day"], arrivals_per_hour=1e-9, worsen_hazard=(0.0,) * 5,
                death_hazard_untreated=0.0, mistriage_prob=0.0)
"""No arrivals, no hazards: patients are placed by hand."""


def quiet(**changes: object) -> tuple[EDEnv, EDState]:
    env = EDEnv("normal_day", params=replace(QUIET, **changes))  # type: ignore[arg-type]
    return env, env.reset(0)


def patient(pid: int, esi: int = 3, labs: int = 0, imaging: int = 0, treatment: int = 2,
            ward: bool = False, tick: int = 0) -> Patient:
    p = Patient(pid=pid, arrival_tick=tick, true_acuity=esi, triage_error=0, condition=0,
                needs_icu=False, needs_vent=False, treatment_ticks=treatment,
                patience_ticks=999, needs_ward=ward, esi_at_arrival=esi)
    p.labs, p.imaging, p.lab_ticks, p.read_ticks = labs, imaging, 2, 1
    p.workup_done, p.awaiting_bed = False, ward
    return p


def arrive(env: EDEnv, state: EDState, *patients: Patient) -> None:
    n = max(p.pid for p in patients) + 1
    state.hazard_draws = np.ones((n, env.params.horizon_ticks))
    state.patient_draws = np.ones((n, 5))
    state.return_draws = np.ones((n, 40, 3))
    for p in patients:
        state.waiting.append(p)
        state.counters.patients += 1
    # the waiting-room order (kernel_v3's): observed ESI, then arrival tick, then pid
    state.waiting.sort(key=lambda p: (p.observed_acuity, p.arrival_tick, p.pid))


def test_v3_is_the_registered_version_with_its_own_actions() -> None:
    env = lifeline.make("ed", "normal_day")
    assert isinstance(env, EDEnv) and env.version == 3
    assert lifeline.spec("ed").gym_id == "lifeline/ED-v3"
    assert env.num_actions == 84 + 2 * (24 + 5)  # bed/queue actions + see and expedite per bed
    assert env.decode(env.layout.offsets["see_general"] + 3) == SeeGeneral(bed=3)
    assert set(env.observe(env.reset(0))) >= {"staff"}


def test_treatment_waits_for_a_physician_and_door_to_provider_is_the_wait_for_one() -> None:
    env, s = quiet()
    p = patient(0, treatment=2)
    arrive(env, s, p)
    env.step(s, AdmitGeneral(slot=0))
    for _ in range(3):
        env.step(s, Wait())
    assert p.progress_ticks == 0 and not p.ready  # in a bed for 3 ticks, nobody has seen it
    assert env.grade(s).metrics["door_to_provider_h"] == pytest.approx(s.tick * 0.25)
    env.step(s, SeeGeneral(bed=0))
    seen_at = s.tick
    assert env.grade(s).metrics["door_to_provider_h"] == pytest.approx(seen_at * 0.25)
    while not p.ready:
        env.step(s, Wait())
    assert s.tick == seen_at + 2 + 2  # ESI-3 assessment (2 ticks), no work-up, treatment 2


def test_physicians_are_a_limited_resource() -> None:
    """With one physician, a second assessment must wait until the first is over."""
    env, s = quiet(physicians_by_hour=(1,) * 24)
    a, b = patient(0), patient(1)
    arrive(env, s, a, b)
    env.step(s, AdmitGeneral(slot=0))
    env.step(s, AdmitGeneral(slot=0))
    env.step(s, Wait())
    env.step(s, SeeGeneral(bed=0))
    ts = env.step(s, SeeGeneral(bed=1))
    assert not ts.valid and "no physician" in ts.message
    assert not env.action_mask(s)[env.layout.offsets["see_general"] + 1]
    env.step(s, Wait())
    env.step(s, Wait())  # the ESI-3 assessment takes two ticks
    assert env.step(s, SeeGeneral(bed=1)).valid


def test_imaging_waits_for_a_scanner_and_expediting_reorders_the_queue() -> None:
    env, s = quiet(scanners=1, scan_ticks=2, physicians_by_hour=(3,) * 24)
    pats = [patient(i, imaging=1) for i in range(3)]
    arrive(env, s, *pats)
    for _ in range(3):
        env.step(s, AdmitGeneral(slot=0))
    env.step(s, Wait())
    for b in range(3):
        env.step(s, SeeGeneral(bed=b))
    env.step(s, Wait())
    env.step(s, Wait())  # assessments over: three orders for one scanner
    beds = [s.general.index(p) for p in pats]
    assert [p.imaging_state for p in pats].count(2) == 1  # one scanning, two queued
    queued = [p for p in pats if p.imaging_state == 1]
    last = queued[-1]
    obs = env.observe(s)
    assert obs["general_beds"][beds[pats.index(last)], 8] == 2  # second in the queue
    assert env.step(s, ExpediteGeneral(bed=s.general.index(last))).valid
    assert s.imaging_queue[0] is last
    ts = env.step(s, ExpediteGeneral(bed=s.general.index(last)))
    assert not ts.valid and "already first" in ts.message


def test_an_admission_boards_until_the_hospital_has_a_bed() -> None:
    """A ward admission is not ready while the ward is full; a discharge upstairs frees a bed,
    and it leaves after the bed turnaround."""
    env, s = quiet(ward_free_start=0, ward_discharges_per_day=0.0, ward_electives_per_day=0.0)
    p = patient(0, treatment=1, ward=True)
    arrive(env, s, p)
    env.step(s, AdmitGeneral(slot=0))
    env.step(s, Wait())
    env.step(s, SeeGeneral(bed=0))
    for _ in range(12):
        env.step(s, Wait())
    assert p.treatment_done and p.boarding and not p.ready
    assert env.observe(s)["general_beds"][0, 5] == 1  # the boarding flag
    s.inpatient_flow[s.tick, 0] = 1  # one inpatient discharge upstairs this tick
    env.step(s, Wait())
    assert p.bed_assigned_tick >= 0 and not p.ready
    for _ in range(4):
        env.step(s, Wait())
    assert p.ready and s.ward_free == 0


def test_early_discharge_of_a_boarder_gives_its_reserved_bed_back() -> None:
    env, s = quiet(ward_free_start=1, ward_discharges_per_day=0.0, ward_electives_per_day=0.0)
    p = patient(0, treatment=1, ward=True)
    arrive(env, s, p)
    env.step(s, AdmitGeneral(slot=0))
    env.step(s, Wait())
    env.step(s, SeeGeneral(bed=0))
    while p.bed_assigned_tick < 0:
        env.step(s, Wait())
    assert s.ward_free == 0 and not p.ready
    env.step(s, DischargeGeneral(bed=0))
    assert s.ward_free == 1 and s.counters.early_discharges == 1


def test_every_acuity_can_leave_unseen_and_leaving_is_not_a_safe_exit() -> None:
    """v2 let only ESI 4-5 leave; v3 lets ESI 2-5 leave, and an unseen departure has the
    outside outcomes of an early discharge (death, or a return one level worse = harm)."""
    env, s = quiet(lwbs_patience_sigma=0.8)
    p = patient(0, esi=2)
    p.patience_ticks = 3
    arrive(env, s, p)
    s.patient_draws[0, 2:5] = (0.99, 0.0, 0.0)  # survives outside, returns
    for _ in range(4):
        env.step(s, Wait())
    assert s.counters.lwbs == 1 and s.counters.discharge_harms == 1 and s.returns
    assert env.grade(s).metrics["harm"] == pytest.approx(0.1)
    gen = EDEnv("normal_day")
    patients = [q for t in gen.reset(1).schedule for q in t]
    assert all(q.patience_ticks >= 10 * 96 for q in patients if q.true_acuity == 1)
    assert any(q.patience_ticks < 40 for q in patients if q.true_acuity in (2, 3))


def test_a_return_that_worsens_to_esi1_gets_icu_stabilisation_time_not_old_progress() -> None:
    """The v2 bug: treatment time = old progress + ICU hours, set before progress was reset."""
    env, s = quiet()
    p = patient(0, esi=2)
    p.progress_ticks, p.return_count = 30, 0
    arrive(env, s, p)
    s.waiting.remove(p)
    p.location = 3
    s.patient_draws[0, 0:2] = (0.99, 0.0)  # no ventilator need; shortest ICU time
    s.returns.append((s.tick + 1, 0, p))
    env.step(s, Wait())
    assert p.location == WAITING and p.true_acuity == 1 and p.needs_icu
    expected = round(QUIET.icu_stabilise_hours * QUIET.condition_los[0] * 0.5 * 4)
    assert p.treatment_ticks == expected and p.progress_ticks == 0
    assert p.awaiting_bed and p.seen_tick < 0 and not p.workup_done


def test_workup_is_drawn_by_esi_to_match_tanabe_resource_means() -> None:
    from lifeline.envs.ed import generator

    rng = np.random.default_rng(0)
    params = SCENARIOS["normal_day"]
    for esi, mean in zip(range(1, 6), (5.0, 3.89, 3.3, 1.2, 0.2), strict=True):
        ps = [generator.make_patient(0, 0, esi, None, rng, params) for _ in range(3000)]
        total = np.mean([q.labs + q.imaging + q.other_resources for q in ps])
        assert total == pytest.approx(mean, abs=0.08 * mean + 0.03), esi


def test_mask_and_validate_agree_on_every_v3_action_during_play() -> None:
    env = EDEnv("surge")
    s = env.reset(3)
    rng = np.random.default_rng(0)
    kinds = ("see_general", "see_icu", "expedite_general", "expedite_icu")
    checked = 0
    while not s.done:
        mask = env.action_mask(s)
        for kind in kinds:
            off = env.layout.offsets[kind]
            for j in range(env.layout.sizes[kind]):
                ok = env.validate(s, env.decode(off + j)) is None
                assert ok == bool(mask[off + j]), (kind, j, s.tick)
                checked += ok
        legal = np.flatnonzero(mask)
        env.step(s, int(rng.choice(legal)))
    assert checked > 100


def test_physicians_are_seen_in_the_staff_vector_and_follow_their_shifts() -> None:
    env = EDEnv("normal_day")
    s = env.reset(0)
    assert env.observe(s)["staff"][0] == SCENARIOS["normal_day"].physicians_by_hour[0]
    s.tick = 12 * 4
    assert care.physicians_on_duty(s, env.params) == SCENARIOS["normal_day"].physicians_by_hour[12]
