"""Pharmacy card (v2): blood outdating and shortage that *emerge* from the supply chain, next to
fill rates and red-cell stock that were *tuned*.

Every statistic is labelled (issue 23):

* **input** — read back from a distribution the generator samples (not evidence);
* **tuned** — a parameter was set so that the statistic hits its target (not evidence);
* **emergent** — the result of the dynamics and the reference policy (evidence).

The headline counts the emergent statistics within band separately (``EMERGENT``).

How the model maps onto the published statistics:

* **Platelet / red-cell outdating** [emergent] = units that expired (central or ward lots, plus
  lots destroyed without a recall) / (units consumed by patients + units expired), per SKU
  (``Counters.waste_sku`` / ``consumed_sku``), over the 16 days. Nothing sets it: deliveries
  arrive part-used (platelets 2-4 of 5 days, red cells 19-36 of 42 days, a quarter of red-cell
  shipments short-dated with 4-10 days: *inputs*), suppliers are late at random, demand has a
  weekday pattern and unannounced ward surges, and the reference orders and allocates as it
  does; what expires follows. Round 2 adds the blood bank's own dynamics: red cells are
  crossmatched at a C:T ratio of 1.7 (an *input*, within the 1.3-2.15 of the source below) and
  the untransfused ones are held 2 days and come back older; a ward that ran out is served the
  same day from central (emergency issue), and when central is empty too the supplier ships
  STAT at 2 x the price + $300 a shipment. Round 3: STAT needs the agent's authorisation
  (the reference gives it only with money its regular plan does not need), `light`'s budget
  is funded again (1.6 x the expected net need: 1.2 bound the reference on every training
  seed under v2's dynamics) and the reference keeps platelets pooled in the blood bank (half
  its platelet allocation goes to the fridges; what they hold goes back each round). Stock
  still on hand at the end that would expire before use at the expected rate is added
  (``projected``), as the terminal credit of the grader does.
* **Platelet shortage days** [emergent] = share of days on which some ICU/ER platelet demand
  went unmet after the fridge, the blood bank's emergency issue and STAT
  (``Counters.short_days``): the source's definition (Brixner 2024: a shortage is a day that
  requires "the release of more PCs than available") with the hospital's stock plus the
  supplier's same-day release as what is available. The hospital-level stock-out (STAT needed
  or demand unmet, ``Counters.stockout_days``) is reported, not judged.
* **Fill rates** [tuned]: v1 set the `light` budget (1.2 x the expected net need) and the
  reference's safety stock (z = 2.05) to reach the 98 % point-of-use target.
* **Red-cell days of supply** [tuned]: on hand at round starts / mean daily red-cell demand; the
  reference's floor of 2 days of red-cell safety stock puts it at 3-5 days by construction.
* **Delivered platelet life** [input]: the remaining shelf life of delivered platelets, read
  back from the sampled distribution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lifeline.calibrate import Stat

EMERGENT = ("outdate_plt", "outdate_rbc", "plt_short_days")
"""Keys of the emergent statistics (the only evidence on this card)."""

STATS: tuple[Stat, ...] = (
    Stat(key="outdate_plt",
         label="[emergent] Platelet outdating (% of units consumed + expired)",
         reference="frequently 10-20 % (systematic review); most US hospitals < 10 % (2021 "
                   "survey); <= 5 % is good", band=(5.0, 20.0),
         source="Flint AWJ et al., Transfus Med Rev 2020;34:42-50; US national platelet "
                "inventory survey 2021 (2nd)",
         why="The suggested band of shared/notes/calibration-references.md §4: between the "
             "'good' 5 % and the 20 % the review calls frequent.",
         if_outside="Emerges from the 2-4 days a platelet has left on delivery, the supplier "
                    "delays and the reference's lean platelet orders (PLT_Z = 0). Round 3's "
                    "pooling (platelets kept in the blood bank) lowered it on validation seeds "
                    "100-129 from 11.3 to 5.0 % on light (6.3-9.0 to 2.8-5.5 % on the other "
                    "scenarios): a blood bank that pools platelets is at the 'good' end, as "
                    "allocation programmes report (Lee et al., Ann Lab Med 2021: expiry "
                    "discards 3.81 -> 0.14 %)."),
    Stat(key="outdate_rbc",
         label="[emergent] Red-cell outdating (% of units consumed + expired, projected)",
         reference="US 3.9 % (2017), 3.2 % (2019), 2.8 % (2021) of units available",
         band=(1.0, 5.0),
         source="Jones JM et al., Transfusion 2020 (NBCUS 2017); NBCUS 2021 (Transfusion 2023)",
         why="The notes' suggested 1-5 % around the national 2.8-3.9 %.",
         if_outside="Crossmatch holds (C:T 1.7, units held 2 days: '24 to 48 hours in most "
                    "institutions', JAMA 1977;237:451) are the modelled cause; red cells arrive "
                    "with 19-36 of 42 days left (a quarter short-dated, 4-10 days). Measured "
                    "on validation seeds 100-129 the reference outdates 2.0 % on light and "
                    "1.1-1.6 % on the other scenarios (training seeds 0-15, light: 1.5 %; "
                    "round 3), "
                    "inside the band; on this card's 20 held-out seeds (round 4, with the "
                    "weekend gap) episodes range 0.0-7.8 % with a mean below 1 %: red-cell "
                    "waste is rare and lumpy (a short-dated shipment, expiring holds, or a "
                    "Friday top-up's four days of red cells outdating in a ward fridge). "
                    "A 3-day hold "
                    "(the AABB 3-day sample validity, 72 h in many banks) raises light's "
                    "validation value to 2.75 % and costs the reference 0.002; not adopted "
                    "(2 days is the documented common practice). ABO/Rh groups, the main "
                    "reason small group inventories outdate, are not modelled."),
    Stat(key="plt_short_days",
         label="[emergent] Days with unmet ICU/ER platelet demand after fridge, blood bank "
               "and STAT (% of days)",
         reference="0.7 % of days with a 5-day shelf life at 20 % overproduction, 2.8 % with "
                   "4 days (simulation; shortage = a day requiring the release of more units "
                   "than available); ~25 % of US hospitals report insufficient stock at "
                   "least monthly",
         band=(0.0, 5.0),
         source="Brixner V et al., Transfus Med Hemother 2024;51:393-401 (German Red Cross "
                "simulation); US national platelet inventory survey 2021 (2nd)",
         why="A monthly shortage is about 3 % of days; the band allows 5 % for a 16-day window "
             "with surges and late suppliers.",
         if_outside="Round 3 funds `light` again (budget 1.2 -> 1.6 x the expected net need: "
                    "at 1.2 the reference spent >= 97 % of the budget on 16 of 16 training "
                    "seeds and its short days were days with < $450 left); on the card's seeds "
                    "short days fell from 25.6 to the value above. What is left, on validation "
                    "seeds 100-129 in round 3 (24 short days of 480, 5.0 %; round 4 adds the "
                    "weekend gap, whose surges the Friday top-up misses): 9 days on which the "
                    "reference's STAT authorisation (the money its regular plan does not "
                    "need, x 2.0 margin) was used up, 10 on which STAT's cap (2 days of the "
                    "network's expected platelet demand a day; assumed) or the day's room "
                    "bound, 5 with too little budget for a STAT shipment. Authorising STAT "
                    "without limit gives 3.8 % on those seeds (+0.0014 score) but costs "
                    "0.014-0.029 on the squeezed scenarios."),
    Stat(key="plt_stockout_days",
         label="[emergent] Days the hospital's own platelet stock ran out (STAT needed or "
               "demand unmet, % of days)",
         reference="hospital blood banks: 8.9 +- 22.7 shortage days a year (2.4 %) with a "
                   "uniform 5-day issuable stock, 1.0 (0.3 %) with a variability-aware one "
                   "(red cells, by ABO group)", band=None,
         source="Ann Lab Med 2024;44(3):262-270 (194 Korean hospitals, 2019-20)",
         why="Reported, not judged: the source counts red cells by blood group against a "
             "hospital's issuable stock; the model's platelets (2-4 days of life on delivery, "
             "one group) are not that population."),
    Stat(key="fill_crit", label="[tuned] Critical fill rate (% of CRIT units at ICU/ER served)",
         reference=">= 98 % of lines filled (point-of-use target)", band=(95.0, 100.0),
         source="OntarioBuys Performance Measurement guide, metric 4.2",
         why="Tuned in v1 (budget, safety stock): not evidence.",
         if_outside="Set in v1 (budget, z); in v2 the shortfall is platelets (see the shortage "
                    "days): part-used deliveries, late suppliers and surges. Red cells and "
                    "plasma are served almost fully."),
    Stat(key="fill_all", label="[tuned] Fill rate, all lines (% of units served)",
         reference=">= 98 % of lines filled", band=(95.0, 100.0),
         source="OntarioBuys Performance Measurement guide, metric 4.2",
         why="As above: tuned, not evidence.", if_outside="As for the critical fill rate."),
    Stat(key="rbc_days", label="[tuned] Red-cell days of supply on hand, mean over rounds (d)",
         reference="blood centre optimum ~3 d (2nd); regional target 7 d (2nd); hospital "
                   "3-5 d (K)", band=(3.0, 7.0),
         source="Philippine DOH NVBSP FAQ (2nd); American Red Cross Southern California (2nd)",
         why="Reads back the reference's red-cell floor (2 days of safety stock): tuned.",
         checked="2nd"),
    Stat(key="plt_life", label="[input] Remaining platelet life on delivery (d)",
         reference="5-day shelf life; released after 1.5-2 d of testing", band=None,
         source="21 CFR 610.53; Lee et al., Ann Lab Med 2021",
         why="Read back from the sampled distribution (0.4-0.8 x 5 d): reported, not judged.",
         fmt="{:.2f}"),
)


class Probe:
    """Reads red-cell stock at every round start, delivered platelet lots and the end counters."""

    def __init__(self) -> None:
        self.round = -1
        self.rbc: list[float] = []
        self.plt_life: list[float] = []
        self.seen: set[str] = set()
        self.final: Any = None
        self.env: Any = None

    def on_step(self, env: Any, state: Any) -> None:
        self.final, self.env = state, env
        if state.round != self.round:
            self.round = state.round
            stock = sum(lot.qty for lot in state.central[0])
            stock += sum(lot.qty for ward in state.wards for lot in ward[0])
            self.rbc.append(float(stock))
            for po in state.pos:
                if po.status == "received" and po.sku == 1 and po.po_id not in self.seen:
                    self.seen.add(po.po_id)
                    from lifeline.envs.pharmacy.dynamics import delivered_expiry
                    self.plt_life.append(float(delivered_expiry(state, env.params, po)
                                               - po.arrival_day))

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
        projected = _projected_expiry(s, self.env.params)
        for key, k in (("outdate_rbc", 0), ("outdate_plt", 1)):
            wasted = float(c.waste_sku[k]) + projected[k]
            total = wasted + float(c.consumed_sku[k])
            if total > 0:
                out[key] = 100.0 * wasted / total
        if c.days:
            out["plt_short_days"] = 100.0 * float(c.short_days[1]) / c.days
            out["plt_stockout_days"] = 100.0 * float(c.stockout_days[1]) / c.days
        if self.plt_life:
            out["plt_life"] = float(np.mean(self.plt_life))
        return out


def _projected_expiry(state: Any, params: Any) -> np.ndarray:
    """Units on hand at the end (central + wards + crossmatch holds) that would expire before
    use at the expected network rate, per SKU (first-expiry-first-out)."""
    from lifeline.envs.pharmacy.generator import expected_daily

    end = min(state.round, params.rounds) * params.days_per_round
    rate = expected_daily(params).sum(axis=0)
    out = np.zeros(len(rate))
    for s in range(len(rate)):
        lots = list(state.central[s]) + [lot for ward in state.wards for lot in ward[s]]
        lots += [lot for _release, lot in state.holds if lot.sku == s]  # crossmatched
        lots.sort(key=lambda lot: lot.expiry)
        used = 0.0
        for lot in lots:
            usable = max(0.0, min(lot.qty, (lot.expiry - end) * rate[s] - used))
            used += usable
            out[s] += lot.qty - usable
    return out
