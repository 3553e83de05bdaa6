"""Blood of ``codered``: stock, transfers' bookkeeping, drawing compatible units and waste.
"""

from __future__ import annotations

from lifeline.envs.codered.params import (
    O_NEG,
    compatible,
)
from lifeline.envs.codered.types import (
    CodeRedState,
    Patient,
)


def discard_blood(s: CodeRedState, p: Patient) -> None:
    """Every unit reserved for ``p`` and not used (ready or still in crossmatch) is waste (v3:
    before, units reserved for a patient whose need was 0, and crossmatches pending at
    treatment, left the stock uncounted)."""
    s.tally.blood_wasted += p.blood_ready + p.blood_pending
    p.blood_ready = p.blood_pending = p.blood_emergency = p.oneg_held = 0


def take_stock(s: CodeRedState, h: int, b: int, units: int, use: bool = True) -> None:
    """Remove ``units`` of type ``b`` from ``h``'s stock; units that came by ``transfer_blood``
    leave first and count as used transfers when drawn for a patient (``use``; v3)."""
    hosp = s.hospitals[h]
    hosp.stock[b] -= units
    moved = min(units, hosp.received[b])
    if moved:
        hosp.received[b] -= moved
        if use:
            s.tally.transfer_used += moved
        else:  # sent on again: still a transfer waiting for its use
            s.tally.transfer_sent -= moved


def draw_blood(s: CodeRedState, h: int, p: Patient, units: int) -> int:
    """Take up to ``units`` compatible units from ``h``'s stock (exact type first, O− last)."""
    stock = s.hospitals[h].stock
    order = [p.blood_type] + [b for b in range(8) if b not in (p.blood_type, O_NEG)] + [O_NEG]
    got = 0
    for b in order:
        if got >= units:
            break
        if compatible(b, p.blood_type) and stock[b] > 0:
            take = min(stock[b], units - got)
            take_stock(s, h, b, take)
            got += take
            if b == O_NEG:
                p.oneg_held += take
    return got
