"""Transitions: round set-up (ward actors), the two simulated days of ``advance_round``, and the
handlers of every state-changing action (read-only queries are in ``queries.py``).

Every handler is reached through :data:`HANDLERS`, an explicit registry keyed by action type —
never by looking a caller-supplied name up on an object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lifeline.core.env import Action
from lifeline.envs.pharmacy import inventory, rules
from lifeline.envs.pharmacy.generator import (
    COST,
    IS_CRIT,
    N_SKUS,
    N_WARDS,
    STOCKED,
    cover_days,
    expected_daily,
    lead_time,
    restocks,
    true_lead_time,
    weekday_factor,
)
from lifeline.envs.pharmacy.params import (
    CENTRAL,
    CRIT_WEIGHT,
    SKU_NAMES,
    SKUS,
    SUPPLIER_NAMES,
    SUPPLIERS,
    WARDS,
    PharmacyParams,
)
from lifeline.envs.pharmacy.types import (
    AdvanceRound,
    AuthorizeStat,
    Escalate,
    EscalateToClinicalReview,
    FileJustification,
    FinanceSapRequestApproval,
    Justify,
    Lot,
    MessagingSendToWard,
    Order,
    PharmacyState,
    PurchaseOrder,
    Quarantine,
    QuarantineLot,
    Quote,
    RequestEvidence,
    ReturnStock,
    ReviewWard,
    SetAllocation,
    Stat,
    SubmitAllocationPlan,
    SubmitPo,
    SupplierPortalRequestQuote,
    TransferStock,
)

WEIGHT = np.array([CRIT_WEIGHT[s.criticality] for s in SKUS])
"""Service weight per unit of each SKU."""
JUSTIFICATIONS = (
    "census steady, routine par level",
    "two procedures scheduled, usage per protocol",
    "higher acuity this week, anticipated need",
    "buffer for anticipated surge, urgent",
    "stock-outs last month, safety stock requested",
)
"""Justification texts; v2: every line draws one uniformly from its own noise column, padded or
not (v1 drew padded lines from all five and honest ones from the first three: a leak)."""
VERDICTS = ("", "APPROVE", "REDUCE", "DENY")
CENSUS_NOISE = 0.1
"""Log-sd of the ward-level census ratio shown with the evidence."""
FEEDBACK_PRESSURE = 0.03
"""Hoarding-pressure drop when a message gives a ward feedback on a line its evidence shows
over-requested (once per ward per round); feedback on an honest line costs trust instead."""


def _stock_until(lots: list[Lot], end: int) -> float:
    """Units usable through the last day before ``end`` (a lot whose expiry day is ``end`` is
    used up to then: it expires at the start of day ``end``; v2 fix, v1 left it out and the
    ward re-requested stock it held)."""
    return inventory.usable(lots, end - 1)


# ----- round set-up: the scripted ward actors ---------------------------------------------------
def start_round(state: PharmacyState, params: PharmacyParams) -> None:
    """Requests, evidence and the review board's estimate for the new round; reset the budgets.

    A ward pads a line with probability ``pad_base + 0.6 * pressure`` by
    ``pad_size * (0.6 + 0.8 * pressure) * U(0.75, 1.25)`` of its net need; honest lines carry the
    ward's own forecast noise. All dice were drawn at reset (common random numbers).
    """
    r, dpr = state.round, params.days_per_round
    day = r * dpr
    span = cover_days(params, r)  # round 4: a top-up before the weekend covers it
    own = state.daily[day:day + dpr].sum(axis=0)
    weights = expected_daily(params) * WEIGHT
    activity = (own * WEIGHT).sum(axis=1) / np.maximum(weights.sum(axis=1) * dpr, 1e-9)
    gross = own + ahead_forecast(state, params, day + dpr, day + span, activity)
    noise = state.noise[r]
    end = day + span
    on_hand = np.array([[_stock_until(state.wards[w][s], end) if STOCKED[w, s] else 0.0
                         for s in range(N_SKUS)] for w in range(N_WARDS)])
    net = np.maximum(gross - on_hand, 0.0) * STOCKED
    pad_p = np.array([p.pad_base for p in params.wards]) + 0.6 * state.pressure
    pad_size = np.array([p.pad_size for p in params.wards]) * (0.6 + 0.8 * state.pressure)
    padded = (noise[..., 0] < pad_p[:, None]) & (net > 0) & STOCKED
    factor = np.where(padded, 1.0 + pad_size[:, None] * (0.75 + 0.5 * noise[..., 1]),
                      np.exp(params.honest_noise * _normal(noise[..., 2])))
    state.requests = np.round(net * factor) * STOCKED
    state.padded = padded
    state.net_need = net
    state.on_hand = on_hand
    state.evidence_est = np.round(gross * np.exp(params.evidence_noise * _normal(noise[..., 3])),
                                  1) * STOCKED
    state.review_est = gross * np.exp(params.review_noise * _normal(noise[..., 4]))
    redact_p = np.clip(state.pressure * (1.0 - state.trust), 0.0, 0.9)
    state.redacted = padded & (noise[..., 5] < redact_p[:, None])
    state.justification = np.floor(noise[..., 6] * len(JUSTIFICATIONS)).astype(np.int64)
    state.census_ratio = activity * np.exp(CENSUS_NOISE * _normal(state.ward_noise[r]))
    state.messaged = np.zeros(N_WARDS, dtype=bool)
    state.stat_auth = np.zeros(N_SKUS)
    state.ordered = np.zeros((len(SUPPLIERS), len(rules.ORDER_DAYS), N_SKUS), dtype=bool)
    state.set_levels = np.zeros((len(rules.LEVELS), N_WARDS, N_SKUS), dtype=bool)
    state.stat_levels = np.zeros((len(rules.STAT_DAYS), len(rules.STAT_SKUS)), dtype=bool)
    state.prefiled_skus = []
    state.evidence_seen = np.zeros((N_WARDS, N_SKUS), dtype=np.int64)
    state.verdicts = np.zeros((N_WARDS, N_SKUS), dtype=np.int64)
    state.escalated = np.zeros((N_WARDS, N_SKUS), dtype=bool)
    state.plan = np.zeros((N_WARDS, N_SKUS))
    state.plan_rationale = ""
    state.calls_used = 0
    state.reviews_used = 0
    state.prefiled = 0
    for ev in state.events:
        if ev.announce_round == r and ev.kind in ("recall", "cold_chain"):
            _announce_lots(state, ev)


def ahead_forecast(state: PharmacyState, params: PharmacyParams, lo: int, hi: int,
                   activity: np.ndarray) -> np.ndarray:
    """Round 4: the wards' (and the clinical estimate's) need for days ``lo``..``hi`` - 1
    beyond the round itself (the weekend a Friday top-up must cover): nobody knows those days'
    patients yet, so the need is the expected demand x the weekday pattern x published MCIs x
    the ward's activity this round (``activity``, clipped to 0.5-2: a busy ward expects to stay
    busy). An unannounced surge that starts at the weekend, or one that ends, is not in it."""
    out = np.zeros((N_WARDS, N_SKUS))
    if hi <= lo:
        return out
    base = expected_daily(params) * np.clip(activity, 0.5, 2.0)[:, None]
    week = weekday_factor(params)
    for d in range(lo, min(hi, params.days)):
        day_mean = base * float(week[d])
        for ev in state.events:
            if ev.kind == "mci" and ev.announce_round <= state.round and \
                    ev.start_day <= d < ev.end_day:
                day_mean[0:2, IS_CRIT] *= params.mci_mult
        out += day_mean
    return out * STOCKED


def true_net_need(state: PharmacyState, params: PharmacyParams) -> np.ndarray:
    """The true net need of the lines over the days this round's plan covers (hidden: what
    the wards will really use, the weekend included, less what they hold): the bound's."""
    day = state.round * params.days_per_round
    gross = state.daily[day:day + cover_days(params, state.round)].sum(axis=0)
    return np.maximum(gross - state.on_hand, 0.0) * STOCKED


