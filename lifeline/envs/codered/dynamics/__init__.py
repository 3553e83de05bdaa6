"""Event-driven dynamics of ``codered``, one module per subsystem.

* :mod:`.events` — the typed event records of the state's heap and ``push``;
* :mod:`.roads` — travel times under rush hour and disruptions, where a unit is;
* :mod:`.patients` — vitals lines and their re-basing on a change of care;
* :mod:`.blood` — stock, drawing compatible units, waste;
* :mod:`.hospitals` — crowding, OR preparation, paging, work-up, arrival, treatment (the outcome);
* :mod:`.ambulances` — trips, dispatch, scene, transport, handover, mutual aid;
* :mod:`.handlers` — one small function per event type, ``advance`` and ``settle``;
* :mod:`.actions` — one small function per agent action.

This package re-exports what the rest of the env uses.
"""

from __future__ import annotations

from lifeline.envs.codered.dynamics.actions import apply_action
from lifeline.envs.codered.dynamics.ambulances import dispatch, nearest_free
from lifeline.envs.codered.dynamics.blood import take_stock
from lifeline.envs.codered.dynamics.events import (
    ACCIDENT,
    CLOSURE,
    EQUIPMENT,
    SHIFT,
    SURGE,
    DisruptionStarts,
    Onset,
    ORTimer,
    RushEnds,
    push,
)
from lifeline.envs.codered.dynamics.handlers import HANDLERS, advance, handle, settle
from lifeline.envs.codered.dynamics.hospitals import workup_minutes
from lifeline.envs.codered.dynamics.patients import vitals
from lifeline.envs.codered.dynamics.roads import (
    connected_without,
    eta,
    refresh_roads,
    unit_position,
)

__all__ = ["ACCIDENT", "CLOSURE", "EQUIPMENT", "HANDLERS", "SHIFT", "SURGE", "DisruptionStarts",
           "ORTimer", "Onset", "RushEnds", "advance", "apply_action", "connected_without",
           "dispatch", "eta", "handle", "nearest_free", "push", "refresh_roads", "settle",
           "take_stock", "unit_position", "vitals", "workup_minutes"]
