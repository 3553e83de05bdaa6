"""The ed grader against tiny episodes whose scores are computed by hand.

Each episode is built on a one-bed ED with no random arrivals: the patients, their hidden needs
and every random draw are set by the test, so the expected numbers below are worked out in the
comments, not recomputed with the grader's formula. The patients are built by hand with their
work-up done and are never seen by a physician, so ``wait`` is door-to-provider up to the end
of the visit (``test_ed_v3_grader`` covers the physician's part).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from lifeline.core.env import Action
from lifeline.envs.ed import reward
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.params import MINOR, EDParams
from lifeline.envs.ed.types import (
    AdmitGeneral,
    DischargeGeneral,
    DischargeICU,
    EDState,
    Patient,
    Wait,
)

CARDIAC = 0
TINY = replace(EDParams(), general_beds=1, icu_beds=1, ventilators=1, queue_slots=2,
               horizon_ticks=8, arrivals_per_hour=0.0, mistriage_prob=0.0, triage_ticks=0,
               outside_death_prob=(0.5, 0.1, 0.02, 0.0, 0.0))
"""One general bed, one ICU bed, a 2-hour shift (8 ticks of 15 min), nobody arrives by chance.
No triage step (default: one tick; ``test_triage_step_by_hand`` covers it) and v1's outside
death probabilities, so the episodes below keep their hand-worked numbers."""


def tiny(params: EDParams = TINY) -> tuple[EDEnv, EDState]:
    env = EDEnv("normal_day", params=params)
    state = env.reset(0)
    assert not any(state.schedule) and state.counters.patients == 0
    return env, state


def add(state: EDState, tick: int, acuity: int, treatment: int, condition: int = CARDIAC,
        patience: int = 100, hazard: float = 1.0, draws: tuple[float, ...] = (1.0,) * 5) -> Patient:
    """Schedule a patient arriving at ``tick``; ``hazard`` is every hazard draw (1 = never hit,
    0 = always hit); ``draws`` are the per-patient draws (vent, hours, death, return, delay)."""
    pid = sum(map(len, state.schedule))
    p = Patient(pid=pid, arrival_tick=tick, true_acuity=acuity, triage_error=0,
                condition=condition, needs_icu=acuity == 1, needs_vent=False,
                treatment_ticks=treatment, patience_ticks=patience,
                ever_critical=acuity <= 2, critical_at_arrival=acuity <= 2)
    state.schedule[tick].append(p)
    horizon = state.hazard_draws.shape[1] if state.hazard_draws.size else len(state.schedule)
    state.hazard_draws = np.vstack([state.hazard_draws.reshape(-1, horizon),
                                    np.full((1, horizon), hazard)])
    state.patient_draws = np.vstack([state.patient_draws.reshape(-1, 5), [draws]])
    return p


def play(env: EDEnv, state: EDState, actions: Sequence[Action]) -> None:
    for action in actions:
        env.step(state, action)  # type: ignore[arg-type]
    while not state.done:
        env.step(state, Wait())


def test_two_patients_one_bed_by_hand() -> None:
    env, state = tiny()
    add(state, 1, acuity=3, treatment=2)  # P0
    add(state, 1, acuity=4, treatment=1, condition=MINOR)  # P1
    play(env, state, [
        Wait(),                # tick 0 -> 1: both arrive; queue = [P0 (ESI 3), P1 (ESI 4)]
        AdmitGeneral(slot=0),  # P0 waited 0 ticks
        Wait(), Wait(),        # -> tick 3: P0 has had 2 ticks of care: ready
        DischargeGeneral(bed=0),  # P0 treated to completion
        AdmitGeneral(slot=0),  # P1 waited ticks 1..3 = 2 ticks = 0.5 h
        Wait(),                # -> tick 4: P1 ready, but never discharged
        DischargeICU(bed=0),   # invalid (empty ICU bed): 1 invalid of 12 steps
    ])
    g = env.grade(state)
    assert state.steps == 12 and state.tick == 8
    # N = 2, no harm -> survival 1. Waiting-room wait per patient (0 + 0.5 h) / 2 = 0.25 h.
    # Door to provider (nobody is seen): P0 ticks 1..3 (discharged) = 2, P1 ticks 1..8 (the end)
    # = 7: 9 ticks = 2.25 h / 2 = 1.125 h -> wait 1 - 1.125/5 = 0.775.
    # Completion 1 of 2 = 0.5. Nobody left unseen -> 1. Validity 11/12.
    assert g.metrics["avg_wait_h"] == pytest.approx(0.25)
    assert g.metrics["door_to_provider_h"] == pytest.approx(1.125)
    assert g.components == pytest.approx({"survival": 1.0, "wait": 0.775, "completion": 0.5,
                                          "lwbs": 1.0, "validity": 11 / 12})
    # flow = 0.4*0.775 + 0.3*0.5 + 0.2*1 + 0.1*11/12 = 0.31 + 0.15 + 0.2 + 0.0916667 = 0.7516667
    # score = (2*1 + 0.7516667) / 3 = 0.9172222
    assert g.score == pytest.approx(0.9172222, abs=1e-6)
    # The bed held P0 during ticks 1-2 and P1 during ticks 3-7: 7 of 8 bed-ticks.
    assert g.metrics["general_utilisation"] == pytest.approx(7 / 8)
    assert g.metrics["icu_utilisation"] == 0.0 and g.metrics["treated"] == 1


def test_early_discharge_with_a_return_pending_at_the_end_is_harm() -> None:
    # Draws: no outside death (0.5 > 2 % for ESI 3), return (0 < 50 %), delay 2 h = 8 ticks,
    # so the return is due at tick 9 - after the 8-tick shift.
    env, state = tiny()
    add(state, 1, acuity=3, treatment=2, draws=(1.0, 1.0, 0.5, 0.0, 0.0))
    play(env, state, [Wait(), AdmitGeneral(slot=0), DischargeGeneral(bed=0)])
    g = env.grade(state)
    assert state.returns and state.counters.returns == 0  # still pending
    # harm = 0.1 -> survival = 1 - 0.1/1 = 0.9; wait 0 -> 1; completion 0; lwbs 1; validity 1
    # flow = 0.4 + 0 + 0.2 + 0.1 = 0.7; score = (1*0.9 + 0.7) / 2 = 0.8
    assert g.metrics["harm"] == pytest.approx(0.1)
    assert g.score == pytest.approx(0.8)
    # Treating the same patient instead: survival 1; door to provider 2 ticks (unseen until
    # discharged at tick 3) = 0.5 h -> wait 0.9; flow 0.36 + 0.3 + 0.2 + 0.1 = 0.96;
    # score (1 + 0.96) / 2 = 0.98.
    env, state = tiny()
    add(state, 1, acuity=3, treatment=2, draws=(1.0, 1.0, 0.5, 0.0, 0.0))
    play(env, state, [Wait(), AdmitGeneral(slot=0), Wait(), Wait(), DischargeGeneral(bed=0)])
    assert env.grade(state).score == pytest.approx(0.98)


def test_return_harm_switched_off_by_params_changes_the_grade() -> None:
    """The mutation check of the test above: with no returns the early discharge is harmless."""
    env, state = tiny(replace(TINY, return_prob=0.0))
    add(state, 1, acuity=3, treatment=2, draws=(1.0, 1.0, 0.5, 0.0, 0.0))
    play(env, state, [Wait(), AdmitGeneral(slot=0), DischargeGeneral(bed=0)])
    assert env.grade(state).metrics["harm"] == 0.0 and env.grade(state).score == pytest.approx(0.85)


def test_wait_is_per_distinct_patient_and_the_critical_set_is_fixed_at_arrival() -> None:
    # 16-tick shift. P0 (ESI 3) arrives at tick 1, is admitted at once and discharged early;
    # it returns at tick 9 one level worse (ESI 2), waits 2 ticks, is admitted at tick 11.
    env, state = tiny(replace(TINY, horizon_ticks=16))
    p = add(state, 1, acuity=3, treatment=2, draws=(1.0, 1.0, 0.5, 0.0, 0.0))
    play(env, state, [Wait(), AdmitGeneral(slot=0), DischargeGeneral(bed=0)]
         + [Wait()] * 10 + [AdmitGeneral(slot=0)])
    g = env.grade(state)
    assert p.returned and p.true_acuity == 2 and state.counters.returns == 1
    # Wait per distinct patient: (0 + 2 ticks) / 1 patient = 0.5 h (per visit it would be 0.25 h).
    assert g.metrics["avg_wait_h"] == pytest.approx(0.5)
    # Door to provider: 0 in the first visit, ticks 9..16 (the end, never seen) = 7 in the
    # return: 1.75 h per patient -> wait 1 - 1.75/5 = 0.65.
    assert g.metrics["door_to_provider_h"] == pytest.approx(1.75)
    assert g.components["wait"] == pytest.approx(0.65)
    # ESI 3 at first arrival: not critical, even though the return made it ESI 2.
    assert g.metrics["critical_patients"] == 0.0 and g.metrics["patients"] == 1.0
    assert g.metrics["harm"] == pytest.approx(0.1)


def test_outside_death_after_early_discharge_is_a_death() -> None:
    env, state = tiny()
    add(state, 1, acuity=1, treatment=20, draws=(1.0, 1.0, 0.0, 1.0, 1.0))  # dies outside
    play(env, state, [Wait(), AdmitGeneral(slot=0), DischargeGeneral(bed=0)])
    g = env.grade(state)
    assert g.metrics["deaths"] == 1.0 and g.metrics["discharge_deaths"] == 1.0
    assert g.metrics["critical_deaths"] == 1.0 and g.components["survival"] == 0.0
    # score = (1*0 + flow) / 2 with flow = 0.4*1 + 0.3*0 + 0.2*1 + 0.1*1 = 0.7 -> 0.35
    assert g.score == pytest.approx(0.35)


def test_early_stop_still_grades_the_rest_of_the_shift() -> None:
    params = replace(TINY, early_stop_deaths=1)
    env, state = tiny(params)
    add(state, 1, acuity=1, treatment=20, hazard=0.0)  # dies at its first tick of waiting
    add(state, 5, acuity=4, treatment=1, condition=MINOR)  # arrives after the stop
    env.step(state, Wait())  # tick 0 -> 1: P0 arrives
    ts = env.step(state, Wait())  # tick 1 -> 2: P0 dies -> the shift is stopped
    assert ts.terminated and ts.info["early_stopped"] and state.tick == 8
    g = env.grade(state)
    # P1 arrived at tick 5 and waited to the end (3 ticks): both patients count.
    assert g.metrics["patients"] == 2.0 and g.metrics["early_stopped"] == 1.0
    assert g.metrics["still_waiting"] == 1.0
    # Wait: P0 waited 1 tick (until it died), P1 3 ticks: 4 ticks = 1 h over 2 patients = 0.5 h.
    assert g.metrics["avg_wait_h"] == pytest.approx(0.5)
    # The same world without the early stop, waiting to the end, grades identically apart from
    # the number of steps: stopping early escapes no harm.
    env2, state2 = tiny(replace(params, early_stop_deaths=0))
    add(state2, 1, acuity=1, treatment=20, hazard=0.0)
    add(state2, 5, acuity=4, treatment=1, condition=MINOR)
    play(env2, state2, [])
    assert env2.grade(state2).score == pytest.approx(g.score)
    assert env2.grade(state2).metrics["deaths"] == g.metrics["deaths"] == 1.0


def test_a_death_costs_more_than_the_whole_flow_range() -> None:
    """The exchange rate: one more death always scores lower than one fewer, whatever
    happens to wait, completion, LWBS and validity."""
    rng = np.random.default_rng(0)
    for _ in range(2000):
        n = int(rng.integers(1, 300))
        deaths = int(rng.integers(0, n))

        def score(d: int, best_flow: bool, *, n: int = n) -> float:
            s = EDState(tick=8)
            s.counters.patients, s.counters.deaths = n, d
            s.counters.treated = n - d if best_flow else 0
            s.counters.lwbs = 0 if best_flow else n - d
            s.counters.wait_ticks_closed = 0 if best_flow else 100 * n
            s.steps, s.invalid_actions = 10, 0 if best_flow else 10
            return reward.grade(s, TINY).score

        if deaths < n - 1:
            assert score(deaths + 1, True) < score(deaths, False)
        assert 0.0 <= score(deaths, False) <= score(deaths, True) <= 1.0
