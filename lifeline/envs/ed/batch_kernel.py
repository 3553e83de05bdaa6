# mypy: disable-error-code="no-untyped-def"
"""numba kernel of the batch ED: ``dynamics.py``, ``rules.py``, ``observation.py`` and the
generator, function by function, over N environments held as arrays.

Every function mirrors the scalar function of the same name (``_place`` <-> ``dynamics._place``,
``make_patient`` <-> ``generator.make_patient``, ...) and makes the same decisions from the same
pre-drawn random numbers, so a batch environment and the scalar core produce identical
trajectories (``tests/envs/ed/test_ed_batch_parity.py`` checks it). Two representation changes keep
the batch
small and fast without changing any decision:

* Uniform draws that are only ever *compared* with a finite set of thresholds are stored as their
  rank among those thresholds (``uint8``): ``u < th[j]`` iff ``rank(u) <= j`` where
  ``rank(u) = #{k: th[k] <= u}`` over the sorted distinct thresholds. The hazard draws
  ``EDState.hazard_draws`` (patients x ticks) shrink 8x this way and stay exact.
* Draws used in arithmetic (ICU time on worsening, return delay) are turned into the resulting
  tick counts with the scalar code's float expressions.

Layout: ``S[env, field]`` holds the per-environment integers (clock, counters), ``PT[env, pid,
field]`` one row of integers per patient (``F_*`` columns), ``GB``/``IB`` the pid in each general /
ICU bed (-1 = empty), ``WL`` the waiting room's pids in its sorted order, ``PR`` the pids with a
pending return, ``HZ[env, tick, pid]`` the hazard ranks, ``RD[env, pid, k]`` the (outside-death
rank, returns flag, delay ticks) of the early discharge after ``k`` returns.
"""

from __future__ import annotations

import math
from typing import Any

import llvmlite.ir as ir
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

jit: Any = njit
"""``numba.njit``, untyped here: the kernel functions take numba-typed arrays, no annotations."""

# ----- per-environment integers S[env, .] --------------------------------------------------------
S_TICK, S_ACT, S_VENT, S_NWAIT, S_NPEND, S_STEPS, S_INVALID, S_DONE, S_NPIDS = range(9)
(C_PATIENTS, C_TREATED, C_DEATHS, C_DDEATHS, C_CRITICAL, C_CDEATHS, C_LWBS, C_EARLY, C_DHARMS,
 C_RETURNS, C_WAITSUM, C_WAITS, C_GENT, C_ICUT, C_VENTT, C_TICKS, C_ESTOP, C_WARD) = range(9, 27)
N_S = 27

# ----- per-patient integers PT[env, pid, .] ------------------------------------------------------
(F_ARR, F_ACU, F_TERR, F_COND, F_NICU, F_NVENT, F_TREAT, F_PATI, F_EVERC, F_CRITA, F_ADMA, F_LOC,
 F_BED, F_ADMT, F_PROG, F_VENTD, F_TIB, F_RETD, F_RCOUNT, F_RTICK, F_WVENT, F_WEXTRA, F_NWARD,
 F_BOARD) = range(24)
N_F = 24

WAITING, GENERAL, ICU, GONE = 0, 1, 2, 3
MINOR, RESPIRATORY, TRAUMA = 5, 1, 2
OTHER_CONDITIONS = np.array([0, 2, 3, 4], dtype=np.int64)

# ----- events of one step (dynamics.StepEvents) --------------------------------------------------
E_TREATED, E_TCRIT, E_DEATHS, E_LWBS, E_SEVERITY, E_DHARMS, E_WCRIT, E_WOTHER, E_TICKS = range(9)
N_E = 9
SCRATCH = 16
"""``ev[:N_E]`` are the step's events; ``ev[SCRATCH:]`` is scratch space (the step path runs
without numba's reference counting, ``_nrt=False``, so it never allocates; the atomic reference
counts of array views were 40 % of the step time)."""

# ----- scalar parameters PF (floats) and PI (ints) ------------------------------------------------
(PI_G, PI_I, PI_V, PI_Q, PI_T, PI_K, PI_A, PI_MAXSTEPS, PI_EARLYSTOP, PI_TWOHOURS, PI_MCILO,
 PI_MCIHI, PI_BOARDERS, PI_R, PI_TRIAGE) = range(15)
(PF_HPT, PF_TICKMIN, PF_RESP, PF_MIS, PF_MIS2, PF_TSIGMA, PF_PMU, PF_MCIW0, PF_MCIW1,
 PF_ICUH, PF_RETURN_HARM, PF_TICK_HOURS, PF_ESI1ICU, PF_PSIGMA, PF_BSIGMA) = range(15)
OFF_ADMIT_G, OFF_ADMIT_I, OFF_VENT, OFF_TRANSFER, OFF_STEPDOWN, OFF_DIS_G, OFF_DIS_I = range(7)

