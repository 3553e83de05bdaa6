"""The episode grader and the dense reward (its increments). v3: harm is priced so it binds.

``score = clip(0.50 energy + 0.15 wait + 0.10 tail_wait + 0.10 cost + 0.10 renewable
+ 0.05 validity − harm, 0, 1)``

* ``energy`` — E = Σ wᵢ·min(chargedᵢ − drainᵢ, needᵢ) / Σ wᵢ·needᵢ over EVs that have arrived
  (w: emergency 3, taxi/delivery/depot 1.5, others 1; energy that only replaces what driving
  used is not delivered energy).
* ``wait`` — 1 − min(mean wait / 60 min, 1), ``tail_wait`` — 1 − min(p90 wait / 120 min, 1),
  over walk-ups: minutes from request to start of charging; a balked EV counts 120 min, one still
  waiting its wait so far.
* ``cost`` — E × (p_max − p̄) / (p_max − p_min): p̄ the average ₹/kWh paid, p_min/p_max the cheapest
  and dearest station price of the scenario's horizon.
* ``renewable`` — E × (r̄ − r_min) / (r_max − r_min): r̄ the renewable share of our energy; where
  the horizon's renewable share varies by less than ``MIN_RENEWABLE_SPREAD``, or solar supply
  covers less than ``MIN_SOLAR_SHARE`` of its ticks (``whitefield_night``), there is nothing to
  shift towards and the term is E.
* ``validity`` — 1 − invalid actions / steps.
* ``harm`` (v3) — ``HARM_WEIGHT × harm_kwh / Σ wᵢ·needᵢ``: harm in critical-kWh equivalents,
  ``harm_kwh = unmet critical kWh + UNSERVED_RATE × kWh of other loads cut by protection (trips,
  curtailed outside EVs) + AGEING_RATE × hours of insulation loss of life beyond normal
  ageing``, over the weighted energy requested so far (the energy term's denominator). One
  critical kWh costs 2/Σw·need of score on top of its share of the energy term (the exchange
  rates are in the README and ``tests/envs/evgrid/test_evgrid_harm.py``).

Balking is no longer a component (v2 weighted it 0.15; every sensible policy balked ≤ 0.23 % of
walk-ups, so it was free points): a balked walk-up's energy is unmet and its wait counts 120 min.
Overload minutes are no longer a linear term: an overload is priced by its consequences (ageing,
curtailed and tripped loads). The dense reward is the increase of the score at each tick (plus
the invalid-action penalty), so its sum over an episode is the final score minus the score at
reset: shaping can never beat the outcome.
"""

from __future__ import annotations

import math

import numpy as np

from lifeline.core.env import Grade
from lifeline.envs.evgrid.context import Context
from lifeline.envs.evgrid.types import BALKED, FUTURE, EVGridState

WEIGHTS = {"energy": 0.50, "wait": 0.15, "tail_wait": 0.10, "cost": 0.10, "renewable": 0.10,
           "validity": 0.05}
