"""Pharmacy's entity hints for :func:`lifeline.faces.entities.entity_spec`.

The ward x SKU arrays (requests, evidence, stock on hand, verdicts, plan, consumption) are one
table of ``(ward, sku)`` cells with a feature per array; the ERP arrays per SKU are the ``skus``
table, the quoted lead times the ``suppliers`` table and the quarantine alerts the ``slots``
table. An action naming both a ward and a SKU points at its cell.
"""

from __future__ import annotations

from lifeline.faces.entities import EntityHints, StackedTable

CELL_KEYS = ("requests", "evidence", "evidence_status", "on_hand", "verdicts", "plan",
             "consumption")


def entity_hints() -> EntityHints:
    """Stacked tables and the ``(ward, sku)`` pair."""
    return EntityHints(
        stacked={"cells": StackedTable(CELL_KEYS),
                 "skus": StackedTable(("stock", "expiring", "pipeline", "scanned_stock",
                                        "stat_authorised", "justified")),
                 "suppliers": StackedTable(("quoted_lead",)),
                 "slots": StackedTable(("alerts",))},
        pairs={("ward", "sku"): "cells"})
