"""Seeded episode generation: demand, events, actor noise, initial stock and the budget.

Everything random about an episode is drawn here, from named streams, before the agent acts, so
every policy faces the same demand and the same actor dice (common random numbers). Only the
WMS scan noise is drawn later, from its own stream.
"""

from __future__ import annotations

import numpy as np

from lifeline.envs.pharmacy.params import (
    NO_EXPIRY,
    SKUS,
    SUPPLIERS,
    PharmacyParams,
)
from lifeline.envs.pharmacy.types import Event, Lot, PharmacyState

N_WARDS, N_SKUS = 3, len(SKUS)
BASE = np.array([s.daily_demand for s in SKUS], dtype=np.float64).T
"""Mean daily demand (ward, SKU) at demand scale 1."""
STOCKED = BASE > 0
"""Which ward stocks which SKU (26 lines)."""
COST = np.array([s.unit_cost for s in SKUS])
IS_CRIT = np.array([s.criticality == 0 for s in SKUS])
NOISE_COLS = 7
"""Actor noise per (round, ward, SKU): pad draw, pad size, honest noise, evidence, review,
redaction draw, justification-template draw (v2: its own column, independent of padding)."""


def expected_daily(params: PharmacyParams) -> np.ndarray:
    """Expected daily demand (ward, SKU) without events."""
    return BASE * params.demand_scale


def draw_events(params: PharmacyParams, rng: np.random.Generator) -> list[Event]:
    """The scenario's events: kinds, timing and targets (lots are fixed at announcement)."""
    lo, hi = params.events
    count = int(rng.integers(lo, hi + 1))
    kinds = list(params.forced_events)
    pool = [k for k in params.event_kinds if k not in kinds]
    while len(kinds) < count and pool:
        kinds.append(pool.pop(int(rng.integers(len(pool)))))
    events: list[Event] = []
    dpr = params.days_per_round
    for i, kind in enumerate(kinds):
        eid = f"EVT-{i + 1}"
        if kind == "mci":
            start_round = int(rng.integers(2, params.rounds - 1))
            start = start_round * dpr
            events.append(Event(eid, kind, start_round - 1, start, start + params.mci_days))
        elif kind == "disruption":
            r = int(rng.integers(1, params.rounds - 2))
            events.append(Event(eid, kind, r, r * dpr, (r + params.disruption_rounds) * dpr,
                                supplier=0))
        elif kind == "recall":
            r = int(rng.integers(1, params.rounds - 1))
            sku = int(rng.choice([2, 3, 4]))  # long-life FFP, IV saline, antibiotics
            events.append(Event(eid, kind, r, r * dpr, params.days, sku=sku))
        else:  # cold chain breach of the platelets in the central store
            r = int(rng.integers(1, params.rounds - 1))
            events.append(Event(eid, kind, r, r * dpr, params.days, sku=1))
    return events


def restocks(params: PharmacyParams, rnd: int) -> bool:
    """Whether the ward top-up runs in round ``rnd`` (its first day is a restock weekday)."""
    return (rnd * params.days_per_round) % 7 in params.restock_weekdays


def cover_days(params: PharmacyParams, rnd: int) -> int:
    """Days a round's requests and evidence cover: to the start of the next round whose plan
    is issued (or the episode's end); a round's own days when every round restocks."""
    nxt = rnd + 1
    while nxt < params.rounds and not restocks(params, nxt):
        nxt += 1
    if not restocks(params, rnd):
        nxt = rnd + 1
    return (min(nxt, params.rounds) - rnd) * params.days_per_round


def weekday_factor(params: PharmacyParams) -> np.ndarray:
    """Demand multiplier per day of the horizon (day 0 a Monday); ones when switched off."""
    if not params.weekday:
        return np.ones(params.days)
    pattern = np.asarray(params.weekday, dtype=np.float64)
    return pattern[np.arange(params.days) % len(pattern)]


def draw_surges(params: PharmacyParams, rng: np.random.Generator) -> np.ndarray:
    """Unannounced ward surges: multiplier (day, ward); each ward surges with ``surge_prob``
    for ``surge_days`` from a uniform start day. Always draws (so switching off moves no dice)."""
    out = np.ones((params.days, N_WARDS))
    hit = rng.random(N_WARDS) < params.surge_prob
    start = rng.integers(0, max(1, params.days - params.surge_days), N_WARDS)
    for w in range(N_WARDS):
        if hit[w]:
            out[start[w]:start[w] + params.surge_days, w] = params.surge_mult
    return out


