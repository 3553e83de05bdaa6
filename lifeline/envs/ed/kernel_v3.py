# mypy: disable-error-code="no-untyped-def"
"""ED-v3's dynamics over arrays: the one implementation of every ED-v3 mechanic (issue 27
item 3), written over plain integer and float arrays so that numba can compile it (and so that,
without numba, it runs as the plain Python below).

State of environment ``e`` (``KState``): ``S[e, S_*]`` the clock and counters, ``PT[e, pid,
F_*]`` one row of 16-bit integers per patient, ``GB`` / ``IB`` the pid in each general / ICU bed
(-1 empty), ``WL`` the waiting room's pids in its sorted order (``S_NWAIT`` of them), ``IQ`` the
imaging queue (``S_NQ``), ``SC`` the scanners' pids (``S_NSCAN``) with ``F_SCANLEFT`` their
ticks left; ``PR`` the pids with a pending return (due at ``F_RTICK``, served in (tick, pid)
order). The random numbers are the pre-drawn arrays of ``EDEnv.reset`` (``hazard_draws`` as
their ranks among the thresholds they are compared with, ``HZ[e, t, pid]``, exact and 8x
smaller; ``patient_draws`` ``PD``, ``return_draws`` ``RD``). The patient stream itself comes
from ``generator.py``.

Two callers, one step: the scalar :class:`lifeline.envs.ed.env.EDEnv` runs it with N = 1
(:mod:`lifeline.envs.ed.scalar_kernel` loads its ``EDState``, calls :func:`scalar_step`, stores
back), and the batch env (:mod:`lifeline.envs.ed.batch_v3`, what ``gymnasium.make_vec(
"lifeline/ED-v3")`` builds) calls :func:`step_all` for N envs. What stays in Python beside it
are views over an ``EDState`` (``rules.validate`` / ``action_mask``, ``observation.observe``,
the render, the grader); ``tests/envs/ed/test_ed_kernel_v3.py`` checks, step for step, that the
kernel's own observation and mask (:func:`observe`, :func:`action_mask`) equal them.
"""

from __future__ import annotations

import math
import os
from typing import Any, NamedTuple

import numpy as np

from lifeline.envs.ed import care
from lifeline.envs.ed.params import EDParams
from lifeline.envs.ed.prefetch import prefetch
from lifeline.envs.ed.reward import RETURN_HARM
from lifeline.envs.ed.types import EDState, Patient

try:  # compiled when numba is installed, plain Python otherwise (same results)
    if os.environ.get("LIFELINE_NO_NUMBA"):
        raise ImportError("LIFELINE_NO_NUMBA is set")
    import numba

    def jit(fn: Any) -> Any:
        # the step never allocates: no reference counting (``_nrt=False``)
        njit: Any = numba.njit
        return njit(cache=True, _nrt=False)(fn)

    def jit_inline(fn: Any) -> Any:
        """:func:`jit`, and inlined into its (compiled) callers: the per-step chain, where a
        call per helper costs more than the helper (quiet machine, N = 4,096: 515k -> 633k
        env-steps/s)."""
        njit: Any = numba.njit
        return njit(cache=True, _nrt=False, inline="always")(fn)
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - depends on the installation
    def jit(fn: Any) -> Any:
        return fn

    jit_inline = jit
    HAVE_NUMBA = False

WAITING, GENERAL, ICU, GONE = 0, 1, 2, 3

# ----- per-environment integers S[e, .] ---------------------------------------------------------
(S_TICK, S_ACT, S_VENT, S_NWAIT, S_NQ, S_NSCAN, S_STEPS, S_INVALID, S_DONE, S_WARDFREE,
 S_HICUFREE, S_BACKLOG_W, S_BACKLOG_I, S_PATIENTS, S_TREATED, S_WARDADM, S_DEATHS, S_DDEATHS,
 S_CRITICAL, S_CDEATHS, S_LWBS, S_EARLY, S_DHARMS, S_RETURNS, S_WAITSUM, S_WAITS, S_GENT, S_ICUT,
 S_VENTT, S_TICKS, S_ESTOP, S_PROVWAIT, S_DETER, S_BUSYPHYS, S_PHYSTICKS, S_SCANTICKS,
 S_NPIDS, S_NPEND, S_BUSY) = range(39)
N_S = 39

# ----- per-patient integers PT[e, pid, .] -------------------------------------------------------
(F_ARR, F_ACU, F_TERR, F_COND, F_NICU, F_NVENT, F_TREAT, F_PATI, F_NWARD, F_BOARD, F_EVERC,
 F_CRITA, F_ADMA, F_LOC, F_BED, F_ADMT, F_PROG, F_VENTD, F_TIB, F_RETD, F_RCOUNT, F_WORKUP,
 F_AWAIT, F_SEEN, F_ASSESS, F_LABS, F_IMG, F_LABT, F_READT, F_LABRES, F_IMGRES, F_IMGSTATE,
 F_DECISION, F_BEDASSIGN, F_ESI0, F_SCANLEFT, F_RTICK) = range(37)
N_F = 37
PT_DTYPE = np.int16
"""Patient rows are 16-bit (74 bytes): the step is bound by memory, and every field is a tick
count or a small code; patience beyond :data:`PATIENCE_CAP` ticks (far past the shift) is
stored as the cap (:func:`clip_rows`)."""
PATIENCE_CAP = 32767

# ----- events of one step (the dense reward's tally) ---------------------------------------------
(E_TREATED, E_TCRIT, E_DEATHS, E_LWBS, E_SEVERITY, E_DHARMS, E_WCRIT, E_WOTHER, E_TICKS,
 E_DETER) = range(10)
N_E = 10

# ----- action kinds, in the encoding's order (rules.Layout) --------------------------------------
KINDS = ("wait", "admit_general", "admit_icu", "ventilate", "transfer_to_icu", "step_down",
         "discharge_general", "discharge_icu", "see_general", "see_icu", "expedite_general",
         "expedite_icu")


class KParams(NamedTuple):
    """The ``EDParams`` fields the step reads, as numba-typable scalars and arrays."""

    general_beds: int
    icu_beds: int
    ventilators: int
    queue_slots: int
    horizon: int
    k: int
    triage_ticks: int
    early_stop_deaths: int
    scanners: int
    scan_ticks: int
    turnaround: int
    two_hours: int
    ward_capacity: int
    hospital_icu_capacity: int
    ward_free_start: int
    hospital_icu_free_start: int
    tick_minutes: float
    death_hazard: float
    no_vent_factor: float
    treated_factor: float
    under_care_factor: float
    unseen_factor: float
    return_prob: float
    return_lo: float
    return_hi: float
    icu_stabilise_hours: float
    return_harm: float
    worsen: np.ndarray
    outside_death: np.ndarray
    condition_hazard: np.ndarray
    condition_vent: np.ndarray
    condition_los: np.ndarray
    on_duty: np.ndarray
    """Physicians on duty at each tick 0 ... horizon (``physicians_by_hour`` of the tick's hour)."""
    clock: np.ndarray
    """The observation's hour of day at each tick 0 ... horizon (``tick * hours_per_tick % 24``)."""
    assess: np.ndarray
    offsets: np.ndarray
    """First index of each kind in ``KINDS`` order, then the total."""
    thresholds: np.ndarray
    """Every value a hazard draw is ever compared with (sorted, distinct; 0 included)."""
    threshold_index: np.ndarray
    """:func:`threshold_table`: [base, hazard class, condition] -> index in ``thresholds``."""


def kparams(params: EDParams) -> KParams:
    """``params`` as the kernel reads them."""
    q, g, i = params.queue_slots, params.general_beds, params.icu_beds
    sizes = [1, q, q, i, g, i, g, i, g, i, g, i]
    thresholds = hazard_thresholds(params)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)
    f8 = np.float64
    return KParams(
        g, i, params.ventilators, q, params.horizon_ticks, params.actions_per_tick,
        params.triage_ticks, params.early_stop_deaths, params.scanners, params.scan_ticks,
        round(params.bed_turnaround_minutes / params.tick_minutes),
        round(120.0 / params.tick_minutes), params.ward_capacity, params.hospital_icu_capacity,
        params.ward_free_start, params.hospital_icu_free_start,
        float(params.tick_minutes), float(params.death_hazard_untreated),
        float(params.no_vent_factor), float(params.treated_factor),
        float(params.under_care_factor), float(params.unseen_factor), float(params.return_prob),
        float(params.return_delay_hours[0]), float(params.return_delay_hours[1]),
        float(params.icu_stabilise_hours), float(RETURN_HARM),
        np.asarray(params.worsen_hazard, dtype=f8), np.asarray(params.outside_death_prob, f8),
        np.asarray(params.condition_hazard, f8), np.asarray(params.condition_vent_prob, f8),
        np.asarray(params.condition_los, f8),
        on_duty_by_tick(params), clock_by_tick(params),
        np.asarray(params.assess_ticks, dtype=np.int64), offsets, thresholds,
        threshold_table(params, thresholds))


