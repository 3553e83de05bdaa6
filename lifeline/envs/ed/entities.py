"""ED's entity hints for :func:`lifeline.faces.entities.entity_spec`.

An ``admit_*(slot)`` action admits the patient in row ``slot`` of the waiting ``queue``; the name
alone would not say so.
"""

from __future__ import annotations

from lifeline.faces.entities import EntityHints


def entity_hints() -> EntityHints:
    """Field aliases the names alone do not give."""
    return EntityHints(aliases={"slot": "queue"})
