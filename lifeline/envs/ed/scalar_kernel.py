"""The scalar ED-v3 step through the array kernel (issue 27 item 3: one implementation).

:class:`EDEnv` keeps its state as an :class:`EDState` of :class:`Patient` objects (what the
observation, the text face, the tool calls, the render, the grader and the agents read), but it
does not transition that state itself: every step (and the arrivals of a reset) runs
:mod:`lifeline.envs.ed.kernel_v3` on one environment (N = 1) -- the same compiled function the
batch env calls for N envs (plain Python when numba is absent). :class:`ScalarKernel`

1. *loads* the patients the step can touch (the waiting room, the beds, pending returns and the
   arrivals due) and the state's scalars into its kernel arrays; the draws and the inpatient
   flow are passed as views of the state's own arrays (so hand edits of a state, as tests make
   them, are seen);
2. calls ``kernel_v3.transition`` (and ``finish_shift`` at the death limit, and
   ``step_reward``);
3. *stores* back the rows that changed, the lists (waiting room in its order, beds, imaging
   queue, scanners, returns) and the counters.

The EDState therefore stays the whole truth (deep copies, pickles and hand-made states work),
and the kernel is the only transition. The only Python left beside it is bookkeeping for the
calibration card (``EDState.log``: door-to-provider and departures of the visits, which the
kernel does not record).
"""

from __future__ import annotations

import bisect
import itertools
from operator import attrgetter
from typing import Any

import numpy as np

from lifeline.envs.ed import kernel_v3 as K
from lifeline.envs.ed.params import EDParams
from lifeline.envs.ed.types import EDState, Patient, SyncedPatient

FIELDS = ("arrival_tick", "true_acuity", "triage_error", "condition", "needs_icu", "needs_vent",
          "treatment_ticks", "patience_ticks", "needs_ward", "board_ticks", "ever_critical",
          "critical_at_arrival", "admitted_acuity", "location", "bed", "admitted_tick",
          "progress_ticks", "ventilated", "ticks_in_bed", "returned", "return_count",
          "workup_done", "awaiting_bed", "seen_tick", "assess_left", "labs", "imaging",
          "lab_ticks", "read_ticks", "lab_result_tick", "imaging_result_tick", "imaging_state",
          "decision_tick", "bed_assigned_tick", "esi_at_arrival")
"""``Patient`` attribute of kernel column ``F_ARR`` ... ``F_ESI0`` (in column order)."""
N_ROW = len(FIELDS)
BOOLS = frozenset(("needs_icu", "needs_vent", "needs_ward", "ever_critical",
                   "critical_at_arrival", "ventilated", "returned", "workup_done",
                   "awaiting_bed"))
_CONVERT = tuple(bool if name in BOOLS else int for name in FIELDS)
_row = attrgetter(*FIELDS)

COUNTERS = (("patients", K.S_PATIENTS), ("treated", K.S_TREATED),
            ("ward_admissions", K.S_WARDADM), ("deaths", K.S_DEATHS),
            ("discharge_deaths", K.S_DDEATHS), ("critical", K.S_CRITICAL),
            ("critical_deaths", K.S_CDEATHS), ("lwbs", K.S_LWBS),
            ("early_discharges", K.S_EARLY), ("discharge_harms", K.S_DHARMS),
            ("returns", K.S_RETURNS), ("wait_ticks_closed", K.S_WAITSUM),
            ("waits_closed", K.S_WAITS), ("general_bed_ticks", K.S_GENT),
            ("icu_bed_ticks", K.S_ICUT), ("ventilator_ticks", K.S_VENTT), ("ticks", K.S_TICKS),
            ("early_stop_tick", K.S_ESTOP), ("provider_wait_ticks_closed", K.S_PROVWAIT),
            ("deteriorations", K.S_DETER))
"""``EDCounters`` field <-> kernel ``S`` column."""

_STAMPS = itertools.count()
"""Stamps of stored states (unique in the process; never part of a state's pickle)."""
_KINDS_SEE = (8, 9)
_KINDS_DISCHARGE = (6, 7)


