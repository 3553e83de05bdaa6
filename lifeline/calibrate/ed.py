"""ED card: length of stay, admission, LWBS and door-to-provider by triage level.

How the model maps onto the published statistics (read before the table):

* **Visit**: a distinct patient (a return after an early discharge is the same visit); ESI is the
  *true* acuity at arrival (``normal_day`` has no mis-triage, so it equals the triage level that
  NHAMCS and Tanabe tabulate).
* **Door-to-provider**: arrival tick to the tick the patient gets a bed (the env has no separate
  clinician: a bed is where care starts). Since v2 an arrival spends one tick in triage before
  it can get a bed, so the shortest door-to-bed is one tick. Resolution is the env's 15-minute
  tick.
* **Disposition** (v2): *ICU admission* (the patient needs critical care and takes an ICU bed),
  *ward admission* (drawn at arrival by ESI; after treatment the patient boards in its ED bed
  until the ward takes it: 2.9-4.3 h, West J Emerg Med 2022), or *discharged* home. Admitted =
  ICU or ward admission; the admission shares count the visits whose disposition is known at
  the end of the shift (left the ED, boarding, or in an ICU bed).
* **Length of stay**: arrival to leaving the ED, in minutes, for visits arriving before 18:00
  (so that a stay of up to 6 hours ends within the 24-hour shift; the shift also starts empty at
  00:00, so long stays are slightly under-represented). Judged rows: visits that are not ICU
  admissions (discharged home, or admitted to a ward after boarding in their ED bed); the "all
  visits" rows also count ICU admissions, whose ED stay ends when the ICU bed is taken (the
  env's ICU beds are the critical-care destination, so an ICU admission does not board in the
  ED unless the ICU is full).
* **LWBS**: ``counters.lwbs`` / distinct patients.

Every number is read from the env's state by :class:`Probe` while the reference policy
(``heuristic``) plays; no second model.
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
LOS_HOCKER = (220.0, 280.0, 237.0, 157.0, 135.0)
LOS_TANABE = (195.0, 255.0, 304.0, 193.0, 98.0)
ADMIT_HOCKER = (32.2, 32.3, 15.5, 3.1, 3.6)
LOS_WHY = ("Band = 0.75 x the lower to 1.25 x the higher of the two published means: EDBA shows "
           "the LOS of the same patients roughly doubling between small and large EDs "
           "(107 vs 213 min non-admitted), so one ED sits anywhere in a wide spread.")
ADMIT_OUT = (
    "ICU need (30 %) plus ward admission (5 % of the rest) and worsening; ESI-1 visits are few "
    "(2 % of arrivals), so the share swings between days.",
    "ICU need by condition (15-20 %) plus ward admission (18 % of the rest).",
    "Ward admission 15 % of ESI-3 patients, plus worsening to ESI 1.",
    "Ward admission 4 % of ESI-4 patients; a few leave unseen first and the sample is small.",
    "Ward admission 5 % of ESI-5 patients; a few leave unseen first and the sample is small.",
)
ADMIT_WHY = ("Band = 0.5-1.5 x the national share: admitted shares differ about 2x between "
             "small and large EDs (EDBA 11.2 vs 21.8 % of visits). Pooled over all episodes' "
             "visits (a day has 2-3 ESI-1 and ~10 ESI-5 visits, too few for a per-day share).")


def _los_stat(esi: int) -> Stat:
    a, b = LOS_HOCKER[esi - 1], LOS_TANABE[esi - 1]
    return Stat(
        key=f"los_esi{esi}",
        label=f"ED length of stay, ESI {esi}, visits not admitted to the ICU (mean, min)",
        reference=f"{a:.0f} (NHAMCS 2011); {b:.0f} (one academic ED); all visits",
        band=(round(0.75 * min(a, b)), round(1.25 * max(a, b))),
        source=f"{HOCKER}; {TANABE}", why=LOS_WHY, fmt="{:.0f}",
        if_outside=("ESI-1 visits are few (2 % of arrivals): a small, noisy sample." if esi == 1
                    else ""))


def _los_all_stat(esi: int) -> Stat:
    a, b = LOS_HOCKER[esi - 1], LOS_TANABE[esi - 1]
    return Stat(
        key=f"los_all_esi{esi}", label=f"ED length of stay, ESI {esi}, all visits (mean, min)",
        reference=f"{a:.0f} (NHAMCS 2011); {b:.0f} (one academic ED)", band=None,
        source=f"{HOCKER}; {TANABE}",
        why="Reported, not judged: an ICU admission's ED stay ends when it takes the ICU bed "
            "(the env's ICU is the critical-care destination), see the notes above.",
        fmt="{:.0f}")


def _admit_stat(esi: int) -> Stat:
    a = ADMIT_HOCKER[esi - 1]
    return Stat(
        key=f"admit_esi{esi}", label=f"Admitted (ICU or ward), ESI {esi} (% of visits)",
        reference=f"{a} % admitted (NHAMCS 2011)", band=(round(0.5 * a, 1), round(1.5 * a, 1)),
        source=HOCKER, why=ADMIT_WHY, if_outside=ADMIT_OUT[esi - 1], pooled=True)


STATS: tuple[Stat, ...] = (
    *(_los_stat(e) for e in range(1, 6)),
    *(_los_all_stat(e) for e in range(1, 6)),
    Stat(key="los_order",
         label="LOS ordering (visits not admitted to the ICU, all episodes pooled): ESI 2 and 3"
               " longer than ESI 4 and 5 (1 = yes); per episode: share of episodes",
         reference="2-3 longest, 4-5 shortest in both sources", band=(1.0, 1.0),
         source=f"{HOCKER}; {TANABE}",
         why="Both sources agree on the ordering (they disagree on ESI 1 vs 3).", pooled=True,
         fmt="{:.2f}"),
    *(_admit_stat(e) for e in range(1, 6)),
    Stat(key="admit_share", label="Admitted share of all visits (ICU or ward, %)",
         reference="16.3 % (NHAMCS 2019, 2nd); 11.2-21.8 % by ED size (EDBA, 2nd)",
         band=(10.0, 25.0), source=f"NHAMCS 2019 via consumerhealthratings (2nd); {EDBA}",
         why="The spread between small and large EDs (EDBA) with a margin.", checked="2nd",
         if_outside=("ICU need and ward admission by ESI (see the rows above) over the env's ESI "
                     "mix.")),
    Stat(key="icu_share", label="Critical-care admissions (% of visits)",
         reference="0.9 % (2001) -> 1.6 % (2009) of US ED visits",
         band=(1.0, 3.0),
         source="Herring AA et al., Crit Care Med 2013 (NHAMCS)",
         why="National rate 1.6 % with room for a busier-than-average single ED.",
         if_outside=("ICU need (30 % of ESI 1, 15-20 % of ESI 2 by condition, and worsening to "
                     "ESI 1) over the env's acute mix (22 % ESI 1-2) gives more critical care than"
                     " the US rate: the env compresses a day's critical events into one shift "
                     "so that triage matters.")),
    Stat(key="lwbs_pct", label="Left without being seen (% of visits)",
         reference="median hospital 2.6 % (range 0-20.3); national 1.3 % (CI 0.9-1.8)",
         band=(1.0, 5.0),
         source="Hsia RY et al., Ann Emerg Med 2011;58:24-32; Pines JM et al., Ann Emerg Med 2012",
         why="A single ED against the spread between hospitals: from the national rate to about "
             "twice the median hospital (CMS state range 1-8 %, 2nd).",
         if_outside=("ESI 4-5 patients leave after a lognormal patience of mean 4 h; the heuristic"
                     " admits by acuity and fast-tracks only those about to leave, so LWBS swings "
                     "between days (the band applies to the mean).")),
    Stat(key="d2p_median",
         label="Door-to-provider (bed), median of all visits pooled (min; 15-min ticks, "
               "the first of them in triage)",
         reference="31 (NHAMCS 2006); 35, CI 26-43 (2008-09); 14 (2019, 2nd)",
         band=(10.0, 45.0),
         source="Pitts SR et al., NHSR No. 7 (2008); Pines 2012; NHAMCS 2019 (2nd)",
         why="From the lowest recent national median to the upper CI of 2008-09 (hospital "
             "medians spread around the national one). Env resolution: 15-min ticks.",
         pooled=True, fmt="{:.1f}",
         if_outside=("One triage tick, then a bed when one is free: the median is one or two "
                     "ticks.")),
    Stat(key="d2p_over60", label="Waited >= 60 min for a bed (% of visits)",
         reference="16 % waited >= 60 min (NHAMCS 2019)", band=None,
         source="NHAMCS 2019 via consumerhealthratings (2nd)",
         why="Secondary source only: reported, not judged.", checked="2nd"),
    Stat(key="los_discharged_median", label="LOS of visits discharged home, median (min)",
         reference="131 (NHAMCS 2008-09 hospitals); 107-213 by ED size (EDBA, 2nd)",
         band=(100.0, 240.0), source=f"Pines 2012; {EDBA}",
         why="The range of hospital medians by ED size.", fmt="{:.0f}",
         if_outside=("Treatment times (4 h mean for ESI 1-3) and the day's queue: the env's "
                     "discharged patients are sicker on average than a real ED's.")),
    Stat(key="los_ward_median",
         label="LOS of ward admissions (arrival to leaving for the ward), median (min)",
         reference="admitted median 244 (NHAMCS 2008-09 hospitals); 216-386 by ED size (EDBA, "
                   "2nd)",
         band=(200.0, 400.0), source=f"Pines JM et al., Ann Emerg Med 2012; {EDBA}",
         why="From below the national admitted median to the largest EDs' median (hospital "
             "medians spread about 2x with ED size).", fmt="{:.0f}",
         if_outside="Treatment plus boarding (2.9-4.3 h means) plus the wait for a bed."),
    Stat(key="los_icu_mean", label="ED LOS of ICU admissions (door to ICU bed, mean, min)",
         reference="304 (CI 286-323), NHAMCS 2002-09 adults", band=(200.0, 400.0),
         source="Mullins PM, Goyal M, Pines JM, Acad Emerg Med 2013;20:479-486",
         why="ICU admissions wait hours in real EDs (boarding); the band is wide around 304.",
         fmt="{:.0f}",
         if_outside=("The env's ICU beds are the critical-care destination: an ICU admission's ED "
                     "stay ends when it takes one, which on normal_day is soon (real ICU "
                     "admissions board hours in the ED for a hospital ICU bed). v2 models "
                     "boarding for ward admissions only; ICU boarding would turn the env's ICU "
                     "into an ED holding area and change what the ICU decisions mean.")),
    Stat(key="esi3_share", label="ESI-3 share of visits (%)",
         reference="59.9 % level 3 (one Taiwanese ED, TTAS); US 40-55 % (K, unchecked)",
         band=(40.0, 60.0), source="Emerg Med Int 2020 (Hindawi 2059379), Table 1",
         why="The only checked mix is TTAS, not ESI; the US range is unchecked (K).",
         checked="yes (TTAS) / K (US)"),
    Stat(key="death_pct", label="Deaths (% of visits)",
         reference="~0.1-0.2 % of visits (K, unchecked)", band=None,
         source="NHAMCS disposition tables (not checked)",
         why="Commonly cited value not checked against its source: reported, not judged.",
         checked="K", fmt="{:.2f}"),
    Stat(key="censored_pct", label="Arrived before 18:00, still in the ED at 24:00 (%)",
         reference="(model artefact, no reference)", band=None, source="-",
         why="Censoring of the LOS statistics: their share.", checked="-"),
)


class Probe:
    """Tracks every patient (by ``pid``) through waiting room, beds and departure."""

    def __init__(self) -> None:
        self.patients: dict[int, dict[str, Any]] = {}
        self.present: set[int] = set()
        self.tick_min = 15.0
        self.final: Any = None

    def on_step(self, env: Any, state: Any) -> None:
        from lifeline.envs.ed.types import ICU

        self.tick_min = float(env.params.tick_minutes)
        now = set()
        for p in state.waiting:
            now.add(p.pid)
            if p.pid not in self.patients:
                self.patients[p.pid] = {"arrival": p.arrival_tick, "esi": p.true_acuity,
                                        "admit": -1, "icu": -1, "gone": -1, "ready": False,
                                        "obj": p}
        for ward in (state.general, state.icu):
            for p in ward:
                if p is None:
                    continue
                now.add(p.pid)
                rec = self.patients.get(p.pid)
                if rec is None:  # admitted within the tick it arrived (never seen waiting)
                    rec = self.patients[p.pid] = {"arrival": p.arrival_tick,
                                                  "esi": p.true_acuity, "admit": -1, "icu": -1,
                                                  "gone": -1, "ready": False, "obj": p}
                if rec["admit"] < 0:
                    rec["admit"] = p.admitted_tick if p.admitted_tick >= 0 else state.tick
                if p.location == ICU and rec["icu"] < 0:
                    rec["icu"] = state.tick
        for pid in self.present - now:
            rec = self.patients[pid]
            if rec["gone"] < 0:
                rec["gone"] = state.tick
                rec["ready"] = bool(rec["obj"].ready)
        self.present = now
        self.final = state

    def _visits(self) -> list[dict[str, Any]]:
        return list(self.patients.values())

    @staticmethod
    def icu_admission(rec: dict[str, Any]) -> bool:
        """The visit needed critical care (at the end) and reached an ICU bed."""
        return bool(rec["obj"].needs_icu) and rec["icu"] >= 0

    @staticmethod
    def ward_admission(rec: dict[str, Any]) -> bool:
        """A ward admission whose ED treatment was completed (left for the ward, or still
        boarding at the end of the shift); an early discharge of a boarder is not one."""
        p = rec["obj"]
        if not p.needs_ward:
            return False
        return bool(rec["ready"]) if rec["gone"] >= 0 else bool(p.treatment_done)

    def decided(self, rec: dict[str, Any]) -> bool:
        """The denominator of the admission shares: a visit arriving before 18:00 (like the LOS
        rows, so that a day's late arrivals, whose ICU admission is known at once but whose
        discharge is not, do not bias the shares) whose disposition is known by the end of the
        shift (it left the ED, or it is an ICU or boarding ward admission)."""
        if rec["arrival"] * self.tick_min >= 18 * 60:
            return False
        return rec["gone"] >= 0 or self.admitted(rec)

    def admitted(self, rec: dict[str, Any]) -> bool:
        """Disposition *admitted*: an ICU admission or a ward admission."""
        return self.icu_admission(rec) or self.ward_admission(rec)

    def los_minutes(self, rec: dict[str, Any], discharged_only: bool = False) -> float:
        """ED length of stay of one visit arriving before 18:00 (NaN if censored/excluded).

        An ICU admission's ED stay ends when it takes the ICU bed; every other visit's when it
        leaves its bed (home, or to the ward after boarding). ``discharged_only`` excludes ICU
        admissions (the judged rows)."""
        if rec["arrival"] * self.tick_min >= 18 * 60:
            return float("nan")
        if self.icu_admission(rec):
            if discharged_only:
                return float("nan")
            return (rec["icu"] - rec["arrival"]) * self.tick_min
        if rec["gone"] >= 0 and rec["admit"] >= 0:
            return (rec["gone"] - rec["arrival"]) * self.tick_min
        return float("nan")

    def values(self) -> dict[str, float]:
        visits = self._visits()
        n = len(visits)
        out: dict[str, float] = {}
        for e in range(1, 6):
            for key, only in ((f"los_esi{e}", True), (f"los_all_esi{e}", False)):
                xs = [x for r in visits if r["esi"] == e
                      for x in [self.los_minutes(r, only)] if not math.isnan(x)]
                out[key] = float(np.mean(xs)) if xs else float("nan")
            of = [r for r in visits if r["esi"] == e and self.decided(r)]
            out[f"admit_esi{e}"] = (100.0 * sum(self.admitted(r) for r in of) / len(of)
                                    if of else float("nan"))
        hi = [out["los_esi2"], out["los_esi3"]]
        lo = [out["los_esi4"], out["los_esi5"]]
        out["los_order"] = (float(min(hi) > max(lo))
                            if not any(math.isnan(x) for x in hi + lo) else float("nan"))
        admitted = sum(self.admitted(r) for r in visits)
        out["admit_share"] = 100.0 * admitted / n if n else float("nan")
        icu = sum(self.icu_admission(r) for r in visits)
        out["icu_share"] = 100.0 * icu / n if n else float("nan")
        c = self.final.counters
        out["lwbs_pct"] = 100.0 * c.lwbs / max(1, c.patients)
        out["death_pct"] = 100.0 * c.deaths / max(1, c.patients)
        waits = [(r["admit"] - r["arrival"]) * self.tick_min for r in visits if r["admit"] >= 0]
        out["d2p_median"] = float(np.median(waits)) if waits else float("nan")
        out["d2p_over60"] = 100.0 * sum(w >= 60 for w in waits) / len(waits) if waits else math.nan
        disch = [x for r in visits if not self.ward_admission(r)
                 for x in [self.los_minutes(r, True)] if not math.isnan(x)]
        out["los_discharged_median"] = float(np.median(disch)) if disch else float("nan")
        ward = [x for r in visits if self.ward_admission(r) and r["gone"] >= 0
                for x in [self.los_minutes(r)] if not math.isnan(x)]
        out["los_ward_median"] = float(np.median(ward)) if ward else float("nan")
        icu_los = [x for r in visits if self.icu_admission(r)
                   for x in [self.los_minutes(r)] if not math.isnan(x)]
        out["los_icu_mean"] = float(np.mean(icu_los)) if icu_los else float("nan")
        out["esi3_share"] = 100.0 * sum(r["esi"] == 3 for r in visits) / n if n else math.nan
        early = [r for r in visits if r["arrival"] * self.tick_min < 18 * 60]
        censored = sum(r["gone"] < 0 and not self.icu_admission(r) for r in early)
        out["censored_pct"] = 100.0 * censored / len(early) if early else float("nan")
        return out


def plots(probes: Iterable[Probe], out_dir: Path, scenario: str) -> list[Path]:
    """LOS by ESI (box plot with the published means) and door-to-provider distribution."""
    from lifeline.calibrate import plots as P

    probes = list(probes)
    los = {e: [x for p in probes for r in p._visits() if r["esi"] == e
               for x in [p.los_minutes(r, True)] if not math.isnan(x)] for e in range(1, 6)}
    waits = [(r["admit"] - r["arrival"]) * p.tick_min for p in probes for r in p._visits()
             if r["admit"] >= 0]
    return [
        P.box_by_group(out_dir / f"ed_{scenario}_los_by_esi.png",
                       [f"ESI {e}" for e in range(1, 6)], [los[e] for e in range(1, 6)],
                       refs={"NHAMCS 2011 (Hocker)": list(LOS_HOCKER),
                             "one academic ED (Tanabe)": list(LOS_TANABE)},
                       ylabel="ED length of stay (min)",
                       title=f"ed {scenario}: length of stay of discharged visits by true ESI "
                             "(heuristic)"),
        P.cdf(out_dir / f"ed_{scenario}_door_to_provider.png", waits,
              lines={"NHAMCS 2019 median 14 (2nd)": 14.0, "NHAMCS 2006 median 31": 31.0,
                     "NHAMCS 2008-09 median 35": 35.0},
              xlabel="door to bed (min)",
              title=f"ed {scenario}: door-to-provider CDF (heuristic)"),
    ]


def pooled(probes: Iterable[Probe]) -> dict[str, float]:
    """Door-to-provider median and the LOS ordering over every visit of every episode."""
    probes = list(probes)
    waits = [(r["admit"] - r["arrival"]) * p.tick_min for p in probes for r in p._visits()
             if r["admit"] >= 0]
    los = {e: [x for p in probes for r in p._visits() if r["esi"] == e
               for x in [p.los_minutes(r, True)] if not math.isnan(x)] for e in range(2, 6)}
    order = (float(min(np.mean(los[2]), np.mean(los[3])) > max(np.mean(los[4]), np.mean(los[5])))
             if all(los.values()) else float("nan"))
    out = {"d2p_median": float(np.median(waits)) if waits else float("nan"), "los_order": order}
    for e in range(1, 6):
        decided = [(p, r) for p in probes for r in p._visits() if r["esi"] == e and p.decided(r)]
        out[f"admit_esi{e}"] = (100.0 * sum(p.admitted(r) for p, r in decided) / len(decided)
                                if decided else float("nan"))
    return out
