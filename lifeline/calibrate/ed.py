"""ED card (v3): door-to-provider, length of stay, boarding and LWBS emerge from the queues.

How the model maps onto the published statistics (read before the table):

* **Visit**: one stay in the ED (a return after an early discharge or LWBS is a new visit); ESI is
  the *true* acuity at first arrival (``normal_day`` has no mis-triage, so it equals the triage
  level that NHAMCS and Tanabe tabulate).
* **Door-to-provider**: arrival to the start of the physician's assessment (v3: physicians are a
  resource with shifts; the first 15-min tick is triage). Visits that leave or die unseen have
  none. Resolution is the env's 15-minute tick.
* **Length of stay**: arrival to leaving the ED treated (home, or to an inpatient bed after
  boarding), for visits arriving before 18:00 (a stay of up to 6 h then ends within the 24-hour
  shift; the shift starts empty at 00:00, so long stays are slightly under-represented).
  v3: nothing about it is sampled as a whole: it is the wait for a bed, for a physician, for the
  work-up (lab turnaround, the scanner queue, reporting), the treatment that follows, and for
  admissions the wait for an inpatient bed (the hospital's census: discharges, elective
  admissions and the ED's own admissions) plus the bed turnaround.
* **Labels**: every row's label starts with its role. *emergent*: produced by the queues, no
  parameter was set to it (these are the evidence); *tuned*: emerges, but a parameter was
  chosen while looking at it (says which); *input*: read back from a drawn input.

Every number is read from the env's own state (``EDState.log``, counters) after the reference
policy (``heuristic``) played; no second model.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from lifeline.calibrate import Stat

HOCKER = "Hocker MB et al., West J Emerg Med 2018;19(5):855-862 (NHAMCS 2011)"
TANABE = "Tanabe P et al., J Emerg Nurs 2004 (one academic ED, 403 pts)"
EDBA = "ED Benchmarking Alliance via AHA blog 2014 (2nd)"
HORWITZ = "Horwitz LI, Green J, Bradley EH, Ann Emerg Med 2010;55:133-141"
LOS_HOCKER = (220.0, 280.0, 237.0, 157.0, 135.0)
LOS_TANABE = (195.0, 255.0, 304.0, 193.0, 98.0)
ADMIT_HOCKER = (32.2, 32.3, 15.5, 3.1, 3.6)
RESOURCES_TANABE = (5.0, 3.89, 3.3, 1.2, 0.2)
TARGET_MIN = (15.0, 15.0, 60.0, 120.0, 1440.0)
"""NHAMCS triage target times by level (immediate < 1 min, emergent 1-14, urgent 15-60,
semi-urgent 61-120, non-urgent 121-1440 min), at the env's 15-min resolution (a patient seen in
the first tick after triage counts as seen at once)."""
CUTOFF_MIN = 18 * 60
LOS_WHY = ("Band = 0.75 x the lower to 1.25 x the higher of the two published means: EDBA shows "
           "the LOS of the same patients roughly doubling between small and large EDs "
           "(107 vs 213 min non-admitted), so one ED sits anywhere in a wide spread.")
ADMIT_WHY = ("Reported, not judged: the disposition is an input (ward admission drawn by ESI at "
             "arrival from Hocker's shares; ICU need by ESI and condition).")


def _los_stat(esi: int) -> Stat:
    a, b = LOS_HOCKER[esi - 1], LOS_TANABE[esi - 1]
    return Stat(
        key=f"los_esi{esi}",
        label=f"[emergent] ED length of stay, ESI {esi}, visits that left treated (mean, min)",
        reference=f"{a:.0f} (NHAMCS 2011); {b:.0f} (one academic ED); all visits",
        band=(round(0.75 * min(a, b)), round(1.25 * max(a, b))),
        source=f"{HOCKER}; {TANABE}", why=LOS_WHY, fmt="{:.0f}",
        if_outside=_LOS_OUTSIDE.get(esi, ""))


_LOS_OUTSIDE = {
    1: ("ESI-1 visits are few (2 % of arrivals) and most are admissions that wait for a hospital "
        "ICU bed (1 of 16 free at 00:00): a small sample dominated by ICU boarding. Since stop 37 "
        "the heuristic scans ESI 4-5 first (bed turnover; treated patients wait at 2 % of the "
        "hazard), which lengthened ESI 1 (345 -> 378 min) and ESI 2 (329 -> 350) stays: the env "
        "has no time-critical imaging (stroke, trauma) whose delay raises the hazard."),
    2: ("At the band's edge: the ESI 4-5-first imaging rule of stop 37 (329 -> 350 min; see "
        "ESI 1) and ICU/ward boarding of the quarter of ESI-2 visits that are admitted."),
}


def _admit_stat(esi: int) -> Stat:
    a = ADMIT_HOCKER[esi - 1]
    return Stat(
        key=f"admit_esi{esi}", label=f"[input] Admitted (ICU or ward), ESI {esi} (% of visits "
                                     "that left treated)",
        reference=f"{a} % admitted (NHAMCS 2011)", band=None, source=HOCKER, why=ADMIT_WHY,
        pooled=True)


def _resources_stat(esi: int) -> Stat:
    return Stat(
        key=f"resources_esi{esi}",
        label=f"[input] ESI resources per visit (labs, imaging, other), ESI {esi} (mean)",
        reference=f"{RESOURCES_TANABE[esi - 1]}", band=None, source=TANABE,
        why="Drawn per patient to these means (a fixed part plus a Poisson part): an input, "
            "shown to make the work-up visible.", fmt="{:.2f}")


def _d2p_esi_stat(esi: int) -> Stat:
    return Stat(
        key=f"d2p_esi{esi}",
        label=f"[emergent] Door-to-provider, ESI {esi}, median of visits pooled (min)",
        reference="no published per-level median in the card's references", band=None,
        source="-", why="Reported: the queue for physicians orders patients by acuity.",
        checked="-", pooled=True, fmt="{:.0f}")


STATS: tuple[Stat, ...] = (
    Stat(key="d2p_median",
         label="[emergent] Door-to-provider (physician), median of all visits pooled (min; "
               "15-min ticks, the first of them in triage)",
         reference="31 (NHAMCS 2006); 35, CI 26-43 (2008-09); 14 (2019, 2nd)",
         band=(10.0, 45.0),
         source="Pitts SR et al., NHSR No. 7 (2008); Pines 2012; NHAMCS 2019 (2nd)",
         why="From the lowest recent national median to the upper CI of 2008-09 (hospital "
             "medians spread around the national one). Env resolution: 15-min ticks.",
         pooled=True, fmt="{:.1f}",
         if_outside="Beds, then physicians (2-4 on shift, 15-45 min per assessment)."),
    *(_d2p_esi_stat(e) for e in range(1, 6)),
    Stat(key="seen_in_target",
         label="[emergent] Seen by a physician within the triage target time (% of visits "
               "seen, pooled)",
         reference="78.3 % (IQR 63.2-89.5) in the median ED, 2006", band=(63.2, 89.5),
         source=HORWITZ, why="The inter-hospital IQR (one simulated ED against the spread).",
         pooled=True,
         if_outside="Physician shifts against the diurnal arrival peaks."),
    *(_los_stat(e) for e in range(1, 6)),
    Stat(key="los_order",
         label="[emergent] LOS ordering (pooled): ESI 2 and 3 longer than ESI 4 and 5 (1 = yes)",
         reference="2-3 longest, 4-5 shortest in both sources", band=(1.0, 1.0),
         source=f"{HOCKER}; {TANABE}",
         why="Both sources agree on the ordering (they disagree on ESI 1 vs 3).", pooled=True,
         fmt="{:.2f}"),
    Stat(key="los_discharged_median",
         label="[emergent] LOS of visits discharged home, median (min)",
         reference="131 (NHAMCS 2008-09 hospitals); 107-213 by ED size (EDBA, 2nd)",
         band=(100.0, 240.0), source=f"Pines 2012; {EDBA}",
         why="The range of hospital medians by ED size.", fmt="{:.0f}", pooled=True,
         if_outside="Wait + assessment + work-up + treatment of the env's (sicker) mix."),
    Stat(key="los_ward_median",
         label="[tuned] LOS of ward admissions (arrival to leaving for the ward), median (min);"
               " ward census (beds free at 00:00, discharges, electives) chosen looking at "
               "boarding",
         reference="admitted median 244 (NHAMCS 2008-09 hospitals); 216-386 by ED size (EDBA, "
                   "2nd)",
         band=(200.0, 400.0), source=f"Pines JM et al., Ann Emerg Med 2012; {EDBA}",
         why="From below the national admitted median to the largest EDs' median.",
         fmt="{:.0f}", pooled=True,
         if_outside="Work-up and treatment, then boarding until the ward has a bed."),
    Stat(key="los_icu_mean",
         label="[emergent] ED LOS of ICU admissions (door to leaving for the ICU, mean, min)",
         reference="304 (CI 286-323), NHAMCS 2002-09 adults", band=(200.0, 400.0),
         source="Mullins PM, Goyal M, Pines JM, Acad Emerg Med 2013;20:479-486",
         why="ICU admissions wait hours in real EDs (boarding); the band is wide around 304.",
         fmt="{:.0f}", pooled=True,
         if_outside=("Stabilisation (2 h mean), then boarding until the hospital ICU (16 beds, "
                     "1 free at 00:00, 4.5 discharges a day) has a bed: a census the card did "
                     "not tune.")),
    Stat(key="admitted_within_6h",
         label="[tuned] Admitted patients leaving the ED within 6 h (% of admissions that left"
               "; ward census chosen looking at it)",
         reference="76.3 % (IQR 54.4-93.9) in the median ED, 2006", band=(54.4, 93.9),
         source=HORWITZ, why="The inter-hospital IQR.", pooled=True,
         if_outside=("The ward runs near full (2 of 150 beds free at 00:00, discharges mostly "
                     "after 10:00): night and morning admissions board until the afternoon. "
                     "61-72 % on the training seeds the census was tuned on; the held-out days "
                     "vary from 0 to 83 %.")),
    Stat(key="boarding_median_h",
         label="[emergent] Boarding (decision to leave the ED) of admissions, median (h); its "
               "floor is the 1-h bed turnaround (input)",
         reference="1-5 h (card band from the references); medical admits mean 3.6-4.5 h "
                   "(West J Emerg Med 2022)",
         band=(1.0, 5.0), source="West J Emerg Med 2022;23(5):644-649; notes section 1 bands",
         why="The suggested card band for boarding medians.", pooled=True, fmt="{:.2f}",
         if_outside="Most admissions get a bed within the turnaround; the tail is the census."),
    Stat(key="boarding_mean_h",
         label="[emergent] Boarding of admissions, mean (h)",
         reference="medical admits 3.6-4.5 h; by ESI I/II/III 2.9 / 4.3 / 3.9 h (one US ED)",
         band=None, source="West J Emerg Med 2022;23(5):644-649", pooled=True, fmt="{:.2f}",
         why="One ED's mean; reported, not judged (the card's boarding band is on the median)."),
    Stat(key="lwbs_pct",
         label="[tuned] Left without being seen (% of visits); patience spread (lognormal "
               "sigma 0.6, v2 0.3) chosen after v3's first run gave 0.3 % on training seeds",
         reference="median hospital 2.6 % (range 0-20.3); national 1.3 % (CI 0.9-1.8)",
         band=(1.0, 5.0),
         source="Hsia RY et al., Ann Emerg Med 2011;58:24-32; Pines JM et al., Ann Emerg Med 2012",
         why="A single ED against the spread between hospitals: from the national rate to about "
             "twice the median hospital (CMS state range 1-8 %, 2nd).",
         if_outside=("Waits for beds and physicians against each ESI's patience: on days when the "
                     "hospital is full, boarders hold ED beds and the waiting room empties "
                     "through LWBS (episodes 0-26 %); 3 % on the training seeds it was tuned on.")),
    Stat(key="death_pct",
         label="[tuned] Deaths in the ED and after leaving unfinished (% of visits); hazards "
               "lowered in v3 with this in view",
         reference="in-ED deaths <= 0.3 % of visits (card band; no per-visit source checked)",
         band=None, source="notes section 1 bands (K)", checked="K", fmt="{:.2f}",
         why="No per-visit in-ED mortality was checked against a source (Kanzaria 2016 gives "
             "a population rate): reported, not judged."),
    Stat(key="physician_utilisation",
         label="[emergent] Physician utilisation (assessment time / time on shift, %)",
         reference="(no reference in the card's notes)", band=None, source="-", checked="-",
         why="Reported: how hard the physicians bind."),
    *(_admit_stat(e) for e in range(1, 6)),
    Stat(key="admit_share", label="[input] Admitted share of visits that left treated (%)",
         reference="16.3 % (NHAMCS 2019, 2nd); 11.2-21.8 % by ED size (EDBA, 2nd)",
         band=None, source=f"NHAMCS 2019 via consumerhealthratings (2nd); {EDBA}",
         why=ADMIT_WHY, checked="2nd"),
    *(_resources_stat(e) for e in range(1, 6)),
    Stat(key="esi3_share", label="[input] ESI-3 share of visits (%)",
         reference="59.9 % level 3 (one Taiwanese ED, TTAS); US 40-55 % (K, unchecked)",
         band=None, source="Emerg Med Int 2020 (Hindawi 2059379), Table 1",
         why="The ESI mix is drawn: an input.", checked="yes (TTAS) / K (US)"),
)


class Probe:
    """Keeps the episode's final state; every statistic is read from ``EDState.log`` (per-visit
    door-to-provider and departures, appended by the env itself) and the counters."""

    def __init__(self) -> None:
        self.final: Any = None
        self.tick_min = 15.0
        self.patients: list[Any] = []

    def on_step(self, env: Any, state: Any) -> None:
        self.tick_min = float(env.params.tick_minutes)
        self.final = state
        if not self.patients:
            self.patients = [p for t in state.schedule for p in t]

    def provider(self) -> list[tuple[int, float]]:
        """(ESI, door-to-provider minutes) of every visit seen by a physician."""
        return [(e, w * self.tick_min) for e, w, _ in self.final.log.provider]

    def departures(self, before_cutoff: bool = True) -> list[tuple[int, float, int, float]]:
        """(ESI, LOS min, disposition, boarding h) of visits that left treated (arriving before
        18:00 when ``before_cutoff``)."""
        return [(e, los * self.tick_min, d, b * self.tick_min / 60.0)
                for e, los, d, b, arr in self.final.log.departures
                if not before_cutoff or arr * self.tick_min < CUTOFF_MIN]

    def values(self) -> dict[str, float]:
        out = _pooled_values([self])
        c = self.final.counters
        out["lwbs_pct"] = 100.0 * c.lwbs / max(1, c.patients)
        out["death_pct"] = 100.0 * c.deaths / max(1, c.patients)
        log = self.final.log
        out["physician_utilisation"] = (100.0 * log.busy_physician_ticks / log.physician_ticks
                                        if log.physician_ticks else math.nan)
        for e in range(1, 6):
            ps = [p for p in self.patients if p.esi_at_arrival == e]
            out[f"resources_esi{e}"] = (float(np.mean([p.labs + p.imaging + p.other_resources
                                                       for p in ps])) if ps else math.nan)
        n = len(self.patients)
        out["esi3_share"] = (100.0 * sum(p.esi_at_arrival == 3 for p in self.patients) / n
                             if n else math.nan)
        return out


def _median(xs: list[float]) -> float:
    return float(np.median(xs)) if xs else math.nan


def _mean(xs: list[float]) -> float:
    return float(np.mean(xs)) if xs else math.nan


def _pooled_values(probes: list[Probe]) -> dict[str, float]:
    prov = [x for p in probes for x in p.provider()]
    deps = [x for p in probes for x in p.departures()]
    all_deps = [x for p in probes for x in p.departures(before_cutoff=False)]
    out: dict[str, float] = {"d2p_median": _median([w for _, w in prov])}
    for e in range(1, 6):
        out[f"d2p_esi{e}"] = _median([w for esi, w in prov if esi == e])
        out[f"los_esi{e}"] = _mean([los for esi, los, _, _ in deps if esi == e])
        left = [d for esi, _, d, _ in all_deps if esi == e]
        out[f"admit_esi{e}"] = 100.0 * sum(d > 0 for d in left) / len(left) if left else math.nan
    out["seen_in_target"] = (100.0 * sum(w <= TARGET_MIN[e - 1] for e, w in prov) / len(prov)
                             if prov else math.nan)
    hi = [out["los_esi2"], out["los_esi3"]]
    lo = [out["los_esi4"], out["los_esi5"]]
    out["los_order"] = (float(min(hi) > max(lo))
                        if not any(math.isnan(x) for x in hi + lo) else math.nan)
    out["los_discharged_median"] = _median([los for _, los, d, _ in deps if d == 0])
    out["los_ward_median"] = _median([los for _, los, d, _ in deps if d == 1])
    out["los_icu_mean"] = _mean([los for _, los, d, _ in deps if d == 2])
    admitted = [(los, b) for _, los, d, b in all_deps if d > 0]
    out["admitted_within_6h"] = (100.0 * sum(los < 360.0 for los, _ in admitted) / len(admitted)
                                 if admitted else math.nan)
    out["boarding_median_h"] = _median([b for _, b in admitted])
    out["boarding_mean_h"] = _mean([b for _, b in admitted])
    out["admit_share"] = (100.0 * len(admitted) / len(all_deps) if all_deps else math.nan)
    return out


def pooled(probes: Iterable[Probe]) -> dict[str, float]:
    """Every pooled statistic over all episodes' visits (percentiles and per-ESI shares of a
    day's few visits are too noisy per episode)."""
    return _pooled_values(list(probes))


