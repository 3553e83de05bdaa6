"""The batch ED-v3: N environments stepped together by :mod:`lifeline.envs.ed.kernel_v3`
(the same kernel the scalar ``EDEnv`` steps with, N = 1).

An env is reset as the scalar :class:`~lifeline.envs.ed.env.EDEnv` resets, with the same
functions: ``generator.draw_episode`` (numba) writes its patients straight into rows of the
kernel's columns, ``env.draw_uniforms`` and ``generator.inpatient_flow`` draw the rest, and
``kernel_v3.load_episode`` copies them into the env's arrays and runs ``begin_episode`` (which
the scalar env runs too); no ``Patient`` object is made. From then on ``kernel_v3.step_all``
steps every env with one call and
writes the observations, masks, rewards and flags of all of them. The grade of a finished env
is ``reward.grade`` of a state rebuilt from the kernel's counters (:func:`grade_state`), so the
grader too exists once. :class:`~lifeline.envs.ed.batch.EDVectorEnv` wraps it as the
Gymnasium vector env. Without numba the kernel runs
as plain Python (slow, same results).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lifeline.core.env import Grade
from lifeline.core.rng import check_seed, make_streams
from lifeline.envs.ed import generator, reward
from lifeline.envs.ed import kernel_v3 as K
from lifeline.envs.ed.env import STREAMS, EDEnv, draw_uniforms, return_bound
from lifeline.envs.ed.params import SCENARIOS, EDParams, resolve
from lifeline.envs.ed.scalar_kernel import COUNTERS
from lifeline.envs.ed.types import EDState, Patient


class EDBatchV3:
    """N ED-v3 environments as arrays (``kernel_v3.KState``)."""

    def __init__(self, num_envs: int, scenario: str = "normal_day",
                 params: EDParams | None = None, capacity: int = 64) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        params = resolve(scenario, params, SCENARIOS)
        self.core = EDEnv(scenario, params=params)
        self.params = params
        self.scenario = scenario
        self.num_envs = n = num_envs
        self.kp = K.kparams(params)
        self.num_actions = self.core.num_actions
        self.returns_bound = return_bound(params)
        self.st = K.allocate(n, self.kp, capacity, self.returns_bound)
        self.beds, self.risk = K.scratch(self.kp, capacity)
        self.seeds = np.full(n, -1, dtype=np.int64)
        spec = self.core.observation_spec()
        self.obs = {name: np.zeros((n, *spec[name].shape), dtype=np.float32)
                    for name in K.OBS_KEYS}
        self.mask = np.zeros((n, self.num_actions), dtype=np.bool_)
        self.reward = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.valid = np.zeros(n, dtype=np.bool_)
        self.info_ev = np.zeros((n, 4), dtype=np.int64)
        self._no_skip = np.zeros(n, dtype=np.bool_)
        self._rows = np.zeros((capacity, generator.ROW), dtype=np.int64)
        self._sched = np.zeros(params.horizon_ticks + 1, dtype=np.int64)

    @property
    def capacity(self) -> int:
        return int(self.st.PT.shape[1])

    def _grow(self, capacity: int) -> None:
        """Reallocate the per-patient arrays for ``capacity`` patients, keeping every env."""
        old = self.st
        new = K.allocate(self.num_envs, self.kp, capacity, self.returns_bound)
        c = old.PT.shape[1]
        new.PT[:, :c] = old.PT
        new.WL[:, :c] = old.WL
        new.IQ[:, :c] = old.IQ
        new.PR[:, :c] = old.PR
        new.HZ[:, :, :c] = old.HZ
        new.PD[:, :c] = old.PD
        new.RD[:, :c] = old.RD
        for name in ("S", "GB", "IB", "SC", "SCHED", "FLOW", "EV", "RET"):
            getattr(new, name)[...] = getattr(old, name)
        self.st = new
        self.beds, self.risk = K.scratch(self.kp, capacity)

    def reset_env(self, i: int, seed: int) -> None:
        """Start env ``i``'s episode for ``seed`` (what ``EDEnv.reset(seed)`` draws) and
        observe it."""
        seed = check_seed(seed)
        p = self.params
        rng = make_streams(seed, STREAMS)
        episode = generator.generate(p, rng["arrivals"], rng["patients"], self._rows,
                                     self._sched)
        self._rows, pids = episode.rows, episode.pids
        if pids > self.capacity:
            self._grow(max(pids, int(self.capacity * 1.25)))
        hz, pd, rd = draw_uniforms(p, rng, pids)
        flow = generator.inpatient_flow(p, rng["inpatient"])
        K.load_episode(self.st, i, self.kp, self._rows, pids, self._sched, hz, pd, rd, flow)
        self.seeds[i] = seed
        o = self.obs
        K.refresh(self.st, i, self.kp, self.mask, o["general_beds"], o["icu_beds"],
                  o["ventilators"], o["queue"], o["time"], o["totals"], o["staff"])

    def step(self, actions: np.ndarray, skip: np.ndarray | None = None) -> None:
        """Step every env not in ``skip`` (results in ``reward`` ... ``obs``, as ``EDBatch``)."""
        o = self.obs
        acts = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        K.step_all(self.st, self.kp, acts, self._no_skip if skip is None else skip,
                   self.reward, self.valid, self.terminated, self.truncated, self.info_ev,
                   self.mask, o["general_beds"], o["icu_beds"], o["ventilators"], o["queue"],
                   o["time"], o["totals"], o["staff"], self.beds, self.risk)

    def done(self, i: int) -> bool:
        return bool(self.st.S[i, K.S_DONE])

    def grade(self, i: int) -> Grade:
        """``reward.grade`` of env ``i`` (the scalar grader on the kernel's counters)."""
        return reward.grade(grade_state(self.st, i, self.params), self.params)

    def episode_return(self, i: int) -> float:
        """``EDState.episode_return`` of env ``i`` (dense reward without invalid penalties)."""
        return float(self.st.RET[i])




def _patient(row: Any, pid: int) -> Patient:
    """The fields of a kernel patient row that the grader reads."""
    p = Patient(pid=pid, arrival_tick=int(row[K.F_ARR]), true_acuity=int(row[K.F_ACU]),
                triage_error=int(row[K.F_TERR]), condition=int(row[K.F_COND]),
                needs_icu=bool(row[K.F_NICU]), needs_vent=bool(row[K.F_NVENT]),
                treatment_ticks=int(row[K.F_TREAT]), patience_ticks=int(row[K.F_PATI]))
    p.progress_ticks, p.board_ticks = int(row[K.F_PROG]), int(row[K.F_BOARD])
    p.awaiting_bed, p.seen_tick = bool(row[K.F_AWAIT]), int(row[K.F_SEEN])
    return p


def grade_state(st: K.KState, e: int, params: EDParams) -> EDState:
    """An ``EDState`` with what ``reward.grade`` reads of env ``e``: counters, clock, steps,
    the waiting room and the beds' occupants."""
    S, PT = st.S[e], st.PT[e]
    state = EDState(general=[None] * params.general_beds, icu=[None] * params.icu_beds)
    state.tick = int(S[K.S_TICK])
    state.steps, state.invalid_actions = int(S[K.S_STEPS]), int(S[K.S_INVALID])
    state.done = bool(S[K.S_DONE])
    for name, column in COUNTERS:
        setattr(state.counters, name, int(S[column]))
    state.log.busy_physician_ticks = int(S[K.S_BUSYPHYS])
    state.log.physician_ticks = int(S[K.S_PHYSTICKS])
    state.log.scanner_ticks = int(S[K.S_SCANTICKS])
    state.waiting = [_patient(PT[q], int(q)) for q in st.WL[e, :S[K.S_NWAIT]]]
    for ward, beds in ((state.general, st.GB[e]), (state.icu, st.IB[e])):
        for b, q in enumerate(beds):
            if q >= 0:
                ward[b] = _patient(PT[q], int(q))
    return state
