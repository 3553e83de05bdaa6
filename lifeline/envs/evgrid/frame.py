"""A JSON-ready picture of the moment: stations on the map, feeders, EVs, events."""

from __future__ import annotations

from typing import Any

import numpy as np

from lifeline.envs.evgrid.context import Context
from lifeline.envs.evgrid.params import AIRPORT, PERSONAS, STATIONS, ZONES
from lifeline.envs.evgrid.types import STATUS_NAMES, EVGridState


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
                   "derate": float(s.derate[z]), "tripped": bool(s.trip_until[z] > s.t)}
                  for z in range(ctx.Z)],
        "evs": [{"id": int(i), "persona": PERSONAS[int(s.ev_persona[i])],
                 "status": STATUS_NAMES[int(s.ev_status[i])], "station": int(s.ev_station[i]),
                 "origin": int(s.ev_origin[i]), "soc": float(s.ev_soc[i])}
                for i in active.tolist()],
        "events": list(s.last_events),
    }
