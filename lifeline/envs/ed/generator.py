# mypy: disable-error-code="no-untyped-def"
"""Seeded generation of one day's patient stream (identical for every policy on the same seed).

Arrivals follow a non-homogeneous Poisson process with a diurnal profile (about a 3x swing,
peaks near 11:00 and 18:30). Each patient's hidden attributes are drawn at generation time from
the ``patients`` stream, so the realised stream never depends on what the agent does.

Written once, over arrays (issue 27 item 3): :func:`draw_episode` (numba-compiled when numba is
installed, plain Python otherwise; the same draws either way) writes every patient of an
episode as one row of ``kernel_v3``'s patient columns (``F_*``, plus :data:`G_OTHER`). The batch
env copies the rows straight into its kernel arrays (``kernel_v3.load_episode``); the scalar env
turns them into :class:`Patient` objects (:func:`patient_from_row`). numba's
``np.random.Generator`` methods (``random``, ``poisson``, ``lognormal``, ``integers``) consume
the same bit-generator stream and return the same values as numpy's, draw for draw, so a seed
gives one episode whichever way it is run (the ED digests in ``tests/envs/ed`` pin it).
Parameters arrive precomputed (:func:`gparams`: lognormal locations, choice CDFs, the arrival
rate of every tick) with the same float operations as the plain formulas beside them.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from lifeline.envs.ed.kernel_v3 import (
    F_ACU,
    F_ADMA,
    F_ADMT,
    F_ARR,
    F_AWAIT,
    F_BED,
    F_BOARD,
    F_COND,
    F_CRITA,
    F_DECISION,
    F_ESI0,
    F_EVERC,
    F_IMG,
    F_LABS,
    F_LABT,
    F_LOC,
    F_NICU,
    F_NVENT,
    F_NWARD,
    F_PATI,
    F_PROG,
    F_READT,
    F_SEEN,
    F_TERR,
    F_TIB,
    F_TREAT,
    F_WORKUP,
    HAVE_NUMBA,
    N_F,
)
from lifeline.envs.ed.kernel_v3 import _row as kernel_row
from lifeline.envs.ed.params import CONDITIONS, MINOR, RESPIRATORY, TRAUMA, EDParams
from lifeline.envs.ed.scalar_kernel import BOOLS, FIELDS
from lifeline.envs.ed.types import ICU, Patient

if HAVE_NUMBA:  # with reference counting (numba's Poisson sampler allocates)
    import numba

    def jit(fn: Any) -> Any:
        njit: Any = numba.njit
        return njit(cache=True)(fn)

    def jit_inline(fn: Any) -> Any:
        """Compiled into its caller: no call passing (and reference counting) the parameters."""
        njit: Any = numba.njit
        return njit(cache=True, inline="always")(fn)
else:  # pragma: no cover - depends on the installation
    def jit(fn: Any) -> Any:
        return fn

    jit_inline = jit

_OTHER_CONDITIONS = tuple(i for i in range(len(CONDITIONS)) if i not in (RESPIRATORY, MINOR))
G_OTHER = N_F
"""Column of a generated row after the kernel's: ``Patient.other_resources`` (the scalar env
keeps it; the kernel never reads it)."""
ROW = N_F + 1
"""Columns of a generated row."""
_CONVERT = tuple(bool if name in BOOLS else int for name in FIELDS)


def diurnal_profile(hour: float) -> float:
    """Relative arrival intensity at ``hour`` of day, normalised to mean 1 over 24 h."""
    raw = (0.45 + 1.0 * math.exp(-(((hour - 11.0) / 3.0) ** 2))
           + 0.85 * math.exp(-(((hour - 18.5) / 2.5) ** 2)))
    return raw / 0.8283  # mean of ``raw`` over the day (on the 15-min grid)


def discharge_profile(hour: float) -> float:
    """Relative rate of inpatient discharges by hour: few at night, most 10:00-18:00 (peak
    ~14:00; the familiar afternoon discharge peak that makes morning boarding worst)."""
    return 0.05 + math.exp(-(((hour - 14.0) / 2.5) ** 2))


def elective_profile(hour: float) -> float:
    """Relative rate of elective/direct inpatient admissions by hour (daytime, peak ~11:00)."""
    return 0.05 + math.exp(-(((hour - 11.0) / 3.0) ** 2))


def _mu(mean_hours: float, sigma: float) -> float:
    """Location of the lognormal with mean ``mean_hours`` and shape ``sigma``."""
    return math.log(mean_hours) - sigma * sigma / 2.0


class GParams(NamedTuple):
    """What :func:`draw_episode` reads of an ``EDParams`` (:func:`gparams`), numba-typable."""

    horizon: int
    tick_minutes: float
    tick_hours: float
    arrivals_mean: np.ndarray
    """Poisson mean of the arrivals of each tick."""
    mix_cdf: np.ndarray
    """``Generator.choice``'s CDF of the ESI mix (``p.cumsum() / p.cumsum()[-1]``)."""
    mci_cdf: np.ndarray
    mci_lo: int
    mci_hi: int
    mci_w0: float
    mci_w1: float
    respiratory_share: float
    esi1_icu_prob: float
    condition_icu_prob: np.ndarray
    condition_vent_prob: np.ndarray
    other_conditions: np.ndarray
    mistriage: float
    mistriage_critical: float
    treat_mu: np.ndarray
    """``[needs ICU, ESI - 1, condition]``: lognormal location of the treatment time."""
    treatment_sigma: float
    patience_mu: np.ndarray
    """By ESI - 1 (a mean of 0 hours draws with mean 1 h: a fixed number of draws)."""
    never_leaves: np.ndarray
    """By ESI - 1: v3 patience 0 (the patient never leaves unseen)."""
    patience_sigma: float
    board_mu: np.ndarray
    boarding_sigma: float
    ward_admit_prob: np.ndarray
    resources_base: np.ndarray
    resources_extra: np.ndarray
    lab_prob: np.ndarray
    imaging_share: float
    max_imaging: int
    lab_mu: float
    read_mu: float
    diag_sigma: float
    other_resource_minutes: float
    boarders: int
    template: np.ndarray
    """A generated row before the draws: the ``Patient`` defaults (``kernel_v3._row``)."""


