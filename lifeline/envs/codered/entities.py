"""CodeRed's entity hints for :func:`lifeline.faces.entities.entity_spec`.

Ambulances are rows of ``units`` and calls are rows of ``patients`` (a call is a patient row with
``is_call`` set); an ``or_index`` is an argument (the ``ors`` rows are hospitals) and so is a blood
``units`` count (not a row of ``units``).
"""

from __future__ import annotations

from lifeline.faces.entities import EntityHints


def entity_hints() -> EntityHints:
    """Field aliases the names alone do not give."""
    return EntityHints(aliases={"ambulance": "units", "call": "patients"},
                       ignore=("or_index", "units"))
