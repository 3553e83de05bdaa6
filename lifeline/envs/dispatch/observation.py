"""What the dispatcher sees: fixed-size arrays built from reports, never from hidden truth.

Hidden: true severity, false-alarm/ghost flags, unit reliabilities, true unit status and position
between reports, true hospital capacity, future calls and events. Columns are listed in
``CALL_COLUMNS`` etc. and in the README with their units.
"""

from __future__ import annotations

import numpy as np

from lifeline.core.specs import ArraySpec
from lifeline.envs.dispatch.context import Context
from lifeline.envs.dispatch.params import EVENT_KINDS
from lifeline.envs.dispatch.types import DispatchState

CLOCK_COLUMNS = ("minutes_elapsed", "minutes_left", "traffic_multiplier", "hour_of_day",
                 "mutual_aid_left", "open_calls")
CALL_COLUMNS = ("present", "node", "zone", "reported_type", "tone", "age_min", "units_assigned",
                "units_needed", "verified", "verify_confidence")
UNIT_COLUMNS = ("active", "als", "reported_status", "reported_node", "reported_destination",
                "minutes_since_report", "call_slot_plus1", "hospital_plus1", "home_node")
HOSPITAL_COLUMNS = ("node", "reported_divert", "minutes_since_report", "ems_beds")
ZONE_COLUMNS = ("open_calls", "reported_idle_units")
HIGH = 1.0e4


def observation_spec(ctx: Context) -> dict[str, ArraySpec]:
    """Shapes, dtypes and bounds of :func:`observe`'s arrays."""
    f = "float32"
    return {
        "clock": ArraySpec((len(CLOCK_COLUMNS),), f, 0.0, HIGH, "; ".join(CLOCK_COLUMNS)),
        "calls": ArraySpec((ctx.K, len(CALL_COLUMNS)), f, 0.0, HIGH, "; ".join(CALL_COLUMNS)),
        "units": ArraySpec((ctx.U, len(UNIT_COLUMNS)), f, 0.0, HIGH, "; ".join(UNIT_COLUMNS)),
        "hospitals": ArraySpec((ctx.H, len(HOSPITAL_COLUMNS)), f, 0.0, HIGH,
                               "; ".join(HOSPITAL_COLUMNS)),
        "zones": ArraySpec((ctx.Z, len(ZONE_COLUMNS)), f, 0.0, HIGH, "; ".join(ZONE_COLUMNS)),
        "alerts": ArraySpec((len(EVENT_KINDS),), f, 0.0, HIGH,
                            "minutes each alert still lasts: " + "; ".join(EVENT_KINDS)),
    }


def observe(s: DispatchState, ctx: Context) -> dict[str, np.ndarray]:
    """Fresh arrays (no views into the state) matching :func:`observation_spec`."""
    p = ctx.p
    t = s.t
    clock = np.array([t, max(p.shift_min - t, 0.0), s.mult, (s.start_hour + t / 60.0) % 24.0,
                      s.mutual_aid_left, s.n_open], dtype=np.float32)

    calls = np.zeros((ctx.K, len(CALL_COLUMNS)), dtype=np.float32)
    vis = s.visible
    present = vis >= 0
    ids = vis[present]
    if ids.size:
        verified = s.c_verify[ids] >= 0
        calls[present] = np.stack([
            np.ones(ids.size), s.c_node[ids], ctx.zone_of[s.c_node[ids]], s.c_rtype[ids],
            s.c_tone[ids], t - s.c_time[ids], s.c_assigned[ids], s.c_needed[ids], verified,
            np.where(verified, s.c_verify[ids], 0.0),
        ], axis=1)

    slot_of = np.full(s.c_time.size + 1, 0, dtype=np.int64)
    slot_of[ids] = np.flatnonzero(present) + 1
    units = np.stack([
        (s.u_obs_status > 0).astype(float), s.u_als, s.u_obs_status, s.u_obs_node, s.u_obs_dest,
        t - s.u_obs_t, slot_of[s.u_call], s.u_hosp + 1, s.u_home,
    ], axis=1).astype(np.float32)

    hosp = np.stack([ctx.hosp_node, s.h_obs_divert, t - s.h_obs_t,
                     np.asarray(p.city.hospital_beds)], axis=1).astype(np.float32)

    zones = np.zeros((ctx.Z, len(ZONE_COLUMNS)), dtype=np.float32)
    open_ids = np.flatnonzero(s.c_status == 1)
    np.add.at(zones[:, 0], ctx.zone_of[s.c_node[open_ids]], 1.0)
    idle = s.u_obs_status == 1
    np.add.at(zones[:, 1], ctx.zone_of[s.u_obs_node[idle]], 1.0)

    left = np.minimum(s.alert_until, p.shift_min) - t
    alerts = np.clip(left, 0.0, p.shift_min).astype(np.float32)
    return {"clock": clock, "calls": calls, "units": units, "hospitals": hosp, "zones": zones,
            "alerts": alerts}