def on_duty_by_tick(params: EDParams) -> np.ndarray:
    """``KParams.on_duty``: a table, so that the step does no float division per read."""
    by_hour = np.asarray(params.physicians_by_hour, dtype=np.int64)
    return by_hour[[care.hour_of_tick(t, params) for t in range(params.horizon_ticks + 1)]]


def clock_by_tick(params: EDParams) -> np.ndarray:
    """``KParams.clock``: :func:`care.clock_hours` per tick (what ``observation.observe``
    shows)."""
    return np.array([care.clock_hours(t, params) for t in range(params.horizon_ticks + 1)])


def hazard_factors(params: EDParams) -> tuple[float, ...]:
    """The factor of each :func:`hazard_class` (before the condition profile), as
    the hazard multiplier of where a patient is: waiting; no ventilator, correct care, under-care in
    a bed a physician has seen; the same three in a bed without one (at least ``unseen``)."""
    care = (params.no_vent_factor, params.treated_factor, params.under_care_factor)
    return (1.0, *care, *(max(f, params.unseen_factor) for f in care))


def hazard_thresholds(params: EDParams) -> np.ndarray:
    """Every threshold ``advance_tick`` compares a hazard draw with: (death, worsening by ESI)
    x every :func:`hazard_factors` x every condition profile, computed with the same float
    operations as :func:`advance_tick`'s, plus 0 (sorted, distinct)."""
    bases = (params.death_hazard_untreated, *params.worsen_hazard)
    values = {0.0}
    for f in hazard_factors(params):
        for ch in params.condition_hazard:
            factor = f * ch
            values.update(base * factor for base in bases)
    return np.array(sorted(values), dtype=np.float64)


def threshold_table(params: EDParams, thresholds: np.ndarray) -> np.ndarray:
    """``[base, class, condition]`` -> index in ``thresholds`` of ``base * (factor x profile)``
    (base 0 = death, 1..5 = worsening of ESI 1..5)."""
    bases = (params.death_hazard_untreated, *params.worsen_hazard)
    factors = hazard_factors(params)
    table = np.zeros((len(bases), len(factors), len(params.condition_hazard)), dtype=np.int64)
    for i, base in enumerate(bases):
        for c, f in enumerate(factors):
            for k, ch in enumerate(params.condition_hazard):
                j = int(np.searchsorted(thresholds, base * (f * ch)))
                assert thresholds[j] == base * (f * ch)
                table[i, c, k] = j
    return table


def hazard_ranks(draws: np.ndarray, kp: KParams) -> np.ndarray:
    """``rank(u) = #{k: thresholds[k] <= u}``: ``u < thresholds[j]`` iff ``rank(u) <= j``, so
    the kernel compares small integers and stays exact."""
    return np.searchsorted(kp.thresholds, draws, side="right")


class KState(NamedTuple):
    """Arrays of N environments (see the module docstring)."""

    S: np.ndarray
    PT: np.ndarray
    GB: np.ndarray
    IB: np.ndarray
    WL: np.ndarray
    IQ: np.ndarray
    SC: np.ndarray
    PR: np.ndarray
    """Pids with a pending return (``S_NPEND`` of them, any order)."""
    HZ: np.ndarray
    """``HZ[e, t, pid]``: the rank of ``EDState.hazard_draws[pid, t]`` among
    ``KParams.thresholds`` (see :func:`hazard_ranks`)."""
    PD: np.ndarray
    RD: np.ndarray
    SCHED: np.ndarray
    """``SCHED[e, t]``: first pid arriving at tick t (``SCHED[e, t + 1]`` ends it)."""
    FLOW: np.ndarray
    EV: np.ndarray
    """``EV[e, E_*]``: the events of the last step."""
    RET: np.ndarray
    """``RET[e]``: float episode return."""


# ================================ patient predicates =============================================
@jit_inline
def observed_acuity(PT, e, q):
    level = PT[e, q, F_ACU] + PT[e, q, F_TERR]
    return 1 if level < 1 else 5 if level > 5 else level


@jit_inline
def treatment_done(PT, e, q):
    return PT[e, q, F_PROG] >= PT[e, q, F_TREAT]


@jit_inline
def ready(PT, e, q):
    return (PT[e, q, F_PROG] >= PT[e, q, F_TREAT] + PT[e, q, F_BOARD]
            and PT[e, q, F_AWAIT] == 0)


@jit_inline
def correct_care(PT, e, q):
    loc = PT[e, q, F_LOC]
    if loc == ICU:
        return PT[e, q, F_VENTD] != 0 or PT[e, q, F_NVENT] == 0
    return loc == GENERAL and PT[e, q, F_NICU] == 0


@jit_inline
def physicians_free(st, e, kp):
    """Physicians on duty minus those in an assessment (``S_BUSY`` counts the
    patients with ``F_ASSESS > 0``), never negative."""
    return max(0, kp.on_duty[st.S[e, S_TICK]] - st.S[e, S_BUSY])


# ================================ list helpers ====================================================
@jit_inline
def _remove(arr, e, n, q):
    """Remove pid ``q`` from the ordered list ``arr[e, :n]``; return the new length."""
    j = 0
    while j < n and arr[e, j] != q:
        j += 1
    if j == n:
        return n
    for k in range(j, n - 1):
        arr[e, k] = arr[e, k + 1]
    arr[e, n - 1] = -1
    return n - 1


@jit
def _before(PT, e, a, b):
    """Waiting-room order (as the observation lists it): observed ESI, arrival tick, pid."""
    oa, ob = observed_acuity(PT, e, a), observed_acuity(PT, e, b)
    if oa != ob:
        return oa < ob
    if PT[e, a, F_ARR] != PT[e, b, F_ARR]:
        return PT[e, a, F_ARR] < PT[e, b, F_ARR]
    return a < b


@jit
def _sort_waiting(st, e, start):
    """Insertion sort of the waiting room whose first ``start`` entries are already in order
    (the same order as a full sort: the key ends in the pid, so it is unique)."""
    n = st.S[e, S_NWAIT]
    for i in range(max(start, 1), n):
        x = st.WL[e, i]
        j = i - 1
        while j >= 0 and _before(st.PT, e, x, st.WL[e, j]):
            st.WL[e, j + 1] = st.WL[e, j]
            j -= 1
        st.WL[e, j + 1] = x


# ================================ transitions =====================================================
@jit
def _place(st, e, q, location, kp):
    ward = st.GB if location == GENERAL else st.IB
    size = kp.general_beds if location == GENERAL else kp.icu_beds
    for b in range(size):
        if ward[e, b] < 0:
            ward[e, b] = q
            st.PT[e, q, F_LOC] = location
            st.PT[e, q, F_BED] = b
            return


@jit
def _vacate(st, e, q):
    if st.PT[e, q, F_LOC] == GENERAL:
        st.GB[e, st.PT[e, q, F_BED]] = -1
    else:
        st.IB[e, st.PT[e, q, F_BED]] = -1
    if st.PT[e, q, F_VENTD]:
        st.PT[e, q, F_VENTD] = 0
        st.S[e, S_VENT] -= 1
    st.PT[e, q, F_LOC] = GONE
    st.PT[e, q, F_BED] = -1


@jit
def _close_wait(st, e, q, end):
    st.S[e, S_WAITSUM] += end - st.PT[e, q, F_ARR]
    st.S[e, S_WAITS] += 1


@jit
def _leave(st, e, q):
    """A patient leaves the ED (discharge, death, LWBS): its imaging order or scan is dropped,
    its assessment ends, a reserved inpatient bed goes back."""
    PT = st.PT
    if PT[e, q, F_IMGSTATE] == 1:
        st.S[e, S_NQ] = _remove(st.IQ, e, st.S[e, S_NQ], q)
    elif PT[e, q, F_IMGSTATE] == 2:
        st.S[e, S_NSCAN] = _remove(st.SC, e, st.S[e, S_NSCAN], q)
    PT[e, q, F_IMGSTATE] = 0
    if PT[e, q, F_ASSESS] > 0:
        st.S[e, S_BUSY] -= 1
    PT[e, q, F_ASSESS] = 0
    if PT[e, q, F_AWAIT] and PT[e, q, F_BEDASSIGN] >= 0:
        if PT[e, q, F_NICU]:
            st.S[e, S_HICUFREE] += 1
        else:
            st.S[e, S_WARDFREE] += 1
        PT[e, q, F_BEDASSIGN] = -1


