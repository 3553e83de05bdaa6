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

Grader (v4): ``score = 0.35·response + 0.25·survival + 0.15·coverage + 0.15·p1_on_target
+ 0.10·p1_p90 − aid_cost·aid_requests``, over real calls (the priority P1/P2/P3 is the call's
true class, ``params.priority_of``):

* ``response``: the priority-weighted mean (weights ``PRIORITY_WEIGHT`` 4 / 2 / 1) of
  ``min(1, (T + 2) / (a + 2))`` with ``a`` the minutes from the ring to the first unit and ``T``
  the priority's target (8:59 / 12 / 20 min; 0 if never reached), times the call's
  :func:`capability`. v0-v3 used the clairvoyant plan's minutes for ``T`` and weighed every call
  alike; v4's credit is absolute: 1 means every call was reached within its target.
* ``survival``: ``Σ min(benefit, benefit_ref) / Σ benefit_ref`` (expected lives saved against
  the clairvoyant plan's; the time-critical types follow sourced curves, see ``DECAY_MIN``).
* ``coverage``: readiness — the time-average of the mean over zones of the demand share within
  ``coverage_min`` of an idle unit of the city's own fleet — times the share of real calls its
  own units reached within their priority's target (readiness that answers nothing in time is
  worth nothing; mutual-aid answers are not the city's cover).
* ``p1_on_target``: the share of P1 calls reached within 8:59.
* ``p1_p90``: ``min(1, (8:59 + 2) / (p90 + 2))`` with p90 the 90th percentile of the P1 calls'
  minutes to the first unit (0 when it falls on a call never reached).
  With no P1 call in the shift both are the ``response`` component (no free points).

Each mutual-aid request costs ``mutual_aid_cost``. The dense reward pays the response, survival
and P1 on-target terms as they happen, readiness as time passes and the aid cost when aid is
requested; the last step pays ``p1_p90`` and subtracts the readiness paid for the share not
answered in time (:func:`terminal_correction`), so the episode's reward sum equals the score
(before clipping at 0), plus shaping capped at ``shaping_cap``.
"""

from __future__ import annotations

import math

import numpy as np

from lifeline.core.env import Grade
from lifeline.envs.dispatch.context import Context
from lifeline.envs.dispatch.params import CARDIAC, RESPIRATORY, STROKE
from lifeline.envs.dispatch.types import REAL, DispatchState

W_RESPONSE, W_SURVIVAL, W_COVERAGE = 0.35, 0.25, 0.15
W_P1_ON_TARGET, W_P1_P90 = 0.15, 0.10
"""v4 grader weights (v0-v3: response 0.5, survival 0.3, coverage 0.2); they sum to 1."""


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


def response_ratio(target_min: float, actual_min: float) -> float:
    """Per-call response credit ``min(1, (T + 2) / (a + 2))`` (0 if never reached)."""
    if not math.isfinite(actual_min):
        return 0.0
    return min(1.0, (target_min + PROCESSING_MIN) / (actual_min + PROCESSING_MIN))


def weight_total(state: DispatchState, ctx: Context) -> float:
    """Σ of the real calls' priority weights (the ``response`` component's denominator)."""
    real = state.c_kind == REAL
    return float(ctx.prio_weight[state.c_prio[real]].sum())


def response_credit(state: DispatchState, ctx: Context, c: int, actual_min: float) -> float:
    """Dense reward when the first unit reaches real call ``c``: its weighted response credit,
    plus the P1 on-target share when a P1 call is reached within 8:59.

    If no call of the episode is life-threatening (the reference saves nobody), survival is
    graded as response, so its weight is paid here too.
    """
    real = state.c_kind == REAL
    weight = W_RESPONSE if state.c_bound_saved[real].sum() > 0 else W_RESPONSE + W_SURVIVAL
    prio = int(state.c_prio[c])
    cap = capability(ctx, int(state.c_type[c]), int(state.c_sev[c]), bool(state.c_first_als[c]))
    out = weight * cap * float(ctx.prio_weight[prio]) * response_ratio(
        float(ctx.prio_target[prio]), actual_min) / max(weight_total(state, ctx), 1e-9)
    if prio == 0 and actual_min <= float(ctx.prio_target[0]):
        out += W_P1_ON_TARGET / int(np.count_nonzero(real & (state.c_prio == 0)))
    return out


def survival_credit(state: DispatchState, c: int, value: float) -> float:
    """Dense reward when real call ``c``'s outcome becomes final."""
    total = float(state.c_bound_saved[state.c_kind == REAL].sum())
    if total <= 0.0:
        return 0.0
    return W_SURVIVAL * min(value, float(state.c_bound_saved[c])) / total


def in_time(state: DispatchState, ctx: Context) -> np.ndarray:
    """Per call: reached by a first unit within its priority's response-time target (v4)."""
    return (state.c_first - state.c_time) <= ctx.prio_target[state.c_prio]


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


UNREACHED_MIN = 1e12
"""Minutes that stand for a P1 call never reached when its 90th percentile is taken."""


