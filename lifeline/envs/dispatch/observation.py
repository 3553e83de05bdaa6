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

try:  # the compiled path (extra ``fast``); without numba the numpy path below runs
    from lifeline.envs.dispatch import kernels as _kernels
except ImportError:  # pragma: no cover - exercised where numba is not installed
    _kernels = None  # type: ignore[assignment]

CLOCK_COLUMNS = ("minutes_elapsed", "minutes_left", "traffic_multiplier", "hour_of_day",
                 "mutual_aid_left", "open_calls")
CALL_COLUMNS = ("present", "node", "zone", "reported_type", "tone", "age_min", "units_assigned",
                "units_needed", "verified", "verify_confidence")
UNIT_COLUMNS = ("active", "als", "reported_status", "reported_node", "reported_destination",
                "minutes_since_report", "call_slot_plus1", "hospital_plus1", "home_node")
HOSPITAL_COLUMNS = ("node", "reported_divert", "minutes_since_report", "ems_beds")
ZONE_COLUMNS = ("open_calls", "reported_idle_units")
HIGH = 1.0e4
N_CLOCK_COLUMNS = len(CLOCK_COLUMNS)
N_CALL_COLUMNS = len(CALL_COLUMNS)
N_UNIT_COLUMNS = len(UNIT_COLUMNS)
N_ZONE_COLUMNS = len(ZONE_COLUMNS)


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

    One call of the numba kernel :func:`lifeline.envs.dispatch.kernels.observe_kernel` when numba
    is installed, else :func:`observe_numpy`; both are byte-identical (tested).
    """
    if _kernels is None:
        return observe_numpy(s, ctx)
    buf = _kernels.observe_kernel(
        s.t, ctx.p.shift_min, s.mult, s.start_hour, s.mutual_aid_left, s.n_open, s.alert_until,
        s.visible, s.c_node, s.c_rtype, s.c_tone, s.c_time, s.c_assigned, s.c_needed, s.c_verify,
        s.c_status, s.u_obs_status, s.u_als, s.u_obs_node, s.u_obs_dest, s.u_obs_t, s.u_call,
        s.u_hosp, s.u_home, s.h_obs_divert, s.h_obs_t, ctx.zone_of, ctx.hospital_columns, ctx.Z)
    o = ctx.obs_offsets  # clock, alerts, calls, units, hospitals, zones, end
    return {"clock": buf[:o[1]], "calls": buf[o[2]:o[3]].reshape(ctx.K, N_CALL_COLUMNS),
            "units": buf[o[3]:o[4]].reshape(ctx.U, N_UNIT_COLUMNS),
            "hospitals": buf[o[4]:o[5]].reshape(ctx.H, len(HOSPITAL_COLUMNS)),
            "zones": buf[o[5]:o[6]].reshape(ctx.Z, N_ZONE_COLUMNS), "alerts": buf[o[1]:o[2]]}


def observe_numpy(s: DispatchState, ctx: Context) -> dict[str, np.ndarray]:
    """:func:`observe` in numpy (the path without numba; also the kernel's test oracle).

    This runs after every step on arrays of 3–34 rows, so its cost is the number of numpy calls
    and Python builtins, not arithmetic. The short ``clock`` and ``alerts`` vectors are computed
    in Python floats into one float32 array (two views of it are returned); the calls and units
    tables are each one ``np.array`` of their columns, transposed; derived integer columns are
    gathers from :class:`Context` lookup tables instead of ufuncs. Every value is IEEE-identical
    to the v1 expressions kept in ``tests.oracles.dispatch_reference`` (a test keeps them
    byte-equal).
    """
    t = s.t
    shift = ctx.p.shift_min
    left = shift - t
    head = [t, left if left > 0.0 else 0.0, s.mult, (s.start_hour + t / 60.0) % 24.0,
            s.mutual_aid_left, s.n_open]
    for until in s.alert_until.tolist():  # minutes each alert still lasts (t >= 0, so <= shift)
        rest = (until if until < shift else shift) - t
        head.append(rest if rest > 0.0 else 0.0)
    clock_alerts = np.array(head, dtype=np.float32)

    vis = s.visible
    vis_list = vis.tolist()
    n_vis = ctx.K if vis_list[-1] >= 0 else vis_list.index(-1)  # slots are filled from the front
    calls = np.zeros((ctx.K, N_CALL_COLUMNS), dtype=np.float32)
    zones = np.empty((ctx.Z, N_ZONE_COLUMNS), dtype=np.float32)
    slot_of = np.zeros(s.c_time.size + 1, dtype=np.int64)  # index −1 (no call) reads 0
    if n_vis:
        ids = vis[:n_vis]
        nodes = s.c_node[ids]
        conf = s.c_verify[ids]
        zone = ctx.zone_of[nodes]
        calls[:n_vis] = np.array((ctx.ones_K[:n_vis], nodes, zone, s.c_rtype[ids], s.c_tone[ids],
                                  t - s.c_time[ids], s.c_assigned[ids], s.c_needed[ids],
                                  conf >= 0, np.maximum(conf, 0.0))).T
        slot_of[ids] = ctx.slot_plus1[:n_vis]
        if s.n_open <= ctx.K:
            zones[:, 0] = np.bincount(zone, minlength=ctx.Z)
        else:
            zones[:, 0] = np.bincount(ctx.zone_of[s.c_node[s.c_status == 1]], minlength=ctx.Z)
    else:
        zones[:, 0] = 0.0

    status = s.u_obs_status
    units = np.array((ctx.status_active[status], s.u_als, status, s.u_obs_node, s.u_obs_dest,
                      t - s.u_obs_t, slot_of[s.u_call], ctx.hospital_plus1[s.u_hosp], s.u_home),
                     dtype=np.float32).T.copy()
    zones[:, 1] = np.bincount(ctx.zone_of[s.u_obs_node], weights=ctx.status_idle[status],
                              minlength=ctx.Z)

    hosp = ctx.hospital_columns.copy()
    hosp[:, 1] = s.h_obs_divert
    hosp[:, 2] = t - s.h_obs_t
    n_clock = N_CLOCK_COLUMNS
    return {"clock": clock_alerts[:n_clock], "calls": calls, "units": units, "hospitals": hosp,
            "zones": zones, "alerts": clock_alerts[n_clock:]}
