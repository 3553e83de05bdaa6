"""Text view of what the dispatcher may observe (also the LLM observation)."""

from __future__ import annotations

import numpy as np

from lifeline.envs.evgrid.context import Context
from lifeline.envs.evgrid.observation import observe
from lifeline.envs.evgrid.params import PERSONAS, STATIONS, ZONES
from lifeline.envs.evgrid.types import EVGridState


def _clock(hour: float) -> str:
    h = hour % 24.0
    return f"{int(h):02d}:{round((h % 1) * 60) % 60:02d}"


def render_text(s: EVGridState, ctx: Context) -> str:
    """Clock and prices, pending EVs, stations (reported), feeders and forecasts."""
    p = ctx.p
    obs = observe(s, ctx)
    c = obs["clock"].tolist()
    lines = [f"EV GRID Bangalore | {_clock(c[2])} | t={c[0]:.0f}/{p.horizon_min:.0f} min | "
             f"price x{c[3]:.2f} | renewables {c[4]:.0%} | decisions left this tick "
             f"{int(c[6])} | pending EVs {int(c[7])}"]
    if s.last_events:
        lines.append("EVENTS: " + "; ".join(s.last_events))
    lines.append("PENDING EVs (slot: persona, soc, kWh needed, waited, urgency, nearest "
                 "stations in range):")
    evs, travel = obs["evs"], obs["travel"]
    shown = False
    for k in range(ctx.K):
        if evs[k, 0] <= 0:
            continue
        shown = True
        e = evs[k].tolist()
        persona = PERSONAS[int(e[1])]
        if e[2] > 0:
            site = int(e[10]) - 1
            lines.append(f"  [{k}] {persona} plugged in at {STATIONS[site][0]} "
                         f"({STATIONS[site][1]}), soc {e[3]:.0%}, needs {e[4]:.1f} kWh, leaves "
                         f"in {e[9]:.0f} min, max {e[5]:.1f} kW")
            continue
        ev = int(s.visible[k])
        reach = np.flatnonzero(s.ev_reach[ev] & ~ctx.outage[min(s.tick, ctx.T)])
        near = reach[np.argsort(travel[k, reach], kind="stable")][:3].tolist()
        opts = ", ".join(f"{j} {STATIONS[j][1]} {travel[k, j]:.0f} min" for j in near)
        # Every station in range with its drive time (station:minutes): a good station choice
        # weighs price, queues and feeder stress, not only the nearest three.
        every = " ".join(f"{j}:{travel[k, j]:.1f}" for j in reach.tolist())
        lines.append(f"  [{k}] {persona}, soc {e[3]:.0%}, needs {e[4]:.1f} kWh, max "
                     f"{e[5]:.1f} kW, waited {e[7]:.0f} min, urgency {e[8]:.1f}, range "
                     f"{e[11]:.0f} km, at node {int(e[6])} -> {opts} | in range (station:min) "
                     f"{every or 'none'}")
    if not shown:
        lines.append("  (none)")
    lines.append(f"STATIONS (reported {p.report_lag_min:.0f} min ago: free/slots, queue; "
                 "price ₹/kWh; ours charging/en route, our load kW):")
    st = obs["stations"]
    for j in range(ctx.S):
        r = st[j].tolist()
        out = " OUT OF SERVICE" if r[9] > 0 else ""
        lines.append(f"  {j:2d} {STATIONS[j][0]} {STATIONS[j][1]:<16} {STATIONS[j][4]:<5} "
                     f"z{int(r[0])} free {int(r[3])}/{int(r[2])} q {int(r[4])} ₹{r[6]:.2f} "
                     f"ours {int(r[7])}/{int(r[8])} {r[10]:.1f} kW{out}")
    lines.append("FEEDERS (rating kW, last load kW, ours kW, derate, transformer hot-spot °C "
                 f"(curtails above {p.hotspot_limit_c:.0f}, trips above {p.hotspot_trip_c:.0f}), "
                 "headroom forecast kW):")
    zones, fc = obs["zones"], obs["headroom_forecast"]
    for z in range(ctx.Z):
        r = zones[z].tolist()
        trip = f" TRIPPED {r[4]:.0f} min" if r[4] > 0 else ""
        shift = " shifted" if r[5] > 0 else ""
        lines.append(f"  {z} {ZONES[z]:<9} {r[0]:.0f} {r[1]:.0f} ({r[1] / r[0]:.0%}) ours "
                     f"{r[2]:.0f} x{r[3]:.2f}{trip}{shift} hot-spot {r[8]:.1f} C | "
                     + " ".join(f"{v:.0f}" for v in fc[z].tolist()))
    return "\n".join(lines)
