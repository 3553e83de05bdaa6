"""Parameters of the hospital supply network (MedChain) and its named scenarios.

The catalogue (SKUs, suppliers, wards) is the seed project's. Every field states its unit;
scenarios are frozen :class:`PharmacyParams` presets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CRIT, HIGH, NORMAL = 0, 1, 2
"""Criticality classes of a SKU."""
CRIT_WEIGHT = (3.0, 2.0, 1.0)
"""Service weight of one unit by criticality class (CRIT, HIGH, NORMAL)."""
NO_EXPIRY = 1_000_000
"""Expiry day of a lot that never expires."""

WARDS = ("ward_icu", "ward_er", "ward_general")
"""Ward ids (tool arguments); index 0 = ICU, 1 = ER, 2 = General."""
WARD_NAMES = ("ICU", "ER", "General")
CENTRAL = "CENTRAL"
"""Location id of the central pharmacy (the only PO destination)."""


@dataclass(frozen=True)
class Sku:
    """One product of the catalogue."""

    name: str
    """Product id, e.g. ``BLOOD-RBC``."""
    shelf_life_days: int
    """Shelf life of a fresh lot, days (0 = does not expire)."""
    criticality: int
    """CRIT / HIGH / NORMAL (index into :data:`CRIT_WEIGHT`)."""
    unit_cost: float
    """Standard price at the reference supplier, $ per unit."""
    daily_demand: tuple[float, float, float]
    """Mean daily consumption at ICU, ER, General, units/day (0 = the ward does not stock it)."""
    initial_days: float
    """Central stock at the start, days of network demand."""
    delivered_life: tuple[float, float] = (1.0, 1.0)
    """v2: remaining shelf life of a delivered lot, fraction of ``shelf_life_days``: uniform
    between these bounds (one draw per round, supplier and SKU: a shipment is one batch).
    Blood arrives part-used: platelets are released after 1-2 days of testing; blood centres
    ship red cells of mixed age (``PharmacyParams.short_dated`` adds short-dated lots)."""


SKUS: tuple[Sku, ...] = (
    Sku("BLOOD-RBC", 42, CRIT, 220.0, (6.0, 6.0, 0.0), 4.0, (0.45, 0.85)),
    Sku("BLOOD-PLT", 5, CRIT, 450.0, (3.0, 3.0, 0.0), 2.0, (0.4, 0.8)),
    Sku("BLOOD-FFP", 365, CRIT, 180.0, (4.0, 4.0, 0.0), 8.0),
    Sku("IV-SAL-500", 540, HIGH, 3.5, (20.0, 20.0, 20.0), 10.0),
    Sku("ANTIBIO-01", 365, HIGH, 15.0, (12.0, 12.0, 12.0), 8.0),
    Sku("OXY-MASK", 0, HIGH, 4.0, (8.0, 8.0, 0.0), 8.0),
    Sku("SYR-10", 0, NORMAL, 0.5, (40.0, 40.0, 40.0), 10.0),
    Sku("GLOVE-001", 0, NORMAL, 5.0, (25.0, 25.0, 25.0), 8.0),
    Sku("MASK-001", 0, NORMAL, 1.0, (30.0, 30.0, 30.0), 10.0),
    Sku("GAUZE-01", 0, NORMAL, 0.8, (35.0, 35.0, 35.0), 10.0),
)
SKU_NAMES = tuple(s.name for s in SKUS)


@dataclass(frozen=True)
class Supplier:
    """One supplier."""

    name: str
    lead_days: int
    """Nominal lead time, days from placing the PO to arrival at the central pharmacy."""
    cost_mult: float
    """Price multiplier over the standard unit cost."""
    on_time: float = 1.0
    """v2: probability that a round's shipments from this supplier arrive on time; otherwise
    they are ``1..max_delay_days`` late (uniform). Drawn per (round, supplier) at reset."""
    max_delay_days: int = 0
    """v2: the largest delay of a late round, days."""


SUPPLIERS: tuple[Supplier, ...] = (
    Supplier("MEDLINE", 2, 1.0, 0.8, 2),
    Supplier("BACKUP-B", 3, 1.3, 0.65, 3),
    Supplier("FASTMED", 1, 1.8, 0.97, 1),
)
SUPPLIER_NAMES = tuple(s.name for s in SUPPLIERS)


@dataclass(frozen=True)
class Persona:
    """A ward actor's scripted character."""

    priority: float
    """Clinical priority (issue order when stock is short: higher first)."""
    pad_base: float
    """Probability of padding a line at zero hoarding pressure."""
    pad_size: float
    """Typical padding as a fraction of the real net need (scaled by pressure)."""
    initial_pressure: float
    """Hoarding pressure at the start, in [0, 1]."""
    census: int
    """Typical bed census (evidence fluff scale)."""