@jit
def _leave_v3(st, e, q, end):
    if st.PT[e, q, F_SEEN] < 0:
        st.S[e, S_PROVWAIT] += end - st.PT[e, q, F_ARR]
    _leave(st, e, q)


@jit
def outside_outcome(st, e, q, kp):
    PT = st.PT
    rc = PT[e, q, F_RCOUNT]
    if rc:
        u_death, u_return, u_delay = st.RD[e, q, rc - 1, 0], st.RD[e, q, rc - 1, 1], \
            st.RD[e, q, rc - 1, 2]
    else:
        u_death, u_return, u_delay = st.PD[e, q, 2], st.PD[e, q, 3], st.PD[e, q, 4]
    if u_death < kp.outside_death[PT[e, q, F_ACU] - 1]:
        st.S[e, S_DEATHS] += 1
        st.S[e, S_DDEATHS] += 1
        st.S[e, S_CDEATHS] += PT[e, q, F_CRITA]
        st.EV[e, E_DEATHS] += 1
    elif u_return < kp.return_prob:
        st.S[e, S_DHARMS] += 1
        st.EV[e, E_DHARMS] += 1
        lo, hi = kp.return_lo, kp.return_hi
        delay = math.ceil((lo + (hi - lo) * u_delay) * 60.0 / kp.tick_minutes)
        PT[e, q, F_RTICK] = st.S[e, S_TICK] + delay
        st.PR[e, st.S[e, S_NPEND]] = q
        st.S[e, S_NPEND] += 1


@jit
def _discharge(st, e, q, kp):
    PT = st.PT
    _leave_v3(st, e, q, st.S[e, S_TICK])
    is_ready = ready(PT, e, q)
    _vacate(st, e, q)
    if is_ready:
        st.S[e, S_TREATED] += 1
        st.S[e, S_WARDADM] += PT[e, q, F_NWARD]
        st.EV[e, E_TREATED] += 1
        st.EV[e, E_TCRIT] += PT[e, q, F_EVERC]
        return
    st.S[e, S_EARLY] += 1
    st.EV[e, E_SEVERITY] += 6 - PT[e, q, F_ACU]
    outside_outcome(st, e, q, kp)


@jit
def hazard_class(PT, e, q):
    """Which of :func:`hazard_factors` applies (the hazard multiplier without the condition
    profile); -1 once treatment is complete (no hazard)."""
    if PT[e, q, F_LOC] == WAITING:
        return 0
    if treatment_done(PT, e, q):
        return -1
    if PT[e, q, F_NVENT] and not PT[e, q, F_VENTD]:
        c = 1
    elif correct_care(PT, e, q):
        c = 2
    else:
        c = 3
    return c + 3 if PT[e, q, F_SEEN] < 0 else c


@jit
def _worsen(st, e, q, kp):
    PT = st.PT
    PT[e, q, F_ACU] -= 1
    if PT[e, q, F_ACU] <= 2:
        PT[e, q, F_EVERC] = 1
    if PT[e, q, F_ACU] == 1 and not PT[e, q, F_NICU]:
        u_vent, u_hours = st.PD[e, q, 0], st.PD[e, q, 1]
        PT[e, q, F_NICU] = 1
        PT[e, q, F_NWARD] = 0
        PT[e, q, F_BOARD] = 0
        PT[e, q, F_NVENT] = 1 if u_vent < kp.condition_vent[PT[e, q, F_COND]] else 0
        PT[e, q, F_AWAIT] = 1
        extra_hours = (kp.icu_stabilise_hours * kp.condition_los[PT[e, q, F_COND]]
                       * (0.5 + 0.5 * u_hours))
        PT[e, q, F_TREAT] = PT[e, q, F_PROG] + round(extra_hours * 60.0 / kp.tick_minutes)
    else:
        PT[e, q, F_TREAT] += kp.two_hours


@jit
def _die(st, e, q, kp):
    st.S[e, S_DEATHS] += 1
    st.S[e, S_CDEATHS] += st.PT[e, q, F_CRITA]
    st.EV[e, E_DEATHS] += 1
    end = st.S[e, S_TICK] + 1
    _leave_v3(st, e, q, end)
    if st.PT[e, q, F_LOC] == WAITING:
        st.S[e, S_NWAIT] = _remove(st.WL, e, st.S[e, S_NWAIT], q)
        _close_wait(st, e, q, end)
        st.PT[e, q, F_LOC] = GONE
    else:
        _vacate(st, e, q)


@jit
def _in_beds(st, e, kp, out):
    """Occupants of the general beds, then the ICU beds, into ``out``; their count."""
    n = 0
    for b in range(kp.general_beds):
        if st.GB[e, b] >= 0:
            out[n] = st.GB[e, b]
            n += 1
    for b in range(kp.icu_beds):
        if st.IB[e, b] >= 0:
            out[n] = st.IB[e, b]
            n += 1
    return n


@jit
def advance_assessments(st, e, beds, nb):
    PT = st.PT
    end = st.S[e, S_TICK] + 1
    for j in range(nb):
        q = beds[j]
        if PT[e, q, F_ASSESS] <= 0:
            continue
        PT[e, q, F_ASSESS] -= 1
        st.S[e, S_BUSYPHYS] += 1
        if PT[e, q, F_ASSESS] == 0:
            st.S[e, S_BUSY] -= 1
            if PT[e, q, F_LABS]:
                PT[e, q, F_LABRES] = end + PT[e, q, F_LABT]
            if PT[e, q, F_IMG]:
                PT[e, q, F_IMGSTATE] = 1
                st.IQ[e, st.S[e, S_NQ]] = q
                st.S[e, S_NQ] += 1


@jit
def advance_scanners(st, e, kp):
    PT = st.PT
    end = st.S[e, S_TICK] + 1
    n = st.S[e, S_NSCAN]
    kept = 0
    for j in range(n):
        q = st.SC[e, j]
        PT[e, q, F_SCANLEFT] -= 1
        st.S[e, S_SCANTICKS] += 1
        if PT[e, q, F_SCANLEFT] <= 0:
            PT[e, q, F_IMGSTATE] = 3
            PT[e, q, F_IMGRES] = end + PT[e, q, F_READT]
        else:
            st.SC[e, kept] = q
            kept += 1
    for j in range(kept, n):
        st.SC[e, j] = -1
    st.S[e, S_NSCAN] = kept
    while st.S[e, S_NQ] > 0 and st.S[e, S_NSCAN] < kp.scanners:
        q = st.IQ[e, 0]
        st.S[e, S_NQ] = _remove(st.IQ, e, st.S[e, S_NQ], q)
        PT[e, q, F_IMGSTATE] = 2
        PT[e, q, F_SCANLEFT] = PT[e, q, F_IMG] * kp.scan_ticks
        st.SC[e, st.S[e, S_NSCAN]] = q
        st.S[e, S_NSCAN] += 1


@jit
def update_workups(st, e, beds, nb):
    PT = st.PT
    end = st.S[e, S_TICK] + 1
    for j in range(nb):
        q = beds[j]
        if PT[e, q, F_WORKUP] or PT[e, q, F_SEEN] < 0 or PT[e, q, F_ASSESS] > 0:
            continue
        labs_back = PT[e, q, F_LABS] == 0 or 0 <= PT[e, q, F_LABRES] <= end
        imaging_back = PT[e, q, F_IMG] == 0 or (PT[e, q, F_IMGSTATE] == 3
                                                and PT[e, q, F_IMGRES] <= end)
        if labs_back and imaging_back:
            PT[e, q, F_WORKUP] = 1