MAX_HOURS = 72.0


# ================================ generator.py ===================================================
@jit(cache=True)
def _hours_to_ticks(hours: float, tick_minutes: float) -> int:
    return max(1, round(hours * 60.0 / tick_minutes))


@jit(cache=True)
def _triage_error(acuity, rng, pf):
    if acuity <= 2:
        return 1 if rng.random() < pf[PF_MIS2] else 0
    if rng.random() >= pf[PF_MIS]:
        return 0
    error = -1 if rng.random() < 0.5 else 1
    return error if 1 <= acuity + error <= 5 else -error


@jit(cache=True)
def make_patient(row, pid, tick, acuity, condition, rng, pf, icu_prob, vent_prob,
                 treat_mu, board_mu, ward_prob):
    """``generator.make_patient`` writing into ``row`` (``condition < 0`` draws it)."""
    if condition < 0:
        if acuity >= 4 and rng.random() < 0.7:
            condition = MINOR
        elif rng.random() < pf[PF_RESP]:
            condition = RESPIRATORY
        else:
            condition = OTHER_CONDITIONS[rng.integers(0, 4)]
    if acuity == 1:
        needs_icu = rng.random() < pf[PF_ESI1ICU]
    else:
        needs_icu = acuity == 2 and rng.random() < icu_prob[condition]
    needs_vent = needs_icu and rng.random() < vent_prob[condition]
    error = _triage_error(acuity, rng, pf)
    mu = treat_mu[0 if needs_icu else acuity, condition]
    treatment = _hours_to_ticks(rng.lognormal(mu, pf[PF_TSIGMA]), pf[PF_TICKMIN])
    patience = _hours_to_ticks(rng.lognormal(pf[PF_PMU], pf[PF_PSIGMA]), pf[PF_TICKMIN])
    u_ward = rng.random()  # v2: ward admission and boarding time, always two draws
    board = _hours_to_ticks(rng.lognormal(board_mu[acuity], pf[PF_BSIGMA]), pf[PF_TICKMIN])
    needs_ward = not needs_icu and u_ward < ward_prob[acuity]
    row[:] = 0
    row[F_ARR] = tick
    row[F_ACU] = acuity
    row[F_TERR] = error
    row[F_COND] = condition
    row[F_NICU] = needs_icu
    row[F_NVENT] = needs_vent
    row[F_TREAT] = treatment
    row[F_PATI] = patience
    row[F_NWARD] = needs_ward
    row[F_BOARD] = board if needs_ward else 0
    row[F_EVERC] = acuity <= 2
    row[F_CRITA] = acuity <= 2
    row[F_LOC] = WAITING
    row[F_BED] = -1
    row[F_ADMT] = -1
    row[F_RTICK] = -1
    return pid


@jit(cache=True)
def _choice(rng, cdf):
    """``Generator.choice(len(cdf), p=...)``: one uniform, ``searchsorted(cdf, u, 'right')``."""
    return np.searchsorted(cdf, rng.random(), side="right")


@jit(cache=True)
def generate(e, arrivals, patients, S, PT, GB, IB, sched, pi, pf, lam, cdf_mix, cdf_mci,
             icu_prob, vent_prob, treat_mu, board_mu, ward_prob):
    """``EDEnv.reset`` for env ``e`` up to the bulk draws: the patient stream
    (``generate_schedule``) and the boarders (``initial_icu``); returns the number of pids
    (negative: the patient arrays are too small for that many)."""
    T = pi[PI_T]
    tick_hours = pf[PF_TICK_HOURS]
    counts = np.empty(T, dtype=np.int64)
    for t in range(T):
        counts[t] = arrivals.poisson(lam[t])
    lo, hi = pi[PI_MCILO], pi[PI_MCIHI]
    mci_count = arrivals.integers(lo, hi + 1) if hi > 0 else 0
    mci_start = pf[PF_MCIW0] + arrivals.random() * (pf[PF_MCIW1] - pf[PF_MCIW0])
    mci_per_tick = np.zeros(T, dtype=np.int64)
    for _ in range(mci_count):
        mci_per_tick[min(T - 1, int((mci_start + arrivals.random()) / tick_hours))] += 1
    total = 0
    for t in range(T):
        total += counts[t] + mci_per_tick[t]
    n_board = min(pi[PI_BOARDERS], pi[PI_I])
    if total + n_board > PT.shape[1] or total + n_board > 32767:
        return -(total + n_board)  # capacity too small: the caller grows the arrays and retries
    pid = 0
    for t in range(T):
        sched[e, t] = pid
        for _ in range(counts[t]):
            acuity = _choice(patients, cdf_mix) + 1
            make_patient(PT[e, pid], pid, t, acuity, -1, patients, pf, icu_prob, vent_prob,
                         treat_mu, board_mu, ward_prob)
            pid += 1
        for _ in range(mci_per_tick[t]):
            acuity = _choice(patients, cdf_mci) + 1
            make_patient(PT[e, pid], pid, t, acuity, TRAUMA, patients, pf, icu_prob, vent_prob,
                         treat_mu, board_mu, ward_prob)
            pid += 1
    sched[e, T] = pid
    # initial_icu
    S[e, :] = 0
    S[e, C_ESTOP] = -1
    GB[e, :] = -1
    IB[e, :] = -1
    for i in range(n_board):
        acuity = 1 if patients.random() < 0.4 else 2
        b = pid + i
        row = PT[e, b]
        make_patient(row, b, 0, acuity, -1, patients, pf, icu_prob, vent_prob, treat_mu,
                     board_mu, ward_prob)
        row[F_NICU] = 1
        row[F_NWARD] = 0
        row[F_BOARD] = 0
        row[F_TERR] = 0
        row[F_TREAT] = _hours_to_ticks(24.0 + 24.0 * patients.random(), pf[PF_TICKMIN])
        row[F_PROG] = _hours_to_ticks(4.0 + 8.0 * patients.random(), pf[PF_TICKMIN])
        row[F_LOC] = ICU
        row[F_BED] = i
        row[F_ADMT] = 0
        row[F_ADMA] = row[F_ACU]
        row[F_TIB] = row[F_PROG]
    return pid + n_board


