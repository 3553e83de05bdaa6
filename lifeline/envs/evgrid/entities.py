"""EVGrid's entity hints for :func:`lifeline.faces.entities.entity_spec`.

``travel`` (EV slot x station, road minutes) is a pairwise feature: stacked into the
``ev_station`` table of one row per (EV, station) pair, and an extra ref of ``route(ev,
station)`` next to the EV's and the station's own rows, so the route scorer reads the travel
time of the pair it scores (pooled over every table it would only see a summary of them).
"""

from __future__ import annotations

from lifeline.faces.entities import EntityHints, StackedTable


def entity_hints() -> EntityHints:
    """The ``(ev, station)`` travel cell as a cross ref of ``route``."""
    return EntityHints(stacked={"ev_station": StackedTable(("travel",))},
                       cross={("ev", "station"): "ev_station"})