def _normal(u: np.ndarray) -> np.ndarray:
    """Standard normal from uniforms (probit via a logistic approximation; deterministic)."""
    u = np.clip(u, 1e-6, 1 - 1e-6)
    return np.log(u / (1.0 - u)) / 1.702


def _announce_lots(state: PharmacyState, ev: Any) -> None:
    """Fix the affected lots of a recall (the longest-dated central lot) or cold-chain breach."""
    lots = state.central[ev.sku]
    if not lots:
        return
    chosen = [lots[-1]] if ev.kind == "recall" else list(lots)
    ev.lots = sorted({lot.lot_id for lot in chosen})
    ev.affected_units = sum(lot.qty for lot in lots if lot.lot_id in ev.lots)


# ----- advance_round ---------------------------------------------------------------------------
def advance_round(state: PharmacyState, params: PharmacyParams) -> str:
    """Issue the plan FEFO, update the actors, simulate the round's days, start the next round."""
    r, dpr = state.round, params.days_per_round
    topup = restocks(params, r)  # round 4: no ward top-up at the weekend
    issued = _issue_plan(state, params) if topup else np.zeros((N_WARDS, N_SKUS))
    # the ERP is one round stale: it shows central stock as of the last issue
    state.erp_stock = np.array([inventory.total(lots) for lots in state.central])
    state.erp_expiring = np.array([sum(lot.qty for lot in lots if lot.expiry <= (r + 2) * dpr)
                                   for lots in state.central])
    if topup:  # nothing was issued or refused at the weekend: the wards' habits stand
        _update_actors(state, params, issued)
    recorded = np.zeros((N_WARDS, N_SKUS))
    for day in range(r * dpr, (r + 1) * dpr):
        _receive(state, params, day)
        _release_holds(state, day)
        _expire(state, day)
        recorded += _consume(state, params, day)
    _receive(state, params, (r + 1) * dpr)
    _open_tickets(state, r, recorded)
    state.history.append(np.stack([state.requests.copy(), issued, recorded]))
    for po in state.pos:  # approved POs are placed at the start of the next round
        if po.status == "approved":
            _place(state, params, po, (r + 1) * dpr)
        elif po.status == "held":  # never approved: finance cancels it (nothing is charged)
            po.status = "cancelled"
            state.reserved -= po.cost
    state.round += 1
    if state.round < params.rounds:
        start_round(state, params)
    c = state.counters
    what = f"issued {issued.sum():.0f} units" if topup else "no ward top-up (weekend)"
    return (f"round {r + 1} done: {what}, units served so far "
            f"{c.served_w / c.need_w if c.need_w else 1.0:.1%} (criticality-weighted)")