@lru_cache(maxsize=64)
def gparams(params: EDParams) -> GParams:
    """``params`` as :func:`draw_episode` reads them (computed once per params)."""
    p = params
    tick_hours = p.tick_minutes / 60.0
    arrivals_mean = np.array([p.arrivals_per_hour * tick_hours
                              * diurnal_profile((t * tick_hours) % 24.0)
                              for t in range(p.horizon_ticks)], dtype=np.float64)

    def cdf(weights: Any) -> np.ndarray:  # as Generator.choice(n, p=weights) computes it
        c = np.asarray(weights, dtype=np.float64).cumsum()
        c /= c[-1]
        return c

    ncond = len(CONDITIONS)
    treat_mu = np.zeros((2, 5, ncond))
    for esi in range(5):
        for c in range(ncond):
            treat_mu[0, esi, c] = _mu(p.general_treatment_hours[esi] * p.condition_los[c],
                                      p.treatment_sigma)
            treat_mu[1, esi, c] = _mu(p.icu_stabilise_hours * p.condition_los[c], p.treatment_sigma)
    patience = list(p.lwbs_patience_by_esi)
    fresh = Patient(pid=0, arrival_tick=0, true_acuity=1, triage_error=0, condition=0,
                    needs_icu=False, needs_vent=False, treatment_ticks=0, patience_ticks=0)
    template = np.array([*kernel_row(fresh), fresh.other_resources], dtype=np.int64)
    f8 = np.float64
    return GParams(
        horizon=p.horizon_ticks, tick_minutes=float(p.tick_minutes),
        tick_hours=tick_hours, arrivals_mean=arrivals_mean,
        mix_cdf=cdf(np.asarray(p.esi_mix) / sum(p.esi_mix)), mci_cdf=cdf((0.2, 0.4, 0.4)),
        mci_lo=p.mci_patients[0], mci_hi=p.mci_patients[1],
        mci_w0=float(p.mci_window_hours[0]), mci_w1=float(p.mci_window_hours[1]),
        respiratory_share=float(p.respiratory_share), esi1_icu_prob=float(p.esi1_icu_prob),
        condition_icu_prob=np.asarray(p.condition_icu_prob, dtype=f8),
        condition_vent_prob=np.asarray(p.condition_vent_prob, dtype=f8),
        other_conditions=np.asarray(_OTHER_CONDITIONS, dtype=np.int64),
        mistriage=float(p.mistriage_prob), mistriage_critical=min(1.0, 2.0 * p.mistriage_prob),
        treat_mu=treat_mu, treatment_sigma=float(p.treatment_sigma),
        patience_mu=np.array([_mu(h or 1.0, p.lwbs_patience_sigma) for h in patience]),
        never_leaves=np.array([not h for h in patience], dtype=np.bool_),
        patience_sigma=float(p.lwbs_patience_sigma),
        board_mu=np.array([_mu(h, p.boarding_sigma) for h in p.boarding_hours]),
        boarding_sigma=float(p.boarding_sigma),
        ward_admit_prob=np.asarray(p.ward_admit_prob, dtype=f8),
        resources_base=np.asarray(p.resources_base, dtype=np.int64),
        resources_extra=np.asarray(p.resources_extra, dtype=f8),
        lab_prob=np.asarray(p.lab_prob, dtype=f8), imaging_share=float(p.imaging_share),
        max_imaging=int(p.max_imaging), lab_mu=_mu(p.lab_minutes / 60.0, p.diag_sigma),
        read_mu=_mu(p.read_minutes / 60.0, p.diag_sigma), diag_sigma=float(p.diag_sigma),
        other_resource_minutes=float(p.other_resource_minutes),
        boarders=min(p.icu_boarders, p.icu_beds), template=template)