WAIT_NORM_MIN, TAIL_NORM_MIN, BALK_WAIT_MIN = 60.0, 120.0, 120.0
INVALID_PENALTY = -0.002
HARM_WEIGHT = 2.0
"""Score lost per unit of harm over the weighted energy requested (Σ wᵢ·needᵢ): the harm price.
A critical kWh left unmet costs 2/Σw·need of score in harm on top of its w·0.5/Σw·need in the
energy term (baseline: ~4e-4 per kWh, v2: ~7-10e-5)."""
UNSERVED_RATE = 1.0
"""Critical-kWh equivalents per kWh of another load cut by protection (a household's or an
outside EV's kWh counts as one of our critical fleet's: the value of lost load is not ours to
discount)."""
AGEING_RATE = 2.0
"""Critical-kWh equivalents per hour of transformer loss of life beyond normal ageing.

*What is sourced*: the hours. V = 2^((θ_h − 98)/6) and the loss of life ∫V dt are IEC
60076-7:2018 eq. 2 and 4 (non-thermally-upgraded paper, 98 °C reference); IEEE C57.91-2011
gives the same Arrhenius law (110 °C reference for thermally upgraded paper) and 180,000 h as a
benchmark normal insulation life. *What is set, not sourced* (no standard prices an hour of
life): the rate. Set as the replacement cost of an hour of life, in kWh at the tariff: a zone's
transformer group (~2 MVA, ~₹22 lakh, an assumed Indian distribution-transformer price, not a
quote) over 180,000 h is ≈ ₹12 per hour of life, ≈ 1.6 kWh at the ₹7.6/kWh base price,
rounded up to 2 because a failure also cuts the zone (a consequence this ignores). At 2, an
hour at 140 °C (128 h of life) costs ≈ 250 critical kWh, about a 30-min trip of a loaded zone.
Switched off (0), greedy gains +0.013 / +0.024 / +0.001 on ``whitefield_night`` /
``heatwave_peak`` / ``baseline`` (README ablation table)."""
MIN_RENEWABLE_SPREAD = 0.05
"""Below this spread of the renewable share over the horizon the renewable term is E."""
MIN_SOLAR_SHARE = 0.25
"""v3 (issue 25): the renewable term is also E where fewer than this share of the horizon's
ticks have solar supply (``Context.solar_share``). ``whitefield_night`` (20-08 h) sees solar
only after 06:20, when its overnight fleet has left: the term was ≈ 0.05 for every policy
(greedy 0.046, bound 0.049 on seeds 0-1), a dead 0.10 of the score. Every other scenario has
solar on ≥ 33 % of its ticks."""


def walkup_waits(s: EVGridState) -> np.ndarray:
    """Censored waits (minutes) of the walk-ups that have arrived."""
    arr = (s.ev_status != FUTURE) & ~s.ev_dwell
    start = s.ev_start[arr]
    wait = np.where(np.isfinite(start), start - s.ev_arrive[arr], s.t - s.ev_arrive[arr])
    return np.where(s.ev_status[arr] == BALKED, BALK_WAIT_MIN, wait)


def p90(a: np.ndarray) -> float:
    """``np.percentile(a, 90)`` ('linear' method), bit for bit, without its generic machinery
    (the grader runs every tick): the same virtual index, order statistics and lerp."""
    n = a.size
    virtual = (n - 1) * 0.9
    if virtual >= n - 1:
        return float(a.max())
    lo = math.floor(virtual)
    gamma = virtual - lo
    hi = lo + 1
    part = np.partition(a, (lo, hi)) if hi != lo else np.partition(a, lo)
    x, y = float(part[lo]), float(part[hi])
    diff = y - x
    return y - diff * (1.0 - gamma) if gamma >= 0.5 else x + diff * gamma