@jit(cache=True, _nrt=False)
def store_draws(e, hz, pd, rd, S, PT, HZ, RD, IB, WL, PR, sched, pi, pf, hz_th, out_th,
                cond_vent_prob, cond_los, ret_prob, ret_lo, ret_hi, scr):
    """The rest of ``EDEnv.reset`` for env ``e``: the pre-drawn uniforms (``hazard_draws``
    ``hz``, ``patient_draws`` ``pd``, ``return_draws`` ``rd``, drawn in bulk by numpy) as ranks
    and ticks, the boarders enter, tick 0's arrivals wait."""
    pids, T = hz.shape
    n_th = hz_th.shape[0]
    top = hz_th[n_th - 1]
    for q in range(pids):
        # a patient meets hazards only once in the waiting room: ticks before its arrival (and
        # triage) are never read, so only the later ones are converted (boarders: from 0)
        for t in range(min(PT[e, q, F_ARR] + pi[PI_TRIAGE], T) if q < sched[e, T] else 0, T):
            u = hz[q, t]
            HZ[e, t, q] = n_th if u >= top else np.searchsorted(hz_th, u, side="right")
    for q in range(pids):
        row = PT[e, q]
        c = row[F_COND]
        row[F_WVENT] = pd[q, 0] < cond_vent_prob[c]
        extra_hours = pf[PF_ICUH] * cond_los[c] * (0.5 + 0.5 * pd[q, 1])
        row[F_WEXTRA] = round(extra_hours * 60.0 / pf[PF_TICKMIN])
        _store_discharge(RD, e, q, 0, pd[q, 2], pd[q, 3], pd[q, 4], out_th, ret_prob, ret_lo,
                         ret_hi, pf)
        for k in range(rd.shape[1]):
            _store_discharge(RD, e, q, k + 1, rd[q, k, 0], rd[q, k, 1], rd[q, k, 2], out_th,
                             ret_prob, ret_lo, ret_hi, pf)
    # boarders enter (EDEnv.reset)
    for b in range(sched[e, T], pids):
        row = PT[e, b]
        IB[e, row[F_BED]] = b
        if row[F_NVENT] and S[e, S_VENT] < pi[PI_V]:
            row[F_VENTD] = 1
            S[e, S_VENT] += 1
        S[e, C_PATIENTS] += 1
        S[e, C_CRITICAL] += row[F_EVERC]
    S[e, S_NPIDS] = pids
    admit_arrivals(e, S, PT, WL, PR, sched, pi, scr)


@jit(cache=True, _nrt=False)
def _store_discharge(RD, e, q, k, u_death, u_return, u_delay, out_th, ret_prob, ret_lo,
                     ret_hi, pf):
    RD[e, q, k, 0] = np.searchsorted(out_th, u_death, side="right")
    RD[e, q, k, 1] = u_return < ret_prob
    RD[e, q, k, 2] = math.ceil((ret_lo + (ret_hi - ret_lo) * u_delay) * 60.0 / pf[PF_TICKMIN])


# ================================ dynamics.py ====================================================
@jit(cache=True, _nrt=False, inline="always")
def observed_acuity(row):
    level = row[F_ACU] + row[F_TERR]
    return 1 if level < 1 else 5 if level > 5 else level


@jit(cache=True, _nrt=False, inline="always")
def ready(row):
    return row[F_PROG] >= row[F_TREAT] + row[F_BOARD]