@jit_inline
def _hours_to_ticks(hours, gp):
    return max(1, round(hours * 60.0 / gp.tick_minutes))


@jit_inline
def _triage_error(acuity, rng, gp):
    """Observed minus true acuity: critical (ESI 1-2) patients are under-triaged by one level with
    probability ``2 x mistriage_prob``; others are off by one either way with ``mistriage_prob``."""
    if acuity <= 2:
        return 1 if rng.random() < gp.mistriage_critical else 0
    if rng.random() >= gp.mistriage:
        return 0
    error = -1 if rng.random() < 0.5 else 1
    return error if 1 <= acuity + error <= 5 else -error


@jit_inline
def draw_patient(row, tick, acuity, condition, rng, gp):
    """Draw a patient's hidden attributes into ``row`` (``condition < 0`` draws it from the
    scenario mix). A fixed number of draws per outcome path (common random numbers)."""
    row[:] = gp.template
    if condition < 0:
        if acuity >= 4 and rng.random() < 0.7:
            condition = MINOR
        elif rng.random() < gp.respiratory_share:
            condition = RESPIRATORY
        else:
            condition = gp.other_conditions[rng.integers(0, gp.other_conditions.shape[0])]
    if acuity == 1:
        needs_icu = rng.random() < gp.esi1_icu_prob
    else:
        needs_icu = acuity == 2 and rng.random() < gp.condition_icu_prob[condition]
    needs_vent = needs_icu and rng.random() < gp.condition_vent_prob[condition]
    error = _triage_error(acuity, rng, gp)
    esi = acuity - 1
    treatment = _hours_to_ticks(
        rng.lognormal(gp.treat_mu[1 if needs_icu else 0, esi, condition], gp.treatment_sigma),
        gp)
    patience = _hours_to_ticks(rng.lognormal(gp.patience_mu[esi], gp.patience_sigma), gp)
    # Ward admission and its boarding time, always drawn (two draws) so that every patient
    # consumes the same number of draws here whatever the outcome (the boarding time itself is
    # ED-v2's, unused by v3's inpatient units; kept so the draws and the digests stay).
    u_ward = rng.random()
    board = _hours_to_ticks(rng.lognormal(gp.board_mu[esi], gp.boarding_sigma), gp)
    needs_ward = not needs_icu and u_ward < gp.ward_admit_prob[esi]
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
    row[F_ESI0] = acuity
    _draw_workup(row, rng, gp)
    if gp.never_leaves[esi]:
        row[F_PATI] = 10 * gp.horizon  # never leaves unseen


