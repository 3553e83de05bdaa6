"""Typed event records of ``codered``'s event heap and the ``push`` that schedules them.

Every future happening is one small immutable record (a ``NamedTuple``: cheap to create, to copy
with the state and to pickle) in the state's heap as ``(minute, sequence, record)``; ties break
by insertion order, so the run is deterministic. A record names its subject (patient, unit,
hospital, OR, specialist, disruption) and, where the subject can be rescheduled, the ``token``
the subject had when the event was scheduled: a record whose token is stale is ignored.
:mod:`~lifeline.envs.codered.dynamics.handlers` maps each record type to one small function.
"""

from __future__ import annotations

import heapq
from typing import NamedTuple

from lifeline.envs.codered.types import CodeRedState


class Onset(NamedTuple):
    """A patient's emergency begins (a known patient appears, or a 911 call rings)."""

    patient: int


class Death(NamedTuple):
    """A patient's vitals reach 0 (rescheduled whenever their care changes)."""

    patient: int
    token: int


class Escalates(NamedTuple):
    """A call left untriaged ``escalate_min`` escalates."""

    patient: int


class UnitArrives(NamedTuple):
    """A unit reaches the end of its trip (scene, hospital, home)."""

    unit: int
    token: int


class SceneDone(NamedTuple):
    """A crew has finished on scene (or at a transfer's pick-up)."""

    unit: int
    token: int


class HandoverDone(NamedTuple):
    """A crew has handed its patient over at the hospital."""

    unit: int
    token: int


class ORTimer(NamedTuple):
    """An OR's current phase (preparation, hold, elective, surgery, failure) ends."""

    hospital: int
    room: int
    token: int


class SpecialistTimer(NamedTuple):
    """A specialist's current phase (paged, holding, treating) ends."""

    hospital: int
    specialist: int
    token: int


class Crossmatched(NamedTuple):
    """``units`` crossmatched units are ready for a patient."""

    patient: int
    units: int


class AutoBlood(NamedTuple):
    """The hospital's own typing and crossmatch for an arrived patient is done."""

    patient: int


class Typed(NamedTuple):
    """A blood-type query's result is in."""

    patient: int


class Callback(NamedTuple):
    """The callback to a caller is made (the hint is refined)."""

    patient: int


class SelfArrives(NamedTuple):
    """A self-transported caller reaches the hospital."""

    patient: int


class DisruptionStarts(NamedTuple):
    """Disruption number ``disruption`` begins."""

    disruption: int


class DisruptionEnds(NamedTuple):
    """Disruption number ``disruption`` is over."""

    disruption: int


class BloodArrives(NamedTuple):
    """Units moved by ``transfer_blood`` reach the receiving hospital."""

    hospital: int
    blood_type: int
    units: int


class RushEnds(NamedTuple):
    """The morning rush ends (arterials back to free flow)."""


class StabilisationEnds(NamedTuple):
    """A stabilised patient's slowed deterioration at a non-capable hospital ends."""

    patient: int


class AidArrives(NamedTuple):
    """A mutual-aid unit enters the city and becomes available."""

    unit: int
    token: int


class WorkupDone(NamedTuple):
    """A patient's in-hospital work-up is over (treatment may start)."""

    patient: int


Event = (Onset | Death | Escalates | UnitArrives | SceneDone | HandoverDone | ORTimer
         | SpecialistTimer | Crossmatched | AutoBlood | Typed | Callback | SelfArrives
         | DisruptionStarts | DisruptionEnds | BloodArrives | RushEnds | StabilisationEnds
         | AidArrives | WorkupDone)
"""Any event record."""

NEUTRAL: frozenset[type] = frozenset({Typed, Callback, RushEnds, DisruptionEnds, AidArrives,
                                      StabilisationEnds})
"""Event types that cannot change the grade (the dense reward skips re-grading after them)."""

ACCIDENT, CLOSURE, EQUIPMENT, SURGE, SHIFT = range(5)
"""Disruption kinds (index into ``params.DISRUPTIONS``)."""
CROWDED = 3
"""More than this many patients in a hospital's emergency area is overcrowding."""
STAB_MIN = 60.0
"""Minutes a stabilised patient's deterioration is slowed at a non-capable hospital."""
ASSIGNED_STATUS = 3
"""``types.ASSIGNED`` (kept local: the name is also an action elsewhere)."""


def push(s: CodeRedState, time: float, event: Event) -> None:
    """Schedule ``event`` at minute ``time`` (ties break by insertion order: deterministic)."""
    s.seq += 1
    heapq.heappush(s.heap, (time, s.seq, event))