@jit(cache=True, _nrt=False, inline="always")
def treatment_done(row):
    return row[F_PROG] >= row[F_TREAT]


@jit(cache=True, _nrt=False)
def _sort_waiting(e, S, PT, WL, ev):
    """Sort the waiting room by (observed acuity, arrival tick, pid): insertion sort of packed
    integer keys (the room is nearly sorted: only arrivals and worsened patients move)."""
    n = S[e, S_NWAIT]
    keys = ev[SCRATCH:SCRATCH + n]
    for i in range(n):
        q = WL[e, i]
        keys[i] = ((observed_acuity(PT[e, q]) << 42) | (np.int64(PT[e, q, F_ARR]) << 21)
                   | np.int64(q))
    for i in range(1, n):
        k = keys[i]
        j = i - 1
        while j >= 0 and keys[j] > k:
            keys[j + 1] = keys[j]
            j -= 1
        keys[j + 1] = k
    for i in range(n):
        WL[e, i] = keys[i] & 0x1FFFFF


@jit(cache=True, _nrt=False, inline="always")
def _place(e, q, location, S, PT, GB, IB):
    ward = GB if location == GENERAL else IB
    bed = 0
    while ward[e, bed] != -1:
        bed += 1
    ward[e, bed] = q
    PT[e, q, F_LOC] = location
    PT[e, q, F_BED] = bed


@jit(cache=True, _nrt=False, inline="always")
def _vacate(e, q, S, PT, GB, IB):
    ward = GB if PT[e, q, F_LOC] == GENERAL else IB
    ward[e, PT[e, q, F_BED]] = -1
    if PT[e, q, F_VENTD]:
        PT[e, q, F_VENTD] = 0
        S[e, S_VENT] -= 1
    PT[e, q, F_LOC] = GONE
    PT[e, q, F_BED] = -1


@jit(cache=True, _nrt=False, inline="always")
def _close_wait(e, q, end, S, PT):
    S[e, C_WAITSUM] += end - PT[e, q, F_ARR]
    S[e, C_WAITS] += 1


@jit(cache=True, _nrt=False, inline="always")
def _remove_waiting(e, q, S, WL):
    n = S[e, S_NWAIT]
    i = 0
    while WL[e, i] != q:
        i += 1
    for j in range(i, n - 1):
        WL[e, j] = WL[e, j + 1]
    S[e, S_NWAIT] = n - 1


@jit(cache=True, _nrt=False)
def use_slot(e, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death, th_worsen,
             out_j):
    S[e, S_ACT] += 1
    if S[e, S_ACT] >= pi[PI_K]:
        advance_tick(e, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death, th_worsen,
                     out_j)


@jit(cache=True, _nrt=False)
def apply_action(e, a, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death, th_worsen,
                 out_j, offs):
    """``dynamics.apply_action`` for a valid encoded action ``a``."""
    if a == 0:
        advance_tick(e, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death, th_worsen,
                     out_j)
        return
    if a < offs[OFF_VENT]:  # admit_general / admit_icu
        to_icu = a >= offs[OFF_ADMIT_I]
        slot = a - (offs[OFF_ADMIT_I] if to_icu else offs[OFF_ADMIT_G])
        q = WL[e, slot]
        n = S[e, S_NWAIT]
        for j in range(slot, n - 1):
            WL[e, j] = WL[e, j + 1]
        S[e, S_NWAIT] = n - 1
        _close_wait(e, q, S[e, S_TICK], S, PT)
        PT[e, q, F_ADMT] = S[e, S_TICK]
        PT[e, q, F_ADMA] = observed_acuity(PT[e, q])
        _place(e, q, ICU if to_icu else GENERAL, S, PT, GB, IB)
    elif a < offs[OFF_TRANSFER]:  # ventilate
        q = IB[e, a - offs[OFF_VENT]]
        PT[e, q, F_VENTD] = 1
        S[e, S_VENT] += 1
    elif a < offs[OFF_DIS_G]:  # transfer_to_icu / step_down
        if a < offs[OFF_STEPDOWN]:
            q = GB[e, a - offs[OFF_TRANSFER]]
            _vacate(e, q, S, PT, GB, IB)
            _place(e, q, ICU, S, PT, GB, IB)
        else:
            q = IB[e, a - offs[OFF_STEPDOWN]]
            _vacate(e, q, S, PT, GB, IB)
            _place(e, q, GENERAL, S, PT, GB, IB)
    else:  # discharge_general / discharge_icu
        q = GB[e, a - offs[OFF_DIS_G]] if a < offs[OFF_DIS_I] else IB[e, a - offs[OFF_DIS_I]]
        _discharge(e, q, S, PT, GB, IB, PR, RD, ev, out_j)
    use_slot(e, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death, th_worsen, out_j)


