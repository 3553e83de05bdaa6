"""EV-grid card: workplace sessions against ACN-Data, fast-charge sessions, arrivals by hour.

How the model maps onto the published statistics:

* **Workplace sessions** are the env's ``workplace`` dwell persona (plugged in at a 6.6 kW site
  charger, as Caltech's L2 EVSEs; v2 parameters from ACN-Data: arrival ~08 h, ~6 h stay, plug-in
  at 40-80 % SoC, i.e. ~13 kWh towards 90 %).
  Energy = ``ev_delivered`` at the end; plugged hours = departure minus plug-in, clipped to the
  episode; charging hours = ticks in which the EV's delivered energy grew (read every tick);
  idle share = 1 - charging / plugged. The ACN figures are from Caltech/JPL (California), not
  Bangalore: the card checks the env's workplace persona against the data it cites, nothing more.
* **Fast-charge sessions** are walk-ups served at 50/150 kW stations: charging minutes
  (``ev_end - ev_start``) and kWh delivered, against public DCFC data (Lafayette IN; Brisbane CA).
  Both ends lie on the env's clock: a walk-up plugs in when it reaches the station, its energy
  counts from the next tick and it leaves at the end of the tick in which its need is met, so on
  ``baseline``'s 15-min ticks the minutes cluster at ~28 (one tick of charging) and ~43 (two); the
  median is ~28 because about 60 % of v2's top-ups (~11 kWh) fit in one tick at 50 kW.
* **Prices** are reported next to BESCOM's tariffs but not judged: the env builds its prices from
  those same numbers, so agreement would prove nothing.
* v3 labels every statistic: **input** (restates a sampled parameter: agreement proves only that
  the sampler works), **emergent from inputs** (follows arithmetically from inputs), **emergent**
  (what the loads, the thermal model and the policy make: the only evidence). The feeder
  statistics are emergent: peak loading per unit of the transformer rating (judged against the
  reported 30-40 % overloads of Indian distribution transformers, a secondary source), the
  hours above 0.9 pu, the transformer-hours above the 120 °C hot-spot limit and the highest
  hot-spot (IEC 60076-7), and the share of walk-ups charging within 15 min.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from lifeline.calibrate import Stat

ACN = ("ACN-Data (Lee, Li, Low) via evprof california.md (30,114 sessions); Caltech 2019-20 "
       "derived from a public copy (4,087 sessions)")
SUGGESTED = "band suggested in shared/notes/calibration-references.md §5"
WORKPLACE = 5

STATS: tuple[Stat, ...] = (
    Stat(key="wp_energy", label="[input] Workplace session energy, mean (kWh)",
         reference="14.68 (ACN all sessions); 8.2 mean / 5.6 median (Caltech pre-COVID)",
         band=(6.0, 15.0), source=ACN,
         why="Between the Caltech and the all-site ACN means (" + SUGGESTED + ").",
         checked="yes / yes (derived)",
         if_outside=("v1's workplace persona plugged in at 15-50 % SoC and asked ~25 kWh; v2 "
                     "plugs in at 40-80 % (~13 kWh).")),
    Stat(key="wp_plugged", label="[input] Workplace plugged-in time, mean (h)",
         reference="6.89 (ACN); 5.6 mean / 5.4 median (Caltech pre-COVID); worktime "
                   "cluster 8.9-9.75", band=(5.0, 9.0), source=ACN,
         why="From the Caltech median to the worktime cluster (" + SUGGESTED + ").",
         checked="yes / yes (derived)"),
    Stat(key="wp_charging", label="[emergent from inputs] Workplace charging time, mean (h)",
         reference="4.06 (ACN); 2.8 mean / 2.0 median (Caltech pre-COVID)", band=(2.0, 4.0),
         source=ACN, why="Caltech median to the ACN mean (" + SUGGESTED + ").",
         checked="yes / yes (derived)",
         if_outside='Follows from the energy per session and the 6.6 kW site chargers.'),
    Stat(key="wp_idle", label="[emergent from inputs] Workplace idle share of plugged time (%)",
         reference="~41 % (ACN means); ~49 % (Caltech)", band=(35.0, 55.0), source=ACN,
         why="Around both published values (" + SUGGESTED + ").",
         checked="yes / yes (derived)"),
    Stat(key="wp_peak3h", label="[input] Workplace arrivals in their busiest 3-hour window (%)",
         reference="58 % of weekday arrivals 08-10 h (Caltech); worktime arrivals ~06:33-07:19",
         band=(50.0, 100.0), source=ACN,
         why="A workday arrival peak concentrates at least half of arrivals in 3 h ("
             + SUGGESTED + ").", checked="yes (derived)"),
    Stat(key="fast_minutes", label="[emergent] Fast/ultra walk-up charging time, median (min)",
         reference="median 28-36 (50-350 kW, Lafayette IN); mean 29.5 (Brisbane CA DCFC)",
         band=(25.0, 40.0),
         source="Mahlberg JA et al., World Electr Veh J 2023;14:308; City of Brisbane CA 2018",
         why="Public DCFC dwell in the two checked sources (" + SUGGESTED + ").",
         pooled=True,
         if_outside=("v2 walk-ups request at 40-70 % SoC and charge to 80 % of 30-60 kWh "
                     "batteries (v1: 8-40 %, ~24 kWh, ~43 min); the minutes are quantised by the "
                     "15-min tick (see the model mapping).")),
    Stat(key="fast_kwh", label="[input] Fast/ultra walk-up energy, median (kWh)",
         reference="~12.9 kWh per session (Brisbane CA, ratio computed)", band=(10.0, 20.0),
         source="City of Brisbane CA 2018 (ratio computed)",
         why="One checked public DCFC around 13 kWh (" + SUGGESTED + ").", pooled=True,
         if_outside='As for the fast-charge minutes.'),
    Stat(key="price", label="[input] Price paid, mean (INR/kWh)",
         reference="BESCOM public stations 2023: AC 7.62, DC 8.31 (2nd); MoP ToD 0.7x/1.3x",
         band=None, source="Moneycontrol 2023 (2nd); MoP EV charging guidelines 2024 (2nd)",
         why="The env's prices are built from these numbers: reported, not judged.",
         checked="2nd", fmt="{:.2f}"),
    Stat(key="peak_ratio", label="[emergent] Highest feeder loading (x transformer rating)",
         reference="Indian distribution transformers 'often 30-40 % overloaded'; IEC 60076-7 "
                   "normal cyclic loading up to 1.5 pu", band=(1.0, 1.4),
         source="International Copper Association India (2nd); IEC 60076-7:2018 Table 4",
         why="v3: every load draws power; the peak is what the loads and the policy make of "
             "the ratings (1.0: the evening peak reaches the rating; 1.4: the reported 30-40 % "
             "overloads).", checked="2nd", fmt="{:.2f}"),
    Stat(key="peak_hours", label="[emergent] Hours a day the busiest feeder is above 0.9 pu",
         reference="no published duration for Bangalore feeders in the references",
         band=None, source="-", why="Reported, not judged (no reference).", fmt="{:.1f}"),
    Stat(key="hot_hours", label="[emergent] Transformer-hours with the hot-spot above 120 °C",
         reference="IEC 60076-7 normal cyclic limit 120 °C; no published count of hours",
         band=None, source="IEC 60076-7:2018 Table 4",
         why="Reported, not judged (run the card with --scenario heatwave_peak for the heat).",
         fmt="{:.2f}"),
    Stat(key="hot_spot_max", label="[emergent] Highest transformer hot-spot (°C)",
         reference="IEC 60076-7: 98 °C at rated load and 20 °C ambient; 120 °C normal cyclic "
                   "limit; 140 °C long-time emergency", band=(80.0, 140.0),
         source="IEC 60076-7:2018 Tables 4-5",
         why="A loaded feeder's transformer runs between its rated-load value and the "
             "emergency limit.", checked="yes", fmt="{:.1f}"),
    Stat(key="walkup_15", label="[emergent] Walk-ups charging within 15 min of asking (%)",
         reference="no published wait distribution for Bangalore public chargers",
         band=None, source="-", why="Reported, not judged (no reference).", fmt="{:.1f}"),
)


class Probe:
    """Reads every EV's energy at each tick (to tell charging from idle plugged time)."""

    def __init__(self) -> None:
        self.pu: list[np.ndarray] = []
        self.hot: list[np.ndarray] = []
        self.tick = -1
        self.last: np.ndarray | None = None
        self.charging_min: np.ndarray | None = None
        self.final: Any = None
        self.ctx: Any = None

    def on_step(self, env: Any, state: Any) -> None:
        self.ctx = env.ctx
        self.final = state
        if state.tick == self.tick:
            return
        if state.tick > 0:
            self.pu.append(np.asarray(state.last_load) / env.ctx.zone_cap)
            self.hot.append(np.asarray(state.top_oil + state.hs_rise))
        delivered = np.asarray(state.ev_delivered, dtype=float).copy()
        if self.charging_min is None or self.last is None:
            self.charging_min = np.zeros_like(delivered)
        elif self.last.shape == delivered.shape:
            grew = delivered > self.last + 1e-9
            self.charging_min[grew] += env.params.tick_min * (state.tick - self.tick)
        self.last, self.tick = delivered, state.tick

    def _workplace(self) -> np.ndarray:
        s = self.final
        return np.flatnonzero((s.ev_persona == WORKPLACE) & (s.ev_arrive < s.t))

    def arrival_hours(self, persona: int | None = None) -> np.ndarray:
        """Hour of day of every EV's request / plug-in within the episode."""
        s, p = self.final, self.ctx.p
        inside = (s.ev_arrive >= 0) & (s.ev_arrive < s.t)
        if persona is not None:
            inside &= s.ev_persona == persona
        return np.asarray((p.start_hour + s.ev_arrive[inside] / 60.0) % 24.0)

    def fast(self) -> tuple[np.ndarray, np.ndarray]:
        """(charging minutes, kWh) of walk-ups served at fast/ultra stations."""
        from lifeline.envs.evgrid.types import DONE

        s = self.final
        st = np.asarray(s.ev_station)
        served = ((s.ev_persona < WORKPLACE) & (s.ev_status == DONE) & (st >= 0)
                  & np.isfinite(s.ev_start) & np.isfinite(s.ev_end))
        served[served] &= self.ctx.st_type[st[served]] >= 1
        return (np.asarray(s.ev_end[served] - s.ev_start[served]),
                np.asarray(s.ev_delivered[served]))

    def values(self) -> dict[str, float]:
        s = self.final
        wp = self._workplace()
        out: dict[str, float] = {"peak_ratio": float(s.peak_ratio),
                                 "hot_spot_max": float(s.peak_hotspot)}
        dt_h = self.ctx.p.tick_min / 60.0
        if self.pu:
            pu, hot = np.array(self.pu), np.array(self.hot)
            days = max(s.t / 1440.0, 1e-9)
            out["peak_hours"] = float((pu > 0.9).sum(axis=0).max()) * dt_h / days
            out["hot_hours"] = float((hot > self.ctx.p.hotspot_limit_c).sum()) * dt_h
        walk = np.flatnonzero((s.ev_persona < WORKPLACE) & (s.ev_arrive < s.t))
        if walk.size:
            wait = s.ev_start[walk] - s.ev_arrive[walk]
            out["walkup_15"] = 100.0 * float(np.mean(wait <= 15.0))
        if wp.size and self.charging_min is not None:
            start = np.maximum(s.ev_arrive[wp], 0.0)
            end = np.minimum(s.ev_depart[wp], s.t)
            plugged = np.maximum(end - start, 1e-9) / 60.0
            charging = self.charging_min[wp] / 60.0
            out["wp_energy"] = float(np.mean(s.ev_delivered[wp]))
            out["wp_plugged"] = float(np.mean(plugged))
            out["wp_charging"] = float(np.mean(charging))
            out["wp_idle"] = 100.0 * float(1.0 - charging.sum() / plugged.sum())
            hours = self.arrival_hours(WORKPLACE).astype(int)
            counts = np.bincount(hours, minlength=24)
            window = [counts[[(h + k) % 24 for k in range(3)]].sum() for h in range(24)]
            out["wp_peak3h"] = 100.0 * max(window) / max(1, counts.sum())
        e = s.ev_delivered > 0
        if e.any():
            out["price"] = float(s.ev_cost[e].sum() / s.ev_delivered[e].sum())
        return out


