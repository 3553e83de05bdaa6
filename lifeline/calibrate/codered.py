"""Code-red card: door-to-needle (stroke) and door-to-balloon (cardiac) times.

How the model maps onto the published statistics:

* **Door** = the minute the patient reaches the hospital (``Patient.arrived``); **needle** /
  **balloon** = the minute definitive treatment starts (``Patient.treated_at``), read from the
  env's state at the end of each episode while the reference ``heuristic`` plays. Stroke patients
  give door-to-needle, cardiac patients door-to-balloon (the env's treatment stands for tPA and
  primary PCI respectively).
* A task has only one to a few such patients, so medians and shares are over all episodes
  pooled. Patients who die or are never treated are not in these statistics (their count is).
* The references are programme or registry medians over hundreds of hospitals; a single
  simulated network is compared with their spread (interquartile ranges), not the point value.
* Since CodeRed-v2 each cardiac / stroke patient has an in-hospital work-up (ED assessment, ECG /
  CT, decision) drawn log-normal from these same references (Krumholz 2011: median 64, 91.4 %
  within 90 min; Fonarow 2014: median 67, IQR 51-87), before which treatment cannot start; a
  hospital that was not pre-alerted activates its OR / specialist only after it. The card
  therefore checks that the draws survive the whole pipeline (OR and specialist waits, deaths
  during the work-up) rather than validating the work-up independently. task1 has one patient
  per episode, so its card pools 100 episodes (the pooled median of 30 has a sampling error of
  about 4 min, the size of the gap between the reference median and the band's lower edge): on
  the first 30 held-out seeds alone the door-to-balloon median is 58 min, outside the band, because
  those seeds' work-up draws happen to be low (their median is 0.41 standard deviations below the
  distribution's); on 100 seeds it is 61.
* **Survival points per 10 in-hospital minutes** (v2 calibration): for each treated cardiac /
  stroke patient, the survival the env's own formula (``SURVIVAL_SLOPE`` × vitals lost) charges
  between the door of the capable hospital that treats them (``Patient.vitals_door``, read at
  arrival) and treatment (``Patient.vitals_at``), pooled as Σ points / Σ minutes × 10. The
  references are the published time-outcome gradients: Rathore 2009's unadjusted 1-year mortality
  by door-to-balloon time (+14.4 points from 30 to 180 min) and Saver 2013's in-hospital death OR
  0.96 per 15 min onset-to-treatment at 8.8 % mortality (+0.22 points per 10 min). They apply to
  in-hospital minutes only: the env's pre-hospital deterioration is a separate, uncalibrated model.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from lifeline.calibrate import Stat

SUGGESTED = "band suggested in shared/notes/calibration-references.md §3"
OUTSIDE = ("The work-up is drawn from the reference distribution (median 64 / 67 min); a pooled "
           "median of a few dozen patients falls a few minutes either side of it by chance, and "
           "OR / specialist waits add to it.")

OVERCROWDED_FACTOR = ("The env charges 1.5x the sourced rate while a hospital is overcrowded "
                      "(more than 3 patients in its emergency area; an unsourced mechanic kept "
                      "from v0).")
"""Why an in-hospital slope can leave its band (both slopes)."""

STATS: tuple[Stat, ...] = (
    Stat(key="dtn_median", label="Door-to-needle, stroke, median (min)",
         reference="67 (IQR 51-87) in 2010-13; 77 (60-98) in 2003-09",
         band=(40.0, 70.0), source="Fonarow GC et al., JAMA 2014;311:1632-1640",
         why="A hospital meeting the AHA goal (<= 60 min for >= 50 %) up to the Target: Stroke "
             "median (" + SUGGESTED + ").", pooled=True, fmt="{:.0f}",
         if_outside=OUTSIDE),
    Stat(key="dtn_le60", label="Door-to-needle <= 60 min (% of stroke patients)",
         reference="41.3 % (2010-13), 26.5 % (2003-09); goal >= 50 % (AHA, 2nd)",
         band=(26.5, 100.0), source="Fonarow 2014; AHA/ASA guideline (2nd)",
         why="At least the pre-programme national share.", pooled=True, fmt="{:.0f}"),
    Stat(key="d2b_median", label="Door-to-balloon, cardiac, median (min)",
         reference="64 (US, 2010); 96 (2005); 96 (IQR 69-140) GWTG 2002-06",
         band=(60.0, 90.0),
         source="Krumholz HM et al., Circulation 2011;124:1038-1045; Mehta RH et al. (GWTG-CAD)",
         why="From the 2010 national median to the 90-min ACC/AHA target (" + SUGGESTED + ").",
         pooled=True, fmt="{:.0f}",
         if_outside=OUTSIDE),
    Stat(key="d2b_le90", label="Door-to-balloon <= 90 min (% of cardiac patients)",
         reference="91.4 % (2010); 44.2 % (2005); D2B Alliance aim >= 75 %",
         band=(75.0, 100.0), source="Krumholz 2011; D2B Alliance (JACC 2010)",
         why="The D2B Alliance aim; 2010 US hospitals reached 91 %.", pooled=True,
         fmt="{:.0f}"),
    Stat(key="inhosp_cardiac", label="Survival lost per 10 in-hospital min before treatment, "
                                     "cardiac (points)",
         reference="1-yr mortality by D2B 30/60/90/120/150/180 min: 10.9/13.6/16.5/19.5/22.5/"
                   "25.3 % (unadjusted): 0.96 points per 10 min",
         band=(0.90, 1.00), source="Rathore SS et al., Am J Cardiol 2009;104:1198",
         why="The source's own range of slopes over its five 30-min D2B intervals (0.90-1.00 "
             "points per 10 min); the relation is unadjusted (sicker patients wait longer), so a "
             "faithful model should not charge more.", pooled=True, fmt="{:.2f}",
         if_outside=OVERCROWDED_FACTOR),
    Stat(key="inhosp_stroke", label="Survival lost per 10 in-hospital min before treatment, "
                                    "stroke (points)",
         reference="in-hospital death OR 0.96 per 15 min earlier onset-to-treatment; mortality "
                   "8.8 %: 0.22 points per 10 min",
         band=(0.19, 0.25), source="Saver JL et al., JAMA 2013;309:2480-2488",
         why="The published OR rounded to two decimals (0.955-0.965) at 8.8 % mortality gives "
             "0.19-0.25 points per 10 min.", pooled=True, fmt="{:.2f}",
         if_outside=OVERCROWDED_FACTOR),
    Stat(key="n_stroke", label="Treated stroke patients (all episodes)",
         reference="-", band=None, source="-", why="Sample size of the stroke rows.",
         checked="-", pooled=True, fmt="{:.0f}"),
    Stat(key="n_cardiac", label="Treated cardiac patients (all episodes)",
         reference="-", band=None, source="-", why="Sample size of the cardiac rows.",
         checked="-", pooled=True, fmt="{:.0f}"),
    Stat(key="untreated_pct", label="Stroke/cardiac patients dead or untreated at the end (%)",
         reference="-", band=None, source="-",
         why="Patients missing from the time statistics.", checked="-"),
)


class Probe:
    """Keeps the last state; the times are final once a patient is treated."""

    def __init__(self) -> None:
        self.final: Any = None

    def on_step(self, env: Any, state: Any) -> None:
        self.final = state

    def times(self, cond: int) -> list[float]:
        from lifeline.envs.codered.types import TREATED

        return [p.treated_at - p.arrived for p in self.final.patients
                if p.cond == cond and p.status == TREATED and p.arrived >= 0]

    def losses(self, cond: int) -> tuple[float, float]:
        """(survival points lost, minutes) between the treating hospital's door and treatment,
        summed over this episode's treated patients of condition ``cond``."""
        from lifeline.envs.codered.params import SURVIVAL_SLOPE
        from lifeline.envs.codered.types import TREATED

        pts = [p for p in self.final.patients if p.cond == cond and p.status == TREATED
               and p.vitals_door >= 0.0]
        lost = sum(100.0 * SURVIVAL_SLOPE[cond] * (p.vitals_door - p.vitals_at) for p in pts)
        return lost, sum(p.treated_at - p.arrived for p in pts)

    def values(self) -> dict[str, float]:
        from lifeline.envs.codered.params import CARDIAC, STROKE
        from lifeline.envs.codered.types import TREATED

        pts = [p for p in self.final.patients if p.cond in (CARDIAC, STROKE)
               and (p.onset <= self.final.t)]
        lost = sum(p.status != TREATED for p in pts)
        return {"untreated_pct": 100.0 * lost / len(pts) if pts else float("nan")}


def pooled(probes: Iterable[Probe]) -> dict[str, float]:
    """Medians and target shares over every episode's treated patients."""
    from lifeline.envs.codered.params import CARDIAC, STROKE

    probes = list(probes)
    dtn = np.asarray([x for p in probes for x in p.times(STROKE)])
    d2b = np.asarray([x for p in probes for x in p.times(CARDIAC)])
    nan = float("nan")
    slope = {}
    for key, cond in (("inhosp_cardiac", CARDIAC), ("inhosp_stroke", STROKE)):
        lost, minutes = (sum(x) for x in zip(*(p.losses(cond) for p in probes), strict=True))
        slope[key] = 10.0 * lost / minutes if minutes > 0 else nan
    return {
        "dtn_median": float(np.median(dtn)) if dtn.size else nan,
        "dtn_le60": 100.0 * float(np.mean(dtn <= 60)) if dtn.size else nan,
        "d2b_median": float(np.median(d2b)) if d2b.size else nan,
        "d2b_le90": 100.0 * float(np.mean(d2b <= 90)) if d2b.size else nan,
        "n_stroke": float(dtn.size), "n_cardiac": float(d2b.size), **slope,
    }