@jit(cache=True, _nrt=False)
def _discharge(e, q, S, PT, GB, IB, PR, RD, ev, out_j):
    _vacate(e, q, S, PT, GB, IB)
    row = PT[e, q]
    if ready(row):
        S[e, C_TREATED] += 1
        S[e, C_WARD] += row[F_NWARD]
        ev[E_TREATED] += 1
        ev[E_TCRIT] += row[F_EVERC]
        return
    S[e, C_EARLY] += 1
    ev[E_SEVERITY] += 6 - row[F_ACU]
    k = row[F_RCOUNT]
    if RD[e, q, k, 0] <= out_j[row[F_ACU]]:  # u_death < outside_death_prob[acuity - 1]
        S[e, C_DEATHS] += 1
        S[e, C_DDEATHS] += 1
        S[e, C_CDEATHS] += row[F_CRITA]
        ev[E_DEATHS] += 1
    elif RD[e, q, k, 1]:  # u_return < return_prob
        S[e, C_DHARMS] += 1
        ev[E_DHARMS] += 1
        row[F_RTICK] = S[e, S_TICK] + RD[e, q, k, 2]
        PR[e, S[e, S_NPEND]] = q
        S[e, S_NPEND] += 1


@jit(cache=True, _nrt=False, inline="always")
def correct_care(row):
    if row[F_LOC] == ICU:
        return row[F_VENTD] or not row[F_NVENT]
    return row[F_LOC] == GENERAL and not row[F_NICU]


@jit(cache=True, _nrt=False, inline="always")
def hazard_slot(row):
    """``hazard_factor``'s location factor as an index: 0 waiting, 1 no ventilator, 2 correct
    care, 3 under care (ready patients are never at risk)."""
    if row[F_LOC] == WAITING:
        return 0
    if row[F_NVENT] and not row[F_VENTD]:
        return 1
    if correct_care(row):
        return 2
    return 3


@jit(cache=True, _nrt=False, inline="always")
def _worsen(e, q, PT, pi):
    row = PT[e, q]
    row[F_ACU] -= 1
    row[F_EVERC] = row[F_EVERC] or row[F_ACU] <= 2
    if row[F_ACU] == 1 and not row[F_NICU]:
        row[F_NICU] = 1
        row[F_NWARD] = 0
        row[F_BOARD] = 0
        row[F_NVENT] = row[F_WVENT]
        row[F_TREAT] = row[F_PROG] + row[F_WEXTRA]
    else:
        row[F_TREAT] += pi[PI_TWOHOURS]


@jit(cache=True, _nrt=False)
def _die(e, q, S, PT, GB, IB, WL, ev):
    S[e, C_DEATHS] += 1
    S[e, C_CDEATHS] += PT[e, q, F_CRITA]
    ev[E_DEATHS] += 1
    if PT[e, q, F_LOC] == WAITING:
        _remove_waiting(e, q, S, WL)
        _close_wait(e, q, S[e, S_TICK] + 1, S, PT)
        PT[e, q, F_LOC] = GONE
    else:
        _vacate(e, q, S, PT, GB, IB)


@jit(cache=True, _nrt=False)
def finish_shift(e, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death, th_worsen,
                 out_j):
    S[e, C_ESTOP] = S[e, S_TICK]
    while S[e, S_TICK] < pi[PI_T]:
        advance_tick(e, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death, th_worsen,
                     out_j)


