"""Dense reward (for RL) and the episode grader (the score that matters).

Dense reward per step (computed by ``kernel_v3.step_reward``, the one implementation; the
constants it uses are here): treated discharge +5 (+10 if the patient was ever ESI 1-2); death
-15; per tick per waiting patient -0.5 (true ESI 1-2) / -0.1 (others); invalid action -1; early
discharge -3 x severity (severity = 6 - true ESI) and a further -1.5 (``15 x RETURN_HARM``) when
the patient will come back worse or worsens in the ED; LWBS -2; at the end +20 x
:func:`survival`. There is no utilisation bonus (it paid for hoarding beds).

Grader (survival first; ``wait`` is door-to-provider: the wait for a physician, in the waiting
room or in a bed). With ``N`` distinct patients,
``harm = deaths + RETURN_HARM x (discharge_harms + deteriorations)`` and ``flow`` in [0, 1]::

    survival = 1 - min(harm / N, 1)
    flow     = 0.4 wait + 0.3 completion + 0.2 (1 - lwbs_rate) + 0.1 (1 - invalid_rate)
    score    = (N x survival + flow) / (N + 1)  =  1 - (harm + 1 - flow) / (N + 1)

so one death costs ``1 / (N + 1)`` of the score and the *whole* flow range (every hour of wait,
every patient who left unseen, every untreated patient, every invalid action together) is worth
at most as much: the exchange rate is lexicographic — no gain in flow can pay for a death, and
among policies with the same harm, flow decides.
"""

from __future__ import annotations

from lifeline.core.env import Grade
from lifeline.envs.ed.params import EDParams
from lifeline.envs.ed.types import EDState

INVALID_PENALTY = -1.0
WAIT_NORMALISER_HOURS = 5.0
"""An average wait per patient of this many hours (or more) scores 0 on the wait component."""
RETURN_HARM = 0.1
"""Harm of one early discharge after which the patient comes back one ESI level worse, in deaths
(ten such returns weigh as much as one death, and each outweighs a tenth of the flow range)."""
FLOW_WEIGHTS = {"wait": 0.4, "completion": 0.3, "lwbs": 0.2, "validity": 0.1}
"""Weights of the flow components (sum 1): the flow term is worth at most one death."""


def harm(state: EDState) -> float:
    """Deaths plus ``RETURN_HARM`` per early discharge that sends the patient back worse and
    per deterioration in the ED: a patient who worsens one ESI level while left waiting has
    come to the same harm as one who comes back one level worse."""
    c = state.counters
    return c.deaths + RETURN_HARM * (c.discharge_harms + c.deteriorations)


def survival(state: EDState) -> float:
    """1 - harm / patients, clipped to [0, 1] (1 when nobody has arrived)."""
    c = state.counters
    return 1.0 - min(harm(state) / c.patients, 1.0) if c.patients else 1.0


def average_wait_hours(state: EDState, params: EDParams) -> float:
    """Hours waited per distinct patient: all visits' waits (a return's wait adds to the same
    patient's), still-waiting patients counted up to now, divided by the patients who arrived."""
    c = state.counters
    total = c.wait_ticks_closed + sum(state.tick - p.arrival_tick for p in state.waiting)
    return total * params.tick_minutes / 60.0 / c.patients if c.patients else 0.0


def door_to_provider_hours(state: EDState, params: EDParams) -> float:
    """Hours from arrival to the start of the provider assessment per distinct patient, all
    visits; visits not seen yet count up to now (waiting or in a bed), those who died, left or
    were discharged unseen until then."""
    c = state.counters
    if not c.patients:
        return 0.0
    open_ticks = sum(state.tick - p.arrival_tick for p in state.waiting)
    for ward in (state.general, state.icu):
        open_ticks += sum(state.tick - p.arrival_tick for p in ward
                          if p is not None and p.seen_tick < 0)
    total = c.provider_wait_ticks_closed + open_ticks
    return total * params.tick_minutes / 60.0 / c.patients


def utilisation(state: EDState, params: EDParams) -> dict[str, float]:
    """Mean share of general beds, ICU beds and ventilators in use over the ticks simulated."""
    c = state.counters
    ticks = max(c.ticks, 1)
    return {"general_utilisation": c.general_bed_ticks / (ticks * max(params.general_beds, 1)),
            "icu_utilisation": c.icu_bed_ticks / (ticks * max(params.icu_beds, 1)),
            "ventilator_utilisation": c.ventilator_ticks / (ticks * max(params.ventilators, 1))}


def grade(state: EDState, params: EDParams) -> Grade:
    """The episode grader (meaningful mid-episode too; final at the end of the shift)."""
    c = state.counters
    n = c.patients
    wait_h = average_wait_hours(state, params)
    provider_h = door_to_provider_hours(state, params)
    invalid_rate = state.invalid_actions / state.steps if state.steps else 0.0
    parts = {
        "survival": survival(state),
        "wait": 1.0 - min(provider_h / WAIT_NORMALISER_HOURS, 1.0),
        "completion": c.treated / n if n else 1.0,
        "lwbs": 1.0 - c.lwbs / n if n else 1.0,
        "validity": 1.0 - invalid_rate,
    }
    flow = sum(w * parts[k] for k, w in FLOW_WEIGHTS.items())
    score = (n * parts["survival"] + flow) / (n + 1)
    metrics = {
        "points": 100.0 * score, "patients": float(n), "harm": harm(state),
        "deaths": float(c.deaths), "discharge_deaths": float(c.discharge_deaths),
        "discharge_harms": float(c.discharge_harms), "treated": float(c.treated),
        "critical_patients": float(c.critical), "critical_deaths": float(c.critical_deaths),
        "critical_survival": 1.0 - c.critical_deaths / c.critical if c.critical else 1.0,
        "lwbs": float(c.lwbs), "avg_wait_h": wait_h, "flow": flow,
        "early_discharges": float(c.early_discharges), "returns": float(c.returns),
        "still_waiting": float(len(state.waiting)), "invalid_rate": invalid_rate,
        "early_stopped": float(c.early_stop_tick >= 0), **utilisation(state, params),
    }
    log = state.log
    metrics["door_to_provider_h"] = provider_h
    metrics["deteriorations"] = float(c.deteriorations)
    metrics["physician_utilisation"] = (log.busy_physician_ticks / log.physician_ticks
                                        if log.physician_ticks else 0.0)
    metrics["boarders_at_end"] = float(sum(
        1 for ward in (state.general, state.icu) for p in ward
        if p is not None and p.boarding))
    return Grade(score=score, components=parts, metrics=metrics)