def pooled(probes: Iterable[Probe]) -> dict[str, float]:
    """Medians of fast-charge sessions over every episode."""
    probes = list(probes)
    mins = np.concatenate([p.fast()[0] for p in probes])
    kwh = np.concatenate([p.fast()[1] for p in probes])
    nan = float("nan")
    return {"fast_minutes": float(np.median(mins)) if mins.size else nan,
            "fast_kwh": float(np.median(kwh)) if kwh.size else nan}


def plots(probes: Iterable[Probe], out_dir: Path, scenario: str) -> list[Path]:
    """Arrivals by hour of day (workplace and walk-ups) with the Caltech 08-10 h peak marked."""
    from lifeline.calibrate import plots as P

    probes = list(probes)
    n = max(1, len(probes))
    hours = np.arange(24)
    wp = np.bincount(np.concatenate([p.arrival_hours(WORKPLACE) for p in probes]).astype(int),
                     minlength=24)[:24] / n
    allh = np.bincount(np.concatenate([p.arrival_hours() for p in probes]).astype(int),
                       minlength=24)[:24] / n
    return [P.curve(out_dir / f"evgrid_{scenario}_arrivals_by_hour.png",
                    {"all EVs (per episode)": (list(hours), list(allh))},
                    xlabel="hour of day", ylabel="arrivals per episode",
                    title=f"evgrid {scenario}: arrivals by hour (greedy); bars = workplace "
                          "plug-ins (Caltech: 58 % at 08-10 h)",
                    bars=(list(hours), list(wp)), bar_label="workplace plug-ins")]