class ScalarKernel:
    """Kernel arrays for one environment of ``params`` and the load / step / store around them."""

    def __init__(self, params: EDParams, returns: int) -> None:
        self.params = params
        self.kp = K.kparams(params)
        self.returns = returns
        self._offsets = self.kp.offsets.tolist()
        self._stamp = -1
        """``EDState.kernel_stamp`` of the state whose patients the arrays hold (-1: none)."""
        self._alloc(64)

    def _alloc(self, capacity: int) -> None:
        self.st = K.allocate(1, self.kp, capacity, 1)
        self.beds, self.risk = K.scratch(self.kp, capacity)

    # ----- load ----------------------------------------------------------------------------------
    def _load(self, state: EDState, arrivals_to: int) -> tuple[K.KState, list[Patient],
                                                                np.ndarray]:
        """Write ``state`` into the kernel arrays: the patients a step can touch (whose
        arrivals reach schedule tick ``arrivals_to``; only those not ``SyncedPatient`` when
        this kernel stored ``state`` last), the lists, the scalars. Returns the kernel state (with
        the state's own draw arrays), the patients a step can change, and their rows now."""
        pids = int(state.hazard_draws.shape[0])
        if pids > self.st.PT.shape[1]:
            self._alloc(max(pids, int(self.st.PT.shape[1] * 1.5)))
            self._stamp = -1
        st = self.st
        S = st.S[0]
        waiting = state.waiting
        general = [p for p in state.general if p is not None]
        icu = [p for p in state.icu if p is not None]
        pending = [r[2] for r in state.returns]
        people = waiting + general + icu + pending + self._arrivals(
            state, arrivals_to, arrivals_to + 1)
        full = getattr(state, "kernel_stamp", -2) != self._stamp
        self._write(people if full else [p for p in people if type(p) is not SyncedPatient])
        PT = st.PT[0]
        for patient, left in state.scanning:
            PT[patient.pid, K.F_SCANLEFT] = left
        for due, pid, _ in state.returns:
            PT[pid, K.F_RTICK] = due
        st.WL[0, :len(waiting)] = [p.pid for p in waiting]
        st.PR[0, :len(pending)] = [p.pid for p in pending]
        st.GB[0] = [-1 if p is None else p.pid for p in state.general]
        st.IB[0] = [-1 if p is None else p.pid for p in state.icu]
        st.IQ[0, :len(state.imaging_queue)] = [p.pid for p in state.imaging_queue]
        st.SC[0, :len(state.scanning)] = [entry[0].pid for entry in state.scanning]
        values = [0] * K.N_S
        c = state.counters
        for name, column in COUNTERS:
            values[column] = getattr(c, name)
        values[K.S_TICK], values[K.S_ACT] = state.tick, state.actions_this_tick
        values[K.S_VENT], values[K.S_NWAIT] = state.ventilators_in_use, len(waiting)
        values[K.S_NQ], values[K.S_NSCAN] = len(state.imaging_queue), len(state.scanning)
        values[K.S_NPEND], values[K.S_NPIDS] = len(pending), pids
        values[K.S_WARDFREE], values[K.S_HICUFREE] = state.ward_free, state.hospital_icu_free
        values[K.S_BACKLOG_W], values[K.S_BACKLOG_I] = state.elective_backlog
        log = state.log
        values[K.S_BUSYPHYS], values[K.S_PHYSTICKS] = log.busy_physician_ticks, log.physician_ticks
        values[K.S_SCANTICKS] = log.scanner_ticks
        values[K.S_BUSY] = sum(1 for p in general if p.assess_left > 0) + sum(
            1 for p in icu if p.assess_left > 0)
        S[:] = values
        st.RET[0] = state.episode_return
        kstate = st._replace(PD=state.patient_draws[None], RD=state.return_draws[None],
                             FLOW=state.inpatient_flow[None])
        self._hazards(state, state.tick, state.tick + 1)
        self._stamp = -1  # the kernel now holds a state being stepped, not a stored one
        return kstate, people, PT[[p.pid for p in people], :N_ROW]

    def _write(self, patients: list[Patient]) -> None:
        """The patients' rows into the kernel arrays (they become ``SyncedPatient``s)."""
        if patients:
            rows = K.clip_rows(np.array([_row(p) for p in patients], dtype=np.int64))
            self.st.PT[0, [p.pid for p in patients], :N_ROW] = rows
            for p in patients:
                object.__setattr__(p, "__class__", SyncedPatient)

    def _hazards(self, state: EDState, start: int, stop: int) -> None:
        """The kernel's ranks of ``state.hazard_draws`` for ticks ``start .. stop - 1``."""
        pids = state.hazard_draws.shape[0]
        stop = min(stop, state.hazard_draws.shape[1])
        if stop > start:
            self.st.HZ[0, start:stop, :pids] = K.hazard_ranks(
                state.hazard_draws[:, start:stop].T, self.kp)

    # ----- store ---------------------------------------------------------------------------------
    def _store(self, state: EDState, kstate: K.KState, people: list[Patient],
               rows: np.ndarray) -> None:
        """Write the kernel's env 0 back into ``state`` (the patients' changed attributes)."""
        st = kstate
        S = st.S[0]
        new = st.PT[0, [p.pid for p in people], :N_ROW]
        changed_rows, changed_cols = np.nonzero(new != rows)
        setter = object.__setattr__  # stays a SyncedPatient
        for r, col in zip(changed_rows.tolist(), changed_cols.tolist(), strict=True):
            setter(people[r], FIELDS[col], _CONVERT[col](new[r, col]))
        by_pid = {p.pid: p for p in people}
        state.waiting = [by_pid[q] for q in st.WL[0, :S[K.S_NWAIT]].tolist()]
        state.general = [None if q < 0 else by_pid[q] for q in st.GB[0].tolist()]
        state.icu = [None if q < 0 else by_pid[q] for q in st.IB[0].tolist()]
        state.imaging_queue = [by_pid[q] for q in st.IQ[0, :S[K.S_NQ]].tolist()]
        state.scanning = [[by_pid[q], int(st.PT[0, q, K.F_SCANLEFT])]
                          for q in st.SC[0, :S[K.S_NSCAN]].tolist()]
        state.returns = [(int(st.PT[0, q, K.F_RTICK]), q, by_pid[q])
                         for q in st.PR[0, :S[K.S_NPEND]].tolist()]
        c = state.counters
        values = S.tolist()
        for name, column in COUNTERS:
            setattr(c, name, values[column])
        state.tick, state.actions_this_tick = values[K.S_TICK], values[K.S_ACT]
        state.ventilators_in_use = values[K.S_VENT]
        state.ward_free, state.hospital_icu_free = values[K.S_WARDFREE], values[K.S_HICUFREE]
        state.elective_backlog = [values[K.S_BACKLOG_W], values[K.S_BACKLOG_I]]
        state.log.busy_physician_ticks = values[K.S_BUSYPHYS]
        state.log.physician_ticks = values[K.S_PHYSTICKS]
        state.log.scanner_ticks = values[K.S_SCANTICKS]
        state.episode_return = float(st.RET[0])
        self._stamp = next(_STAMPS)
        state.kernel_stamp = self._stamp  # type: ignore[attr-defined]

    # ----- entry points --------------------------------------------------------------------------
    def begin(self, state: EDState) -> None:
        """``kernel_v3.begin_episode`` of a state just drawn (``EDEnv.reset``: tick 0, the
        boarders in their ICU beds): free inpatient beds, boarders' ventilators and counts,
        tick 0's arrivals."""
        kstate, loaded, rows = self._load(state, state.tick - self.kp.triage_ticks)
        K.begin_episode(kstate, 0, self.kp)
        self._store(state, kstate, loaded, rows)

    def step(self, state: EDState, action: int) -> tuple[float, dict[str, Any]]:
        """Transition ``state`` by the valid encoded ``action`` (``-1``: an invalid action,
        which only uses a decision slot); the dense reward (terminal bonus included) and info."""
        kp = self.kp
        kstate, loaded, rows = self._load(state, state.tick + 1 - kp.triage_ticks)
        record = self._log_before(state, action)
        reward, stop = K.scalar_step(kstate, 0, action, kp, self.beds, self.risk)
        if stop:  # the death limit: the rest of the shift runs, with every arrival and draw
            tick = int(kstate.S[0, K.S_TICK])
            more = self._load_rest(state, tick, loaded)
            rows = np.concatenate([rows, kstate.PT[0, [p.pid for p in more], :N_ROW]])
            loaded = loaded + more
            self._hazards(state, tick, kp.horizon)
            reward = K.finish_and_reward(kstate, 0, kp, self.beds, self.risk)
        reward = float(reward)
        ev = kstate.EV[0]
        info = {"ticks": int(ev[K.E_TICKS]), "deaths": int(ev[K.E_DEATHS]),
                "treated": int(ev[K.E_TREATED]),
                "early_stopped": bool(kstate.S[0, K.S_ESTOP] >= 0)}
        self._store(state, kstate, loaded, rows)
        if record is not None:
            self._log_after(state, *record)
        return reward, info

    def _arrivals(self, state: EDState, start: int, stop: int) -> list[Patient]:
        """Point the kernel's ``SCHED`` at the arrivals of schedule ticks ``start .. stop - 1``
        (their pids must be consecutive, as ``generator.draw_episode`` numbers them);
        return those patients."""
        sched = self.st.SCHED[0]
        out: list[Patient] = []
        start, stop = max(start, 0), min(stop, self.kp.horizon)
        if stop > start:
            sched[stop] = 0
        for a in range(stop - 1, start - 1, -1):  # backwards: an empty tick ends where it starts
            arrivals = state.schedule[a] if a < len(state.schedule) else []
            if not arrivals:
                sched[a] = sched[a + 1]
                continue
            first = arrivals[0].pid
            end = first + len(arrivals)
            if any(p.pid != first + j for j, p in enumerate(arrivals)) or (
                    a + 1 < stop and sched[a + 1] not in (end, 0)):
                raise ValueError(f"the arrivals of tick {a} do not have consecutive pids")
            sched[a], sched[a + 1] = first, end
            out = arrivals + out
        return out

    def _load_rest(self, state: EDState, tick: int, loaded: list[Patient]) -> list[Patient]:
        """Load every arrival after ``tick``'s not in ``loaded`` (an early stop runs the rest of
        the shift); return them."""
        known = {p.pid for p in loaded}
        more = [p for p in self._arrivals(state, tick + 1 - self.kp.triage_ticks,
                                          self.kp.horizon) if p.pid not in known]
        self._write(more)
        return more

    # ----- the calibration card's visit log (not a mechanic: nothing reads it back) -------------
    def _log_before(self, state: EDState, action: int) -> tuple[int, Patient, int] | None:
        """The patient a see or discharge action acts on, with the action's kind and tick."""
        if action < 0:
            return None
        kind = bisect.bisect_right(self._offsets, action) - 1
        arg = action - self._offsets[kind]
        if kind in _KINDS_SEE or kind in _KINDS_DISCHARGE:
            ward = state.general if kind in (6, 8) else state.icu
            patient = ward[arg]
            if patient is not None and (kind in _KINDS_SEE or patient.ready):
                return kind, patient, state.tick
        return None

    @staticmethod
    def _log_after(state: EDState, kind: int, p: Patient, tick: int) -> None:
        if kind in _KINDS_SEE:  # door-to-provider of a visit seen by a physician
            state.log.provider.append((p.esi_at_arrival, p.seen_tick - p.arrival_tick,
                                       p.arrival_tick))
            return
        disposition = 2 if p.needs_icu else 1 if p.needs_ward else 0
        boarding = tick - p.decision_tick if disposition and p.decision_tick >= 0 else -1
        state.log.departures.append((p.esi_at_arrival, tick - p.arrival_tick, disposition,
                                     boarding, p.arrival_tick))