@jit
def assign_inpatient_beds(st, e, kp, beds):
    S, PT = st.S, st.PT
    t = S[e, S_TICK]
    if t < st.FLOW.shape[1]:
        S[e, S_WARDFREE] = min(kp.ward_capacity, S[e, S_WARDFREE] + st.FLOW[e, t, 0])
        S[e, S_HICUFREE] = min(kp.hospital_icu_capacity, S[e, S_HICUFREE] + st.FLOW[e, t, 2])
        S[e, S_BACKLOG_W] += st.FLOW[e, t, 1]
        S[e, S_BACKLOG_I] += st.FLOW[e, t, 3]
    take = min(S[e, S_WARDFREE], S[e, S_BACKLOG_W])
    S[e, S_BACKLOG_W] -= take
    S[e, S_WARDFREE] -= take
    take = min(S[e, S_HICUFREE], S[e, S_BACKLOG_I])
    S[e, S_BACKLOG_I] -= take
    S[e, S_HICUFREE] -= take
    nb = _in_beds(st, e, kp, beds)
    turnaround = kp.turnaround
    for j in range(nb):
        q = beds[j]
        if PT[e, q, F_AWAIT] and 0 <= PT[e, q, F_BEDASSIGN] <= t - turnaround:
            PT[e, q, F_AWAIT] = 0
    # boarders in (decision tick, pid) order: a selection over the beds (few of them)
    m = 0
    for j in range(nb):
        q = beds[j]
        if PT[e, q, F_AWAIT] and PT[e, q, F_DECISION] >= 0 and PT[e, q, F_BEDASSIGN] < 0:
            beds[m] = q
            m += 1
    for i in range(1, m):
        x = beds[i]
        k = i - 1
        while k >= 0 and (PT[e, beds[k], F_DECISION] > PT[e, x, F_DECISION] or (
                PT[e, beds[k], F_DECISION] == PT[e, x, F_DECISION] and beds[k] > x)):
            beds[k + 1] = beds[k]
            k -= 1
        beds[k + 1] = x
    for j in range(m):
        q = beds[j]
        if PT[e, q, F_NICU]:
            if S[e, S_HICUFREE] > 0:
                S[e, S_HICUFREE] -= 1
                PT[e, q, F_BEDASSIGN] = t
        elif S[e, S_WARDFREE] > 0:
            S[e, S_WARDFREE] -= 1
            PT[e, q, F_BEDASSIGN] = t
        if turnaround <= 0 and PT[e, q, F_BEDASSIGN] == t:
            PT[e, q, F_AWAIT] = 0


@jit
def advance_tick(st, e, kp, beds, risk):
    """One 15-minute tick: care progresses, hazards strike, LWBS, inpatient beds, arrivals.

    ``beds`` and ``risk`` are scratch arrays of at least G + I and patients entries."""
    S, PT, EV = st.S, st.PT, st.EV
    EV[e, E_TICKS] += 1
    S[e, S_ACT] = 0
    t = S[e, S_TICK]
    nb = _in_beds(st, e, kp, beds)
    n_icu = 0
    for b in range(kp.icu_beds):
        n_icu += st.IB[e, b] >= 0
    S[e, S_TICKS] += 1
    S[e, S_GENT] += nb - n_icu
    S[e, S_ICUT] += n_icu
    S[e, S_VENTT] += S[e, S_VENT]
    S[e, S_PHYSTICKS] += kp.on_duty[t]
    advance_assessments(st, e, beds, nb)
    advance_scanners(st, e, kp)
    for j in range(nb):
        q = beds[j]
        PT[e, q, F_TIB] += 1
        PT[e, q, F_TERR] = 0
        if not ready(PT, e, q) and PT[e, q, F_WORKUP] and correct_care(PT, e, q):
            PT[e, q, F_PROG] += 1
    update_workups(st, e, beds, nb)
    for j in range(nb):  # the decision tick (ED work complete) of those whose treatment ended
        q = beds[j]
        if PT[e, q, F_DECISION] < 0 and PT[e, q, F_WORKUP] and treatment_done(PT, e, q):
            PT[e, q, F_DECISION] = t + 1
    # hazards: the waiting room (in order), then the beds' patients still under treatment
    nr = 0
    reordered = False
    for j in range(S[e, S_NWAIT]):
        risk[nr] = st.WL[e, j]
        nr += 1
    for j in range(nb):
        if not treatment_done(PT, e, beds[j]):
            risk[nr] = beds[j]
            nr += 1
    top = kp.thresholds.shape[0]
    for j in range(nr):
        q = risk[j]
        rank = st.HZ[e, t, q]  # u < threshold  iff  rank(u) <= its index
        if rank >= top:  # above every threshold (most draws): no event in any class
            continue
        c = hazard_class(PT, e, q)
        if c < 0:
            continue
        acuity = PT[e, q, F_ACU]
        j = kp.threshold_index[0 if acuity == 1 else acuity, c, PT[e, q, F_COND]]
        if acuity == 1:
            if rank <= j:
                _die(st, e, q, kp)
        elif rank <= j:
            if PT[e, q, F_LOC] == WAITING:
                reordered = True
            _worsen(st, e, q, kp)
            S[e, S_DETER] += 1
            EV[e, E_DETER] += 1
    # leaving without being seen (any ESI; ESI 1 has an effectively endless patience)
    j = 0
    while j < S[e, S_NWAIT]:
        q = st.WL[e, j]
        if t - PT[e, q, F_ARR] >= PT[e, q, F_PATI]:
            S[e, S_NWAIT] = _remove(st.WL, e, S[e, S_NWAIT], q)
            _close_wait(st, e, q, t + 1)
            _leave_v3(st, e, q, t + 1)
            PT[e, q, F_LOC] = GONE
            S[e, S_LWBS] += 1
            EV[e, E_LWBS] += 1
            outside_outcome(st, e, q, kp)
        else:
            j += 1
    assign_inpatient_beds(st, e, kp, risk)
    crit = 0
    unseen = 0
    for j in range(S[e, S_NWAIT]):
        unseen += 1
        crit += PT[e, st.WL[e, j], F_ACU] <= 2
    for j in range(nb):
        q = beds[j]
        if PT[e, q, F_LOC] != GONE and PT[e, q, F_SEEN] < 0:
            unseen += 1
            crit += PT[e, q, F_ACU] <= 2
    EV[e, E_WCRIT] += crit
    EV[e, E_WOTHER] += unseen - crit
    S[e, S_TICK] = t + 1
    # leaving and dying keep the order; a waiting patient who worsened may break it
    admit_arrivals(st, e, kp, 0 if reordered else S[e, S_NWAIT])


@jit
def admit_arrivals(st, e, kp, in_order):
    """Tick ``S_TICK``'s arrivals (out of triage) and due returns join the waiting room, which
    is re-sorted; its first ``in_order`` entries are known to be in order already."""
    S, PT = st.S, st.PT
    t = S[e, S_TICK]
    arrived = t - kp.triage_ticks
    if 0 <= arrived < st.SCHED.shape[1] - 1:
        for q in range(st.SCHED[e, arrived], st.SCHED[e, arrived + 1]):
            S[e, S_PATIENTS] += 1
            S[e, S_CRITICAL] += PT[e, q, F_CRITA]
            st.WL[e, S[e, S_NWAIT]] = q
            S[e, S_NWAIT] += 1
    # due returns in (due tick, pid) order
    while S[e, S_NPEND] > 0:
        best = -1
        for k in range(S[e, S_NPEND]):
            q = st.PR[e, k]
            r = PT[e, q, F_RTICK]
            if r <= t and (best < 0 or r < PT[e, best, F_RTICK] or (
                    r == PT[e, best, F_RTICK] and q < best)):
                best = q
        if best < 0:
            break
        q = best
        PT[e, q, F_RTICK] = -1
        S[e, S_NPEND] = _remove(st.PR, e, S[e, S_NPEND], q)
        PT[e, q, F_PROG] = 0
        PT[e, q, F_SEEN] = -1  # a new visit: seen, worked up and boarded again
        PT[e, q, F_ASSESS] = 0
        PT[e, q, F_WORKUP] = 0
        PT[e, q, F_LABRES] = -1
        PT[e, q, F_IMGRES] = -1
        PT[e, q, F_IMGSTATE] = 0
        PT[e, q, F_DECISION] = -1
        PT[e, q, F_BEDASSIGN] = -1
        PT[e, q, F_AWAIT] = 1 if PT[e, q, F_NWARD] or PT[e, q, F_NICU] else 0
        if PT[e, q, F_ACU] > 1:
            _worsen(st, e, q, kp)
        PT[e, q, F_LOC] = WAITING
        PT[e, q, F_BED] = -1
        PT[e, q, F_ADMT] = -1
        PT[e, q, F_ARR] = t
        PT[e, q, F_PROG] = 0
        PT[e, q, F_TIB] = 0
        PT[e, q, F_RETD] = 1
        PT[e, q, F_RCOUNT] += 1
        S[e, S_RETURNS] += 1
        st.WL[e, S[e, S_NWAIT]] = q
        S[e, S_NWAIT] += 1
    _sort_waiting(st, e, in_order)


