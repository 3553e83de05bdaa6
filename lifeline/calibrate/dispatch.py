"""Dispatch card: response, on-scene, transport and handover intervals, call mix, arrests.

How the model maps onto the published statistics:

* **Response** = call-to-arrival: minute the call rings (``c_time``) to the first unit on scene
  (``c_first``), genuine calls only. Since v2 it includes call processing and a turn-out from a
  station, as the published call-to-arrival intervals do (v3: drawn per call, lognormal with
  medians 1.25 and 1.0 min, 90th percentiles 2.1 and 1.7 min).
  The judged median and 90th percentile leave out the calls of mass-casualty bursts
  (``c_mci``: 4-8 calls at one place within 10 min): with 4-26 ordinary calls a shift, one burst
  makes up a share of the env's calls that it never makes of a real system's responses; the
  all-call values are reported beside them. Calls still unanswered at the end of the 8-hour
  shift are censored (their share is reported).
* **On scene**: the carrying unit's scene time (its ``u_next`` when seen on scene minus the
  call's ``c_first``); **transport**: the carrying unit's trip to hospital (start to arrival);
  **handover**: arrival at hospital to release (``at_hospital`` status), which includes the
  wait for a bed (v4) and the env's +20 min at a hospital forced on divert.
* Percentiles are over all calls of all episodes pooled (a shift has only 4-26 calls).
* **Unit-hour utilisation**: the share of the staffed units' shift they spend committed to a call
  (en route, on scene, transporting, at hospital), sampled at every decision epoch (at most
  ``max_gap_min`` = 6 min apart); the denominator is the city's own units in service, so an
  off-duty crew recalled by the mass-casualty plan (v4.3) counts from the minute it is in
  service (mutual-aid units are not the city's and count in neither). Since v3
  ``dispatchr-20`` staffs 6 / 8 / 10 / 11 of its 12 unit slots on warmup / learning /
  advanced / expert (stress scenarios: 10).
* The ``8:59`` line on the CDF is the 90 % standard of many US urban ALS contracts; it is *not*
  in the checked references (treat as K); the bands below rest on NEMSIS, Mell and NFPA 1710.
* The arrest survival curve is the env's own (De Maio 2003 logistic, 2nd); the card compares it
  with Larsen 1993 (witnessed VF, no bystander CPR: 67 % - 5.5 %/min), a different population.

* v4 labels every row **[input]** (a table the env samples from and the card reads back: on-scene
  minutes, transport and arrest shares, the arrest curve), **[tuned]** (a model setting was
  chosen to hit it: the road scale of v2 for the median response; the calls per shift of each
  difficulty, raised in v4 to place the unit busy fraction in its regime, and metro's calls, set
  in v4.4 to carry the 20-node city's unit-minutes per staffed unit) or **[emergent]** (nothing
  was fitted to it: the 90th percentile under the v4 Poisson load and stochastic travel,
  transport minutes, the offload delay with conserved EMS beds, calls held, calls
  unanswered). Only the emergent rows are evidence that the model behaves like a real system.
* **Offload** (v4): the time at hospital is the wait for a free EMS bed plus the handover
  N(20, 8) min (>= 10), +20 min at a hospital forced on divert.
* **Busy fraction** (v4) is judged against the commitment-factor regime each level is meant for
  (Henrico 2016, 2nd): warmup light (< 16 %), learning sustainable (16-24 %), advanced, expert
  and the stress scenarios stressed (25-35 %); the other two regime rows read n/a.

Every number is read from the env's state by :class:`Probe` while ``closest_idle`` plays
(``POLICY``), the industry default, not the env's stronger reference ``verify_dmexclp``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from lifeline.calibrate import Stat

WANG = "Wang HE et al., Prehosp Emerg Care 2013 (NEMSIS 2010, 7.56 M responses)"
CARR = "Carr BG et al., Prehosp Emerg Care 2006;10:198-206 (meta-analysis, urban)"
MELL = "Mell HK et al., JAMA Surg 2017;152:983-984 (numbers 2nd)"
SUGGESTED = "band suggested in shared/notes/calibration-references.md §2"
HENRICO = ("Henrico County (VA) Fire unit-utilisation study 2016, as summarised in a "
           "fire-service standards-of-cover report (2nd; shared/notes §8)")
REGIME = {"warmup": "light", "learning": "sustainable"}
"""v4: the busy-fraction regime each difficulty is meant for (the others: stressed)."""
POLICY = "closest_idle"
"""The cards play closest-idle dispatch, as most services do (the figures they are judged
against come from such services), not the env's reference (``verify_dmexclp``, issue 26:
call-back of doubtful calls and DMEXCLP move-up, which lower the load the card reads)."""

STATS: tuple[Stat, ...] = (
    Stat(key="resp_median",
         label="[tuned] Call-to-arrival, median (min; genuine calls outside mass-casualty bursts)",
         reference="response median 5 (IQR 3-9) national; urban mean 7.0 (Mell); urban "
                   "trauma mean 5.25 (Carr); county median 9 (IQR 7-11, Byrne 2019)",
         band=(5.0, 9.0), source=f"{WANG}; {MELL}; {CARR}; Byrne JP et al., JAMA Surg 2019",
         why="One urban system: from the national median to the median US county (" + SUGGESTED
             + ").", pooled=True,
         if_outside=("v2's expert (26 calls, 20 % false alarms and 15 % ghosts for 6 units) "
                     "queued calls (median 9.8); v3 staffs 11 units there. Stress scenarios "
                     "(forced events on advanced's 10 units) are meant to strain the fleet.")),
    Stat(key="resp_p90",
         label="[emergent] Call-to-arrival, 90th percentile (min; genuine calls outside "
               "mass-casualty bursts)",
         reference="NFPA 1710: 90 % within ~8-9.5 min incl. processing + turn-out (2nd); "
                   "large-city p90 10-13 (K); national p75 = 9 (NEMSIS)",
         band=(8.0, 15.0), source=f"NFPA 1710 (2nd); {WANG}; {SUGGESTED}",
         why="From the NFPA 1710 ALS standard (90 % within ~8-9.5 min incl. processing and "
             "turn-out: a system meeting it has its p90 there; v1's band started at 10, which "
             "judged a compliant system too fast) to the upper end of the notes' urban band; "
             "the upper end rests on city dashboards not checked (K) and NFPA 1710 restated "
             "second-hand: treat with care.",
         checked="2nd / K", pooled=True,
         if_outside=("dispatchr-20 has 6 stations for 20 nodes: the nearest station is 2-3 "
                     "seed minutes (x1.75) from most nodes, the second nearest 8-10, so once "
                     "the nearest unit is busy (a call keeps a unit about an hour: scene, "
                     "transport, 20-min handover, drive home) the tail is 15-25 min. v2 ran "
                     "every difficulty with the seed's 6 units (p90 7.9 / 15.4 / 23.3 / 33.8 "
                     "min); v3 staffs a second unit at the busiest stations (8 / 10 / 11 units "
                     "from learning up) and draws call processing and turn-out per call. The "
                     "stress scenarios (forced events on advanced's 10 units) may leave the "
                     "band: a heatwave adds cardiac calls and a mass-casualty burst ties up "
                     "several units at once.")),
    Stat(key="resp_all_median", label="[tuned] Call-to-arrival, median (min; all genuine calls)",
         reference="as above", band=None, source=WANG,
         why="Reported beside the judged value: mass-casualty bursts included.", pooled=True),
    Stat(key="resp_all_p90",
         label="[emergent] Call-to-arrival, 90th percentile (min; all genuine calls)",
         reference="as above", band=None, source=WANG,
         why="Reported beside the judged value: mass-casualty bursts included.", pooled=True),
    Stat(key="resp_mean", label="[tuned] Call-to-arrival, mean (min)",
         reference="urban 7.0, suburban 7.7, rural 14.5 (ESO 2015)", band=None, source=MELL,
         why="Numbers from a secondary summary: reported, not judged.", checked="2nd"),
    Stat(key="resp_le_859", label="[emergent] Answered within 8:59 (% of genuine calls)",
         reference="90 % (common urban contract standard; not in the references)", band=None,
         source="(K: not checked)", why="Reported for the CDF's 8:59 line, not judged.",
         checked="K", pooled=True),
    Stat(key="scene_median", label="[input] On scene, median (min)",
         reference="14 (IQR 10-20) national; 13.4 urban trauma mean", band=(12.0, 20.0),
         source=f"{WANG}; {CARR}", why="From the urban mean to the national upper quartile ("
                                       + SUGGESTED + ").", pooled=True),
    Stat(key="transport_median", label="[emergent] Transport, median (min)",
         reference="11 (IQR 7-19) national; 10.8 urban trauma mean", band=(7.0, 19.0),
         source=f"{WANG}; {CARR}", why="The national interquartile range.", pooled=True,
         if_outside=("The metro city's six hospitals are few road minutes from most nodes "
                     "(0.8-3.9 min per road, roads not stretched in v2).")),
    Stat(key="handover_median",
         label="[emergent] Offload: at hospital incl. waiting for a bed, median (min)",
         reference="median 11 (one US ED); chest pain 21 (IQR 15-30) 2015 -> 24 (17-37) 2019 "
                   "(Victoria); NSW target 90 % within 30",
         band=(10.0, 30.0),
         source="Cooney DR et al., Int J Emerg Med 2013;6:15; Dawson LP et al., Med J Aust "
                "2022;217:253-259; Mallows JL et al., Emerg Med Australas 2025",
         why="From the lowest published median to the 30-min standard that 90 % of arrivals "
             "should meet (" + SUGGESTED + ").", pooled=True,
         if_outside=("The env draws handover from N(20, 8) min, >= 10 (v2), +20 min at a "
                     "hospital on divert.")),
    Stat(key="non_transport_pct",
         label="[input] Patients not transported (% of answered genuine calls)",
         reference="29.6 % Helsinki; 3.7-93.7 % across 67 studies; US 15-25 % (K)",
         band=(15.0, 35.0),
         source="Acta Anaesthesiol Scand 2022 (PMC9544076); Ebben RHA et al., SJTREM 2017;25:71",
         why="Around the one checked system (Helsinki) since the study range is too wide to "
             "judge (" + SUGGESTED + ").", pooled=True),
    Stat(key="arrest_pct", label="[input] Cardiac arrests (% of calls, incl. false alarms)",
         reference="555 arrests in 101,642 dispatches (0.55 %); 1-2 % of medical calls (K)",
         band=(0.5, 2.0), source="Resuscitation 2010, PMID 20638764",
         why="From the one checked metro system to the commonly cited upper value ("
             + SUGGESTED + ").", pooled=True,
         if_outside=("Cardiac calls are 15 % of calls and 5 % of them are severity 3 (arrest, v2): "
                     "0.75 % of genuine calls, diluted by false alarms and ghosts (up to 35 % of "
                     "calls) and raised by heatwaves' extra cardiac calls. Over 300 seeds the "
                     "share of all calls is 0.42 / 0.70 / 0.43 / 0.66 % on warmup / learning / "
                     "advanced / expert (v3), near the band's lower edge (the checked metro: "
                     "0.55 % of dispatches); the card's 30 shifts hold 120 calls on warmup and "
                     "686 on advanced, and no arrest among them. Kept: raising the share to "
                     "pass would lean on the unchecked 1-2 % of medical calls.")),
    Stat(key="arrest_surv", label="[input] Arrest survival, env vs Larsen at the same minutes (pp)",
         reference="Larsen: 67 % - 5.5 %/min untreated (witnessed VF)", band=(-3.0, 3.0),
         source="Larsen MP et al., Ann Emerg Med 1993;22:1652-1658",
         why="Notes suggest +-3 pp; the env's curve is De Maio's (all arrests, 2nd), so a gap "
             "is expected: different population.", pooled=True,
         if_outside=("The env uses De Maio's logistic for all arrests (33.6 % at 0 min, 2nd), the "
                     "references' Larsen line is witnessed VF (67 % at 0 min): a different "
                     "population, so the gap is expected.")),
    Stat(key="uhu_pct_light",
         label="[tuned] Unit-hour utilisation, light regime (warmup) (% of staffed time)",
         reference="< 16 % under-used (Henrico commitment-factor scale)", band=(0.0, 16.0),
         source=HENRICO, checked="2nd",
         why="warmup is the easy level by design: its busy fraction should sit below the "
             "sustainable band (n/a on the other scenarios' cards)."),
    Stat(key="uhu_pct_sustainable",
         label="[tuned] Unit-hour utilisation, sustainable regime (learning) (%)",
         reference="0.16-0.24 sustainable", band=(16.0, 24.0), source=HENRICO, checked="2nd",
         why="learning is the everyday load (n/a on the other scenarios' cards)."),
    Stat(key="uhu_pct_stressed",
         label="[tuned] Unit-hour utilisation, stressed regime (advanced, expert, events) (%)",
         reference="0.25-0.29 first-due reliability degrades; >= 0.30 not sustainable",
         band=(25.0, 35.0), source=HENRICO, checked="2nd",
         why="The issue asks the hard levels to sit where first-due coverage breaks down and "
             "move-up decides outcomes: from the degrading band to a little past the "
             "sustainable limit (n/a on the other scenarios' cards).",
         if_outside=("Tuned, not evidence (v4's calls per difficulty were raised to place it, and "
                     "v4.4 gives metro the 20-node city's unit-minutes per staffed unit, "
                     "METRO_SERVICE_RATIO = 1.14 measured). mass_casualty (an event, not a "
                     "difficulty): its burst of 4-8 calls at minute 120 held the fleet at 41.2 % "
                     "on training seeds 0-19 (68 % in minutes 120-240); the MCI plan (mci_plan: "
                     "the two off-duty crews recalled after 30 min, both mutual-aid units called "
                     "in) takes it to 35.6 %, at the band's upper edge; the commitment-factor "
                     "scale rates a sustained workload (>= 30 % not sustainable, open above), "
                     "not a one-shift surge. The load is a Poisson count with a Gamma rate "
                     "factor: one shift's busy fraction has a s.d. of 9-12 points, so a card's "
                     "mean moves by about 2 points between seed sets.")),
    Stat(key="held_pct", label="[emergent] Calls held: rang with no unit free (% of genuine "
                               "calls)",
         reference="(no checked reference)", band=None, source="-",
         why="The share of calls that queue for lack of a unit: reported so the load can be "
             "judged beside the busy fraction.", checked="-"),
    Stat(key="offload_wait_pct",
         label="[emergent] Transports that waited for a free EMS bed (%)",
         reference="NSW target 90 % offloaded within 30 min, achieved 60.8-64.1 % (Nepean 2022)",
         band=None, source="Mallows JL et al., Emerg Med Australas 2025",
         why="Reported (v4: beds are a real capacity); the judged offload row is the median "
             "above.", checked="yes"),
    Stat(key="offload_le_30_pct",
         label="[emergent] Offloaded within 30 min of arrival (% of transports)",
         reference="NSW target 90 %; achieved 60.8-64.1 % (Nepean 2022)", band=(60.0, 95.0),
         source="Mallows JL et al., Emerg Med Australas 2025", pooled=True,
         why="From the attainment one checked hospital reached to a little past the 90 % "
             "target.",
         if_outside="Handover is N(20, 8) min (>= 10) plus the wait for a bed; with few EMS "
                    "beds (the 20-node city has 10) a busy shift queues crews."),
    Stat(key="unanswered_pct",
         label="[emergent] Genuine calls unanswered at the end of the shift (%)",
         reference="(model artefact, no reference)", band=None, source="-",
         why="Censoring of the response statistics: their share.", checked="-"),
)


class Probe:
    """Reads calls and unit statuses at every decision epoch."""

    def __init__(self) -> None:
        self.scene: dict[int, float] = {}
        self.transport: dict[int, tuple[float, float]] = {}
        self.handover: dict[int, float] = {}
        self.final: Any = None
        self.shift = 480.0
        self.busy_min = 0.0
        """Unit-minutes the staffed units spent committed to calls (sampled at each epoch)."""
        self.staffed_min = 0.0
        """Unit-minutes of the city's own units in service (v4.3: off-duty crews recalled by
        the mass-casualty plan count from the minute they are in service)."""
        self._last: tuple[float, int] | None = None
        self._in_service = 0
        self.staffed = 0
        self.regime = "stressed"

    def on_step(self, env: Any, state: Any) -> None:
        from lifeline.envs.dispatch.types import (
            AID_INBOUND,
            AT_HOSPITAL,
            EN_ROUTE,
            INACTIVE,
            ON_SCENE,
            REAL,
            STATUS_NAMES,
            TRANSPORTING,
        )

        committed = np.isin(np.arange(len(STATUS_NAMES)),
                            (EN_ROUTE, ON_SCENE, TRANSPORTING, AT_HOSPITAL))
        self.shift = float(env.params.shift_min)
        self.regime = REGIME.get(str(env.scenario).removeprefix("metro_"), "stressed")
        s = state
        self.staffed = int(env.params.on_duty)
        if self._last is not None:
            t0, n_busy = self._last
            self.busy_min += n_busy * (min(float(s.t), self.shift) - t0)
            self.staffed_min += self._in_service * (min(float(s.t), self.shift) - t0)
        own = s.u_status[:env.ctx.n_fleet]
        self._last = (min(float(s.t), self.shift), int(np.count_nonzero(committed[own])))
        self._in_service = int(np.count_nonzero((own != INACTIVE) & (own != AID_INBOUND)))
        for u in np.flatnonzero(s.u_carrier):
            c = int(s.u_call[u])
            if c < 0 or s.c_kind[c] != REAL:
                continue
            st = int(s.u_status[u])
            if st == ON_SCENE:
                self.scene[c] = float(s.u_next[u] - s.c_first[c])
            elif st == TRANSPORTING:
                self.transport[c] = (float(s.u_tstart[u]), float(s.u_next[u]))
            elif st == AT_HOSPITAL and c in self.transport:
                self.handover[c] = float(s.u_next[u]) - self.transport[c][1]
        self.final = s

    def responses(self, ordinary: bool = True) -> np.ndarray:
        """Call-to-arrival minutes of the answered genuine calls; ``ordinary``: without the
        calls of mass-casualty bursts (``c_mci``)."""
        from lifeline.envs.dispatch.types import REAL

        s = self.final
        real = (s.c_kind == REAL) & (s.c_time < self.shift)
        if ordinary:
            real &= ~s.c_mci
        first = s.c_first[real]
        return np.asarray(first[np.isfinite(first)] - s.c_time[real][np.isfinite(first)])

    def arrests(self) -> list[tuple[float, float]]:
        """(response minutes, env survival probability) of every answered arrest."""
        from lifeline.envs.dispatch.params import CARDIAC
        from lifeline.envs.dispatch.types import REAL

        s = self.final
        out = []
        for c in range(len(s.c_time)):
            if (s.c_kind[c] == REAL and s.c_type[c] == CARDIAC and s.c_sev[c] == 3
                    and np.isfinite(s.c_first[c]) and np.isfinite(s.c_outcome[c])):
                out.append((float(s.c_first[c] - s.c_time[c]), float(s.c_outcome[c])))
        return out

    def n_calls(self) -> tuple[int, int]:
        from lifeline.envs.dispatch.params import CARDIAC

        s = self.final
        inside = s.c_time < self.shift
        return int(inside.sum()), int((inside & (s.c_type == CARDIAC) & (s.c_sev == 3)).sum())

    def values(self) -> dict[str, float]:
        from lifeline.envs.dispatch.types import REAL

        s = self.final
        r = self.responses()
        out: dict[str, float] = {}
        if r.size:
            out["resp_median"] = float(np.median(r))
            out["resp_p90"] = float(np.percentile(r, 90))
            out["resp_mean"] = float(r.mean())
            out["resp_le_859"] = 100.0 * float(np.mean(r <= 8 + 59 / 60))
        r_all = self.responses(ordinary=False)
        if r_all.size:
            out["resp_all_median"] = float(np.median(r_all))
            out["resp_all_p90"] = float(np.percentile(r_all, 90))
        for key, xs in (("scene_median", list(self.scene.values())),
                        ("transport_median", [b - a for a, b in self.transport.values()]),
                        ("handover_median", list(self.handover.values()))):
            if xs:
                out[key] = float(np.median(xs))
        real = (s.c_kind == REAL) & (s.c_time < self.shift)
        answered = real & np.isfinite(s.c_first)
        if answered.any():
            out["non_transport_pct"] = 100.0 * float(np.mean(~s.c_transport[answered]))
        n, arrests = self.n_calls()
        out["arrest_pct"] = 100.0 * arrests / n if n else float("nan")
        if self.staffed_min > 0:
            out["uhu_pct"] = 100.0 * self.busy_min / self.staffed_min
            out[f"uhu_pct_{self.regime}"] = out["uhu_pct"]
        if real.any():
            out["held_pct"] = 100.0 * float(np.mean(s.c_held[real]))
        delivered = real & np.isfinite(s.c_outcome) & s.c_transport
        if delivered.any():
            out["offload_wait_pct"] = 100.0 * float(np.mean(s.c_wait[delivered] > 0))
        out["unanswered_pct"] = (100.0 * float(np.mean(~np.isfinite(s.c_first[real])))
                                 if real.any() else float("nan"))
        return out


def larsen(minutes: float) -> float:
    """Larsen 1993 survival of witnessed VF with every intervention at ``minutes`` (0..1)."""
    return max(0.0, 0.67 - 0.055 * minutes)


def pooled(probes: Iterable[Probe]) -> dict[str, float]:
    """Percentiles over every call of every episode."""
    probes = list(probes)
    r = np.concatenate([p.responses() for p in probes]) if probes else np.zeros(0)
    out: dict[str, float] = {}
    if r.size:
        out["resp_median"] = float(np.median(r))
        out["resp_p90"] = float(np.percentile(r, 90))
        out["resp_le_859"] = 100.0 * float(np.mean(r <= 8 + 59 / 60))
    r_all = (np.concatenate([p.responses(ordinary=False) for p in probes]) if probes
             else np.zeros(0))
    if r_all.size:
        out["resp_all_median"] = float(np.median(r_all))
        out["resp_all_p90"] = float(np.percentile(r_all, 90))
    for key, get in (("scene_median", lambda p: list(p.scene.values())),
                     ("transport_median", lambda p: [b - a for a, b in p.transport.values()]),
                     ("handover_median", lambda p: list(p.handover.values()))):
        xs = [x for p in probes for x in get(p)]
        out[key] = float(np.median(xs)) if xs else float("nan")
    from lifeline.envs.dispatch.types import REAL

    answered = [(p.final.c_kind == REAL) & (p.final.c_time < p.shift)
                & np.isfinite(p.final.c_first) for p in probes]
    carried = sum(int((a & p.final.c_transport).sum()) for a, p in zip(answered, probes,
                                                                           strict=True))
    n_answered = sum(int(a.sum()) for a in answered)
    out["non_transport_pct"] = (100.0 * (1.0 - carried / n_answered) if n_answered
                                else float("nan"))
    calls = [p.n_calls() for p in probes]
    total = sum(n for n, _ in calls)
    out["arrest_pct"] = 100.0 * sum(a for _, a in calls) / total if total else float("nan")
    arr = [a for p in probes for a in p.arrests()]
    out["arrest_surv"] = (100.0 * float(np.mean([v - larsen(t) for t, v in arr]))
                          if arr else float("nan"))
    off = [x for p in probes for x in p.handover.values()]
    out["offload_le_30_pct"] = 100.0 * float(np.mean(np.asarray(off) <= 30.0)) if off \
        else float("nan")
    return out


def plots(probes: Iterable[Probe], out_dir: Path, scenario: str) -> list[Path]:
    """Response-time CDF with the 8:59 line; arrest survival vs response with Larsen's line."""
    from lifeline.calibrate import plots as P

    probes = list(probes)
    r = np.concatenate([p.responses() for p in probes]) if probes else np.zeros(0)
    arr = sorted(a for p in probes for a in p.arrests())
    xs = np.linspace(0, 20, 41)
    env_curve = [100.0 / (1.0 + math.exp(0.679 + 0.262 * x)) for x in xs]
    paths = [P.cdf(out_dir / f"dispatch_{scenario}_response_cdf.png", list(r),
                   lines={"8:59 (urban contract standard, K)": 8 + 59 / 60,
                          "NEMSIS 2010 median 5": 5.0},
                   xlabel="call to first unit on scene (min)",
                   title=f"dispatch {scenario}: response-time CDF (closest_idle)")]
    paths.append(P.curve(
        out_dir / f"dispatch_{scenario}_arrest_survival.png",
        {"Larsen 1993 (witnessed VF, no bystander CPR)": (list(xs),
                                                         [100 * larsen(x) for x in xs]),
         "De Maio 2003 logistic (the curve the env cites, 2nd)": (list(xs), env_curve)},
        xlabel="minutes from call to first unit", ylabel="survival (%)",
        title=f"dispatch {scenario}: arrest survival vs response ({len(arr)} simulated arrests)",
        points=([t for t, _ in arr], [100 * v for _, v in arr]) if arr else None,
        point_label="simulated arrests (env outcome)"))
    return paths
