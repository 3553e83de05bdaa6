"""Patient outcomes, the dense reward terms and the episode grader.

Outcome model (expected values, so scores have low variance):

* A cardiac call of severity 3 is a cardiac arrest; survival against minutes to the first unit is
  the logistic curve of De Maio et al. (2003), ``1 / (1 + exp(0.679 + 0.262·t))``. An untreated
  arrest does not survive.
* Any other patient dies untreated with risk ``RISK[severity]·TYPE_RISK[type]``; a response after
  ``t`` minutes removes the fraction ``exp(−t / DECAY_MIN[type])`` of that risk.
* The *benefit* of a response is the expected lives saved compared with no response. It is scaled
  by ``bls_outcome`` when a basic unit arrives first at a severe cardiac/stroke/respiratory call,
  and by ``divert_outcome`` when the patient is taken to a hospital on divert.

Grader: ``score = 0.5·response + 0.3·survival + 0.2·coverage − aid_cost·aid_requests`` where,
over real calls,
response is the mean of ``min(1, (b + 2) / (a + 2))`` (``a`` the actual and ``b`` the reference
plan's minutes to first unit, 2 min of call processing added to both; 0 if never reached) times
the call's :func:`capability` (``bls_outcome`` for a basic unit first at a severe medical call),
survival is ``Σ min(benefit, benefit_ref) / Σ benefit_ref``, and coverage is *readiness* — the
time-average over the shift of the mean over zones of the demand share within ``coverage_min`` of
an idle unit of the city's own fleet — times the fraction of real calls its own units answered
*within their response-time target* (borrowed mutual-aid units serve patients, which response
and survival credit, but their answers are not the city's cover: otherwise requesting aid buys
coverage, which the exploit suite caught above the bound)
(readiness that does not answer calls in time is worth nothing: without the factor a do-nothing
policy earned 0.2 for parking the fleet, and in v0, which counted late answers, a fleet parked
all shift that answered every call in the last 30 min kept most of it). Each mutual-aid request
costs ``mutual_aid_cost`` (v0 made aid free). The dense reward pays response and survival terms
as they happen, readiness as time passes and the aid cost when aid is requested; the last step
subtracts the readiness paid for the share not answered in time (:func:`terminal_correction`), so
the episode's reward sum equals the score (before clipping at 0), plus shaping capped at
``shaping_cap``.
"""

from __future__ import annotations

import math

import numpy as np

from lifeline.core.env import Grade
from lifeline.envs.dispatch.context import Context
from lifeline.envs.dispatch.params import CARDIAC, RESPIRATORY, STROKE
from lifeline.envs.dispatch.types import REAL, DispatchState

W_RESPONSE, W_SURVIVAL, W_COVERAGE = 0.5, 0.3, 0.2


def is_arrest(ctype: int, sev: int) -> bool:
    """A cardiac call of the highest severity is a cardiac arrest."""
    return ctype == CARDIAC and sev == 3


def untreated_risk(ctx: Context, ctype: int, sev: int) -> float:
    """Probability of death with no response at all."""
    return 1.0 if is_arrest(ctype, sev) else float(ctx.risk[ctype, sev])


def capability(ctx: Context, ctype: int, sev: int, als: bool) -> float:
    """``bls_outcome`` if a basic unit reached a severe cardiac/stroke/respiratory patient first
    (it cannot give the advanced care the patient needs), else 1. Scales both the benefit and
    the response credit of the call (v1: a type-blind dispatcher used to earn full response
    credit for the faster but wrong unit and rank above closest-idle with more deaths)."""
    if not als and ctype in (CARDIAC, STROKE, RESPIRATORY) and sev >= 2:
        return ctx.p.bls_outcome
    return 1.0


def benefit(ctx: Context, ctype: int, sev: int, minutes: float, als: bool = True,
            divert: bool = False) -> float:
    """Expected lives saved by a response reaching the patient after ``minutes``."""
    if not math.isfinite(minutes):
        return 0.0
    if is_arrest(ctype, sev):
        value = 1.0 / (1.0 + math.exp(0.679 + 0.262 * minutes))
    else:
        value = float(ctx.risk[ctype, sev]) * math.exp(-minutes / ctx.decay[ctype])
    value *= capability(ctx, ctype, sev, als)
    if divert:
        value *= ctx.p.divert_outcome
    return value


PROCESSING_MIN = 2.0
"""Call processing and turn-out minutes added to both sides of the response ratio (NFPA 1221
allows 60–90 s to answer and process a call; crews need about a minute to turn out), so that a
reference response of 0 min (a unit already at the caller's node) does not make every other
response worthless."""


def response_ratio(bound_min: float, actual_min: float) -> float:
    """Per-call response credit ``min(1, (b + 2) / (a + 2))`` (0 if never reached)."""
    if not math.isfinite(actual_min):
        return 0.0
    return min(1.0, (bound_min + PROCESSING_MIN) / (actual_min + PROCESSING_MIN))


