"""Pharmacy card: fill rate, red-cell days of supply and waste against supply-chain targets.

How the model maps onto the published statistics:

* **Fill rate** = units served / units demanded (``Counters.line_served`` / ``line_need``),
  for all lines and for the critical (CRIT SKUs at ICU/ER: ``crit_served`` / ``crit_need``).
  OntarioBuys counts *order lines* filled; the env's unit fill rate is the nearest quantity.
* **RBC days of supply** = red-cell units on hand (central + wards, read from the lots at every
  round start) / the episode's mean realised daily network demand of red cells.
* **Platelet and RBC outdate rates are not measured**: the env counts expired units over all
  SKUs together (``Counters.waste_units``), so a per-SKU outdate rate needs a per-SKU waste
  counter the env lacks (proposal in the report; the env was not changed here). The all-SKU waste
  share is reported, not judged.

**Recalibrated in v1** (v0 had 0 of 3 within band: critical fill 86.3 %, all lines 94.7 %,
red cells 2.4 d). Measured on v0 `light` (10-30 held-out seeds): the shortfall was not the
allocation (units planned below the round's true net need: 1.7 % of ICU/ER blood need; the
review board and evidence cut little) but central stock-outs (14.6 %), from two causes stacked:
(1) the **budget** was 0.9 x the standard cost of the expected net need, so even the
perfect-information bound served only 92.5 % of critical units (its LP rations the dearest,
platelets) and base-stock ended with about $500 left of a mean $72,900; (2) the **reference
policy's safety stock** was a flat 10 % of the forecast: with 3 x the budget it still served
only 93.3 %, while a 98 % cycle service level needs z = 2.05 standard deviations of Poisson +
ER-spike demand (60-70 % of a round's platelets and FFP at light volumes). The 2-day lead time
is not a cause: the plan is issued at a round start, so a 1-day lead would deliver into the
same next round. v1: `light` is a funded fortnight (budget 1.2 x the expected net need +
$10,000 per event, paying for the safety stock still on the shelf at the end and a disruption's
supplier premium); base-stock holds z = 2.05 safety stock (red cells at least 2 days, so 3-5
days are on hand) while the budget funds it, a 5 % point-of-use buffer on blood lines, and
re-scans the store after quarantining recalled or breached lots. `medium`, `heavy` and the
event scenarios keep the 0.9 squeeze (there the policy runs lean, as in v0). Most of what is
still short of 100 % is events: the round a cold-chain breach is announced loses its
platelets, a recall its FFP lot.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lifeline.calibrate import Stat

STATS: tuple[Stat, ...] = (
    Stat(key="fill_crit", label="Critical fill rate (% of CRIT units at ICU/ER served)",
         reference=">= 98 % of lines filled (point-of-use target)", band=(95.0, 100.0),
         source="OntarioBuys Performance Measurement guide, metric 4.2",
         why="The 98 % target with a margin for a unit (not line) fill rate "
             "(band suggested in shared/notes/calibration-references.md §4).",
         if_outside=("Within band since v1 (funded light budget, 98 % service-level safety "
                     "stock); if it leaves the band, check the budget arithmetic and the base-"
                     "stock sizing first (v0: 86.3 %).")),
    Stat(key="fill_all", label="Fill rate, all lines (% of units served)",
         reference=">= 98 % of lines filled", band=(95.0, 100.0),
         source="OntarioBuys Performance Measurement guide, metric 4.2",
         why="As above.",
         if_outside='As for the critical fill rate.'),
    Stat(key="rbc_days", label="Red-cell days of supply on hand, mean over rounds (d)",
         reference="blood centre optimum ~3 d (2nd); regional target 7 d (2nd); hospital "
                   "3-5 d (K)", band=(3.0, 7.0),
         source="Philippine DOH NVBSP FAQ (2nd); American Red Cross Southern California (2nd)",
         why="Between the two published stock targets; both sources are secondary, so treat "
             "the verdict with care.", checked="2nd",
         if_outside=("Within band since v1 (red-cell safety stock at least 2 days); v0's flat "
                     "10 % safety stock held about 2-3 days of red-cell demand.")),
    Stat(key="waste_pct", label="Expired units, all SKUs (% of units issued + expired)",
         reference="RBC 2.8-3.9 % (NBCUS); platelets 10-20 % (Flint 2020)", band=None,
         source="Jones JM et al., Transfusion 2020 (NBCUS); Flint AWJ et al., Transfus Med Rev "
                "2020", why="The env does not count waste per SKU: reported, not judged.",
         fmt="{:.2f}"),
)


class Probe:
    """Reads red-cell stock at every round start and the counters at the end."""

    def __init__(self) -> None:
        self.round = -1
        self.rbc: list[float] = []
        self.final: Any = None

    def on_step(self, env: Any, state: Any) -> None:
        self.final = state
        if state.round != self.round:
            self.round = state.round
            stock = sum(lot.qty for lot in state.central[0])
            stock += sum(lot.qty for ward in state.wards for lot in ward[0])
            self.rbc.append(float(stock))

    def values(self) -> dict[str, float]:
        s = self.final
        c = s.counters
        out: dict[str, float] = {}
        if c.crit_need > 0:
            out["fill_crit"] = 100.0 * c.crit_served / c.crit_need
        need = float(np.sum(c.line_need))
        if need > 0:
            out["fill_all"] = 100.0 * float(np.sum(c.line_served)) / need
        daily = float(np.asarray(s.daily)[:, :, 0].sum(axis=1).mean())
        if daily > 0 and self.rbc:
            out["rbc_days"] = float(np.mean(self.rbc)) / daily
        issued = float(np.sum(c.line_served))
        if issued + c.waste_units > 0:
            out["waste_pct"] = 100.0 * c.waste_units / (issued + c.waste_units)
        return out