@jit(cache=True, _nrt=False)
def advance_tick(e, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death, th_worsen,
                 out_j):
    """``dynamics.advance_tick``: care, hazards, LWBS, waiting penalties, then arrivals."""
    ev[E_TICKS] += 1
    S[e, S_ACT] = 0
    G, NI = pi[PI_G], pi[PI_I]
    n_gen = 0
    n_icu = 0
    for b in range(G):
        if GB[e, b] >= 0:
            n_gen += 1
    for b in range(NI):
        if IB[e, b] >= 0:
            n_icu += 1
    S[e, C_TICKS] += 1
    S[e, C_GENT] += n_gen
    S[e, C_ICUT] += n_icu
    S[e, C_VENTT] += S[e, S_VENT]
    t = S[e, S_TICK]
    # care progresses for everyone in a bed; who is at risk (not ready) meets the hazard draw
    n = S[e, S_NWAIT]
    hits = ev[SCRATCH:SCRATCH + n + G + NI]
    n_hits = 0
    for b in range(G + NI):
        q = GB[e, b] if b < G else IB[e, b - G]
        if q < 0:
            continue
        row = PT[e, q]
        row[F_TIB] += 1
        row[F_TERR] = 0
        if not ready(row) and correct_care(row):
            row[F_PROG] += 1
        if not treatment_done(row):
            acu = row[F_ACU]
            slot = hazard_slot(row)
            h = HZ[e, t, q]
            if h <= (th_death[slot, row[F_COND]] if acu == 1
                     else th_worsen[acu, slot, row[F_COND]]):
                hits[n_hits] = q
                n_hits += 1
    # waiting patients (location factor 1): decisions first, effects after (each patient's fate
    # depends only on its own state and draw, so this order gives the scalar loop's outcome)
    for i in range(n):
        q = WL[e, i]
        acu = PT[e, q, F_ACU]
        h = HZ[e, t, q]
        if h <= (th_death[0, PT[e, q, F_COND]] if acu == 1
                 else th_worsen[acu, 0, PT[e, q, F_COND]]):
            hits[n_hits] = q
            n_hits += 1
    for j in range(n_hits):
        q = hits[j]
        if PT[e, q, F_ACU] == 1:
            _die(e, q, S, PT, GB, IB, WL, ev)
        else:
            _worsen(e, q, PT, pi)
    # leaving without being seen; waiting penalties
    n = S[e, S_NWAIT]
    w = 0
    crit = 0
    for i in range(n):
        q = WL[e, i]
        acu = PT[e, q, F_ACU]
        if acu >= 4 and t - PT[e, q, F_ARR] >= PT[e, q, F_PATI]:
            _close_wait(e, q, t + 1, S, PT)
            PT[e, q, F_LOC] = GONE
            S[e, C_LWBS] += 1
            ev[E_LWBS] += 1
        else:
            WL[e, w] = q
            w += 1
            crit += acu <= 2
    S[e, S_NWAIT] = w
    ev[E_WCRIT] += crit
    ev[E_WOTHER] += w - crit
    S[e, S_TICK] = t + 1
    admit_arrivals(e, S, PT, WL, PR, sched, pi, ev)


@jit(cache=True, _nrt=False)
def admit_arrivals(e, S, PT, WL, PR, sched, pi, ev):
    """Move this tick's scheduled arrivals and due returns into the waiting room."""
    t = S[e, S_TICK]
    n = S[e, S_NWAIT]
    arrived = t - pi[PI_TRIAGE]
    if 0 <= arrived < pi[PI_T]:
        for q in range(sched[e, arrived], sched[e, arrived + 1]):
            S[e, C_PATIENTS] += 1
            S[e, C_CRITICAL] += PT[e, q, F_CRITA]
            WL[e, n] = q
            n += 1
    S[e, S_NWAIT] = n
    npend = S[e, S_NPEND]
    if npend:
        # due returns in (return tick, pid) order; the rest stay pending in their order
        keep = 0
        first_due = npend
        for i in range(npend):
            q = PR[e, i]
            if PT[e, q, F_RTICK] <= t:
                first_due = min(first_due, i)
        if first_due < npend:
            due = ev[SCRATCH:SCRATCH + npend]
            n_due = 0
            for i in range(npend):
                q = PR[e, i]
                if PT[e, q, F_RTICK] <= t:
                    # insertion by (return tick, pid)
                    j = n_due
                    while j > 0 and (PT[e, due[j - 1], F_RTICK] > PT[e, q, F_RTICK]
                                     or (PT[e, due[j - 1], F_RTICK] == PT[e, q, F_RTICK]
                                         and due[j - 1] > q)):
                        due[j] = due[j - 1]
                        j -= 1
                    due[j] = q
                    n_due += 1
                else:
                    PR[e, keep] = q
                    keep += 1
            S[e, S_NPEND] = keep
            for j in range(n_due):
                q = due[j]
                row = PT[e, q]
                if row[F_ACU] > 1:
                    _worsen(e, q, PT, pi)
                row[F_LOC] = WAITING
                row[F_BED] = -1
                row[F_ADMT] = -1
                row[F_ARR] = t
                row[F_PROG] = 0
                row[F_TIB] = 0
                row[F_RETD] = 1
                row[F_RCOUNT] += 1
                row[F_RTICK] = -1
                S[e, C_RETURNS] += 1
                WL[e, S[e, S_NWAIT]] = q
                S[e, S_NWAIT] += 1
    _sort_waiting(e, S, PT, WL, ev)


# ================================ rules.py =======================================================
@jit(cache=True, _nrt=False, inline="always")
def _free(ward, e, size):
    for b in range(size):  # noqa: SIM110 - a plain loop compiles to the tightest code
        if ward[e, b] < 0:
            return True
    return False


