"""Dispatch's ``observe`` and ``action_mask`` as they were before the speed work (issue 15).

Kept verbatim as the reference implementation: ``tests/envs/dispatch/test_dispatch_fast_parity.py``
checks that the
optimised functions in ``lifeline.envs.dispatch.observation`` / ``rules`` return byte-identical
arrays, and ``bench/scale.py`` measures step + observe with both (before/after in one run).
"""

from __future__ import annotations

import numpy as np

from lifeline.envs.dispatch.context import Context
from lifeline.envs.dispatch.observation import CALL_COLUMNS, UNIT_COLUMNS, ZONE_COLUMNS
from lifeline.envs.dispatch.rules import Layout
from lifeline.envs.dispatch.types import DISPATCHABLE, EN_ROUTE, HOSPITAL_CHOICE, DispatchState

N_CALL_COLUMNS = len(CALL_COLUMNS)
N_UNIT_COLUMNS = len(UNIT_COLUMNS)
N_ZONE_COLUMNS = len(ZONE_COLUMNS)


def observe_v1(s: DispatchState, ctx: Context) -> dict[str, np.ndarray]:
    """Fresh arrays (no views into the state) matching :func:`observation_spec`.

    Filled column by column into preallocated float32 arrays (this runs every step).
    """
    p = ctx.p
    t = s.t
    clock = np.array([t, max(p.shift_min - t, 0.0), s.mult, (s.start_hour + t / 60.0) % 24.0,
                      s.mutual_aid_left, s.n_open], dtype=np.float32)

    calls = np.zeros((ctx.K, N_CALL_COLUMNS), dtype=np.float32)
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
    units = np.empty((ctx.U, N_UNIT_COLUMNS), dtype=np.float32)
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

    zones = np.empty((ctx.Z, N_ZONE_COLUMNS), dtype=np.float32)
    open_nodes = s.c_node[vis[:n_vis]] if s.n_open <= ctx.K else s.c_node[s.c_status == 1]
    zones[:, 0] = np.bincount(ctx.zone_of[open_nodes], minlength=ctx.Z)
    zones[:, 1] = np.bincount(ctx.zone_of[s.u_obs_node[s.u_obs_status == 1]], minlength=ctx.Z)

    alerts = np.clip(np.minimum(s.alert_until, p.shift_min) - t, 0.0, p.shift_min)
    return {"clock": clock, "calls": calls, "units": units, "hospitals": hosp, "zones": zones,
            "alerts": alerts.astype(np.float32)}


def action_mask_v1(s: DispatchState, ctx: Context, lay: Layout) -> np.ndarray:
    """Exactly the actions :func:`validate` accepts, as a boolean vector.

    Written straight into block views of one output array with a handful of vector operations,
    skipping blocks that are empty (this runs every step).
    """
    out = np.zeros(lay.total, dtype=bool)
    if s.done:
        return out
    obs = s.u_obs_status
    statuses = obs.tolist()  # tiny: Python membership tests beat ndarray.any() here
    free = DISPATCHABLE[obs]
    vis = s.visible
    present = vis >= 0
    needs = present & (s.c_assigned[vis] < s.c_needed[vis])  # vis = −1 rows are masked anyway
    U, K = lay.U, lay.K
    free_col = free[:, None]
    np.logical_and(free_col, needs, out=out[lay.dispatch:lay.reroute].reshape(U, K))
    if EN_ROUTE in statuses:
        np.logical_and((obs == EN_ROUTE)[:, None] & needs, vis != s.u_call[:, None],
                       out=out[lay.reroute:lay.relocate].reshape(U, K))
    np.logical_and(free_col, ctx.posts != s.u_dest[:, None],
                   out=out[lay.relocate:lay.verify].reshape(U, lay.P))
    np.logical_and(present, s.c_verify[vis] < 0, out=out[lay.verify:lay.hospital])
    if any(HOSPITAL_CHOICE[x] for x in statuses):
        np.logical_and(HOSPITAL_CHOICE[obs][:, None], ctx.arange_H != s.u_hosp[:, None],
                       out=out[lay.hospital:lay.aid].reshape(U, lay.H))
    out[lay.aid] = s.mutual_aid_left > 0
    out[lay.hold] = True
    # v4.5: no moving a unit back within one decision epoch (post / hospital left at this minute)
    out[lay.relocate:lay.verify].reshape(U, lay.P)[s.e_left_post] = False
    out[lay.hospital:lay.aid].reshape(U, lay.H)[s.e_left_hosp] = False
    return out
