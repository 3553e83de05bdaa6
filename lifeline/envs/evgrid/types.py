"""State and action types of the EV-grid environment.

The state is a bag of fixed-size numpy arrays — one row per EV of the realised stream (walk-ups
and plugged-in dwell EVs, generated at reset), per station, per zone — plus the RNG streams, so
stepping is array indexing and snapshots are cheap and exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, CoreState

# ----- EV status codes ---------------------------------------------------------------------------
FUTURE, PENDING, DEFERRED, DRIVING, QUEUED, CHARGING, DONE, BALKED, LEFT = range(9)
STATUS_NAMES = ("future", "pending", "deferred", "driving", "queued", "charging", "done",
                "balked", "left")
"""``done``: walk-up reached its target and left, or dwell EV full; ``left``: dwell EV departed,
or a walk-up left the charger at its stay limit before reaching its target (v1)."""


def _f64() -> np.ndarray:
    return np.zeros(0)


def _i64() -> np.ndarray:
    return np.zeros(0, np.int64)


@dataclass
class EVGridState(CoreState):
    """Everything needed to step one episode (units in the README)."""

    rng: dict[str, np.random.Generator] = field(default_factory=dict)
    tick: int = 0
    """Ticks elapsed."""
    t: float = 0.0
    """Minutes since the start of the episode (``tick × tick_min``)."""
    tick_actions: int = 0
    """Decisions (valid or invalid, hold excluded) used in the current tick."""
    # --- EVs: the realised stream, one row each, sorted by request time ---------------------
    ev_arrive: np.ndarray = field(default_factory=_f64)
    """Minute of the request (walk-up) or plug-in (dwell; ≤ 0 if plugged before the start)."""
    ev_persona: np.ndarray = field(default_factory=_i64)
    ev_dwell: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    ev_cap: np.ndarray = field(default_factory=_f64)
    """Battery capacity, kWh."""
    ev_soc: np.ndarray = field(default_factory=_f64)
    """State of charge now (fraction)."""
    ev_need: np.ndarray = field(default_factory=_f64)
    """Energy requested at the request, kWh (to target SoC, or the dwell session's need)."""
    ev_delivered: np.ndarray = field(default_factory=_f64)
    """Energy charged so far, kWh (includes energy that replaces what driving used)."""
    ev_drain: np.ndarray = field(default_factory=_f64)
    """Energy used driving to the station, kWh (it must be recharged too)."""
    ev_max_kw: np.ndarray = field(default_factory=_f64)
    ev_origin: np.ndarray = field(default_factory=_i64)
    """Road node of the request (walk-up) or the site station (dwell)."""
    ev_site: np.ndarray = field(default_factory=_i64)
    """Dwell EVs: station they are plugged in at; −1 for walk-ups."""
    ev_maxwait: np.ndarray = field(default_factory=_f64)
    """Hidden patience of walk-ups, minutes (inf for dwell EVs)."""
    ev_maxstay: np.ndarray = field(default_factory=_f64)
    """Hidden stay limit of walk-ups at the charger, minutes from the start of charging (inf for
    dwell EVs): the walk-up then leaves, charged or not."""
    ev_depart: np.ndarray = field(default_factory=_f64)
    """Dwell EVs: minute of departure (inf for walk-ups)."""
    ev_weight: np.ndarray = field(default_factory=_f64)
    ev_reach: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))
    """(M, S) stations within the EV's remaining range from its origin."""
    ev_routes: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))
    """(M, S·R) the EV's row of the ``route`` mask before outages: its reachable stations
    (walk-ups) or its own site (plugged-in EVs), each repeated for the R rates. Kept in step
    with ``ev_reach`` so ``action_mask`` is one gather per step."""
    ev_status: np.ndarray = field(default_factory=_i64)
    ev_station: np.ndarray = field(default_factory=_i64)
    """Station routed to (−1 none)."""
    ev_rate: np.ndarray = field(default_factory=_f64)
    """Chosen charge rate (fraction of rated power; 0 before a route)."""
    ev_power: np.ndarray = field(default_factory=_f64)
    """kW drawn while charging before derating and curtailment: rate × session power
    (``dynamics.session_kw``), fixed when the EV is routed."""
    ev_ready: np.ndarray = field(default_factory=_f64)
    """Minute the EV reaches its station (driving) / joined the queue."""
    ev_until: np.ndarray = field(default_factory=_f64)
    """Minute a deferral ends."""
    ev_start: np.ndarray = field(default_factory=_f64)
    """Minute charging started (inf before)."""
    ev_end: np.ndarray = field(default_factory=_f64)
    """Minute the EV left the system (done, balked or departed; inf before)."""
    ev_cost: np.ndarray = field(default_factory=_f64)
    """₹ paid for its energy."""
    ev_green: np.ndarray = field(default_factory=_f64)
    """Renewable kWh in its energy (energy × renewable share)."""
    ev_defers: np.ndarray = field(default_factory=_i64)
    next_ev: int = 0
    """First EV whose request is still in the future."""
    visible: np.ndarray = field(default_factory=_i64)
    """EV id in each of the K visible pending slots (−1 empty)."""
    ev_order: np.ndarray = field(default_factory=_i64)
    """All EV ids in visibility priority (emergencies, other walk-ups, plugged-in; oldest
    request first): fixed at reset, so refreshing the visible slots needs no sort."""
    # --- stations ------------------------------------------------------------------------------
    bg_busy: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    """(T+1, S) public slots used by EVs outside our fleet, per tick."""
    st_charging: np.ndarray = field(default_factory=_i64)
    """(S,) our walk-ups occupying a slot."""
    st_queue: np.ndarray = field(default_factory=_i64)
    """(S,) our walk-ups queued at the station."""
    st_enroute: np.ndarray = field(default_factory=_i64)
    """(S,) our walk-ups driving to the station."""
    hist_free: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    """(T+1, S) true free public slots at each tick (for lagged reports)."""
    hist_queue: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    rep_free: np.ndarray = field(default_factory=_f64)
    """(S,) reported free slots (lagged, noisy)."""
    rep_queue: np.ndarray = field(default_factory=_f64)
    # --- zones ---------------------------------------------------------------------------------
    base: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    """(T+1, Z) realised non-EV load, kW."""
    forecast: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    """(Z, F) current headroom forecast for the next F ticks, kW."""
    ev_load: np.ndarray = field(default_factory=_f64)
    """(Z,) our charging load during the last tick, kW."""
    last_load: np.ndarray = field(default_factory=_f64)
    """(Z,) total load during the last tick, kW."""
    derate: np.ndarray = field(default_factory=_f64)
    """(Z,) protective curtailment of the zone's EV chargers, ours and outside EVs' (1 = none)."""
    bg_kw: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    """(T+1, Z) load EVs outside our fleet would draw in each zone before curtailment, kW (v3:
    every load on a zone draws power)."""
    ev_want: np.ndarray = field(default_factory=_f64)
    """(Z,) load our charging sessions asked for during the last tick, before an enforced cap,
    kW (the two-role env detects cap violations on it)."""
    out_load: np.ndarray = field(default_factory=_f64)
    """(Z,) outside EVs' load during the last tick, kW (after curtailment and trips)."""
    top_oil: np.ndarray = field(default_factory=_f64)
    """(Z,) transformer top-oil temperature, °C (``thermal.py``)."""
    hs_rise: np.ndarray = field(default_factory=_f64)
    """(Z,) hot-spot rise over top oil, K; hot-spot temperature = top_oil + hs_rise."""
    trip_until: np.ndarray = field(default_factory=_f64)
    """(Z,) minute a tripped feeder comes back (−inf: not tripped)."""
    trip_fault: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    """(Z,) the current trip is a random fault (storm), not protection against our loading."""
    shift_tick: np.ndarray = field(default_factory=_i64)
    """(Z,) tick in which ``load_shift`` was ordered (−1 never)."""
    fault_at: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))
    """(T+1, Z) random feeder faults (storm)."""
    # --- outcome counters ----------------------------------------------------------------------
    overload_min: float = 0.0
    """Zone-minutes with the hot-spot above ``hotspot_limit_c`` (IEC normal cyclic limit)."""
    trips: int = 0
    """Protective trips (hot-spot or current limit); random faults are ``fault_trips``."""
    fault_trips: int = 0
    peak_ratio: float = 0.0
    """Highest load / rating seen."""
    peak_hotspot: float = 0.0
    """Highest hot-spot temperature seen, °C."""
    ageing_min: float = 0.0
    """Insulation loss of life over all zones, minutes (Σ V·Δt)."""
    excess_ageing_min: float = 0.0
    """Loss of life beyond normal ageing, minutes (Σ max(V − 1, 0)·Δt): the scored part."""
    unserved_kwh: float = 0.0
    """Energy of loads other than our fleet cut by protection: base load and outside EVs of a
    zone tripped by its hot-spot or current limit, and outside EVs' charging curtailed by
    protective derating, kWh (scored as harm)."""
    fault_unserved_kwh: float = 0.0
    """Energy cut by random feeder faults, kWh (reported; nobody's decision, not scored)."""
    forecast_due: list[tuple[int, int, int, float, float]] = field(default_factory=list)
    """Pending predictions: (due tick, zone, station, load kW or −1, queue or −1)."""
    forecast_err: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0, 0.0])
    """[sum |load error| kW, load predictions scored, sum |queue error|, queue scored]."""
    last_score: float = 0.0
    """Grade score after the previous tick (the dense reward pays its increments)."""
    last_events: list[str] = field(default_factory=list)
    """Notable events of the last tick (trips, balks, outages) for the text view."""


