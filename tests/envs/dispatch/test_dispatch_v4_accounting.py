"""dispatch v4 (issue 26): every unit and every patient is accounted for at every step, and the
hospitals' EMS beds are a conserved capacity."""

from __future__ import annotations

import numpy as np
import pytest

from lifeline.agents.base import RandomAgent
from lifeline.envs.dispatch.baselines import ClosestIdleAgent, DMEXCLPAgent
from lifeline.envs.dispatch.env import DispatchEnv, DispatchMetroEnv
from lifeline.envs.dispatch.types import (
    AID_INBOUND,
    AT_HOSPITAL,
    CLOSED,
    EN_ROUTE,
    FUTURE,
    INACTIVE,
    ON_SCENE,
    OPEN,
    OUT_OF_SERVICE,
    REAL,
    STATUS_NAMES,
    TRANSPORTING,
    DispatchState,
)


def _check(env: DispatchEnv, s: DispatchState, where: str) -> None:
    U = env.ctx.U
    assert s.u_status.shape == (U,)
    assert ((s.u_status >= 0) & (s.u_status < len(STATUS_NAMES))).all()
    # units: every slot has exactly one status; a unit with a call is on it, and vice versa
    for u in range(U):
        st, c = int(s.u_status[u]), int(s.u_call[u])
        if st in (EN_ROUTE, ON_SCENE, TRANSPORTING, AT_HOSPITAL):
            assert c >= 0, f"{where}: unit {u} is {STATUS_NAMES[st]} without a call"
        if st in (INACTIVE, AID_INBOUND, OUT_OF_SERVICE):
            assert c < 0, f"{where}: unit {u} is {STATUS_NAMES[st]} with call {c}"
        if st in (TRANSPORTING, AT_HOSPITAL):
            assert s.u_carrier[u] and s.c_transport[c] and s.u_hosp[u] >= 0, where
    # calls: assigned = units on the way + units that arrived; a carrier per transported patient
    en_route = np.bincount(s.u_call[(s.u_status == EN_ROUTE) & (s.u_call >= 0)],
                           minlength=s.c_time.size)
    assert (s.c_assigned == en_route + s.c_arrived).all(), f"{where}: assignment leak"
    assert set(np.unique(s.c_status)) <= {FUTURE, OPEN, CLOSED}
    assert (s.c_status[s.c_open > s.t] == FUTURE).all(), where
    real = s.c_kind == REAL
    carrying = s.u_carrier & (s.u_call >= 0) & np.isin(s.u_status, (ON_SCENE, TRANSPORTING,
                                                                    AT_HOSPITAL))
    carried = np.bincount(s.u_call[carrying], minlength=s.c_time.size)
    assert carried.max(initial=0) <= 1, f"{where}: a patient carried twice"
    reached = np.isfinite(s.c_first)
    final = np.isfinite(s.c_outcome)
    # a reached real patient is either still with its crew or has a final outcome
    pending = real & reached & ~final
    assert (carried[pending] == 1).all() or not pending.any() or (
        s.c_status[pending & (carried == 0)] == OPEN).all(), f"{where}: a patient got lost"
    assert not (final & ~reached).any(), where
    # beds: an EMS bed holds at most one delivered patient at a time (release times per bed)
    beds = np.asarray(env.params.city.hospital_beds)
    held = (s.h_release > s.t) & np.isfinite(s.h_release)
    assert (held.sum(axis=1) <= beds).all(), f"{where}: more patients than beds"


@pytest.mark.parametrize(("cls", "scenario", "agent"), [
    (DispatchEnv, "expert", ClosestIdleAgent), (DispatchEnv, "mass_casualty", DMEXCLPAgent),
    (DispatchEnv, "hospital_divert", RandomAgent), (DispatchMetroEnv, "metro_expert",
                                                    DMEXCLPAgent),
])
def test_every_unit_and_patient_is_accounted_for_at_every_step(cls, scenario, agent) -> None:  # type: ignore[no-untyped-def]
    env = cls(scenario)
    for seed in range(2):
        a = agent()
        s = env.reset(seed)
        a.reset(env, seed)
        steps = 0
        while not s.done and steps < 4000:
            env.step(s, a.act(env, s))
            steps += 1
            _check(env, s, f"{scenario} seed {seed} step {steps} t {s.t:.1f}")
        if s.done:
            # at the end, every real call that rang was answered or is still waiting (open)
            real = s.c_kind == REAL
            assert ((s.c_status[real] == OPEN) | np.isfinite(s.c_first[real])
                    | (s.c_status[real] == FUTURE)).all()


def test_offload_waits_happen_when_hospitals_fill() -> None:
    """Under the expert load on the 20-node city some crews wait for a bed (offload delay)."""
    env = DispatchEnv("expert")
    waits = []
    for seed in range(2):
        a = ClosestIdleAgent()
        s = env.reset(seed)
        a.reset(env, seed)
        while not s.done:
            env.step(s, a.act(env, s))
        waits.append(s.c_wait[np.isfinite(s.c_outcome) & s.c_transport])
    w = np.concatenate(waits)
    assert w.size > 20 and (w >= 0).all()
    assert (w > 0).any()
