"""Dense reward (for RL) and the episode grader (the score that matters).

Dense reward per step (defaults): treated discharge +5 (+10 if the patient was ever ESI 1-2);
death -15; per tick per waiting patient -0.5 (true ESI 1-2) / -0.1 (others); invalid action -1;
early discharge -3 x severity (severity = 6 - true ESI); LWBS -2; at the end +20 x survival.
There is no utilisation bonus (it paid for hoarding beds).

Grader, 0-100 (``score`` = /100):
``40 survival + 20 critical_survival + 20 (1 - min(avg_wait_h / 5, 1)) + 10 (1 - lwbs_rate)
+ 10 (1 - invalid_rate)``.
"""

from __future__ import annotations

from lifeline.core.env import Grade
from lifeline.envs.ed.dynamics import StepEvents
from lifeline.envs.ed.params import EDParams
from lifeline.envs.ed.types import EDState

INVALID_PENALTY = -1.0
WAIT_NORMALISER_HOURS = 5.0
WEIGHTS = {"survival": 40.0, "critical_survival": 20.0, "wait": 20.0, "lwbs": 10.0,
           "validity": 10.0}


def step_reward(events: StepEvents) -> float:
    """Dense reward of one (valid) step from its event tally."""
    return (5.0 * events.treated + 5.0 * events.treated_critical - 15.0 * events.deaths
            - 0.5 * events.waiting_critical_ticks - 0.1 * events.waiting_other_ticks
            - 3.0 * events.early_discharge_severity - 2.0 * events.lwbs)


def survival(state: EDState) -> float:
    """1 - deaths / patients (1 when nobody has arrived)."""
    c = state.counters
    return 1.0 - c.deaths / c.patients if c.patients else 1.0


def terminal_bonus(state: EDState) -> float:
    """+20 x survival, paid once at the end of the shift."""
    return 20.0 * survival(state)


def average_wait_hours(state: EDState, params: EDParams) -> float:
    """Mean wait per visit in hours: closed waits plus the running waits of those still waiting."""
    c = state.counters
    total = c.wait_ticks_closed + sum(state.tick - p.arrival_tick for p in state.waiting)
    visits = c.waits_closed + len(state.waiting)
    return total * params.tick_minutes / 60.0 / visits if visits else 0.0


def grade(state: EDState, params: EDParams) -> Grade:
    """The episode grader (meaningful mid-episode too; final at the end of the shift)."""
    c = state.counters
    surv = survival(state)
    crit = 1.0 - c.critical_deaths / c.critical if c.critical else 1.0
    wait_h = average_wait_hours(state, params)
    lwbs_rate = c.lwbs / c.patients if c.patients else 0.0
    invalid_rate = state.invalid_actions / state.steps if state.steps else 0.0
    parts = {
        "survival": surv,
        "critical_survival": crit,
        "wait": 1.0 - min(wait_h / WAIT_NORMALISER_HOURS, 1.0),
        "lwbs": 1.0 - lwbs_rate,
        "validity": 1.0 - invalid_rate,
    }
    points = sum(WEIGHTS[k] * v for k, v in parts.items())
    metrics = {
        "points": points, "patients": float(c.patients), "treated": float(c.treated),
        "deaths": float(c.deaths), "critical_patients": float(c.critical),
        "critical_deaths": float(c.critical_deaths), "lwbs": float(c.lwbs),
        "avg_wait_h": wait_h, "early_discharges": float(c.early_discharges),
        "returns": float(c.returns), "still_waiting": float(len(state.waiting)),
        "invalid_rate": invalid_rate,
    }
    return Grade(score=points / 100.0, components=parts, metrics=metrics)