# ----- semantic actions ---------------------------------------------------------------------
def _doc(text: str, default: Any = None) -> Any:
    if default is None:
        return field(metadata={"doc": text})
    return field(default=default, metadata={"doc": text})


@dataclass(frozen=True)
class Route(Action):
    """Send the pending EV in visible slot `ev` to `station` and charge it at `charge_rate`.

    A walk-up drives there (road minutes, battery drain), queues if no slot is free and charges
    until its target; a plugged-in EV (route it to its own station) starts charging now.
    `charge_rate` is the percentage of the session's full power: 40, 70 or 100. Optional
    predictions (world-model channel, scored as a metric only): the station zone's feeder load in
    kW and the station's queue length `forecast_ticks` ticks ahead (−1 = no prediction).
    """

    kind: ClassVar[str] = "route"
    ev: int = _doc("visible pending-EV slot (0 = most urgent)")
    station: int = _doc("station index 0-24 (BLR-01 = 0)")
    charge_rate: int = _doc("percent of full power: 40, 70 or 100")
    predicted_load_kw: float = _doc("optional: zone load k ticks ahead, kW (-1 = none)", -1.0)
    predicted_queue: float = _doc("optional: station queue k ticks ahead (-1 = none)", -1.0)


@dataclass(frozen=True)
class Defer(Action):
    """Postpone the decision on the pending EV in slot `ev` by `minutes` (15, 60 or 180).

    It keeps waiting (a walk-up's patience runs on; a plugged-in EV does not charge meanwhile)
    and comes back as pending when the time is up.
    """

    kind: ClassVar[str] = "defer"
    ev: int = _doc("visible pending-EV slot")
    minutes: int = _doc("15, 60 or 180")


@dataclass(frozen=True)
class LoadShift(Action):
    """Curtail our chargers in feeder `zone` to half power for the current tick.

    Relieves an overloaded feeder (avoids derating and trips) at the cost of energy delivered.
    """

    kind: ClassVar[str] = "load_shift"
    zone: int = _doc("feeder zone 0-4 (central, east, southeast, south, north)")


@dataclass(frozen=True)
class Hold(Action):
    """End this tick's decisions: the clock advances one tick."""

    kind: ClassVar[str] = "hold"


EVGridAction = Route | Defer | LoadShift | Hold
ACTION_TYPES: tuple[type[Action], ...] = (Route, Defer, LoadShift, Hold)
