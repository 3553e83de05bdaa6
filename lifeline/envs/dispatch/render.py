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
    hour = (s.start_hour + s.t / 60.0) % 24.0
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
    shown = False
    for k, c in enumerate(s.visible):
        if c < 0:
            continue
        shown = True
        ver = f", verified {s.c_verify[c]:.2f}" if s.c_verify[c] >= 0 else ""
        lines.append(
            f"  [{k}] call #{c} node {s.c_node[c]} ({city.zone_names[ctx.zone_of[s.c_node[c]]]}), "
            f"{CALL_TYPES[s.c_rtype[c]]}, {TONES[s.c_tone[c]]}, {s.t - s.c_time[c]:.1f} min, "
            f"{s.c_assigned[c]}/{s.c_needed[c]} units{ver}")
    if not shown:
        lines.append("  (none)")
    lines.append("UNITS (slot: type, last report status @node -> destination, report age):")
    for u in range(ctx.U):
        st = int(s.u_obs_status[u])
        if st == 0:
            continue
        kind = "ALS" if s.u_als[u] else "BLS"
        slot = [k for k, c in enumerate(s.visible) if c >= 0 and c == s.u_call[u]]
        extra = f", call slot {slot[0]}" if slot else ""
        if s.u_hosp[u] >= 0:
            extra += f", hospital {s.u_hosp[u]}"
        lines.append(f"  [{u}] {kind} {STATUS_NAMES[st]} @{s.u_obs_node[u]} -> "
                     f"{s.u_obs_dest[u]} ({s.t - s.u_obs_t[u]:.1f} min ago), home "
                     f"{s.u_home[u]}{extra}")
    lines.append("HOSPITALS (slot: name @node, reported status, report age):")
    for h in range(ctx.H):
        status = "DIVERT" if s.h_obs_divert[h] else "open"
        lines.append(f"  [{h}] {city.hospital_names[h]} @{ctx.hosp_node[h]}: {status} "
                     f"({s.t - s.h_obs_t[h]:.0f} min ago)")
    if not np.array_equal(ctx.posts, np.arange(ctx.n_nodes)):
        lines.append("POSTS (relocate targets, slot:node): "
                     + " ".join(f"{k}:{n}" for k, n in enumerate(ctx.posts)))
    else:
        lines.append("POSTS: relocate targets are the nodes themselves (post k = node k)")
    if s.last_report:
        lines.append(f"LAST: {s.last_report}")
    return "\n".join(lines)