PERSONAS: tuple[Persona, ...] = (
    Persona(1.0, 0.03, 0.20, 0.05, 12),
    Persona(0.7, 0.20, 0.40, 0.25, 20),
    Persona(0.3, 0.50, 0.60, 0.55, 32),
)

EVENT_KINDS = ("mci", "disruption", "recall", "cold_chain")


@dataclass(frozen=True)
class PharmacyParams:
    """One scenario. Time is counted in days and rounds (1 round = ``days_per_round`` days)."""

    rounds: int = 8
    """Rounds per episode."""
    days_per_round: int = 2
    """Simulated days per round."""
    tool_calls_per_round: int = 60
    """Tool calls (valid or not) per round; the round advances by itself when they run out."""
    reviews_per_round: int = 2
    """Clinical-review escalations available per round."""
    demand_scale: float = 1.0
    """Multiplier on every SKU's daily demand."""
    events: tuple[int, int] = (1, 2)
    """Inclusive range of the number of events."""
    event_kinds: tuple[str, ...] = EVENT_KINDS
    """Kinds the events are drawn from (without repetition while possible)."""
    forced_events: tuple[str, ...] = ()
    """Kinds that always occur (named event scenarios)."""
    er_spike_prob: float = 0.10
    """Probability per day of a non-event ER demand spike."""
    er_spike_mult: float = 1.6
    """ER demand multiplier on a spike day."""
    mci_mult: float = 2.8
    """ICU/ER demand multiplier of CRIT SKUs during a mass-casualty incident."""
    mci_days: int = 3
    """Length of a mass-casualty incident, days."""
    disruption_extra_days: int = 3
    """Extra lead time of a disrupted supplier, days."""
    disruption_rounds: int = 3
    """Length of a supplier disruption, rounds."""
    honest_noise: float = 0.05
    """Log-sd of an honest ward's own forecast of its need."""
    evidence_noise: float = 0.15
    """Log-sd of the evidence's 2-day clinical estimate around the true need."""
    review_noise: float = 0.06
    """Log-sd of the clinical review board's estimate around the true need."""
    review_tolerance: float = 1.12
    """The board approves a request up to this ratio over its own estimate."""
    budget_fraction: float = 0.9
    """Budget = this fraction of the standard cost of the expected net need (see README)."""
    event_allowance: float = 5000.0
    """Budget allowance per non-MCI event, $."""
    approval_threshold: float = 10_000.0
    """POs costing more than this ($) need finance approval."""
    initial_ward_days: float = 1.0
    """Ward stock at the start, days of that ward's demand."""
    wards: tuple[Persona, ...] = field(default=PERSONAS)
    # ----- v2 supply-chain mechanics (each can be switched off for its test) -----------------
    shelf_life_on_delivery: bool = True
    """Deliveries arrive with :attr:`Sku.delivered_life` of their shelf life left (off: fresh)."""
    short_dated: float = 0.25
    """Probability that a round's red-cell shipment is short-dated (blood centres rotate
    near-expiry stock to hospitals): it then has 4-10 days left instead of the normal range."""
    lead_time_noise: bool = True
    """Suppliers are late with probability ``1 - Supplier.on_time`` (off: always on time)."""
    weekday: tuple[float, ...] = (1.1, 1.15, 1.1, 1.1, 1.05, 0.75, 0.75)
    """Daily demand multipliers by weekday (day 0 is a Monday; mean 1.0): elective surgery
    and clinics run on weekdays. ``()`` switches the pattern off."""
    surge_prob: float = 0.35
    """Probability per ward per episode of an unannounced demand surge (a local outbreak, a
    busy theatre list): every SKU of that ward x ``surge_mult`` for ``surge_days``. 0 = off."""
    surge_mult: float = 1.5
    surge_days: int = 4
    transfers: bool = True
    """The ``transfer_stock`` tool may move stock between wards and back to central."""
    restock_weekdays: tuple[int, ...] = (0, 1, 2, 3, 4)
    """v2 (round 4): weekdays (day 0 is a Monday) on which the pharmacy's ward top-up runs: the
    plan of a round that starts on another day (Saturday, Sunday) is not issued, and a top-up
    round's requests and evidence cover the days until the next top-up (the Friday round
    stocks the wards through the weekend). The blood bank (same-day issue, STAT) and
    ``transfer_stock`` work every day. ``tuple(range(7))`` switches the gap off."""
    terminal_days: float = 4.0
    """Stock on hand at the end is credited at standard cost up to this many days of expected
    demand per SKU (network), less what would expire before use (see reward.py); 0 = off."""
    emergency_issue: bool = True
    """v2 (round 2): the blood bank is the central pharmacy: when a ward's fridge cannot serve an
    ICU/ER patient's blood (RBC, platelets, plasma), central issues the units the same day
    (off: central stock reaches a ward only through the round's plan)."""
    stat_delivery: bool = True
    """v2 (round 2): when central has no blood left either, the blood bank places a STAT order
    with the regional blood supplier (shipped within the hour, United Blood Services' terms):
    the missing units arrive the same day at ``stat_mult`` x the standard price plus
    ``stat_fee`` per shipment, while the available budget covers it (off: unmet)."""
    stat_authorisation: bool = True
    """v2 (round 3): a STAT order needs the agent's authorisation this round
    (``authorize_stat``, units per blood product), so STAT is a choice: spending 2 x the price
    now or keeping the money for regular orders. Off: round 2's rule, STAT against any
    standing order (a PO of the SKU placed this round or the last), which an agent holding
    standing orders could not refuse."""
    stat_mult: float = 2.0
    """Price multiplier of a STAT unit (assumed; FASTMED's routine next-day premium is 1.8)."""
    stat_fee: float = 300.0
    """$ per STAT shipment (courier; assumed)."""
    stat_cap_days: float = 2.0
    """Largest STAT shipment per SKU per day, days of the SKU's expected network demand (the
    supplier's own stock is finite; assumed)."""
    crossmatch_ratio: float = 1.7
    """v2 (round 2): red cells crossmatched per unit transfused (C:T ratio; 1.3-2.15 in three
    hospitals, Clin Lab Haematol 1983;5:379; <= 2 recommended). A ward's red-cell patient
    reserves this many units (first-expiry-first-out) on the day of need; the units not
    transfused stay held for ``crossmatch_hold_days`` and then go back to central, older.
    1.0 = off (no holds)."""
    crossmatch_hold_days: int = 2
    """Days an untransfused crossmatched unit stays reserved before it is released."""
    approval_per_supplier_round: bool = True
    """Finance judges the spend per supplier per round (v2): a PO needs approval when it takes
    the round's spend with its supplier above ``approval_threshold`` (off: per PO, v1)."""

    @property
    def days(self) -> int:
        return self.rounds * self.days_per_round