@jit_inline
def _draw_workup(row, rng, gp):
    """v3: the patient's ESI resources (Tanabe 2004 means by ESI: a fixed part plus a Poisson
    part), split into a lab panel, imaging studies and other resources, and the lab turnaround
    and radiology reporting times. A fixed number of draws per patient (common random numbers).
    Admissions wait for an inpatient bed (``awaiting_bed``); boarding is no longer sampled."""
    esi = row[F_ACU] - 1
    total = gp.resources_base[esi] + rng.poisson(gp.resources_extra[esi])
    u_lab = rng.random()
    labs = 1 if total >= 1 and u_lab < gp.lab_prob[esi] else 0
    rest = total - labs
    imaging = 0
    for k in range(8):  # the draws of ``random(8)``; the first ``rest`` are resource kinds
        if rng.random() < gp.imaging_share and k < rest:
            imaging += 1
    imaging = min(gp.max_imaging, imaging)
    other = rest - imaging
    row[F_LABS] = labs
    row[F_IMG] = imaging
    row[G_OTHER] = other
    row[F_LABT] = _hours_to_ticks(rng.lognormal(gp.lab_mu, gp.diag_sigma), gp)
    row[F_READT] = _hours_to_ticks(rng.lognormal(gp.read_mu, gp.diag_sigma), gp)
    row[F_TREAT] += round(other * gp.other_resource_minutes / gp.tick_minutes)
    row[F_WORKUP] = 0
    row[F_BOARD] = 0
    row[F_AWAIT] = row[F_NWARD] or row[F_NICU]


@jit
def draw_episode(gp, arrivals, patients, rows, sched, scratch):
    """One episode's patients into ``rows`` (row = pid, in arrival order; the long-stay ICU
    boarders present at 00:00 last) and ``sched`` (``sched[t]``: first pid arriving at tick
    ``t``, ``sched[horizon]`` the first boarder); ``scratch``: (2, horizon) integers. Returns
    the number of pids, or minus that number when ``rows`` is too small (no row written: draw
    again from the streams' start states)."""
    T = gp.horizon
    counts, mci = scratch[0], scratch[1]
    for t in range(T):
        counts[t] = arrivals.poisson(gp.arrivals_mean[t])
        mci[t] = 0
    mci_count = arrivals.integers(gp.mci_lo, gp.mci_hi + 1) if gp.mci_hi > 0 else 0
    mci_start = gp.mci_w0 + arrivals.random() * (gp.mci_w1 - gp.mci_w0)
    for _ in range(mci_count):
        mci[min(T - 1, int((mci_start + arrivals.random()) / gp.tick_hours))] += 1
    total = gp.boarders
    for t in range(T):
        total += counts[t] + mci[t]
    if total > rows.shape[0]:
        return -total
    pid = 0
    for t in range(T):
        sched[t] = pid
        for _ in range(counts[t]):
            acuity = np.searchsorted(gp.mix_cdf, patients.random(), side="right") + 1
            draw_patient(rows[pid], t, acuity, -1, patients, gp)
            pid += 1
        for _ in range(mci[t]):
            acuity = np.searchsorted(gp.mci_cdf, patients.random(), side="right") + 1
            draw_patient(rows[pid], t, acuity, TRAUMA, patients, gp)
            pid += 1
    sched[T] = pid
    for i in range(gp.boarders):  # long-stay ICU boarders present at 00:00
        acuity = 1 if patients.random() < 0.4 else 2
        row = rows[pid + i]
        draw_patient(row, 0, acuity, -1, patients, gp)
        row[F_NICU] = 1
        row[F_NWARD] = 0
        row[F_BOARD] = 0
        row[F_TERR] = 0
        row[F_TREAT] = _hours_to_ticks(24.0 + 24.0 * patients.random(), gp)
        row[F_PROG] = _hours_to_ticks(4.0 + 8.0 * patients.random(), gp)
        row[F_LOC] = ICU
        row[F_BED] = i
        row[F_ADMT] = 0
        row[F_ADMA] = row[F_ACU]
        row[F_TIB] = row[F_PROG]
        # stabilised, assessed and worked up: boarding for the ICU
        row[F_WORKUP] = 1
        row[F_SEEN] = 0
        row[F_AWAIT] = 1
        row[F_IMG] = 0
        row[F_LABS] = 0
        row[F_TREAT] = row[F_PROG]
        row[F_DECISION] = 0
    return total