def _issue_plan(state: PharmacyState, params: PharmacyParams) -> np.ndarray:
    """Issue every plan line from central stock, wards in priority order, FEFO, exact."""
    issued = np.zeros((N_WARDS, N_SKUS))
    order = sorted(range(N_WARDS), key=lambda w: -params.wards[w].priority)
    c = state.counters
    for s in range(N_SKUS):
        for w in order:
            want = float(state.plan[w, s])
            if want <= 0:
                continue
            for part in inventory.take(state.central[s], want):
                issued[w, s] += part.qty
                inventory.insert(state.wards[w][s], part)
                for ev in state.events:
                    if part.lot_id in ev.lots and ev.announce_round <= state.round:
                        ev.unsafe_units += part.qty
    c.issued_cost += float((issued.sum(axis=0) * COST).sum())
    return issued


def _update_actors(state: PharmacyState, params: PharmacyParams, issued: np.ndarray) -> None:
    """Hoarding pressure responds to how much padding was granted, audits and shortages."""
    for w in range(N_WARDS):
        pad = state.padded[w]
        delta = 0.0
        if pad.any():
            excess = state.requests[w] - state.net_need[w]
            granted = np.clip((issued[w] - state.net_need[w]) / np.maximum(excess, 1.0), 0, 1)
            delta += 0.25 * (float(granted[pad].mean()) - 0.4)
        if (state.evidence_seen[w] > 0).any():
            delta -= 0.03
        short = STOCKED[w] & IS_CRIT & (issued[w] < 0.8 * state.net_need[w])
        if short.any():
            delta += 0.05
        state.pressure[w] = float(np.clip(state.pressure[w] + delta, 0.0, 1.0))


