"""Text view of the ED for humans and LLM agents (shows exactly what the agent may observe)."""

from __future__ import annotations

from functools import cache

from lifeline.envs.ed import care
from lifeline.envs.ed.observation import _pending
from lifeline.envs.ed.params import CONDITIONS, EDParams
from lifeline.envs.ed.types import EDState, Patient

_PADDED = tuple(f"{name:<11}" for name in CONDITIONS)


@cache
def _hours(ticks: int, hours_per_tick: float) -> str:
    """``ticks`` formatted as hours, memoised: float formatting dominated rendering time."""
    return f"{ticks * hours_per_tick:5.2f}h"


def _bed_line(kind: str, b: int, p: Patient | None, hpt: float, tick: int,
              position: dict[int, int]) -> str:
    if p is None:
        return f"  {kind}{b:<2} empty"
    flags = ((" READY" if p.ready else " BOARDING" if p.boarding else "")
             + (" VENT" if p.ventilated else ""))
    flags += " SEEN" if p.seen_tick >= 0 else " UNSEEN"
    pending = _pending(p, tick)
    flags += f" PENDING{pending}" if pending else ""
    flags += f" IMGQ{position[id(p)]}" if id(p) in position else ""
    return (f"  {kind}{b:<2} ESI{p.observed_acuity} {_PADDED[p.condition]} "
            f"{_hours(p.ticks_in_bed, hpt)}{flags}")


def render_text(state: EDState, params: EDParams) -> str:
    """Multi-line description: clock, totals, beds, ventilators and the visible queue."""
    hpt = params.tick_minutes / 60.0
    hours = state.tick * hpt
    c = state.counters
    free_g = sum(p is None for p in state.general)
    free_i = sum(p is None for p in state.icu)
    position = {id(p): k + 1 for k, p in enumerate(state.imaging_queue)}
    staff = (f"Physicians free {care.physicians_free(state, params)}/"
             f"{care.physicians_on_duty(state, params)} | scanners free "
             f"{params.scanners - len(state.scanning)}/{params.scanners}, imaging queue "
             f"{len(state.imaging_queue)} | hospital beds free: ward {state.ward_free}, "
             f"ICU {state.hospital_icu_free}")
    lines = [
        f"ED shift — {int(hours) % 24:02d}:{round((hours % 1) * 60):02d} "
        f"(tick {state.tick}/{params.horizon_ticks}, action {state.actions_this_tick + 1}"
        f"/{params.actions_per_tick} this tick)",
        f"Waiting {len(state.waiting)} | treated {c.treated} | deaths {c.deaths} | "
        f"left unseen {c.lwbs} | ventilators free {params.ventilators - state.ventilators_in_use}"
        f"/{params.ventilators}",
        staff,
        f"General beds ({free_g} free of {params.general_beds}):",
        *[_bed_line("G", b, p, hpt, state.tick, position) for b, p in enumerate(state.general)
          if p is not None],
        f"ICU beds ({free_i} free of {params.icu_beds}):",
        *[_bed_line("I", b, p, hpt, state.tick, position) for b, p in enumerate(state.icu)],
        f"Queue (most urgent {min(len(state.waiting), params.queue_slots)} of "
        f"{len(state.waiting)}):",
    ]
    for slot, p in enumerate(state.waiting[: params.queue_slots]):
        lines.append(f"  slot {slot}: ESI{p.observed_acuity} {_PADDED[p.condition]} "
                     f"waiting {_hours(state.tick - p.arrival_tick, hpt).lstrip()}")
    if not state.waiting:
        lines.append("  (empty)")
    return "\n".join(lines)