class Episode(NamedTuple):
    """:func:`generate`'s rows of one episode."""

    rows: np.ndarray
    """``(capacity, ROW)`` generated rows (row = pid; the first ``pids`` are the episode's)."""
    sched: np.ndarray
    """``(horizon + 1,)``: ``sched[t] .. sched[t + 1] - 1`` arrive at tick t; then boarders."""
    pids: int


def generate(params: EDParams, arrivals: np.random.Generator, patients: np.random.Generator,
             rows: np.ndarray | None = None, sched: np.ndarray | None = None) -> Episode:
    """:func:`draw_episode` into ``rows`` / ``sched`` (new ones when not given); when ``rows``
    is too small, the streams go back to their start states and it draws again into larger
    rows (the ``rows`` of the result)."""
    gp = gparams(params)
    rows = np.zeros((512, ROW), dtype=np.int64) if rows is None else rows
    sched = np.zeros(gp.horizon + 1, dtype=np.int64) if sched is None else sched
    states = (arrivals.bit_generator.state, patients.bit_generator.state)
    scratch = np.zeros((2, gp.horizon), dtype=np.int64)
    while True:
        n = draw_episode(gp, arrivals, patients, rows, sched, scratch)
        if n >= 0:
            return Episode(rows, sched, int(n))
        arrivals.bit_generator.state, patients.bit_generator.state = states
        rows = np.zeros((-n + 64, ROW), dtype=np.int64)


def patient_from_row(row: np.ndarray, pid: int) -> Patient:
    """The :class:`Patient` of a generated row."""
    values = row.tolist()
    kwargs: dict[str, Any] = {name: conv(v)
                              for name, conv, v in zip(FIELDS, _CONVERT, values, strict=False)}
    return Patient(pid=pid, other_resources=int(values[G_OTHER]), **kwargs)


def schedule_of(episode: Episode) -> tuple[list[list[Patient]], list[Patient]]:
    """The scalar env's patients of an episode: those arriving at each tick, and the boarders."""
    rows, sched, pids = episode
    patients = [patient_from_row(rows[q], q) for q in range(pids)]
    T = sched.shape[0] - 1
    starts = sched.tolist()
    return [patients[starts[t]:starts[t + 1]] for t in range(T)], patients[starts[T]:]


def make_patient(pid: int, tick: int, acuity: int, condition: int | None,
                 rng: np.random.Generator, params: EDParams) -> Patient:
    """One patient drawn by :func:`draw_patient` (``condition=None`` draws it from the mix)."""
    row = np.zeros(ROW, dtype=np.int64)
    draw_patient(row, tick, acuity, -1 if condition is None else condition, rng, gparams(params))
    return patient_from_row(row, pid)


@lru_cache(maxsize=64)
def _flow_means(params: EDParams) -> np.ndarray:
    ticks = params.horizon_ticks
    tick_hours = params.tick_minutes / 60.0
    hours = [(t * tick_hours) % 24.0 for t in range(ticks)]
    out_w = np.array([discharge_profile(h) for h in hours])
    in_w = np.array([elective_profile(h) for h in hours])
    out_w, in_w = out_w / out_w.sum() * ticks * tick_hours / 24.0, in_w / in_w.sum() * (
        ticks * tick_hours / 24.0)
    means = np.stack([params.ward_discharges_per_day * out_w,
                      params.ward_electives_per_day * in_w,
                      params.icu_discharges_per_day * out_w,
                      params.icu_other_admissions_per_day * in_w], axis=1)
    means.flags.writeable = False
    return means


def inpatient_flow(params: EDParams, rng: np.random.Generator) -> np.ndarray:
    """v3: per tick [ward discharges, ward electives, ICU discharges, other ICU admissions] of
    the hospital outside the ED, Poisson with the daily means of ``params`` spread over the day
    by :func:`discharge_profile` (discharges) and :func:`elective_profile` (admissions). Drawn
    up front, so inpatient census follows the same path for every policy except for the beds
    the ED's own admissions take."""
    return rng.poisson(_flow_means(params)).astype(np.int64)