def response_credit(state: DispatchState, ctx: Context, c: int, actual_min: float) -> float:
    """Dense reward when the first unit reaches real call ``c``.

    If no call of the episode is life-threatening (the reference saves nobody), survival is
    graded as response, so its weight is paid here too.
    """
    real = state.c_kind == REAL
    n_real = int(np.count_nonzero(real))
    weight = W_RESPONSE if state.c_bound_saved[real].sum() > 0 else W_RESPONSE + W_SURVIVAL
    cap = capability(ctx, int(state.c_type[c]), int(state.c_sev[c]), bool(state.c_first_als[c]))
    return weight * cap * response_ratio(float(state.c_bound[c]), actual_min) / max(n_real, 1)


def survival_credit(state: DispatchState, c: int, value: float) -> float:
    """Dense reward when real call ``c``'s outcome becomes final."""
    total = float(state.c_bound_saved[state.c_kind == REAL].sum())
    if total <= 0.0:
        return 0.0
    return W_SURVIVAL * min(value, float(state.c_bound_saved[c])) / total


def in_time(state: DispatchState, ctx: Context) -> np.ndarray:
    """Per call: reached by a first unit within its type's response-time target."""
    return (state.c_first - state.c_time) <= ctx.target[state.c_type]


def in_time_fraction(state: DispatchState, ctx: Context, own_fleet: bool = False) -> float:
    """Share of real calls answered within their response-time target (1 if none); with
    ``own_fleet``, only answers by the city's own units count (the coverage factor)."""
    real = state.c_kind == REAL
    if not real.any():
        return 1.0
    ok = in_time(state, ctx)
    if own_fleet:
        ok &= ~state.c_first_aid
    return float(np.mean(ok[real]))


def terminal_correction(state: DispatchState, ctx: Context) -> float:
    """Reward on the final step that makes the dense sum equal the coverage component."""
    real = state.c_kind == REAL
    if not real.any():
        return 0.0
    readiness = state.cov_integral / ctx.p.shift_min
    return W_COVERAGE * readiness * (in_time_fraction(state, ctx, own_fleet=True) - 1.0)


def grade(state: DispatchState, ctx: Context) -> Grade:
    """Episode grade (meaningful at any time; final once the shift is over)."""
    p = ctx.p
    real = state.c_kind == REAL
    arrived = state.c_time <= state.t
    n_real = int(np.count_nonzero(real))
    resp_min = state.c_first - state.c_time
    ratios = [response_ratio(float(state.c_bound[c]), float(resp_min[c]))
              * capability(ctx, int(state.c_type[c]), int(state.c_sev[c]),
                           bool(state.c_first_als[c]))
              for c in np.flatnonzero(real)]
    response = float(np.mean(ratios)) if n_real else 1.0
    ref = float(state.c_bound_saved[real].sum())
    outcome = np.nan_to_num(state.c_outcome[real], nan=0.0)
    if ref > 0:
        survival = float(np.minimum(outcome, state.c_bound_saved[real]).sum() / ref)
    else:
        survival = response
    elapsed = min(state.t, p.shift_min)
    readiness = state.cov_integral / elapsed if elapsed > 0 else state.cov_now
    # Coverage is readiness *for answering calls in time*: it counts in proportion to the share
    # of real calls reached within their target, so a fleet parked at its stations that answers
    # nothing (or answers late) earns nothing for being parked.
    answered = float(np.mean(np.isfinite(state.c_first[real]))) if n_real else 1.0
    within = in_time_fraction(state, ctx)
    coverage = readiness * in_time_fraction(state, ctx, own_fleet=True)
    aid_used = p.city.aid_slots - state.mutual_aid_left
    score = (W_RESPONSE * response + W_SURVIVAL * survival + W_COVERAGE * coverage
             - p.mutual_aid_cost * aid_used)

    seen = real & arrived
    censored = np.where(np.isfinite(resp_min), resp_min, state.t - state.c_time)[seen]
    targets = ctx.target[state.c_type[seen]]
    deaths = 0.0
    for c in np.flatnonzero(seen):
        deaths += untreated_risk(ctx, int(state.c_type[c]), int(state.c_sev[c]))
        if np.isfinite(state.c_outcome[c]):
            deaths -= float(state.c_outcome[c])
    metrics = {
        "calls": float(np.count_nonzero(arrived)),
        "real_calls": float(np.count_nonzero(seen)),
        "mean_response_min": float(censored.mean()) if censored.size else 0.0,
        "p90_response_min": float(np.percentile(censored, 90)) if censored.size else 0.0,
        "late_fraction": float(np.mean(censored > targets)) if censored.size else 0.0,
        "within_8m59_fraction": float(np.mean(censored <= 8.0 + 59 / 60)) if censored.size
        else 1.0,
        "unreached_calls": float(np.count_nonzero(seen & ~np.isfinite(state.c_first))),
        "held_calls": float(np.count_nonzero(state.c_held & seen)),
        "expected_fatalities": deaths,
        "fake_calls_served": float(np.count_nonzero(~real & (state.c_arrived > 0))),
        "invalid_actions": float(state.invalid_actions),
        "readiness": readiness,
        "answered_fraction": answered,
        "in_time_fraction": within,
        "mutual_aid_requested": float(aid_used),
    }
    return Grade(score=float(np.clip(score, 0.0, 1.0)),
                 components={"response": response, "survival": survival, "coverage": coverage},
                 metrics=metrics)
