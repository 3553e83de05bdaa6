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
    """Fresh arrays (no views into the state) matching :func:`observation_spec`.

    Filled column by column into preallocated float32 arrays (this runs every step).
    """
    p = ctx.p
    t = s.t
    clock = np.array([t, max(p.shift_min - t, 0.0), s.mult, (s.start_hour + t / 60.0) % 24.0,
                      s.mutual_aid_left, s.n_open], dtype=np.float32)

    calls = np.zeros((ctx.K, len(CALL_COLUMNS)), dtype=np.float32)
    vis = s.visible
    n_vis = int(np.count_nonzero(vis >= 0))  # visible slots are filled from the front
    if n_vis:
        ids = vis[:n_vis]
        rows = calls[:n_vis]
        nodes = s.c_node[ids]
        conf = s.c_verify[ids]
        rows[:, 0] = 1.0
        rows[:, 1] = nodes
        rows[:, 2] = ctx.zone_of[nodes]
        rows[:, 3] = s.c_rtype[ids]
        rows[:, 4] = s.c_tone[ids]
        rows[:, 5] = t - s.c_time[ids]
        rows[:, 6] = s.c_assigned[ids]
        rows[:, 7] = s.c_needed[ids]
        rows[:, 8] = conf >= 0
        rows[:, 9] = np.maximum(conf, 0.0)

    slot_of = np.zeros(s.c_time.size + 1, dtype=np.int64)  # index −1 (no call) reads 0
    slot_of[vis[:n_vis]] = np.arange(1, n_vis + 1)
    units = np.empty((ctx.U, len(UNIT_COLUMNS)), dtype=np.float32)
    units[:, 0] = s.u_obs_status > 0
    units[:, 1] = s.u_als
    units[:, 2] = s.u_obs_status
    units[:, 3] = s.u_obs_node
    units[:, 4] = s.u_obs_dest
    units[:, 5] = t - s.u_obs_t
    units[:, 6] = slot_of[s.u_call]
    units[:, 7] = s.u_hosp + 1
    units[:, 8] = s.u_home

    hosp = ctx.hospital_columns.copy()
    hosp[:, 1] = s.h_obs_divert
    hosp[:, 2] = t - s.h_obs_t

    zones = np.empty((ctx.Z, len(ZONE_COLUMNS)), dtype=np.float32)
    open_nodes = s.c_node[vis[:n_vis]] if s.n_open <= ctx.K else s.c_node[s.c_status == 1]
    zones[:, 0] = np.bincount(ctx.zone_of[open_nodes], minlength=ctx.Z)
    zones[:, 1] = np.bincount(ctx.zone_of[s.u_obs_node[s.u_obs_status == 1]], minlength=ctx.Z)

    alerts = np.clip(np.minimum(s.alert_until, p.shift_min) - t, 0.0, p.shift_min)
    return {"clock": clock, "calls": calls, "units": units, "hospitals": hosp, "zones": zones,
            "alerts": alerts.astype(np.float32)}