SCENARIOS: dict[str, PharmacyParams] = {
    # v1: light is a funded fortnight (README "Budget"): 1.2 x the expected net need covered the
    # safety stock a 98 % service level leaves on the shelf and platelet outdating; $10,000 per
    # event covers a disruption's supplier premium. v2 round 3: under v2's dynamics
    # (crossmatch holds, surges, weekdays, STAT, part-used deliveries) 1.2 bound the reference
    # on 16 of 16 training seeds (spend >= 97 % of the budget); 1.6 is the smallest of
    # 1.2 / 1.5 / 1.6 that leaves it unbound on >= 80 % of them (13 of 16), so `light` is a
    # funded fortnight again. The other scenarios keep the 0.9 squeeze.
    "light": PharmacyParams(demand_scale=0.8, events=(1, 2), reviews_per_round=3,
                            budget_fraction=1.6, event_allowance=10_000.0),
    "medium": PharmacyParams(events=(2, 3)),
    "heavy": PharmacyParams(demand_scale=1.2, events=(3, 4), er_spike_prob=0.15),
    "mass_casualty": PharmacyParams(events=(1, 2), forced_events=("mci",)),
    "supply_shock": PharmacyParams(events=(2, 2), forced_events=("disruption", "cold_chain")),
}


SCENARIO_DESCRIPTIONS: dict[str, str] = {
    'light': 'Demand x0.8, 1-2 events, three clinical reviews per round, a funded budget.',
    'medium': 'Standard demand, 2-3 events.',
    'heavy': 'Demand x1.2, 3-4 events, more ER spikes.',
    'mass_casualty': 'A mass-casualty incident announced one round ahead.',
    'supply_shock': 'A supplier disruption and a cold-chain failure.',
}
"""One line per scenario (``GET /<env>/tasks`` lists them)."""