def p1_components(state: DispatchState, ctx: Context) -> tuple[float, float, float] | None:
    """``(p1_on_target, p1_p90 credit, p1 p90 minutes)`` over the P1 calls; ``None`` with no P1
    call in the shift (the grader then uses the response component for both, so a shift without
    P1 calls gives no free points).

    The 90th percentile is over the P1 calls rung so far; a call not reached counts as never
    reached for the credit (0 if it falls in the top decile) and as its waiting time so far for
    the reported minutes."""
    p1 = (state.c_kind == REAL) & (state.c_prio == 0)
    n_all = int(np.count_nonzero(p1))
    if n_all == 0:
        return None
    first = state.c_first[p1] - state.c_time[p1]
    on = float(np.count_nonzero(first <= float(ctx.prio_target[0]))) / n_all
    rung = state.c_time[p1] <= state.t
    if not rung.any():
        return on, 1.0, 0.0
    reached = np.isfinite(first)[rung]
    credit_min = float(np.percentile(np.where(reached, first[rung], UNREACHED_MIN), 90))
    credit = 0.0 if credit_min >= UNREACHED_MIN / 10 else response_ratio(
        float(ctx.prio_target[0]), credit_min)
    waited = np.where(reached, first[rung], state.t - state.c_time[p1][rung])
    return on, credit, float(np.percentile(waited, 90))


def terminal_correction(state: DispatchState, ctx: Context) -> float:
    """Reward on the final step that makes the dense sum equal the coverage component."""
    real = state.c_kind == REAL
    if not real.any():
        return W_P1_ON_TARGET + W_P1_P90  # the response component is 1 with no real call
    readiness = state.cov_integral / ctx.p.shift_min
    p1 = p1_components(state, ctx)
    # with no P1 call both P1 components are the response component (paid here at once)
    p1_pay = W_P1_P90 * p1[1] if p1 is not None else (
        (W_P1_ON_TARGET + W_P1_P90) * response_component(state, ctx))
    return W_COVERAGE * readiness * (in_time_fraction(state, ctx, own_fleet=True) - 1.0) + p1_pay


def response_component(state: DispatchState, ctx: Context) -> float:
    """The priority-weighted mean response credit over real calls (1 with none)."""
    real = state.c_kind == REAL
    if not real.any():
        return 1.0
    resp_min = state.c_first - state.c_time
    ratios = [response_ratio(float(ctx.prio_target[state.c_prio[c]]), float(resp_min[c]))
              * capability(ctx, int(state.c_type[c]), int(state.c_sev[c]),
                           bool(state.c_first_als[c]))
              for c in np.flatnonzero(real)]
    weights = ctx.prio_weight[state.c_prio[real]]
    return float(np.dot(ratios, weights) / weights.sum())


def grade(state: DispatchState, ctx: Context) -> Grade:
    """Episode grade (meaningful at any time; final once the shift is over)."""
    p = ctx.p
    real = state.c_kind == REAL
    arrived = state.c_time <= state.t
    n_real = int(np.count_nonzero(real))
    resp_min = state.c_first - state.c_time
    response = response_component(state, ctx)
    p1 = p1_components(state, ctx)
    p1_on, p1_p90, p1_p90_min = (response, response, 0.0) if p1 is None else p1
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
    # the MCI plan's own call-in is the plan's, not the dispatcher's request (not charged)
    aid_used = p.city.aid_slots - state.mutual_aid_left - state.mci_aid
    score = (W_RESPONSE * response + W_SURVIVAL * survival + W_COVERAGE * coverage
             + W_P1_ON_TARGET * p1_on + W_P1_P90 * p1_p90 - p.mutual_aid_cost * aid_used)

    seen = real & arrived
    censored = np.where(np.isfinite(resp_min), resp_min, state.t - state.c_time)[seen]
    targets = ctx.prio_target[state.c_prio[seen]]
    deaths = 0.0
    by_prio = np.zeros(3)
    for c in np.flatnonzero(seen):
        d = untreated_risk(ctx, int(state.c_type[c]), int(state.c_sev[c]))
        if np.isfinite(state.c_outcome[c]):
            d -= float(state.c_outcome[c])
        deaths += d
        by_prio[int(state.c_prio[c])] += d
    done = state.c_wait[real & np.isfinite(state.c_outcome) & state.c_transport]
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
        "expected_fatalities_p1": float(by_prio[0]),
        "expected_fatalities_p2": float(by_prio[1]),
        "expected_fatalities_p3": float(by_prio[2]),
        "p1_calls": float(np.count_nonzero(seen & (state.c_prio == 0))),
        "p1_p90_response_min": p1_p90_min,
        "offload_wait_mean_min": float(done.mean()) if done.size else 0.0,
    }
    return Grade(score=float(np.clip(score, 0.0, 1.0)),
                 components={"response": response, "survival": survival, "coverage": coverage,
                             "p1_on_target": p1_on, "p1_p90": p1_p90},
                 metrics=metrics)