@jit_inline
def use_slot(st, e, kp, beds, risk):
    st.S[e, S_ACT] += 1
    if st.S[e, S_ACT] >= kp.k:
        advance_tick(st, e, kp, beds, risk)


@jit_inline
def _kind_of(a, kp):
    k = 0
    while a >= kp.offsets[k + 1]:
        k += 1
    return k, a - kp.offsets[k]


@jit_inline
def apply_action(st, e, a, kp, beds, risk):
    """Apply the valid encoded action ``a``; the K-th consecutive non-wait action also
    advances the clock."""
    S, PT = st.S, st.PT
    kind, arg = _kind_of(a, kp)
    if kind == 0:
        advance_tick(st, e, kp, beds, risk)
        return
    if kind == 1 or kind == 2:
        q = st.WL[e, arg]
        S[e, S_NWAIT] = _remove(st.WL, e, S[e, S_NWAIT], q)
        _close_wait(st, e, q, S[e, S_TICK])
        PT[e, q, F_ADMT] = S[e, S_TICK]
        PT[e, q, F_ADMA] = observed_acuity(PT, e, q)
        _place(st, e, q, GENERAL if kind == 1 else ICU, kp)
    elif kind == 3:
        q = st.IB[e, arg]
        PT[e, q, F_VENTD] = 1
        S[e, S_VENT] += 1
    elif kind == 4 or kind == 5:
        q = st.GB[e, arg] if kind == 4 else st.IB[e, arg]
        _vacate(st, e, q)
        _place(st, e, q, ICU if kind == 4 else GENERAL, kp)
    elif kind == 6 or kind == 7:
        q = st.GB[e, arg] if kind == 6 else st.IB[e, arg]
        _discharge(st, e, q, kp)
    elif kind == 8 or kind == 9:
        q = st.GB[e, arg] if kind == 8 else st.IB[e, arg]
        PT[e, q, F_SEEN] = S[e, S_TICK]
        PT[e, q, F_ASSESS] = kp.assess[PT[e, q, F_ACU] - 1]
        if PT[e, q, F_ASSESS] > 0:
            S[e, S_BUSY] += 1
        S[e, S_PROVWAIT] += S[e, S_TICK] - PT[e, q, F_ARR]
    else:
        q = st.GB[e, arg] if kind == 10 else st.IB[e, arg]
        n = S[e, S_NQ]
        _remove(st.IQ, e, n, q)
        for k in range(n - 1, 0, -1):
            st.IQ[e, k] = st.IQ[e, k - 1]
        st.IQ[e, 0] = q
    use_slot(st, e, kp, beds, risk)


# ================================ rules.action_mask ===============================================
@jit_inline
def action_mask(st, e, kp, mask, o_gen, o_icu):
    """rules.action_mask into ``mask[e]`` (same predicates as rules.validate), read from the
    env's current observation rows (:func:`observe`) rather than the patient rows, which are
    scattered in memory: a bed's observed ESI (column 0), ventilator (4), seen flag (6) and
    imaging-queue place (8: 1 = first, so an order can be expedited iff it is >= 2)."""
    # Every offset, flag and row is read into a local first: numba's arrays carry no aliasing
    # information, so a load after a store to ``mask`` would otherwise be repeated.
    off = kp.offsets
    o1, o2, o3, o4, o5, o6 = off[1], off[2], off[3], off[4], off[5], off[6]
    o7, o8, o9, o10, o11, total = off[7], off[8], off[9], off[10], off[11], off[12]
    m = mask[e]
    gb, ib = st.GB[e], st.IB[e]
    ng, ni = kp.general_beds, kp.icu_beds
    nwait, nvent = st.S[e, S_NWAIT], st.S[e, S_VENT]
    doctor = physicians_free(st, e, kp) > 0
    for j in range(total):
        m[j] = False
    m[0] = True
    free_g = False
    for b in range(ng):
        free_g = free_g or gb[b] < 0
    free_i = False
    for b in range(ni):
        free_i = free_i or ib[b] < 0
    for j in range(min(nwait, kp.queue_slots)):
        m[o1 + j] = free_g
        m[o2 + j] = free_i
    vent_free = nvent < kp.ventilators
    icu = o_icu[e]
    for b in range(ni):
        if ib[b] >= 0:
            unseen, esi1 = icu[b, 6] == 0.0, icu[b, 0] == 1.0
            unvented, place = icu[b, 4] == 0.0, icu[b, 8]
            m[o7 + b] = True
            m[o5 + b] = free_g
            m[o3 + b] = vent_free and unvented
            m[o9 + b] = unseen and (doctor or esi1)
            m[o11 + b] = place >= 2.0
    gen = o_gen[e]
    for b in range(ng):
        if gb[b] >= 0:
            unseen, esi1, place = gen[b, 6] == 0.0, gen[b, 0] == 1.0, gen[b, 8]
            m[o6 + b] = True
            m[o4 + b] = free_i
            m[o8 + b] = unseen and (doctor or esi1)
            m[o10 + b] = place >= 2.0


# ================================ env.step ========================================================
@jit_inline
def survival(st, e, kp):
    n = st.S[e, S_PATIENTS]
    if n == 0:
        return 1.0
    harm = st.S[e, S_DEATHS] + kp.return_harm * (st.S[e, S_DHARMS] + st.S[e, S_DETER])
    return 1.0 - min(harm / n, 1.0)


@jit_inline
def transition(st, e, a, kp, beds, risk):
    """The dynamics of one step of env ``e``: the valid encoded action ``a`` (``dynamics``'s
    ``apply_action``), or, for ``a < 0``, an invalid action that only uses a decision slot (the
    K-th advances the clock). ``EV[e]`` holds the step's events after it."""
    for j in range(N_E):
        st.EV[e, j] = 0
    if a >= 0:
        apply_action(st, e, a, kp, beds, risk)
    else:
        use_slot(st, e, kp, beds, risk)


@jit_inline
def early_stop_due(st, e, kp):
    """The death limit is reached before the end of the shift (:func:`finish_shift` next)."""
    S = st.S
    return (kp.early_stop_deaths > 0 and S[e, S_DEATHS] >= kp.early_stop_deaths
            and S[e, S_TICK] < kp.horizon)


@jit
def finish_shift(st, e, kp, beds, risk):
    """The early stop: the rest of the shift runs with nobody admitted, and is graded
    (stopping early never escapes harm: the waiting room keeps deteriorating, dying, leaving)."""
    st.S[e, S_ESTOP] = st.S[e, S_TICK]
    while st.S[e, S_TICK] < kp.horizon:
        advance_tick(st, e, kp, beds, risk)


@jit_inline
def step_reward(st, e, kp):
    """The dense reward of the step's events (the spec's shaped reward; see README.md), plus
    the terminal bonus at the end of the shift; added to the episode return ``RET[e]``
    (invalid penalties are not)."""
    EV = st.EV
    r = (5.0 * EV[e, E_TREATED] + 5.0 * EV[e, E_TCRIT] - 15.0 * EV[e, E_DEATHS]
         - 0.5 * EV[e, E_WCRIT] - 0.1 * EV[e, E_WOTHER]
         - 3.0 * EV[e, E_SEVERITY]
         - 15.0 * kp.return_harm * (EV[e, E_DHARMS] + EV[e, E_DETER])
         - 2.0 * EV[e, E_LWBS])
    if st.S[e, S_TICK] >= kp.horizon:
        r += 20.0 * survival(st, e, kp)
    st.RET[e] += r
    return r


@jit
def scalar_step(st, e, a, kp, beds, risk):
    """The scalar env's step in one call: :func:`transition`, then the step's reward
    (:func:`step_reward`); returns (reward, False), or (0.0, True) when the death limit stops
    the shift: the caller then loads the rest of the shift and calls :func:`finish_and_reward`."""
    transition(st, e, a, kp, beds, risk)
    if early_stop_due(st, e, kp):
        return 0.0, True
    return step_reward(st, e, kp), False


@jit
def finish_and_reward(st, e, kp, beds, risk):
    """:func:`finish_shift`, then :func:`step_reward` (after :func:`scalar_step` said so)."""
    finish_shift(st, e, kp, beds, risk)
    return step_reward(st, e, kp)