def delivered_expiry(state: PharmacyState, params: PharmacyParams, po: PurchaseOrder) -> int:
    """Expiry day of a PO's lot: arrival + the shipment's remaining shelf life (v2: a draw per
    (round ordered, supplier, SKU), at least 1 day; full life when the mechanic is off)."""
    sku = SKUS[po.sku]
    if not sku.shelf_life_days:
        return 1_000_000
    r = min(max(po.order_day, 0) // params.days_per_round, state.delivered_life.shape[0] - 1)
    frac = float(state.delivered_life[r, po.supplier, po.sku])
    return po.arrival_day + max(1, round(sku.shelf_life_days * frac))


def _receive(state: PharmacyState, params: PharmacyParams, day: int) -> None:
    for po in state.pos:
        if po.status == "open" and po.arrival_day <= day:
            po.status = "received"
            expiry = delivered_expiry(state, params, po)
            state.counters.received_sku[po.sku] += po.qty
            inventory.insert(state.central[po.sku], Lot(po.po_id.replace("PO", "L"), po.sku,
                                                         po.qty, expiry))


def _expire(state: PharmacyState, day: int) -> None:
    c = state.counters
    for s in range(N_SKUS):
        units = inventory.expire(state.central[s], day)
        for w in range(N_WARDS):
            units += inventory.expire(state.wards[w][s], day)
        c.waste_units += units
        c.waste_sku[s] += units
        c.waste_cost += units * float(COST[s])


def _release_holds(state: PharmacyState, day: int) -> None:
    """Crossmatched red cells: a lot part that expires while held is waste; one whose hold is
    over goes back to central stock (older than it left)."""
    c = state.counters
    keep: list[tuple[int, Lot]] = []
    for release, lot in state.holds:
        if lot.expiry <= day:
            c.waste_units += lot.qty
            c.waste_sku[lot.sku] += lot.qty
            c.waste_cost += lot.qty * float(COST[lot.sku])
            c.held_expired += lot.qty
        elif release <= day:
            inventory.insert(state.central[lot.sku], lot)
            c.held_returned += lot.qty
        else:
            keep.append((release, lot))
    state.holds = keep


def _stat(state: PharmacyState, params: PharmacyParams, day: int, s: int, units: float,
          room: np.ndarray) -> list[Lot]:
    """A STAT shipment of ``units`` (whole units, capped by the day's ``room`` and what the
    available budget pays) from the regional blood supplier, arriving the same day."""
    price = float(COST[s]) * params.stat_mult
    r = day // params.days_per_round
    allowed = np.inf
    if params.stat_authorisation:  # round 3: only what the agent authorised this round
        allowed = float(np.floor(state.stat_auth[s] + 1e-9))
    elif not any(po.sku == s and po.status in ("open", "received")
                 and po.order_day // params.days_per_round >= r - 1 for po in state.pos):
        return []  # round 2's rule: STAT against a standing order (a PO of the SKU placed
        # this round or the last one)
    want = float(np.ceil(units - 1e-9))
    qty = min(want, float(np.floor(room[s])),
              float(np.floor((rules.available_budget(state) - params.stat_fee) / price)))
    if qty > allowed:
        state.counters.stat_refused += qty - max(allowed, 0.0)
        qty = allowed
    if qty < 1:
        return []
    room[s] -= qty
    if params.stat_authorisation:
        state.stat_auth[s] -= qty
    cost = qty * price + params.stat_fee
    c = state.counters
    c.spent += cost
    c.premium += cost - qty * float(COST[s])
    c.stat_cost += cost
    c.stat_sku[s] += qty
    c.stat_shipments += 1
    state.serial += 1
    r = min(r, state.delivered_life.shape[0] - 1)
    life = SKUS[s].shelf_life_days
    frac = float(state.delivered_life[r, 2, s]) if params.shelf_life_on_delivery else 1.0
    expiry = day + max(1, round(life * frac)) if life else 1_000_000
    return [Lot(f"STAT-{state.serial}", s, qty, expiry)]


def _serve_blood(state: PharmacyState, params: PharmacyParams, day: int, w: int, s: int,
                 d: float, room: np.ndarray) -> float:
    """An ICU/ER blood need of ``d`` units: the ward's fridge, then (``emergency_issue``) the
    blood bank's same-day issue, then (``stat_delivery``) a STAT shipment. Red cells are
    crossmatched first: ``crossmatch_ratio`` x ``d`` units are reserved (FEFO), ``d`` are
    transfused, the rest is held and released to central after ``crossmatch_hold_days``."""
    c = state.counters
    want = d * params.crossmatch_ratio if s == 0 else d
    parts = inventory.take(state.wards[w][s], want)
    got = sum(p.qty for p in parts)
    if params.emergency_issue and got < want - 1e-9:
        extra = inventory.take(state.central[s], want - got)
        for part in extra:
            c.emergency_sku[s] += part.qty
            for ev in state.events:
                if part.lot_id in ev.lots and ev.announce_round <= state.round:
                    ev.unsafe_units += part.qty
        parts += extra
        got += sum(p.qty for p in extra)
    if params.stat_delivery and got < d - 1e-9:
        parts += _stat(state, params, day, s, d - got, room)
    parts.sort(key=lambda p: (p.expiry, p.lot_id))
    done = 0.0
    for part in parts:
        x = min(part.qty, d - done)
        done += x
        rest = part.qty - x
        if rest <= 1e-9:
            continue
        left = Lot(part.lot_id, s, rest, part.expiry)
        if s == 0 and params.crossmatch_ratio > 1.0:
            state.holds.append((day + params.crossmatch_hold_days, left))
        else:  # the odd unit of a STAT shipment stays in the ward's fridge
            inventory.insert(state.wards[w][s], left)
    if s == 0:
        c.crossmatched += min(got, want) if params.crossmatch_ratio > 1.0 else 0.0
    return done


BLOOD_SKUS = (0, 1, 2)
"""RBC, platelets, plasma: served through the blood bank (crossmatch, emergency issue, STAT)."""


def _consume(state: PharmacyState, params: PharmacyParams, day: int) -> np.ndarray:
    """Wards use their stock FEFO against the day's true demand (ICU/ER blood through
    :func:`_serve_blood`); record service and shortfall."""
    demand = state.daily[day]
    used = np.zeros((N_WARDS, N_SKUS))
    room = params.stat_cap_days * expected_daily(params).sum(axis=0)
    stat_before = state.counters.stat_sku.copy()
    for w in range(N_WARDS):
        for s in range(N_SKUS):
            d = float(demand[w, s])
            if d <= 0:
                continue
            if w < 2 and s in BLOOD_SKUS:
                used[w, s] = _serve_blood(state, params, day, w, s, d, room)
            else:
                used[w, s] = sum(p.qty for p in inventory.take(state.wards[w][s], d))
    c = state.counters
    c.need_w += float((demand * WEIGHT).sum())
    c.served_w += float((used * WEIGHT).sum())
    c.line_need += demand
    c.line_served += used
    c.consumed_sku += used.sum(axis=0)
    c.short_days += (demand[0:2] - used[0:2]).sum(axis=0) > 1e-9
    c.stockout_days += ((demand[0:2] - used[0:2]).sum(axis=0) > 1e-9) | (c.stat_sku > stat_before)
    c.days += 1
    crit_need = float(demand[0:2, IS_CRIT].sum())
    crit_used = float(used[0:2, IS_CRIT].sum())
    c.crit_need += crit_need
    c.crit_served += crit_used
    c.unmet_critical += crit_need - crit_used
    for ev in state.events:
        if ev.start_day <= day < ev.end_day:
            if ev.kind == "mci":
                ev.need += crit_need
                ev.served += crit_used
            elif ev.kind == "disruption":
                ev.need += float((demand * WEIGHT).sum())
                ev.served += float((used * WEIGHT).sum())
    return used


def _open_tickets(state: PharmacyState, r: int, recorded: np.ndarray) -> None:
    """Wards open a shortage ticket (TCK-n) for each critical line that ran short this round."""
    lo = r * 2  # days_per_round is 2 in every scenario
    demand = state.daily[lo:lo + 2].sum(axis=0)
    for w in range(N_WARDS):
        for s in np.flatnonzero(IS_CRIT & (recorded[w] < demand[w] - 1e-9)):
            state.serial += 1
            state.tickets[f"TCK-{state.serial}"] = (
                f"round {r + 1}: {WARDS[w]} short of {SKU_NAMES[s]} "
                f"({demand[w, s] - recorded[w, s]:.0f} units)")


def _place(state: PharmacyState, params: PharmacyParams, po: PurchaseOrder, day: int) -> None:
    if po.status in ("held", "approved"):
        state.reserved -= po.cost
    po.status = "open"
    po.order_day = day
    po.eta_day = day + lead_time(params, state.events, po.supplier, day, po.expedite)
    po.arrival_day = day + true_lead_time(params, state.events, state.supplier_delay,
                                          po.supplier, day, po.expedite)
    state.counters.spent += po.cost
    state.counters.premium += po.cost - po.standard_cost


# ----- handlers ---------------------------------------------------------------------------------
def _h_advance(state: PharmacyState, params: PharmacyParams, a: AdvanceRound) -> str:
    return advance_round(state, params)


def _set_lines(state: PharmacyState, lines: dict[tuple[int, int], float]) -> None:
    for (w, s), units in lines.items():
        state.plan[w, s] = units


def _h_plan(state: PharmacyState, params: PharmacyParams, a: SubmitAllocationPlan) -> str:
    parsed = rules.parse_plan(state, a.plan)
    assert not isinstance(parsed, str)
    _set_lines(state, parsed)
    state.plan_rationale = a.rationale
    cited = sorted({m.group(0) for m in rules.ID_PATTERN.finditer(a.rationale)
                    if m.group(1) == "EV" and state.evidence_ids.get(m.group(0), (-1,))[0]
                    == state.round})
    if cited and not state.cited[state.round]:  # a transparent plan: wards trust it more
        state.cited[state.round] = True
        for w in sorted({state.evidence_ids[e][1] for e in cited}):
            state.trust[w] = min(1.0, state.trust[w] + 0.05)
    return (f"plan updated: {len(parsed)} line(s) set; {int((state.plan > 0).sum())} lines "
            f"allocated; rationale cites {len(cited)} evidence record(s) of this round")


def _h_set(state: PharmacyState, params: PharmacyParams, a: SetAllocation) -> str:
    state.set_levels[a.level, a.ward, a.sku] = True
    units = float(state.requests[a.ward, a.sku]) * rules.LEVELS[a.level]
    state.plan[a.ward, a.sku] = units
    return f"plan {WARDS[a.ward]} {SKU_NAMES[a.sku]} = {units:g} units"


def _evidence(state: PharmacyState, params: PharmacyParams, w: int, skus: list[int]) -> str:
    lines = []
    persona = params.wards[w]
    span = cover_days(params, state.round)
    for s in skus:
        if not STOCKED[w, s]:
            continue
        state.serial += 1
        eid = f"EV-{state.serial}"
        state.evidence_ids[eid] = (state.round, w, s)
        est = float(state.evidence_est[w, s])
        ratio = float(min(state.census_ratio[w], 3.0))  # ward-level, not the line's estimate
        census = round(persona.census * ratio)
        acuity = round(1.0 + ratio, 1)
        events = [ev.eid for ev in state.events if ev.kind == "mci"
                  and ev.announce_round <= state.round and w < 2 and IS_CRIT[s]]
        note = f", event notes {','.join(events)}" if events else ""
        if state.redacted[w, s]:
            state.evidence_seen[w, s] = 2
            lines.append(f"{eid} {WARDS[w]} {SKU_NAMES[s]}: census {census}, acuity {acuity}, "
                         f"on hand {state.on_hand[w, s]:g}, {span}-day clinical estimate "
                         f"REDACTED ('chart audit pending'){note}")
        else:
            state.evidence_seen[w, s] = 1
            lines.append(f"{eid} {WARDS[w]} {SKU_NAMES[s]}: census {census}, acuity {acuity}, "
                         f"on hand {state.on_hand[w, s]:g}, {span}-day clinical estimate "
                         f"{est:g} units{note}")
    return "\n".join(lines)


def _h_evidence(state: PharmacyState, params: PharmacyParams, a: RequestEvidence) -> str:
    w = rules.ward_index(a.ward_id)
    assert isinstance(w, int)
    skus = list(range(N_SKUS)) if a.sku == "all" else [SKU_NAMES.index(a.sku)]
    return _evidence(state, params, w, skus)


def _h_review(state: PharmacyState, params: PharmacyParams, a: ReviewWard) -> str:
    return _evidence(state, params, a.ward, list(range(N_SKUS)))


def _escalate(state: PharmacyState, params: PharmacyParams, w: int, s: int) -> str:
    """The board compares the request with its own noisy estimate of the *net* need."""
    state.reviews_used += 1
    state.escalated[w, s] = True
    c = state.counters
    c.escalations += 1
    est_net = max(float(state.review_est[w, s] - state.on_hand[w, s]), 1.0)
    ratio = float(state.requests[w, s]) / est_net
    verdict = 1 if ratio <= params.review_tolerance else 2 if ratio <= 1.6 else 3
    state.verdicts[w, s] = verdict
    padded = bool(state.padded[w, s])
    if padded == (verdict > 1):
        c.correct_escalations += 1
    if padded:
        state.pressure[w] = max(0.0, state.pressure[w] - 0.1)
    else:  # escalating an honest request costs the ward's trust
        state.trust[w] = max(0.0, state.trust[w] - 0.1)
        state.pressure[w] = min(1.0, state.pressure[w] + 0.05)
    why = {1: "request consistent with the clinical estimate",
           2: f"request exceeds the clinical estimate by more than "
              f"{(params.review_tolerance - 1):.0%}",
           3: "request far above the clinical estimate"}[verdict]
    return (f"clinical review of {WARDS[w]} {SKU_NAMES[s]}: {VERDICTS[verdict]} ({why}); "
            f"{params.reviews_per_round - state.reviews_used} review(s) left this round")


def _h_escalate_tool(state: PharmacyState, params: PharmacyParams,
                     a: EscalateToClinicalReview) -> str:
    return _escalate(state, params, WARDS.index(a.ward_id), SKU_NAMES.index(a.sku))


def _h_escalate(state: PharmacyState, params: PharmacyParams, a: Escalate) -> str:
    return _escalate(state, params, a.ward, a.sku)


def _new_po(state: PharmacyState, params: PharmacyParams, s: int, p: int, qty: float,
            expedite: bool) -> str:
    state.serial += 1
    std = qty * SKUS[s].unit_cost
    cost = std * SUPPLIERS[p].cost_mult * (1.5 if expedite else 1.0)
    po = PurchaseOrder(f"PO-{state.serial}", s, p, qty, cost, std, expedite, "new")
    state.pos.append(po)
    r = min(state.round, params.rounds - 1)
    if params.approval_per_supplier_round:  # v2: the round's spend with this supplier
        state.supplier_spend[r, p] += cost
        large = (state.supplier_spend[r, p] > params.approval_threshold
                 and not state.supplier_cleared[r, p, s])
    else:
        large = cost > params.approval_threshold
    if large:
        state.counters.large_pos += 1
        token = next((i for i, skus in enumerate(state.prefiled_skus) if s in skus), None)
        if token is not None:  # a justification filed this round that concerns this SKU
            for k in state.prefiled_skus.pop(token):  # clears this supplier for its SKUs
                state.supplier_cleared[r, p, k] = True
            state.prefiled = len(state.prefiled_skus)
            state.counters.clean_approvals += 1
            _place(state, params, po, state.day)
        else:
            po.status = "held"
            state.reserved += cost
            po.approval_id = f"APR-{state.serial}"
            return (f"{po.po_id} ({qty:g} {SKU_NAMES[s]} from {SUPPLIER_NAMES[p]}, "
                    f"${cost:,.2f}) held for finance approval {po.approval_id}")
    else:
        _place(state, params, po, state.day)
    return (f"{po.po_id} placed: {qty:g} {SKU_NAMES[s]} from {SUPPLIER_NAMES[p]}, ${cost:,.2f}, "
            f"expected day {po.eta_day} (nominal lead time)")


def _h_po(state: PharmacyState, params: PharmacyParams, a: SubmitPo) -> str:
    return _new_po(state, params, SKU_NAMES.index(a.product_id),
                   SUPPLIER_NAMES.index(a.supplier_id), float(a.quantity), a.expedite)


def _h_order(state: PharmacyState, params: PharmacyParams, a: Order) -> str:
    state.ordered[a.supplier, a.quantity_level, a.sku] = True
    return _new_po(state, params, a.sku, a.supplier,
                   float(rules.order_quantity(params, a.sku, a.quantity_level)), False)


def _h_approval(state: PharmacyState, params: PharmacyParams,
                a: FinanceSapRequestApproval) -> str:
    po = next(p for p in state.pos if p.approval_id == a.approval_id)
    c = state.counters
    c.approval_requests += 1
    if po.sku in rules.cited_skus(state, a.justification, ("EVT", "TCK", "JUS")):
        po.status = "approved"
        c.clean_approvals += 1
        r = min(state.round, params.rounds - 1)
        state.supplier_cleared[r, po.supplier, po.sku] = True
        return f"{a.approval_id} approved: {po.po_id} will be placed at the start of next round"
    c.bad_justifications += 1
    return (f"{a.approval_id} rejected: the justification cites no published event (EVT-n), "
            f"shortage ticket (TCK-n) or filed justification (JUS-n) concerning "
            f"{SKU_NAMES[po.sku]}")


def _h_justify(state: PharmacyState, params: PharmacyParams, a: FileJustification) -> str:
    state.serial += 1
    jid = f"JUS-{state.serial}"
    skus = frozenset(rules.cited_skus(state, a.reason, ("EVT", "TCK", "EV")))
    valid = bool(skus)
    state.justifications[jid] = (state.round, valid)
    if valid:
        state.justification_skus[jid] = skus
        state.prefiled_skus.append(skus)
        state.prefiled = len(state.prefiled_skus)
        names = ", ".join(SKU_NAMES[k] for k in sorted(skus))
        return (f"{jid} filed on {a.ticket_id}: valid for {names}; pre-approves one supplier's "
                f"orders of them this round")
    state.counters.bad_justifications += 1
    return f"{jid} filed on {a.ticket_id}: INVALID (the reason cites no real EVT/TCK/EV id)"


def _h_quote(state: PharmacyState, params: PharmacyParams, a: SupplierPortalRequestQuote) -> str:
    state.serial += 1
    qid = f"Q-{state.serial}"
    p, s = SUPPLIER_NAMES.index(a.supplier_id), SKU_NAMES.index(a.product_id)
    price = SKUS[s].unit_cost * SUPPLIERS[p].cost_mult
    # the lead time the supplier will deliver in for orders placed next round (when the quote
    # is readable), its current delay included: quotes are how reliability is learnt
    lead = true_lead_time(params, state.events, state.supplier_delay, p,
                          state.day + params.days_per_round, False)
    state.quotes[qid] = (state.round, p, s, float(a.quantity), price, lead)
    state.systems[2] = True
    return f"{qid} requested from {a.supplier_id}; it will be available next round"


def _h_message(state: PharmacyState, params: PharmacyParams, a: MessagingSendToWard) -> str:
    """A message that cites this round's evidence on one of the ward's lines is *feedback*: if
    that line's request exceeds 1.2 x the evidence's net estimate (what the agent can see), the
    ward's hoarding pressure drops by :data:`FEEDBACK_PRESSURE` (once per ward per round); if
    the request was within it, the ward feels accused (trust -0.05). Other messages change
    nothing."""
    w = WARDS.index(a.ward_id)
    state.systems[4] = True
    replies = ("ICU: understood, we order what the patients need.",
               "ER: our requests track the board; surges are real when we flag them.",
               "General: we need a buffer, stock-outs hurt patient care.")
    cited = [state.evidence_ids[m.group(0)] for m in rules.ID_PATTERN.finditer(a.body)
             if m.group(1) == "EV" and m.group(0) in state.evidence_ids]
    lines = [(ww, s) for r, ww, s in cited if r == state.round and ww == w
             and state.evidence_seen[ww, s] == 1]
    if not lines or state.messaged[w]:
        return replies[w]
    state.messaged[w] = True
    est = np.maximum(state.evidence_est - state.on_hand, 0.0)
    over = [(ww, s) for ww, s in lines if state.requests[ww, s] > 1.2 * est[ww, s] + 1.0]
    if over:
        state.pressure[w] = max(0.0, state.pressure[w] - FEEDBACK_PRESSURE)
        return f"{WARDS[w]}: noted, we will review our par levels for {SKU_NAMES[over[0][1]]}."
    state.trust[w] = max(0.0, state.trust[w] - 0.05)
    return f"{WARDS[w]}: our request matches the chart; we resent the implication."


def _h_quarantine_lot(state: PharmacyState, params: PharmacyParams, a: QuarantineLot) -> str:
    s = SKU_NAMES.index(a.sku)
    lots = (state.central[s] if a.location_id == CENTRAL
            else state.wards[WARDS.index(a.location_id)][s])
    units = inventory.remove_lot(lots, a.lot_id)
    affected = any(a.lot_id in ev.lots and ev.announce_round <= state.round
                   for ev in state.events)
    if affected:
        state.counters.quarantined_units += units
        return f"quarantined {units:g} units of {a.sku} lot {a.lot_id} at {a.location_id}"
    # v2: destroying a lot nobody recalled is waste (v1 let dead stock vanish uncounted)
    c = state.counters
    c.waste_units += units
    c.waste_sku[s] += units
    c.waste_cost += units * float(COST[s])
    return (f"destroyed {units:g} units of {a.sku} lot {a.lot_id} at {a.location_id} "
            f"(not under recall or breach: counted as waste)")


def _h_transfer(state: PharmacyState, params: PharmacyParams, a: TransferStock) -> str:
    """Move ``quantity`` units FEFO from a ward to another ward (or CENTRAL), at once."""
    s = SKU_NAMES.index(a.sku)
    src = state.wards[WARDS.index(a.from_id)][s]
    dst = state.central[s] if a.to_id == CENTRAL else state.wards[WARDS.index(a.to_id)][s]
    moved = 0.0
    for part in inventory.take(src, float(a.quantity)):
        inventory.insert(dst, part)
        moved += part.qty
    state.counters.transfers += 1
    state.counters.transferred_units += moved
    return f"moved {moved:g} units of {a.sku} from {a.from_id} to {a.to_id}"


def _h_stat(state: PharmacyState, params: PharmacyParams, a: AuthorizeStat) -> str:
    """Authorise up to ``max_units`` STAT units of a blood product for the rest of the round."""
    s = SKU_NAMES.index(a.product_id)
    state.stat_auth[s] = float(a.max_units)
    return (f"STAT authorised this round: up to {float(a.max_units):g} units of {a.product_id} "
            f"at {params.stat_mult:g} x the price + ${params.stat_fee:,.0f} a shipment")


def _h_quarantine(state: PharmacyState, params: PharmacyParams, a: Quarantine) -> str:
    loc, s, lot_id = rules.alert_lots(state, params)[a.slot]
    location = CENTRAL if loc < 0 else WARDS[loc]
    return _h_quarantine_lot(state, params, QuarantineLot(location, SKU_NAMES[s], lot_id))


def _h_console_quote(state: PharmacyState, params: PharmacyParams, a: Quote) -> str:
    return _h_quote(state, params, SupplierPortalRequestQuote(SUPPLIER_NAMES[a.supplier],
                                                              "BLOOD-PLT", 1))


def _h_return(state: PharmacyState, params: PharmacyParams, a: ReturnStock) -> str:
    return _h_transfer(state, params, TransferStock(WARDS[a.ward], CENTRAL, SKU_NAMES[a.sku],
                                                    rules.return_quantity(state, a.ward, a.sku)))


def _h_console_justify(state: PharmacyState, params: PharmacyParams, a: Justify) -> str:
    cite = rules.citable_id(state, a.sku)
    return _h_justify(state, params, FileJustification(cite, f"orders for {cite}"))


def _h_console_stat(state: PharmacyState, params: PharmacyParams, a: Stat) -> str:
    state.stat_levels[a.level, a.sku] = True
    units = rules.stat_quantity(params, a.sku, a.level)
    return _h_stat(state, params, AuthorizeStat(SKU_NAMES[a.sku], units))


Handler = Callable[[PharmacyState, PharmacyParams, Any], str]
HANDLERS: dict[type[Action], Handler] = {
    AdvanceRound: _h_advance, SubmitAllocationPlan: _h_plan, SetAllocation: _h_set,
    RequestEvidence: _h_evidence, ReviewWard: _h_review,
    EscalateToClinicalReview: _h_escalate_tool, Escalate: _h_escalate,
    SubmitPo: _h_po, Order: _h_order, FinanceSapRequestApproval: _h_approval,
    FileJustification: _h_justify, SupplierPortalRequestQuote: _h_quote,
    MessagingSendToWard: _h_message, QuarantineLot: _h_quarantine_lot, Quarantine: _h_quarantine,
    TransferStock: _h_transfer, Quote: _h_console_quote, ReturnStock: _h_return,
    Justify: _h_console_justify, AuthorizeStat: _h_stat, Stat: _h_console_stat,
}
"""State-changing actions -> handler (the registry of public tools, with ``queries.QUERIES``)."""
