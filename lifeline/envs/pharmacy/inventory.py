"""Lots: first-expiry-first-out issue and consumption in exact quantities, expiry, quarantine."""

from __future__ import annotations

from lifeline.envs.pharmacy.types import Lot

EPS = 1e-9


def total(lots: list[Lot]) -> float:
    """Units in ``lots``."""
    return sum(lot.qty for lot in lots)


def insert(lots: list[Lot], lot: Lot) -> None:
    """Add ``lot`` keeping FEFO order (expiry, then lot id); merges a lot id already present."""
    for existing in lots:
        if existing.lot_id == lot.lot_id and existing.expiry == lot.expiry:
            existing.qty += lot.qty
            return
    lots.append(lot)
    lots.sort(key=lambda x: (x.expiry, x.lot_id))


def take(lots: list[Lot], qty: float) -> list[Lot]:
    """Remove up to ``qty`` units FEFO; return the removed parts (same ids and expiries)."""
    out: list[Lot] = []
    remaining = qty
    while remaining > EPS and lots:
        lot = lots[0]
        part = min(lot.qty, remaining)
        out.append(Lot(lot.lot_id, lot.sku, part, lot.expiry))
        lot.qty -= part
        remaining -= part
        if lot.qty <= EPS:
            lots.pop(0)
    return out


def expire(lots: list[Lot], day: int) -> float:
    """Drop lots whose expiry day is ``<= day``; return the units dropped."""
    dropped = 0.0
    while lots and lots[0].expiry <= day:
        dropped += lots.pop(0).qty
    return dropped


def usable(lots: list[Lot], until_day: int) -> float:
    """Units that will not have expired before ``until_day``."""
    return sum(lot.qty for lot in lots if lot.expiry > until_day)


def remove_lot(lots: list[Lot], lot_id: str) -> float:
    """Remove every part of lot ``lot_id``; return the units removed."""
    removed = sum(lot.qty for lot in lots if lot.lot_id == lot_id)
    lots[:] = [lot for lot in lots if lot.lot_id != lot_id]
    return removed