def plots(probes: Iterable[Probe], out_dir: Path, scenario: str) -> list[Path]:
    """LOS by ESI (box plot with the published means) and door-to-provider distribution."""
    from lifeline.calibrate import plots as P

    probes = list(probes)
    deps = [x for p in probes for x in p.departures()]
    los = {e: [x for esi, x, _, _ in deps if esi == e] for e in range(1, 6)}
    waits = [w for p in probes for _, w in p.provider()]
    return [
        P.box_by_group(out_dir / f"ed_{scenario}_los_by_esi.png",
                       [f"ESI {e}" for e in range(1, 6)], [los[e] for e in range(1, 6)],
                       refs={"NHAMCS 2011 (Hocker)": list(LOS_HOCKER),
                             "one academic ED (Tanabe)": list(LOS_TANABE)},
                       ylabel="ED length of stay (min)",
                       title=f"ed v3 {scenario}: length of stay by true ESI (heuristic; "
                             "emergent)"),
        P.cdf(out_dir / f"ed_{scenario}_door_to_provider.png", waits,
              lines={"NHAMCS 2019 median 14 (2nd)": 14.0, "NHAMCS 2006 median 31": 31.0,
                     "NHAMCS 2008-09 median 35": 35.0},
              xlabel="door to physician (min)",
              title=f"ed v3 {scenario}: door-to-provider CDF (heuristic)"),
    ]
