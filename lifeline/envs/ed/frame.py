"""JSON-ready picture of one ED moment for replays and the web viewer (the bed board).

Shows what a charge nurse's board shows: every general and ICU bed with its patient (acuity
*as triaged*, condition, hours in bed, care progress, READY/VENT flags), the ventilators, the whole
waiting room (the first ``queue_slots`` are the ones actions can address) and the running outcome
counters. The viewer derives arrivals, deaths and LWBS "as they happen" from the counters of
consecutive frames. Hidden truth (true acuity, ICU/ventilator need) is included under ``truth``
keys so a replay can explain a death; the agent never sees it.
"""

from __future__ import annotations

from typing import Any

from lifeline.envs.ed import care
from lifeline.envs.ed.params import CONDITIONS, EDParams
from lifeline.envs.ed.types import EDState, Patient


def _patient(p: Patient, tick: int, hours_per_tick: float) -> dict[str, Any]:
    return {
        "pid": p.pid,
        "esi": p.observed_acuity,
        "condition": CONDITIONS[p.condition],
        "hours_in_bed": round(p.ticks_in_bed * hours_per_tick, 2),
        "waited_h": round((tick - p.arrival_tick) * hours_per_tick, 2),
        "progress": round(min(1.0, p.progress_ticks / max(1, p.treatment_ticks)), 3),
        "ready": p.ready,
        "boarding": p.boarding,
        "vent": p.ventilated,
        "returned": p.returned,
        "seen": p.seen_tick >= 0,
        "truth": {"esi": p.true_acuity, "needs_icu": p.needs_icu, "needs_vent": p.needs_vent,
                  "needs_ward": p.needs_ward},
    }


def frame(state: EDState, params: EDParams, progress: float) -> dict[str, Any]:
    """The bed board at ``state`` (plain JSON types only, nothing aliases the state)."""
    hpt = params.tick_minutes / 60.0
    hours = state.tick * hpt
    c = state.counters

    def beds(ward: list[Patient | None]) -> list[dict[str, Any] | None]:
        return [None if p is None else _patient(p, state.tick, hpt) for p in ward]

    waiting = []
    for slot, p in enumerate(state.waiting):
        entry = _patient(p, state.tick, hpt)
        entry["slot"] = slot if slot < params.queue_slots else None
        waiting.append(entry)
    staff = {"physicians_on_duty": care.physicians_on_duty(state, params),
             "physicians_free": care.physicians_free(state, params),
             "scanners_free": params.scanners - len(state.scanning),
             "imaging_queue": len(state.imaging_queue), "ward_beds_free": state.ward_free,
             "hospital_icu_beds_free": state.hospital_icu_free}
    return {
        "staff": staff,
        "progress": progress,
        "clock": f"{int(hours) % 24:02d}:{round((hours % 1) * 60):02d}",
        "tick": state.tick,
        "horizon_ticks": params.horizon_ticks,
        "action_in_tick": state.actions_this_tick + 1,
        "actions_per_tick": params.actions_per_tick,
        "general": beds(state.general),
        "icu": beds(state.icu),
        "ventilators": {"total": params.ventilators, "in_use": state.ventilators_in_use},
        "queue_slots": params.queue_slots,
        "waiting": waiting,
        "counters": {
            "patients": c.patients, "treated": c.treated, "deaths": c.deaths,
            "critical_deaths": c.critical_deaths, "lwbs": c.lwbs,
            "early_discharges": c.early_discharges, "returns": c.returns,
            "ward_admissions": c.ward_admissions,
        },
    }


def static(params: EDParams) -> dict[str, Any]:
    """Parts that never change in an episode (written once in a replay's header)."""
    return {"general_beds": params.general_beds, "icu_beds": params.icu_beds,
            "ventilators": params.ventilators, "queue_slots": params.queue_slots,
            "tick_minutes": params.tick_minutes, "conditions": list(CONDITIONS)}