def draw_demand(params: PharmacyParams, events: list[Event],
                rng: np.random.Generator, surges: np.ndarray | None = None) -> np.ndarray:
    """Realised daily demand (day, ward, SKU), integer units (Poisson around the mean).

    Mean = base x weekday pattern x ward surge x ER spike (10-15 % of days) x MCI (CRIT SKUs at
    ICU/ER during its window)."""
    mean = np.broadcast_to(expected_daily(params), (params.days, N_WARDS, N_SKUS)).copy()
    mean *= weekday_factor(params)[:, None, None]
    if surges is not None:
        mean *= surges[:, :, None]
    spikes = rng.random(params.days) < params.er_spike_prob
    mean[spikes, 1, :] *= params.er_spike_mult
    for ev in events:
        if ev.kind == "mci":
            mean[ev.start_day:ev.end_day, 0:2, IS_CRIT] *= params.mci_mult
    return rng.poisson(mean).astype(np.float64)


def initial_stock(params: PharmacyParams, rng: np.random.Generator
                  ) -> tuple[list[list[Lot]], list[list[list[Lot]]]]:
    """Central lots (two per SKU, ids ``L-<sku>-<j>``) and one lot per stocked ward line."""
    daily = expected_daily(params)
    central: list[list[Lot]] = []
    for s, sku in enumerate(SKUS):
        total = float(np.round(daily[:, s].sum() * sku.initial_days))
        lots = []
        for j, share in enumerate((0.4, 0.6)):
            if sku.shelf_life_days:
                life = max(1, round(sku.shelf_life_days * rng.uniform(0.3, 0.95)))
            else:
                life = NO_EXPIRY
            lots.append(Lot(f"L-{s}-{j}", s, float(np.round(total * share)), life))
        lots.sort(key=lambda lot: (lot.expiry, lot.lot_id))
        central.append(lots)
    wards: list[list[list[Lot]]] = []
    for w in range(N_WARDS):
        row: list[list[Lot]] = []
        for s, sku in enumerate(SKUS):
            qty = float(np.round(daily[w, s] * params.initial_ward_days))
            life = max(2, sku.shelf_life_days // 2) if sku.shelf_life_days else NO_EXPIRY
            row.append([Lot(f"W-{w}-{s}", s, qty, life)] if qty > 0 else [])
        wards.append(row)
    return central, wards


def budget(params: PharmacyParams, central: list[list[Lot]], wards: list[list[list[Lot]]],
           events: list[Event]) -> float:
    """Budget: ``budget_fraction`` x standard cost of the expected net need + event allowances.

    Expected net need = expected demand over the horizon (no events) minus the initial stock
    (central and wards). An MCI's allowance is the same fraction of its expected extra CRIT
    demand; every other event adds ``event_allowance``. (Derivation in the README.)
    """
    daily = expected_daily(params)
    need = daily.sum(axis=0) * params.days
    stock = np.array([sum(lot.qty for lot in lots) for lots in central])
    stock += np.array([[sum(lot.qty for lot in wards[w][s]) for s in range(N_SKUS)]
                       for w in range(N_WARDS)]).sum(axis=0)
    base = params.budget_fraction * float(np.maximum(need - stock, 0.0) @ COST)
    extra = 0.0
    for ev in events:
        if ev.kind == "mci":
            crit_daily = float(daily[0:2, IS_CRIT].sum(axis=0) @ COST[IS_CRIT])
            extra += params.budget_fraction * (params.mci_mult - 1) * params.mci_days * crit_daily
        else:
            extra += params.event_allowance
    return float(round(base + extra, -2))


def pre_history(params: PharmacyParams, rng: np.random.Generator) -> np.ndarray:
    """Synthetic 8 rounds before the episode: (round, [request, consumption], ward, SKU)."""
    daily = expected_daily(params) * params.days_per_round
    out = np.zeros((8, 2, N_WARDS, N_SKUS))
    for r in range(8):
        use = rng.poisson(daily).astype(np.float64)
        pads = np.array([p.pad_base + 0.6 * p.initial_pressure for p in params.wards])
        padded = rng.random((N_WARDS, N_SKUS)) < pads[:, None]
        sizes = np.array([p.pad_size for p in params.wards])[:, None]
        out[r, 0] = np.round(use * np.where(padded, 1 + sizes * rng.uniform(0.5, 1.5), 1.0))
        out[r, 1] = use
    return out


def draw_supply(params: PharmacyParams, rng: np.random.Generator
                ) -> tuple[np.ndarray, np.ndarray]:
    """Supplier delays (round, supplier), days, and the remaining-life fraction of each
    (round, supplier, SKU) shipment. Always drawn, so switching a mechanic off moves no dice.

    A round's shipments from a supplier are late with probability ``1 - on_time`` by
    ``1..max_delay_days``; a shipment keeps ``U(delivered_life)`` of its shelf life, red cells
    with probability ``short_dated`` only 4-10 days."""
    n_sup = len(SUPPLIERS)
    late = rng.random((params.rounds, n_sup))
    size = rng.random((params.rounds, n_sup))
    life_u = rng.random((params.rounds, n_sup, N_SKUS))
    short_u = rng.random((params.rounds, n_sup))
    short_len = rng.random((params.rounds, n_sup))
    delay = np.zeros((params.rounds, n_sup), dtype=np.int64)
    if params.lead_time_noise:
        for p, sup in enumerate(SUPPLIERS):
            is_late = late[:, p] >= sup.on_time
            delay[:, p] = np.where(is_late, 1 + np.floor(size[:, p] * sup.max_delay_days), 0)
    life = np.ones((params.rounds, n_sup, N_SKUS))
    if params.shelf_life_on_delivery:
        for s, sku in enumerate(SKUS):
            lo, hi = sku.delivered_life
            life[:, :, s] = lo + (hi - lo) * life_u[:, :, s]
        rbc_days = SKUS[0].shelf_life_days
        short = short_u < params.short_dated
        life[:, :, 0] = np.where(short, (4.0 + 6.0 * short_len) / rbc_days, life[:, :, 0])
    return delay, life


def lead_time(params: PharmacyParams, events: list[Event], supplier: int, day: int,
              expedite: bool) -> int:
    """Nominal lead time (days) of a PO placed on ``day``: the supplier's catalogue lead, with a
    published-or-not disruption and expedite applied (no random delay: see :func:`arrival`)."""
    lead = SUPPLIERS[supplier].lead_days
    for ev in events:
        if ev.kind == "disruption" and ev.supplier == supplier and ev.start_day <= day < ev.end_day:
            lead += params.disruption_extra_days
    if expedite:
        lead = max(1, lead - 2)
    return lead


def true_lead_time(params: PharmacyParams, events: list[Event], delay: np.ndarray,
                   supplier: int, day: int, expedite: bool) -> int:
    """Actual lead time: nominal + the supplier's delay in the round the PO is placed (hidden;
    a quote read in that round states it)."""
    r = min(day // params.days_per_round, delay.shape[0] - 1)
    return lead_time(params, events, supplier, day, expedite) + int(delay[r, supplier])


def new_state(params: PharmacyParams, rng: dict[str, np.random.Generator]) -> PharmacyState:
    """A fresh episode (round 0 is set up by the caller through ``dynamics.start_round``)."""
    events = draw_events(params, rng["events"])
    surges = draw_surges(params, rng["surges"])
    daily = draw_demand(params, events, rng["demand"], surges)
    delay, life = draw_supply(params, rng["supply"])
    central, wards = initial_stock(params, rng["stock"])
    noise = rng["actors"].random((params.rounds, N_WARDS, N_SKUS, NOISE_COLS))
    ward_noise = rng["actors"].random((params.rounds, N_WARDS))
    z = (N_WARDS, N_SKUS)
    state = PharmacyState(
        central=central, wards=wards, daily=daily, noise=noise, events=events,
        budget=budget(params, central, wards, events),
        pressure=np.array([p.initial_pressure for p in params.wards]),
        trust=np.full(N_WARDS, 0.7),
        net_need=np.zeros(z), padded=np.zeros(z, dtype=bool), review_est=np.zeros(z),
        requests=np.zeros(z), justification=np.zeros(z, dtype=np.int64),
        evidence_est=np.zeros(z), on_hand=np.zeros(z), redacted=np.zeros(z, dtype=bool),
        evidence_seen=np.zeros(z, dtype=np.int64), verdicts=np.zeros(z, dtype=np.int64),
        plan=np.zeros(z), escalated=np.zeros(z, dtype=bool),
        pre_history=pre_history(params, rng["history"]),
        erp_stock=np.array([sum(lot.qty for lot in lots) for lots in central]),
        erp_expiring=np.zeros(N_SKUS), wms_seen=np.full(N_SKUS, -1.0),
        systems=np.zeros(5, dtype=bool), overview_calls=np.zeros(params.rounds, dtype=np.int64),
        cited=np.zeros(params.rounds, dtype=bool), rng=rng, surges=surges,
        supplier_delay=delay, delivered_life=life, ward_noise=ward_noise,
        supplier_spend=np.zeros((params.rounds, len(SUPPLIERS))),
        supplier_cleared=np.zeros((params.rounds, len(SUPPLIERS), N_SKUS), dtype=bool),
        messaged=np.zeros(N_WARDS, dtype=bool))
    return state