@jit(cache=True, _nrt=False)
def is_valid(e, a, S, PT, GB, IB, pi, offs):
    """``rules.validate(...) is None`` for the encoded action ``a`` (any integer)."""
    if a < 0 or a >= pi[PI_A]:
        return False
    if a == 0:
        return True
    if a < offs[OFF_VENT]:
        to_icu = a >= offs[OFF_ADMIT_I]
        slot = a - (offs[OFF_ADMIT_I] if to_icu else offs[OFF_ADMIT_G])
        if slot >= S[e, S_NWAIT]:
            return False
        return _free(IB, e, pi[PI_I]) if to_icu else _free(GB, e, pi[PI_G])
    if a < offs[OFF_TRANSFER]:
        q = IB[e, a - offs[OFF_VENT]]
        return q >= 0 and not PT[e, q, F_VENTD] and S[e, S_VENT] < pi[PI_V]
    if a < offs[OFF_STEPDOWN]:
        return GB[e, a - offs[OFF_TRANSFER]] >= 0 and _free(IB, e, pi[PI_I])
    if a < offs[OFF_DIS_G]:
        return IB[e, a - offs[OFF_STEPDOWN]] >= 0 and _free(GB, e, pi[PI_G])
    if a < offs[OFF_DIS_I]:
        return GB[e, a - offs[OFF_DIS_G]] >= 0
    return IB[e, a - offs[OFF_DIS_I]] >= 0


@jit(cache=True, _nrt=False)
def action_mask(e, S, PT, GB, IB, pi, offs, mask):
    """``rules.action_mask`` into ``mask[e]``."""
    m = mask[e]
    m[:] = False
    m[0] = True
    G, NI, Q = pi[PI_G], pi[PI_I], pi[PI_Q]
    free_g = _free(GB, e, G)
    free_i = _free(IB, e, NI)
    visible = min(S[e, S_NWAIT], Q)
    if free_g:
        m[offs[OFF_ADMIT_G]:offs[OFF_ADMIT_G] + visible] = True
    if free_i:
        m[offs[OFF_ADMIT_I]:offs[OFF_ADMIT_I] + visible] = True
    vent_free = S[e, S_VENT] < pi[PI_V]
    for b in range(NI):
        q = IB[e, b]
        if q >= 0:
            m[offs[OFF_DIS_I] + b] = True
            m[offs[OFF_STEPDOWN] + b] = free_g
            m[offs[OFF_VENT] + b] = vent_free and not PT[e, q, F_VENTD]
    for b in range(G):
        if GB[e, b] >= 0:
            m[offs[OFF_DIS_G] + b] = True
            m[offs[OFF_TRANSFER] + b] = free_i


# ================================ observation.py =================================================
@jit(cache=True, _nrt=False)
def _bed_rows(e, ward, size, PT, hpt, out):
    for b in range(size):
        q = ward[e, b]
        o = out[e, b]
        if q < 0:
            o[:] = 0.0
        else:
            row = PT[e, q]
            o[0] = observed_acuity(row)
            o[1] = row[F_COND] + 1
            o[2] = min(row[F_TIB] * hpt, MAX_HOURS)
            o[3] = ready(row)
            o[4] = row[F_VENTD]
            o[5] = treatment_done(row) and not ready(row)


@jit(cache=True, _nrt=False)
def observe(e, S, PT, GB, IB, WL, pi, pf, o_gen, o_icu, o_vent, o_queue, o_time, o_totals):
    """``observation.observe`` into row ``e`` of the batch arrays."""
    hpt = pf[PF_HPT]
    _bed_rows(e, GB, pi[PI_G], PT, hpt, o_gen)
    _bed_rows(e, IB, pi[PI_I], PT, hpt, o_icu)
    t = S[e, S_TICK]
    visible = min(S[e, S_NWAIT], pi[PI_Q])
    for s in range(pi[PI_Q]):
        o = o_queue[e, s]
        if s < visible:
            row = PT[e, WL[e, s]]
            o[0] = observed_acuity(row)
            o[1] = row[F_COND] + 1
            o[2] = min((t - row[F_ARR]) * hpt, MAX_HOURS)
        else:
            o[:] = 0.0
    o_vent[e, 0] = pi[PI_V] - S[e, S_VENT]
    o_vent[e, 1] = S[e, S_VENT]
    o_time[e, 0] = (t * hpt) % 24.0
    o_time[e, 1] = t / pi[PI_T]
    o_totals[e, 0] = S[e, S_NWAIT]
    o_totals[e, 1] = S[e, C_TREATED]
    o_totals[e, 2] = S[e, C_DEATHS]
    o_totals[e, 3] = S[e, C_LWBS]


# ================================ prefetching =====================================================
PREFETCH_AHEAD = 4
"""``step_all`` prefetches the state of env ``e + PREFETCH_AHEAD`` while it steps env ``e``."""
PREFETCH_MIN_ENVS = 256
"""... only for batches at least this large (smaller ones stay in cache, where the prefetch
instructions are pure overhead: -13 % at N = 64; +14 % at N = 1,024 and 4,096)."""


def _prefetch_intrinsic(typingctx, arr, offset):
    """``llvm.prefetch`` of the byte ``offset`` of ``arr``'s data (a hint: never faults)."""
    sig = types.void(arr, offset)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        ptr = builder.gep(builder.bitcast(ary.data, i8p), [args[1]])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


