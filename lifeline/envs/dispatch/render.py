"""Text view of what the dispatcher may observe (also the LLM observation)."""

from __future__ import annotations

import numpy as np

from lifeline.envs.dispatch.context import Context
from lifeline.envs.dispatch.params import CALL_TYPES, EVENT_KINDS
from lifeline.envs.dispatch.types import STATUS_NAMES, DispatchState

TONES = ("calm", "agitated", "screaming")


def render_text(s: DispatchState, ctx: Context) -> str:
    """A compact, self-explanatory screen: clock, alerts, calls, units, hospitals."""
    p = ctx.p
    city = p.city
    t = float(s.t)
    hour = (s.start_hour + t / 60.0) % 24.0
    hh, mm = int(hour), round((hour % 1) * 60) % 60
    lines = [
        f"DISPATCH {city.name} | t={s.t:.1f}/{p.shift_min:.0f} min | {hh:02d}:{mm:02d} | "
        f"traffic x{s.mult:.1f} | mutual aid left {s.mutual_aid_left} | "
        f"open calls {s.n_open} (showing up to {ctx.K})",
    ]
    alerts = [f"{EVENT_KINDS[k]} ({'ongoing' if v == float('inf') else f'{v - s.t:.0f} min'})"
              for k, v in enumerate(s.alert_until) if v > s.t]
    lines.append("ALERTS: " + (", ".join(alerts) if alerts else "none"))
    lines.append("CALLS (slot: id, node/zone, reported type, caller tone, age, units):")
    # Python scalars format several times faster than numpy scalars: convert once.
    visible = s.visible.tolist()
    c_node, c_verify, c_time = s.c_node.tolist(), s.c_verify.tolist(), s.c_time.tolist()
    shown = False
    for k, c in enumerate(visible):
        if c < 0:
            continue
        shown = True
        ver = f", verified {c_verify[c]:.2f}" if c_verify[c] >= 0 else ""
        node = c_node[c]
        lines.append(
            f"  [{k}] call #{c} node {node} ({city.zone_names[ctx.zone_of[node]]}), "
            f"{CALL_TYPES[s.c_rtype[c]]}, {TONES[s.c_tone[c]]}, {t - c_time[c]:.1f} min, "
            f"{s.c_assigned[c]}/{s.c_needed[c]} units{ver}")
    if not shown:
        lines.append("  (none)")
    lines.append("UNITS (slot: type, last report status @node -> destination, report age):")
    slot_of_call = {c: k for k, c in enumerate(visible) if c >= 0}
    status, als, u_call = s.u_obs_status.tolist(), s.u_als.tolist(), s.u_call.tolist()
    u_hosp, u_node, u_dest = s.u_hosp.tolist(), s.u_obs_node.tolist(), s.u_obs_dest.tolist()
    u_t, u_home = s.u_obs_t.tolist(), s.u_home.tolist()
    for u in range(ctx.U):
        st = status[u]
        if st == 0:
            continue
        kind = "ALS" if als[u] else "BLS"
        slot = slot_of_call.get(u_call[u], -1) if u_call[u] >= 0 else -1
        extra = f", call slot {slot}" if slot >= 0 else ""
        if u_hosp[u] >= 0:
            extra += f", hospital {u_hosp[u]}"
        lines.append(f"  [{u}] {kind} {STATUS_NAMES[st]} @{u_node[u]} -> "
                     f"{u_dest[u]} ({t - u_t[u]:.1f} min ago), home {u_home[u]}{extra}")
    lines.append("HOSPITALS (slot: name @node, reported status, report age):")
    h_obs_t = s.h_obs_t.tolist()
    for h in range(ctx.H):
        divert = "DIVERT" if s.h_obs_divert[h] else "open"
        lines.append(f"  [{h}] {city.hospital_names[h]} @{ctx.hosp_node[h]}: {divert} "
                     f"({t - h_obs_t[h]:.0f} min ago)")
    if not np.array_equal(ctx.posts, np.arange(ctx.n_nodes)):
        lines.append("POSTS (relocate targets, slot:node): "
                     + " ".join(f"{k}:{n}" for k, n in enumerate(ctx.posts)))
    else:
        lines.append("POSTS: relocate targets are the nodes themselves (post k = node k)")
    if s.last_report:
        lines.append(f"LAST: {s.last_report}")
    return "\n".join(lines)
