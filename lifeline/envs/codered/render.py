"""Text view of what the coordinator may observe (also the LLM observation)."""

from __future__ import annotations

from lifeline.envs.codered.dynamics import vitals
from lifeline.envs.codered.observation import CARED
from lifeline.envs.codered.params import (
    BLOOD_TYPES,
    CATEGORIES,
    CONDITIONS,
    DISRUPTIONS,
    HOSPITAL_NAMES,
    NODES,
    PROCEDURES,
    SPECIALISTS,
    CodeRedParams,
)
from lifeline.envs.codered.types import (
    AT_HOSPITAL,
    FUTURE,
    INACTIVE,
    OR_STATES,
    P_STATUS,
    TREATED,
    U_STATUS,
    CodeRedState,
)


def render_text(s: CodeRedState, params: CodeRedParams) -> str:
    """Clock, alerts, patients and calls, ambulances, hospitals (ORs, specialists, blood)."""
    t = s.t
    hh, mm = divmod(round(480 + t), 60)
    lines = [f"CODE RED Prakashnagar | t={t:.1f}/{params.horizon_min:.0f} min | {hh:02d}:{mm:02d}"
             f" | slots left this epoch {params.actions_per_epoch - s.epoch_actions} | mutual aid "
             f"left {s.aid_left}" + (" | morning rush on arterials" if s.rush else "")
             + (f" | news cycle {s.news_until - t:.0f} min" if s.news_until > t else "")]
    alerts = [f"{DISRUPTIONS[k]}" + (f" {NODES[a]}-{NODES[b]}" if k < 2 else
                                     f" at {HOSPITAL_NAMES[a]}")
              for (_, k, a, b, _), on in zip(s.disruptions, s.active, strict=True) if on]
    lines.append("ALERTS: " + (", ".join(alerts) if alerts else "none"))
    lines.append("PATIENTS / CALLS (index: what is known):")
    shown = False
    for i, p in enumerate(s.patients):
        if p.status == FUTURE or p.void:
            continue
        shown = True
        what = CONDITIONS[p.cond] if p.known else f"911 call '{CATEGORIES[p.category]}'"
        if p.hint >= 0 and not p.known:
            what += f" (callback says {CONDITIONS[p.hint]})"
        extra = []
        if p.secondary:
            extra.append("secondary")
        if p.escalated:
            extra.append("ESCALATED")
        if p.known and (p.status in CARED or p.status == TREATED):
            v = p.vitals_at if p.status == TREATED else vitals(p, t)
            extra.append(f"vitals {v:.2f}")
        if p.unit >= 0 and p.status in (3, 4, 5, 6):
            extra.append(f"ambulance {p.unit}")
        if p.hosp >= 0:
            extra.append(f"hospital {p.hosp}")
        if p.status == AT_HOSPITAL and p.workup_until > t:
            extra.append("in work-up")  # v2: ED assessment / ECG / CT before treatment can start
        if p.type_known:
            extra.append(f"blood {BLOOD_TYPES[p.blood_type]}")
        elif p.type_pending:
            extra.append("typing")
        if p.blood_ready or p.blood_pending:
            extra.append(f"blood ready {p.blood_ready} + crossmatch {p.blood_pending}")
        if p.known and (p.cond == 2 or (p.arrived >= 0 and p.blood_need > 0)):
            # trauma from the scene on; any other patient's need once at a hospital
            extra.append(f"needs ~{p.blood_need} units")
        status = P_STATUS[10 if p.status == 9 and not p.known else p.status]  # v3: no leak
        lines.append(f"  [{i}] {what} @{NODES[p.node]}, {status}, "
                     f"{t - p.onset:.0f} min since onset" + (", " + ", ".join(extra)
                                                             if extra else ""))
    if not shown:
        lines.append("  (none yet)")
    lines.append("AMBULANCES:")
    for u, un in enumerate(s.units):
        if un.status == INACTIVE:
            continue
        kind = ("ALS" if un.als else "BLS") + (" mutual-aid" if un.aid else "")
        where = NODES[un.node] if un.node == un.dest else f"{NODES[un.node]} -> {NODES[un.dest]}"
        eta = f", eta {un.t_arrive - t:.0f} min" if un.status in (2, 4, 6, 7) and \
            un.t_arrive > t else ""
        pt = f", patient {un.patient}" if un.patient >= 0 else ""
        lines.append(f"  [{u}] {kind} {U_STATUS[un.status]} @{where}{eta}{pt}")
    lines.append("HOSPITALS:")
    for h, hosp in enumerate(s.hospitals):
        div = f" DIVERSION {hosp.divert_until - t:.0f} min" if hosp.divert_until > t else ""
        ors = ", ".join(
            OR_STATES[o.state] + (f"({PROCEDURES[o.proc]})" if o.state in (2, 3) else "")
            + (f" {max(0.0, o.until - t):.0f} min left" if o.queried and o.state else "")
            for o in hosp.ors) or "no ORs"
        sp = []
        for k, name in enumerate(SPECIALISTS):
            mine = [x.state for x in hosp.specialists if x.kind == k]
            if mine:
                sp.append(f"{name} present {mine.count(2)} paged {mine.count(1)} "
                          f"on-call {mine.count(0)}")
        stock = " ".join(f"{b}:{n}" for b, n in zip(BLOOD_TYPES, hosp.stock, strict=True))
        lines.append(f"  [{h}] {HOSPITAL_NAMES[h]}{div} | ICU free {hosp.icu_free} | ORs: {ors}")
        if sp:
            lines.append(f"      specialists: {'; '.join(sp)}")
        lines.append(f"      blood: {stock}")
    if s.last_report:
        lines.append(f"LAST: {s.last_report}")
    return "\n".join(lines)