_prefetch: Any = intrinsic(_prefetch_intrinsic)
"""``_prefetch(array, byte_offset)`` inside jitted code (untyped here, like ``jit``)."""


@jit(cache=True, _nrt=False, inline="always")
def _prefetch_rows(f, ward, size, PT, HZ, hz_t):
    row_end = PT.strides[1] - 1
    for b in range(size):
        q = ward[f, b]
        if q >= 0:
            at = f * PT.strides[0] + q * PT.strides[1]
            _prefetch(PT, at)
            _prefetch(PT, at + row_end)
            _prefetch(HZ, hz_t + q)


@jit(cache=True, _nrt=False)
def prefetch_env(f, S, PT, GB, IB, WL, HZ, pi):
    """Ask the CPU to fetch the patient rows (and this tick's hazard ranks) that env ``f``'s
    next step will read, a few envs ahead of the step loop: at large N every env's state has
    left the cache since its last step, and these gathers are independent, so fetching them
    together overlaps their memory latency (no effect on any value)."""
    hz_t = f * HZ.strides[0] + S[f, S_TICK] * HZ.strides[1]
    _prefetch_rows(f, GB, pi[PI_G], PT, HZ, hz_t)
    _prefetch_rows(f, IB, pi[PI_I], PT, HZ, hz_t)
    n = S[f, S_NWAIT]  # all waiting patients when this step may end the tick (sort, hazards)
    _prefetch_rows(f, WL, n if S[f, S_ACT] + 1 >= pi[PI_K] else min(n, pi[PI_Q]), PT, HZ, hz_t)


# ================================ env.py / core step =============================================
@jit(cache=True, _nrt=False)
def survival(e, S, return_harm):
    n = S[e, C_PATIENTS]
    if n == 0:
        return 1.0
    harm = S[e, C_DEATHS] + return_harm * S[e, C_DHARMS]
    return 1.0 - min(harm / n, 1.0)


@jit(cache=True, _nrt=False)
def step_all(actions, skip, S, PT, GB, IB, WL, PR, HZ, RD, sched, ret, pi, pf, offs, th_death,
             th_worsen, out_j, rew, term, trunc, valid, info_ev, mask, o_gen, o_icu,
             o_vent, o_queue, o_time, o_totals, scr):
    """``Environment.step`` for every env not in ``skip``; then the mask and observation of all.

    Writes reward, terminated, truncated, validity, per-step events (ticks, deaths, treated,
    early stop) and the next observation/mask into the given arrays.
    """
    N = actions.shape[0]
    ev = scr
    T = pi[PI_T]
    for e in range(N):
        if N >= PREFETCH_MIN_ENVS and e + PREFETCH_AHEAD < N:
            prefetch_env(e + PREFETCH_AHEAD, S, PT, GB, IB, WL, HZ, pi)
        if not skip[e]:
            ev[:N_E] = 0
            a = actions[e]
            ok = is_valid(e, a, S, PT, GB, IB, pi, offs)
            S[e, S_STEPS] += 1
            if ok:
                apply_action(e, a, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death,
                             th_worsen, out_j, offs)
            else:
                S[e, S_INVALID] += 1
                use_slot(e, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death, th_worsen,
                         out_j)
            limit = pi[PI_EARLYSTOP]
            if limit and S[e, C_DEATHS] >= limit and not S[e, S_TICK] >= T:
                finish_shift(e, S, PT, GB, IB, WL, PR, HZ, RD, sched, ev, pi, th_death,
                             th_worsen, out_j)
            r = (5.0 * ev[E_TREATED] + 5.0 * ev[E_TCRIT] - 15.0 * ev[E_DEATHS]
                 - 0.5 * ev[E_WCRIT] - 0.1 * ev[E_WOTHER] - 3.0 * ev[E_SEVERITY]
                 - 15.0 * pf[PF_RETURN_HARM] * ev[E_DHARMS] - 2.0 * ev[E_LWBS])
            terminated = S[e, S_TICK] >= T
            if terminated:
                r += 20.0 * survival(e, S, pf[PF_RETURN_HARM])
            ret[e] += r
            if not ok:
                r += -1.0
            truncated = not terminated and S[e, S_STEPS] >= pi[PI_MAXSTEPS]
            S[e, S_DONE] = terminated or truncated
            rew[e] = r
            term[e] = terminated
            trunc[e] = truncated
            valid[e] = ok
            info_ev[e, 0] = ev[E_TICKS]
            info_ev[e, 1] = ev[E_DEATHS]
            info_ev[e, 2] = ev[E_TREATED]
            info_ev[e, 3] = S[e, C_ESTOP] >= 0
        action_mask(e, S, PT, GB, IB, pi, offs, mask)
        observe(e, S, PT, GB, IB, WL, pi, pf, o_gen, o_icu, o_vent, o_queue, o_time, o_totals)
