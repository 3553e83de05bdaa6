"""A JSON-ready picture of the moment: stations on the map, feeders, EVs, events.

For the designed view it also carries (read only): the road links between nodes, each zone's
transformer top-oil and hot-spot temperature against its limit, the ambient temperature, and the
scenario's price and renewable-share curves over the episode (hourly samples; constant, so a
replay stores them once).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lifeline.envs.evgrid.context import Context, road_edges
from lifeline.envs.evgrid.params import AIRPORT, PERSONAS, STATIONS, ZONES
from lifeline.envs.evgrid.types import STATUS_NAMES, EVGridState


def _curve(ctx: Context) -> dict[str, list[float]]:
    """Hourly samples of the episode's mean station price and renewable share."""
    every = max(1, round(60.0 / ctx.p.tick_min))
    ticks = range(0, ctx.T + 1, every)
    return {"hour": [round(float(ctx.hours[k]), 2) for k in ticks],
            "price": [round(float(ctx.price[k].mean()), 3) for k in ticks],
            "renewable": [round(float(ctx.renewable[k]), 3) for k in ticks]}


def _operator(s: EVGridState) -> dict[str, Any]:
    """``evgrid_team``: the grid operator's directives in force (caps, blacklist, violations)."""
    if not hasattr(s, "tick_caps"):
        return {}
    t: Any = s  # an EVGridTeamState (team.py imports this module, so it is not imported here)
    return {"operator": {
        "caps_kw": [float(c) if np.isfinite(c) else None for c in t.tick_caps.tolist()],
        "cap_level": [int(x) for x in t.cap_level.tolist()],
        "price_level": [int(x) for x in t.price_level.tolist()],
        "blacklisted": [int(j) for j in np.flatnonzero(t.blacklisted).tolist()],
        "violations": int(t.violations),
    }}


def frame(s: EVGridState, ctx: Context) -> dict[str, Any]:
    """Plain JSON types only (no numpy), nothing aliasing the state."""
    k = min(s.tick, ctx.T)
    active = np.flatnonzero((s.ev_status >= 1) & (s.ev_status <= 5))
    return {
        "progress": min(1.0, s.tick / ctx.T),
        "minute": float(s.t),
        "hour": float(ctx.hours[k] % 24.0),
        "renewable_share": float(ctx.renewable[k]),
        "stations": [{"id": st[0], "name": st[1], "lat": st[2], "lng": st[3], "type": st[4],
                      "slots": st[5], "zone": int(ctx.st_zone[j]),
                      "busy_other": int(s.bg_busy[k, j]), "charging": int(s.st_charging[j]),
                      "queue": int(s.st_queue[j]), "en_route": int(s.st_enroute[j]),
                      "price": float(ctx.price[k, j]), "out": bool(ctx.outage[k, j])}
                     for j, st in enumerate(STATIONS)],
        "airport": {"lat": AIRPORT[2], "lng": AIRPORT[3]},
        "zones": [{"name": ZONES[z], "limit_kw": float(ctx.zone_cap[z]),
                   "load_kw": float(s.last_load[z]), "ev_kw": float(s.ev_load[z]),
                   "derate": float(s.derate[z]), "tripped": bool(s.trip_until[z] > s.t),
                   "hotspot_c": round(float(s.top_oil[z] + s.hs_rise[z]), 2) if len(s.top_oil)
                   else None,
                   "top_oil_c": round(float(s.top_oil[z]), 2) if len(s.top_oil) else None}
                  for z in range(ctx.Z)],
        "hotspot_limit_c": float(ctx.p.hotspot_limit_c),
        "ambient_c": round(float(ctx.ambient[k]), 2),
        "roads": [[int(u), int(v)] for u, v, _ in road_edges()],
        "curve": _curve(ctx),
        **_operator(s),
        "evs": [{"id": int(i), "persona": PERSONAS[int(s.ev_persona[i])],
                 "status": STATUS_NAMES[int(s.ev_status[i])], "station": int(s.ev_station[i]),
                 "origin": int(s.ev_origin[i]), "soc": float(s.ev_soc[i])}
                for i in active.tolist()],
        "events": list(s.last_events),
    }