@jit_inline
def step_env(st, e, a, kp, mask, beds, risk):
    """``Environment.step`` of env ``e`` with encoded action ``a``: returns (reward, valid,
    terminated, truncated). The episode must not be over, and ``mask[e]`` must be the env's
    current :func:`action_mask` (validity is read from it)."""
    S = st.S
    S[e, S_STEPS] += 1
    valid = 0 <= a < kp.offsets[-1] and mask[e, a]
    if not valid:
        S[e, S_INVALID] += 1
    transition(st, e, a if valid else -1, kp, beds, risk)
    if early_stop_due(st, e, kp):
        finish_shift(st, e, kp, beds, risk)
    r = step_reward(st, e, kp)
    terminated = S[e, S_TICK] >= kp.horizon
    if not valid:
        r += -1.0
    truncated = not terminated and S[e, S_STEPS] >= 2 * kp.horizon * kp.k
    if terminated or truncated:
        S[e, S_DONE] = 1
    return r, valid, terminated, truncated


# ================================ observation.observe =============================================
@jit_inline
def _pending(PT, e, q, tick):
    if PT[e, q, F_SEEN] < 0 or PT[e, q, F_ASSESS] > 0:
        return 0
    labs = 1 if PT[e, q, F_LABS] and not (0 <= PT[e, q, F_LABRES] <= tick) else 0
    img = PT[e, q, F_IMG]
    imaging = img if img and not (PT[e, q, F_IMGSTATE] == 3 and PT[e, q, F_IMGRES] <= tick) \
        else 0
    return labs + imaging


@jit_inline
def _bed_row(st, e, q, b, hpt, out):
    """Columns 0-7 of bed ``b``'s row (occupant ``q``, -1 empty); column 8 is
    :func:`_imaging_positions`'."""
    PT = st.PT
    if q < 0:
        for c in range(8):
            out[e, b, c] = 0.0
        return
    out[e, b, 0] = observed_acuity(PT, e, q)
    out[e, b, 1] = PT[e, q, F_COND] + 1
    out[e, b, 2] = min(PT[e, q, F_TIB] * hpt, 72.0)
    is_ready = ready(PT, e, q)
    out[e, b, 3] = is_ready
    out[e, b, 4] = PT[e, q, F_VENTD] != 0
    out[e, b, 5] = treatment_done(PT, e, q) and not is_ready
    out[e, b, 6] = PT[e, q, F_SEEN] >= 0
    out[e, b, 7] = _pending(PT, e, q, st.S[e, S_TICK])


@jit_inline
def _imaging_positions(st, e, kp, o_gen, o_icu):
    """Column 8 of the bed rows: the occupant's place in the imaging queue (1 = next)."""
    PT = st.PT
    for b in range(kp.general_beds):
        o_gen[e, b, 8] = 0.0
    for b in range(kp.icu_beds):
        o_icu[e, b, 8] = 0.0
    for k in range(st.S[e, S_NQ]):
        q = st.IQ[e, k]
        if PT[e, q, F_LOC] == GENERAL:
            o_gen[e, PT[e, q, F_BED], 8] = k + 1
        elif PT[e, q, F_LOC] == ICU:
            o_icu[e, PT[e, q, F_BED], 8] = k + 1


@jit_inline
def _queue_rows(st, e, kp, hpt, o_queue):
    """The observation's waiting-room rows (the first ``queue_slots`` in order)."""
    PT = st.PT
    tick = st.S[e, S_TICK]
    for j in range(kp.queue_slots):
        for c in range(3):
            o_queue[e, j, c] = 0.0
    for j in range(min(st.S[e, S_NWAIT], kp.queue_slots)):
        q = st.WL[e, j]
        o_queue[e, j, 0] = observed_acuity(PT, e, q)
        o_queue[e, j, 1] = PT[e, q, F_COND] + 1
        o_queue[e, j, 2] = min((tick - PT[e, q, F_ARR]) * hpt, 72.0)


@jit_inline
def _scalars(st, e, kp, o_vent, o_time, o_totals, o_staff):
    """Every part of the observation but the bed rows and the waiting room."""
    S = st.S
    tick = S[e, S_TICK]
    o_vent[e, 0] = kp.ventilators - S[e, S_VENT]
    o_vent[e, 1] = S[e, S_VENT]
    o_time[e, 0] = kp.clock[tick]
    o_time[e, 1] = tick / kp.horizon
    o_totals[e, 0] = S[e, S_NWAIT]
    o_totals[e, 1] = S[e, S_TREATED]
    o_totals[e, 2] = S[e, S_DEATHS]
    o_totals[e, 3] = S[e, S_LWBS]
    o_staff[e, 0] = kp.on_duty[tick]
    o_staff[e, 1] = physicians_free(st, e, kp)
    o_staff[e, 2] = kp.scanners - S[e, S_NSCAN]
    o_staff[e, 3] = S[e, S_NQ]
    o_staff[e, 4] = S[e, S_WARDFREE]
    o_staff[e, 5] = S[e, S_HICUFREE]


@jit_inline
def observe(st, e, kp, o_gen, o_icu, o_vent, o_queue, o_time, o_totals, o_staff):
    """observation.observe of env ``e`` into the given float32 arrays."""
    hpt = kp.tick_minutes / 60.0
    for b in range(kp.general_beds):
        _bed_row(st, e, st.GB[e, b], b, hpt, o_gen)
    for b in range(kp.icu_beds):
        _bed_row(st, e, st.IB[e, b], b, hpt, o_icu)
    _imaging_positions(st, e, kp, o_gen, o_icu)
    _queue_rows(st, e, kp, hpt, o_queue)
    _scalars(st, e, kp, o_vent, o_time, o_totals, o_staff)


@jit_inline
def _first_free(ward, e, size):
    for b in range(size):
        if ward[e, b] < 0:
            return b
    return -1


@jit_inline
def touched_beds(st, e, kind, arg, kp):
    """The beds (general bed ``b`` as ``b``, ICU bed ``b`` as ``G + b``; -1 none) whose
    observation rows the valid action can change without the clock moving: its bed, and
    the first free bed it moves a patient to (``kind``, ``arg``: :func:`_kind_of` of the
    action). Read before the step."""
    g = kp.general_beds
    if kind == 0:
        return -1, -1
    if kind == 1:
        return _first_free(st.GB, e, g), -1
    if kind == 2:
        f = _first_free(st.IB, e, kp.icu_beds)
        return (g + f if f >= 0 else -1), -1
    if kind == 4:
        f = _first_free(st.IB, e, kp.icu_beds)
        return arg, (g + f if f >= 0 else -1)
    if kind == 5:
        return g + arg, _first_free(st.GB, e, g)
    general = kind == 6 or kind == 8 or kind == 10
    return (arg if general else g + arg), -1


@jit_inline
def _observe_bed(st, e, kp, slot, hpt, o_gen, o_icu):
    if slot < 0:
        return
    if slot < kp.general_beds:
        _bed_row(st, e, st.GB[e, slot], slot, hpt, o_gen)
    else:
        b = slot - kp.general_beds
        _bed_row(st, e, st.IB[e, b], b, hpt, o_icu)


@jit_inline
def observe_after(st, e, kp, kind, t1, t2, o_gen, o_icu, o_vent, o_queue, o_time, o_totals,
                  o_staff):
    """:func:`observe` after a step, redoing only what the step can have changed: everything
    when the clock moved; nothing after an invalid action (``kind`` < 0) that did not move it;
    else the beds :func:`touched_beds` named (``t1``, ``t2``), the scalars, the waiting room
    only after an admission (kinds 1, 2: nothing else reorders it without the clock) and the
    imaging positions only after an action that moves, removes or reorders a queued patient
    (transfer, step-down, discharge, expedite: kinds 4-7, 10, 11)."""
    if st.EV[e, E_TICKS] > 0:
        observe(st, e, kp, o_gen, o_icu, o_vent, o_queue, o_time, o_totals, o_staff)
        return
    if kind < 0:
        return
    hpt = kp.tick_minutes / 60.0
    _observe_bed(st, e, kp, t1, hpt, o_gen, o_icu)
    _observe_bed(st, e, kp, t2, hpt, o_gen, o_icu)
    if 4 <= kind <= 7 or kind >= 10:
        _imaging_positions(st, e, kp, o_gen, o_icu)
    if kind == 1 or kind == 2:
        _queue_rows(st, e, kp, hpt, o_queue)
    _scalars(st, e, kp, o_vent, o_time, o_totals, o_staff)


# ================================ packing a reset scalar state ====================================
OBS_KEYS = ("general_beds", "icu_beds", "ventilators", "queue", "time", "totals", "staff")
"""The order of :func:`observe`'s output arrays."""


