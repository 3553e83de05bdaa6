"""numba kernels of dispatch's per-step ``observe`` and ``action_mask`` (issue 15).

Both functions run after every step on arrays of 3–34 rows, so their numpy versions cost the
count of numpy calls (about 25 and 15 of them), not arithmetic. Each kernel here is *one* compiled
call that reads the state's arrays directly and fills fresh output arrays; the Python wrappers in
``observation.py`` / ``rules.py`` only gather the arguments. Every value is computed with the same
float64 expressions as the numpy path and cast to float32 once, so the outputs are byte-identical
(``tests/envs/dispatch/test_dispatch_kernels.py`` checks both paths against each other and against
the v1
reference on many seeds and action streams).

Imported only when numba is installed (extra ``fast``); without it the numpy path runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

jit: Any = njit
"""``numba.njit``, untyped here: the kernel functions take numba-typed arrays, no annotations."""

_IDLE = 1
_EN_ROUTE = 3


@jit(cache=True, nogil=True)
def observe_kernel(t, shift, mult, start_hour, aid_left, n_open, alert_until, visible,
                   c_node, c_rtype, c_tone, c_time, c_assigned, c_needed, c_verify, c_status,
                   u_obs_status, u_als, u_obs_node, u_obs_dest, u_obs_t, u_call, u_hosp, u_home,
                   h_obs_divert, h_obs_t, zone_of, hospital_columns, n_zones):
    """One observation in one fresh float32 buffer: clock (6), alerts (one per event kind),
    calls (K×10), units (U×9), hospitals (H×4), zones (Z×2), each row-major, in that order.

    The caller returns views of it shaped as in
    :func:`lifeline.envs.dispatch.observation.observe` (one array crosses back from numba, not
    six: boxing each costs about as much as the arithmetic).
    """
    n_alert = alert_until.size
    n_slots = visible.size
    n_units = u_obs_status.size
    n_hosp = hospital_columns.shape[0]
    o_calls = 6 + n_alert
    o_units = o_calls + 10 * n_slots
    o_hosp = o_units + 9 * n_units
    o_zones = o_hosp + 4 * n_hosp
    buf = np.zeros(o_zones + 2 * n_zones, np.float32)
    left = shift - t
    buf[0] = t
    buf[1] = left if left > 0.0 else 0.0
    buf[2] = mult
    buf[3] = (start_hour + t / 60.0) % 24.0
    buf[4] = aid_left
    buf[5] = n_open
    for i in range(n_alert):
        until = alert_until[i]
        rest = (until if until < shift else shift) - t
        buf[6 + i] = rest if rest > 0.0 else 0.0

    n_vis = 0
    for k in range(n_slots):
        if visible[k] >= 0:
            n_vis += 1
    for k in range(n_vis):
        c = visible[k]
        node = c_node[c]
        conf = c_verify[c]
        row = o_calls + 10 * k
        buf[row] = 1.0
        buf[row + 1] = node
        buf[row + 2] = zone_of[node]
        buf[row + 3] = c_rtype[c]
        buf[row + 4] = c_tone[c]
        buf[row + 5] = t - c_time[c]
        buf[row + 6] = c_assigned[c]
        buf[row + 7] = c_needed[c]
        buf[row + 8] = 1.0 if conf >= 0 else 0.0
        buf[row + 9] = conf if conf > 0.0 else 0.0
    if n_open <= n_slots:
        for k in range(n_vis):
            buf[o_zones + 2 * zone_of[c_node[visible[k]]]] += 1.0
    else:
        for c in range(c_status.size):
            if c_status[c] == 1:
                buf[o_zones + 2 * zone_of[c_node[c]]] += 1.0

    for u in range(n_units):
        status = u_obs_status[u]
        row = o_units + 9 * u
        buf[row] = 1.0 if status > 0 else 0.0
        buf[row + 1] = 1.0 if u_als[u] else 0.0
        buf[row + 2] = status
        buf[row + 3] = u_obs_node[u]
        buf[row + 4] = u_obs_dest[u]
        buf[row + 5] = t - u_obs_t[u]
        slot = 0
        call = u_call[u]
        if call >= 0:
            for k in range(n_vis):
                if visible[k] == call:
                    slot = k + 1
                    break
        buf[row + 6] = slot
        buf[row + 7] = u_hosp[u] + 1 if u_hosp[u] >= 0 else 0
        buf[row + 8] = u_home[u]
        if status == _IDLE:
            buf[o_zones + 2 * zone_of[u_obs_node[u]] + 1] += 1.0

    for h in range(n_hosp):
        row = o_hosp + 4 * h
        buf[row] = hospital_columns[h, 0]
        buf[row + 1] = 1.0 if h_obs_divert[h] else 0.0
        buf[row + 2] = t - h_obs_t[h]
        buf[row + 3] = hospital_columns[h, 3]
    return buf


@jit(cache=True, nogil=True)
def mask_kernel(total, aid_left, u_obs_status, visible, c_assigned, c_needed, c_verify,
                u_call, u_dest, u_hosp, posts, n_hospitals, dispatchable, hospital_choice):
    """The boolean action mask of :func:`lifeline.envs.dispatch.rules.action_mask` (not done),
    before ``rules._no_going_back`` clears the moves back within the epoch (v4.5)."""
    out = np.zeros(total, np.bool_)
    n_units = u_obs_status.size
    n_slots = visible.size
    n_posts = posts.size
    reroute = n_units * n_slots
    relocate = 2 * reroute
    verify = relocate + n_units * n_posts
    hospital = verify + n_slots
    aid = hospital + n_units * n_hospitals
    needs = np.zeros(n_slots, np.bool_)
    for k in range(n_slots):
        c = visible[k]
        if c >= 0:
            needs[k] = c_assigned[c] < c_needed[c]
            out[verify + k] = c_verify[c] < 0
    for u in range(n_units):
        status = u_obs_status[u]
        if dispatchable[status]:
            base = u * n_slots
            for k in range(n_slots):
                out[base + k] = needs[k]
            base = relocate + u * n_posts
            dest = u_dest[u]
            for j in range(n_posts):
                out[base + j] = posts[j] != dest
        elif status == _EN_ROUTE:
            base = reroute + u * n_slots
            call = u_call[u]
            for k in range(n_slots):
                out[base + k] = needs[k] and visible[k] != call
        if hospital_choice[status]:
            base = hospital + u * n_hospitals
            chosen = u_hosp[u]
            for j in range(n_hospitals):
                out[base + j] = j != chosen
    out[aid] = aid_left > 0
    out[aid + 1] = True
    return out