def _score(s: EVGridState, ctx: Context, full: bool) -> tuple[float, dict[str, float],
                                                              dict[str, float]]:
    """(score, components, metrics) — metrics only when ``full`` (the dense reward needs only
    the score, every tick)."""
    status = s.ev_status
    arr = status != FUTURE
    need, w = s.ev_need[arr], s.ev_weight[arr]
    credited = np.minimum(np.maximum(s.ev_delivered[arr] - s.ev_drain[arr], 0.0), need)
    total_w = float(np.dot(w, need))
    e = float(np.dot(w, credited)) / total_w if total_w > 0 else 0.0
    walk = (arr & ~s.ev_dwell).nonzero()[0]
    start = s.ev_start[walk]
    arrive = s.ev_arrive[walk]
    wait = np.where(start < np.inf, start - arrive, s.t - arrive)
    balked_mask = status[walk] == BALKED
    waits = np.where(balked_mask, BALK_WAIT_MIN, wait)
    n_walk = int(waits.size)
    balked = int(np.count_nonzero(balked_mask))
    if n_walk:
        mean_w, p90_w = float(np.add.reduce(waits)) / n_walk, p90(waits)
        wait_c = 1.0 - min(mean_w / WAIT_NORM_MIN, 1.0)
        tail_c = 1.0 - min(p90_w / TAIL_NORM_MIN, 1.0)
    else:
        mean_w = p90_w = 0.0
        wait_c = tail_c = e
    charged = float(s.ev_delivered.sum())
    cost = float(s.ev_cost.sum())
    green = float(s.ev_green.sum())
    p_lo, p_hi = ctx.p_range
    r_lo, r_hi = ctx.r_range
    avg_price = cost / charged if charged > 0 else p_hi
    share = green / charged if charged > 0 else r_lo
    cheap = (p_hi - avg_price) / (p_hi - p_lo) if p_hi > p_lo else 1.0
    active = r_hi - r_lo >= MIN_RENEWABLE_SPREAD and ctx.solar_share >= MIN_SOLAR_SHARE
    ren = (share - r_lo) / (r_hi - r_lo) if active else 1.0
    invalid_rate = s.invalid_actions / s.steps if s.steps else 0.0
    parts = {
        "energy": e, "wait": wait_c, "tail_wait": tail_c,
        "cost": e * min(max(cheap, 0.0), 1.0),
        "renewable": e * min(max(ren, 0.0), 1.0),
        "validity": 1.0 - invalid_rate,
    }
    unmet = need - credited
    critical = w > 1.0
    crit_need = float(need[critical].sum())
    unmet_crit = float(unmet[critical].sum())
    harm_kwh = (unmet_crit + UNSERVED_RATE * s.unserved_kwh
                + AGEING_RATE * s.excess_ageing_min / 60.0)
    harm = HARM_WEIGHT * harm_kwh / total_w if total_w > 0 else 0.0
    score = sum(WEIGHTS[k] * v for k, v in parts.items()) - harm
    score = min(max(score, 0.0), 1.0)
    parts["harm"] = harm
    grid_kwh = UNSERVED_RATE * s.unserved_kwh + AGEING_RATE * s.excess_ageing_min / 60.0
    parts["harm_grid"] = HARM_WEIGHT * grid_kwh / total_w if total_w > 0 else 0.0
    if not full:
        return score, parts, {}
    fe = s.forecast_err
    metrics = {
        "evs": float(np.count_nonzero(arr)), "walkups": float(n_walk),
        "dwell_evs": float(np.count_nonzero(arr & s.ev_dwell)),
        "energy_requested_kwh": float(need.sum()), "energy_delivered_kwh": float(credited.sum()),
        "energy_charged_kwh": charged, "unmet_kwh": float(unmet.sum()),
        "unmet_critical_kwh": unmet_crit, "critical_requested_kwh": crit_need,
        "harm_kwh": harm_kwh, "unserved_kwh": float(s.unserved_kwh),
        "fault_unserved_kwh": float(s.fault_unserved_kwh),
        "excess_ageing_h": float(s.excess_ageing_min / 60.0),
        "ageing_h": float(s.ageing_min / 60.0), "peak_hotspot_c": float(s.peak_hotspot),
        "fault_trips": float(s.fault_trips),
        "mean_wait_min": mean_w, "p90_wait_min": p90_w, "balked": float(balked),
        "balk_rate": balked / n_walk if n_walk else 0.0,
        "overload_zone_min": float(s.overload_min), "trips": float(s.trips),
        "peak_load_ratio": float(s.peak_ratio), "cost_inr": cost,
        "avg_price_inr_per_kwh": avg_price if charged > 0 else 0.0,
        "renewable_share": share if charged > 0 else 0.0, "invalid_rate": invalid_rate,
        "forecast_mae_load_kw": fe[0] / fe[1] if fe[1] else float("nan"),
        "forecast_mae_queue": fe[2] / fe[3] if fe[3] else float("nan"),
        "forecasts_scored": fe[1] + fe[3],
    }
    return score, parts, metrics


def score(s: EVGridState, ctx: Context) -> float:
    """The grade's score alone (what the dense reward differences every tick)."""
    return _score(s, ctx, full=False)[0]


def grade(s: EVGridState, ctx: Context) -> Grade:
    """Episode grade (meaningful at any time; final at the end of the horizon)."""
    value, parts, metrics = _score(s, ctx, full=True)
    return Grade(score=value, components=parts, metrics=metrics)