def scratch(kp: KParams, pids: int) -> tuple[np.ndarray, np.ndarray]:
    """The two scratch arrays a step needs (bed occupants; patients at risk)."""
    beds = np.zeros(kp.general_beds + kp.icu_beds, dtype=np.int64)
    return beds, np.zeros(pids + kp.general_beds + kp.icu_beds, dtype=np.int64)


def allocate(num_envs: int, kp: KParams, pids: int, returns: int) -> KState:
    """Zeroed arrays for ``num_envs`` envs of up to ``pids`` patients."""
    n, h = num_envs, kp.horizon
    return KState(
        S=np.zeros((n, N_S), dtype=np.int64), PT=np.zeros((n, pids, N_F), dtype=PT_DTYPE),
        GB=np.full((n, kp.general_beds), -1, dtype=np.int32),
        IB=np.full((n, kp.icu_beds), -1, dtype=np.int32),
        WL=np.full((n, pids), -1, dtype=np.int32), IQ=np.full((n, pids), -1, dtype=np.int32),
        SC=np.full((n, max(kp.scanners, 1)), -1, dtype=np.int32),
        PR=np.full((n, pids), -1, dtype=np.int32),
        HZ=np.zeros((n, h, pids), dtype=np.uint8 if len(kp.thresholds) < 256 else np.uint16),
        PD=np.zeros((n, pids, 5)),
        RD=np.zeros((n, pids, returns, 3)), SCHED=np.zeros((n, h + 1), dtype=np.int64),
        FLOW=np.zeros((n, h, 4), dtype=np.int64), EV=np.zeros((n, N_E), dtype=np.int64),
        RET=np.zeros(n))


def _row(p: Patient) -> list[int]:
    row = [0] * N_F
    row[F_ARR], row[F_ACU], row[F_TERR], row[F_COND] = (p.arrival_tick, p.true_acuity,
                                                        p.triage_error, p.condition)
    row[F_NICU], row[F_NVENT], row[F_TREAT], row[F_PATI] = (int(p.needs_icu), int(p.needs_vent),
                                                            p.treatment_ticks, p.patience_ticks)
    row[F_NWARD], row[F_BOARD], row[F_EVERC] = int(p.needs_ward), p.board_ticks, \
        int(p.ever_critical)
    row[F_CRITA], row[F_ADMA], row[F_LOC], row[F_BED] = (int(p.critical_at_arrival),
                                                         p.admitted_acuity, p.location, p.bed)
    row[F_ADMT], row[F_PROG], row[F_VENTD], row[F_TIB] = (p.admitted_tick, p.progress_ticks,
                                                          int(p.ventilated), p.ticks_in_bed)
    row[F_RETD], row[F_RCOUNT], row[F_WORKUP] = int(p.returned), p.return_count, \
        int(p.workup_done)
    row[F_AWAIT], row[F_SEEN], row[F_ASSESS] = int(p.awaiting_bed), p.seen_tick, p.assess_left
    row[F_LABS], row[F_IMG], row[F_LABT], row[F_READT] = (p.labs, p.imaging, p.lab_ticks,
                                                          p.read_ticks)
    row[F_LABRES], row[F_IMGRES], row[F_IMGSTATE] = (p.lab_result_tick, p.imaging_result_tick,
                                                     p.imaging_state)
    row[F_DECISION], row[F_BEDASSIGN], row[F_ESI0] = (p.decision_tick, p.bed_assigned_tick,
                                                      p.esi_at_arrival)
    row[F_SCANLEFT], row[F_RTICK] = 0, -1
    return row


def clip_rows(rows: np.ndarray) -> np.ndarray:
    """Patient rows (``[..., F_ARR ...]``, int64) as stored: patience capped at
    :data:`PATIENCE_CAP` (a wait that long cannot happen in a shift)."""
    np.minimum(rows[..., F_PATI], PATIENCE_CAP, out=rows[..., F_PATI])
    return rows


def pack(st: KState, e: int, state: EDState, kp: KParams) -> None:
    """Copy a freshly reset scalar ``EDState`` (tick 0, nothing scanned, no returns pending)
    into env ``e`` of ``st``."""
    if state.tick != 0 or state.scanning or state.imaging_queue or state.returns:
        raise ValueError("pack() takes a state straight from EDEnv.reset")
    patients = [p for tick in state.schedule for p in tick]
    patients += [p for p in state.icu if p is not None]
    pids = state.hazard_draws.shape[0]
    by_pid: list[Patient | None] = [None] * pids
    for p in patients:
        by_pid[p.pid] = p
    st.PT[e] = 0
    for q, known in enumerate(by_pid):
        if known is not None:
            st.PT[e, q] = clip_rows(np.array(_row(known), dtype=np.int64))
    c = state.counters
    S = st.S[e]
    S[:] = 0
    S[S_TICK], S[S_VENT], S[S_NPIDS] = state.tick, state.ventilators_in_use, pids
    S[S_ESTOP] = -1
    S[S_BUSY] = state.physicians_busy
    S[S_WARDFREE], S[S_HICUFREE] = state.ward_free, state.hospital_icu_free
    S[S_BACKLOG_W], S[S_BACKLOG_I] = state.elective_backlog
    S[S_PATIENTS], S[S_CRITICAL] = c.patients, c.critical
    S[S_NWAIT] = len(state.waiting)
    st.WL[e] = -1
    st.WL[e, :len(state.waiting)] = [p.pid for p in state.waiting]
    st.IQ[e] = -1
    st.SC[e] = -1
    st.PR[e] = -1
    st.GB[e] = [-1 if p is None else p.pid for p in state.general]
    st.IB[e] = [-1 if p is None else p.pid for p in state.icu]
    if pids > st.PT.shape[1]:
        raise ValueError(f"{pids} patients do not fit the capacity {st.PT.shape[1]}")
    st.HZ[e, :, :pids] = hazard_ranks(state.hazard_draws.T, kp)
    st.HZ[e, :, pids:] = 0
    st.PD[e, :pids] = state.patient_draws
    st.RD[e, :pids] = state.return_draws
    starts = np.cumsum([0] + [len(t) for t in state.schedule])
    st.SCHED[e] = starts
    st.FLOW[e] = state.inpatient_flow
    st.EV[e] = 0
    st.RET[e] = 0.0


@jit
def begin_episode(st, e, kp):
    """The rest of ``EDEnv.reset`` once the patients are drawn (``generator``) and in the
    arrays: the inpatient beds free at 00:00, the long-stay ICU boarders (already in ``IB``)
    take a ventilator if they need one and one is free, and count as patients; tick 0's
    arrivals enter the waiting room."""
    S, PT = st.S, st.PT
    S[e, S_WARDFREE] = min(kp.ward_free_start, kp.ward_capacity)
    S[e, S_HICUFREE] = min(kp.hospital_icu_free_start, kp.hospital_icu_capacity)
    for b in range(kp.icu_beds):
        q = st.IB[e, b]
        if q >= 0:
            if PT[e, q, F_NVENT] and S[e, S_VENT] < kp.ventilators:
                PT[e, q, F_VENTD] = 1
                S[e, S_VENT] += 1
            S[e, S_PATIENTS] += 1
            S[e, S_CRITICAL] += PT[e, q, F_EVERC]
    admit_arrivals(st, e, kp, 0)


@jit
def _rank(thresholds, u):
    """:func:`hazard_ranks` of one draw: ``#{k: thresholds[k] <= u}`` (binary search)."""
    lo, hi = 0, thresholds.shape[0]
    if u >= thresholds[hi - 1]:  # most draws: above every hazard
        return hi
    while lo < hi:
        mid = (lo + hi) // 2
        if thresholds[mid] <= u:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit
def load_episode(st, e, kp, rows, pids, sched, hz, pd, rd, flow):
    """Env ``e``'s new episode: the generated patient rows (``generator.draw_episode``, row =
    pid, boarders from ``sched[horizon]`` on, in their ICU beds), the schedule, the pre-drawn
    uniforms of ``EDEnv.reset`` (hazard draws ``hz`` as ranks; ``pd``, ``rd``) and the
    inpatient flow; then :func:`begin_episode`. A patient's hazard ranks are converted from the
    tick it enters the waiting room on (arrival + triage; boarders from 0): the step reads no
    earlier one (those stay 0)."""
    PT, HZ = st.PT, st.HZ
    T = kp.horizon
    for q in range(pids):
        for c in range(N_F):
            PT[e, q, c] = rows[q, c]
        PT[e, q, F_PATI] = min(rows[q, F_PATI], PATIENCE_CAP)
    for q in range(pids, PT.shape[1]):
        for c in range(N_F):
            PT[e, q, c] = 0
    first_boarder = sched[T]
    for t in range(T):
        for q in range(pids, HZ.shape[2]):
            HZ[e, t, q] = 0
    for q in range(pids):
        start = min(rows[q, F_ARR] + kp.triage_ticks, T) if q < first_boarder else 0
        for t in range(start):
            HZ[e, t, q] = 0
        for t in range(start, T):
            HZ[e, t, q] = _rank(kp.thresholds, hz[q, t])
    for q in range(pids):
        for j in range(pd.shape[1]):
            st.PD[e, q, j] = pd[q, j]
        for k in range(rd.shape[1]):
            for j in range(rd.shape[2]):
                st.RD[e, q, k, j] = rd[q, k, j]
    for t in range(T + 1):
        st.SCHED[e, t] = sched[t]
    for t in range(flow.shape[0]):
        for j in range(flow.shape[1]):
            st.FLOW[e, t, j] = flow[t, j]
    S = st.S
    for j in range(N_S):
        S[e, j] = 0
    S[e, S_NPIDS] = pids
    S[e, S_ESTOP] = -1
    for arr in (st.WL, st.IQ, st.PR):
        for j in range(arr.shape[1]):
            arr[e, j] = -1
    for j in range(st.SC.shape[1]):
        st.SC[e, j] = -1
    for b in range(kp.general_beds):
        st.GB[e, b] = -1
    for b in range(kp.icu_beds):
        st.IB[e, b] = -1
    for q in range(first_boarder, pids):
        st.IB[e, PT[e, q, F_BED]] = q
    for j in range(N_E):
        st.EV[e, j] = 0
    st.RET[e] = 0.0
    begin_episode(st, e, kp)


# ================================ N environments ==================================================
@jit
def refresh(st, e, kp, mask, o_gen, o_icu, o_vent, o_queue, o_time, o_totals, o_staff):
    """Observe env ``e`` and compute its mask (after :func:`pack`)."""
    observe(st, e, kp, o_gen, o_icu, o_vent, o_queue, o_time, o_totals, o_staff)
    action_mask(st, e, kp, mask, o_gen, o_icu)


PREFETCH_ROWS, PREFETCH_PATIENTS, PREFETCH_OUTCOMES = 8, 4, 2
"""While :func:`step_all` steps env ``e`` it asks for env ``e + PREFETCH_ROWS``'s lists
(:func:`prefetch_lists`), from those for env ``e + PREFETCH_PATIENTS``'s patient rows
(:func:`prefetch_patients`) and from those for env ``e + PREFETCH_OUTCOMES``'s draws
(:func:`prefetch_outcomes`). ``perf`` on the step showed its time in loads of patient rows and
draws, scattered in memory; with the hints, +22 % (A/B in one run at N = 4,096). A hint
past an array's end (``q + 1`` for the last row) is harmless: a prefetch never faults."""


@jit_inline
def _prefetch_patient(PT, e, q):
    prefetch(PT, e, q)
    prefetch(PT, e, q + 1)  # a 74-byte row ends in the line where the next one starts


@jit_inline
def _may_move_clock(st, e, kp, a):
    """Whether env ``e``'s step with action ``a`` is expected to advance the clock (a wait, an
    out-of-range action, or the last decision slot of the tick): a hint, never a decision."""
    return not 0 < a < kp.offsets[-1] or st.S[e, S_ACT] >= kp.k - 1


@jit_inline
def prefetch_lists(st, e, kp):
    """Hint the lists :func:`prefetch_patients` reads (no effect on any value)."""
    prefetch(st.S, e, 0)
    prefetch(st.S, e, N_S - 1)
    prefetch(st.GB, e, 0)
    prefetch(st.GB, e, kp.general_beds - 1)
    prefetch(st.IB, e, 0)
    prefetch(st.WL, e, 0)  # the head of the waiting room (one line: 16 pids)
    prefetch(st.WL, e, 16)


@jit_inline
def prefetch_patients(st, e, kp, a):
    """Hint the patient rows env ``e``'s next step (action ``a``) reads: the acted-on
    patient's (and its draws, for a discharge), or, when the step will move the clock, every
    bedded patient's, the line where each waiting patient's row starts (a tick reads only
    its first fields: arrival, ESI, triage error, condition, patience; one line instead of
    two: +4 % in a process-per-measurement A/B, 1.051 and 1.033) and the tick's hazard
    ranks."""
    S, PT = st.S, st.PT
    tick = S[e, S_TICK]
    if _may_move_clock(st, e, kp, a):
        for b in range(kp.general_beds):
            q = st.GB[e, b]
            if q >= 0:
                _prefetch_patient(PT, e, q)
        for b in range(kp.icu_beds):
            q = st.IB[e, b]
            if q >= 0:
                _prefetch_patient(PT, e, q)
        for j in range(S[e, S_NWAIT]):
            prefetch(PT, e, st.WL[e, j])
        if tick < kp.horizon:
            for q in range(0, st.HZ.shape[2], 64):
                prefetch(st.HZ[e], tick, q)
            prefetch(st.FLOW, e, tick)
        arrived = tick + 1 - kp.triage_ticks
        if 0 <= arrived < st.SCHED.shape[1] - 1:
            prefetch(st.SCHED, e, arrived)
        return
    kind, arg = _kind_of(a, kp)
    if kind <= 2:
        if arg < S[e, S_NWAIT]:
            _prefetch_patient(PT, e, st.WL[e, arg])
        return
    general = kind == 4 or kind == 6 or kind == 8 or kind == 10
    q = st.GB[e, arg] if general else st.IB[e, arg]
    if q >= 0:
        _prefetch_patient(PT, e, q)
        if kind == 6 or kind == 7:
            prefetch(st.PD, e, q)
            prefetch(st.PD, e, q + 1)


@jit_inline
def prefetch_outcomes(st, e, kp, a):
    """Before a step that moves the clock, hint the draws of the waiting patients who will
    leave without being seen at it, and the rows of the patients arriving (reads the rows
    :func:`prefetch_patients` asked for)."""
    S, PT = st.S, st.PT
    if not _may_move_clock(st, e, kp, a):
        return
    t = S[e, S_TICK]
    for j in range(S[e, S_NWAIT]):
        q = st.WL[e, j]
        if t - PT[e, q, F_ARR] >= PT[e, q, F_PATI]:
            prefetch(st.PD, e, q)
            prefetch(st.PD, e, q + 1)
    arrived = t + 1 - kp.triage_ticks
    if 0 <= arrived < st.SCHED.shape[1] - 1:
        for q in range(st.SCHED[e, arrived], st.SCHED[e, arrived + 1]):
            _prefetch_patient(PT, e, q)


@jit
def step_all(st, kp, actions, skip, reward, valid, terminated, truncated, info, mask, o_gen,
             o_icu, o_vent, o_queue, o_time, o_totals, o_staff, beds, risk):
    """Step every env ``e`` with ``skip[e] == False``, then observe it and compute its mask:
    ``reward[e]`` ... ``truncated[e]``, ``info[e]`` = (ticks, deaths, treated, early stopped)."""
    n = actions.shape[0]
    for e in range(n):
        if e + PREFETCH_ROWS < n:
            prefetch_lists(st, e + PREFETCH_ROWS, kp)
        if e + PREFETCH_PATIENTS < n:
            prefetch_patients(st, e + PREFETCH_PATIENTS, kp, actions[e + PREFETCH_PATIENTS])
        if e + PREFETCH_OUTCOMES < n:
            prefetch_outcomes(st, e + PREFETCH_OUTCOMES, kp, actions[e + PREFETCH_OUTCOMES])
        if skip[e]:
            continue
        a = actions[e]
        t1, t2, kind = -1, -1, -1
        if 0 <= a < kp.offsets[-1] and mask[e, a]:
            kind, arg = _kind_of(a, kp)
            t1, t2 = touched_beds(st, e, kind, arg, kp)
        r, ok, term, trunc = step_env(st, e, a, kp, mask, beds, risk)
        reward[e] = r
        valid[e] = ok
        terminated[e] = term
        truncated[e] = trunc
        info[e, 0] = st.EV[e, E_TICKS]
        info[e, 1] = st.EV[e, E_DEATHS]
        info[e, 2] = st.EV[e, E_TREATED]
        info[e, 3] = st.S[e, S_ESTOP] >= 0
        observe_after(st, e, kp, kind, t1, t2, o_gen, o_icu, o_vent, o_queue, o_time, o_totals,
                      o_staff)
        if ok or st.EV[e, E_TICKS] > 0:
            action_mask(st, e, kp, mask, o_gen, o_icu)
