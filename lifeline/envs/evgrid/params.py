"""Parameters of the EV-charging grid (Bangalore) and its eleven named scenarios.

Units are written next to every field: minutes (``_min``), hours (``_h``), kilowatts (``_kw``),
kilowatt-hours (``_kwh``), rupees per kWh (``_inr``). Calibration sources are in the README
(ACN-Data session statistics, BESCOM/KERC tariffs, the MoP 2024 time-of-day rule, Indian charger
classes); the stylised choices are documented there too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# ----- the 25 stations of the spec: id, name, lat, lng, charger type, public slots -------------
STATIONS: tuple[tuple[str, str, float, float, str, int], ...] = (
    ("BLR-01", "Koramangala", 12.9352, 77.6245, "fast", 12),
    ("BLR-02", "Whitefield", 12.9698, 77.7500, "ultra", 16),
    ("BLR-03", "HSR Layout", 12.9116, 77.6389, "fast", 10),
    ("BLR-04", "Indiranagar", 12.9784, 77.6408, "fast", 12),
    ("BLR-05", "Electronic City", 12.8399, 77.6770, "slow", 14),
    ("BLR-06", "Marathahalli", 12.9591, 77.7006, "fast", 12),
    ("BLR-07", "Jayanagar", 12.9308, 77.5832, "slow", 10),
    ("BLR-08", "Yeshwanthpur", 13.0245, 77.5497, "fast", 12),
    ("BLR-09", "Hebbal", 13.0350, 77.5970, "ultra", 12),
    ("BLR-10", "Sarjapur", 12.9010, 77.6960, "slow", 8),
    ("BLR-11", "MG Road", 12.9757, 77.6070, "ultra", 12),
    ("BLR-12", "Bellandur", 12.9258, 77.6681, "fast", 12),
    ("BLR-13", "Bannerghatta", 12.8636, 77.5771, "slow", 10),
    ("BLR-14", "Rajajinagar", 12.9890, 77.5522, "fast", 12),
    ("BLR-15", "JP Nagar", 12.9063, 77.5857, "slow", 10),
    ("BLR-16", "BTM Layout", 12.9165, 77.6101, "fast", 10),
    ("BLR-17", "Cunningham Road", 12.9897, 77.5954, "ultra", 8),
    ("BLR-18", "Yelahanka", 13.1004, 77.5963, "slow", 10),
    ("BLR-19", "Kengeri", 12.9140, 77.4830, "slow", 8),
    ("BLR-20", "Tumkur Road", 13.0250, 77.5100, "slow", 12),
    ("BLR-21", "Old Airport Road", 12.9601, 77.6477, "fast", 10),
    ("BLR-22", "KR Puram", 13.0050, 77.6950, "fast", 10),
    ("BLR-23", "Silk Board", 12.9176, 77.6228, "fast", 12),
    ("BLR-24", "CV Raman Nagar", 12.9860, 77.6600, "slow", 8),
    ("BLR-25", "Domlur", 12.9610, 77.6390, "fast", 10),
)
N_STATIONS = len(STATIONS)
AIRPORT = ("AIRPORT", "Kempegowda Airport", 13.1986, 77.7066)
"""An extra road-graph node (origin of airport taxis); it has no chargers."""
N_NODES = N_STATIONS + 1

CHARGER_KW = {"slow": 7.4, "fast": 50.0, "ultra": 150.0}
"""Rated power per public slot, kW: Type-2 AC 7.4 kW, CCS2 DC 50 kW, high-power DC 150 kW."""
TYPE_PRICE = {"slow": 1.0, "fast": 1.09, "ultra": 1.2}
"""Price multiplier by charger type (BESCOM 2023: AC ₹7.62, DC ₹8.31 per kWh)."""

ZONES = ("central", "east", "southeast", "south", "north")
"""Feeder zones (one distribution transformer group each)."""
STATION_ZONE: tuple[int, ...] = (2, 1, 2, 0, 2, 1, 3, 4, 4, 2, 0, 2, 3, 4, 3, 3, 0, 4, 3, 4, 0, 1,
                                 2, 0, 0)
"""Zone index of each station (same order as ``STATIONS``)."""

# ----- personas -------------------------------------------------------------------------------
PERSONAS = ("taxi", "delivery", "corporate", "private", "emergency", "workplace", "depot",
            "overnight")
"""Walk-up personas 0-4 (ask for a station now); plugged-in personas 5-7 (dwell windows)."""
WALKUP, DWELL = 0, 1
N_WALKUP_PERSONAS = 5
BATTERY_KWH = (40.0, 30.0, 50.0, 45.0, 60.0, 45.0, 60.0, 40.0)
"""Usable battery capacity by persona, kWh."""
MAX_KW = (60.0, 30.0, 100.0, 50.0, 100.0, 6.6, 30.0, 11.0)
"""Highest power the vehicle accepts, kW (walk-ups: DC limit; dwell: the site charger). v2: the
workplace site charger is 6.6 kW, as Caltech's L2 EVSEs (v1: 7.4 kW)."""
WEIGHT = (1.5, 1.5, 1.0, 1.0, 3.0, 1.0, 1.5, 1.0)
"""Grader weight of a persona's energy (emergency and high-urgency fleets weighted up)."""
MAX_WAIT_MIN = ((20.0, 45.0), (15.0, 35.0), (30.0, 60.0), (30.0, 75.0), (5.0, 15.0))
"""Hidden patience of walk-ups (uniform range, minutes from request to start of charging)."""
MAX_STAY_MIN = ((30.0, 60.0), (25.0, 50.0), (40.0, 80.0), (45.0, 90.0), (20.0, 40.0))
"""Hidden time a walk-up can stay plugged in (uniform range, minutes from the start of charging):
a taxi or delivery driver goes back on the road then, charged or not (the rest is unmet energy).
So *where* (charger power, derating) and *how fast* (``charge_rate``) decide its energy. v1."""
OUTSIDE_SESSION_KW = {"slow": 3.7, "fast": 26.0, "ultra": 60.0}
"""v3: mean power an EV *outside our fleet* draws from an occupied public slot, kW (every load on
a feeder draws power). Slow: ACN-Data mean session power 3.72 kW (30,114 sessions, idle time
included); fast: Brisbane CA's public 50 kW DCFC, 12.9 kWh in 29.5 min = 26 kW; ultra: 60 kW,
a stylised vehicle-acceptance limit (the mean of the walk-up personas' DC limits), not sourced."""

PRICE_SENSITIVITY = (0.6, 0.8, 0.2, 1.0, 0.0)
"""Displayed price sensitivity of walk-up personas (0 = indifferent, 1 = very sensitive)."""
DWELL_WINDOW_H = ((8.0, 1.0, 6.0, 1.5), (12.5, 1.0, 3.5, 0.5), (18.5, 0.75, 11.0, 0.7))
"""Dwell personas (workplace, depot, overnight): (arrival mean, sd, stay mean, sd), hours.
v1: the overnight fleet returns at the end of the evening shift (~18:30, v0 ~21 h) and leaves
~05:30, so uncontrolled charging lands in the 18-22 h price and feeder peak while a scheduled
fleet can wait for the night tariff: *when* to charge is the decision the spec asks for.
v2: workplace stays ~6 h (sd 1.5; Caltech pre-COVID mean 5.6 h, ACN 6.9 h; v1: 8.5 h)."""


@dataclass(frozen=True)
class EVGridParams:
    """One scenario of the EV grid. See the README for calibration and each field's role."""

    # --- clock ---------------------------------------------------------------------------------
    start_hour: float = 6.0
    """Hour of day at which the episode starts (weekday)."""
    horizon_h: float = 24.0
    """Episode length, hours."""
    tick_min: float = 15.0
    """Length of one tick, minutes (15 for day-long scenarios, 5 for short ones)."""
    actions_per_tick: int = 20
    """Decisions per tick: the clock advances after ``hold`` or this many non-hold actions."""
    visible_evs: int = 10
    """K: pending EVs shown (and addressable) at once, emergency first, then oldest."""
    # --- demand --------------------------------------------------------------------------------
    walkups_per_hour: float = 16.0
    """Mean walk-up requests per hour over the day (the daily profile has mean 1). v2: 16 (~15
    sessions per station a day, as Brisbane CA's DCFC's 15.3; v1: 8 asking ~2x the energy)."""
    persona_mix: tuple[float, float, float, float, float] = (0.30, 0.20, 0.15, 0.30, 0.05)
    """Shares of taxi, delivery, corporate, private, emergency among walk-ups."""
    dwell_counts: tuple[int, int, int] = (100, 15, 40)
    """Mean number of workplace, depot and overnight plugged-in EVs per day (Poisson).
    v2: 100 workplace sessions over the 8 workplace sites (~12 per site a day; Caltech's garage
    had ~26 a day); v1: 60 sessions asking ~2x the energy each."""
    dwell_soc: tuple[tuple[float, float], tuple[float, float], tuple[float, float]] = (
        (0.4, 0.8), (0.15, 0.5), (0.15, 0.5))
    """State of charge at plug-in of workplace, depot and overnight EVs (uniform range,
    fraction; they charge towards 90%). v2: workplace 0.4-0.8, i.e. 4.5-22.5 kWh, mean ~13.5
    kWh, between the Caltech (8.2) and all-ACN (14.7) session means; v1: 0.15-0.5 (~25 kWh)."""
    soc_walkup: tuple[float, float] = (0.4, 0.7)
    """State of charge of walk-ups at request (uniform range, fraction). v2: 0.4-0.7, i.e. public
    DCFC-like top-ups of ~11 kWh in ~30 min (Brisbane CA: 12.9 kWh in 29.5 min on average;
    Lafayette IN: median 28-36 min); v1: 0.08-0.40 (~24 kWh, ~43 min)."""
    target_soc: float = 0.8
    """Walk-ups charge to this state of charge, then leave."""
    origin_boost: tuple[tuple[int, float], ...] = ()
    """(node, extra weight) pairs concentrating walk-up origins (airport, stadium, ...)."""
    demand_spike: tuple[float, float, float] = (0.0, 0.0, 1.0)
    """(from hour, to hour, multiplier) of an extra arrival surge (hour of day, may pass 24)."""
    kwh_per_km: float = 0.15
    """Energy used driving, kWh per km."""
    stay_scale: float = 1.0
    """Multiplier of walk-ups' stay limits at the charger (``MAX_STAY_MIN``); the ``bound``'s
    relaxed world lifts them (inf)."""
    # --- grid ----------------------------------------------------------------------------------
    zone_cap_kw: tuple[float, ...] = (1100.0, 800.0, 1100.0, 700.0, 900.0)
    """Transformer limit of each feeder zone, kW."""
    base_scale: float = 1.0
    """Multiplier of the base (non-EV) load curve (heatwave: air conditioning)."""
    cap_scale: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0, 1.0)
    """Multiplier of each zone's transformer rating (a derated transformer). v3 second
    follow-up: it no longer scales the base load drawn against the network (``zone_cap_kw``):
    a derated transformer serves the same households."""
    trip_min: float = 60.0
    """Minutes a tripped feeder stays off (its stations deliver nothing)."""
    shift_factor: float = 0.5
    """``load_shift``: our chargers in the zone run at this fraction for the current tick."""
    renewable_scale: float = 1.0
    """Multiplier of the solar part of the renewable share (monsoon clouds)."""
    fault_rate_per_h: float = 0.0
    """Random feeder faults (storm): trips per zone-hour, independent of load."""
    network_share: float = 0.6
    """v3: share of a zone's transformer rating that the v2 'limit' (``zone_cap_kw`` ×
    ``cap_scale``, the network the base-load curve is drawn against) represents; the rest of
    the rating serves the public chargers (ours and outside EVs). Tuned (not sourced) so that
    base load plus outside EVs peak near the rating in the evening, as the 30-40% overloaded
    Indian distribution transformers the card cites, and our fleet's load decides the rest."""
    # --- transformer thermal model (IEC 60076-7:2018 §8.2, distribution transformer, ONAN) ---
    oil_rise_k: float = 55.0
    """Top-oil rise over ambient at rated load, K (IEC 60076-7 Table 5, distribution ONAN)."""
    hotspot_gradient_k: float = 23.0
    """Hot-spot to top-oil gradient at rated load H·g_r, K (same table)."""
    loss_ratio: float = 5.0
    """R: load losses at rated current / no-load losses (same table)."""
    oil_exponent: float = 0.8
    """x: oil exponent (same table)."""
    winding_exponent: float = 1.6
    """y: winding exponent (same table)."""
    tau_oil_min: float = 180.0
    """τ_o: oil time constant, minutes (same table; k11 = 1)."""
    tau_winding_min: float = 4.0
    """τ_w: winding time constant, minutes (same table; k21 = 1, k22 = 2: the hot-spot rise is a
    first-order lag of k22·τ_w = 8 min with no overshoot term)."""
    ambient_mean_c: float = 25.0
    """Daily mean ambient temperature, °C (Bangalore: ~20 °C at dawn, ~30 °C mid-afternoon;
    IMD normals, stylised)."""
    ambient_amp_c: float = 5.0
    """Half the daily ambient swing, °C (peak at 15 h, minimum at 03 h)."""
    hotspot_limit_c: float = 120.0
    """Hot-spot temperature above which protection curtails the zone's EV chargers (ours and
    outside EVs') ×0.7 per tick: IEC 60076-7 Table 4, normal cyclic loading limit (120 °C)."""
    hotspot_trip_c: float = 140.0
    """Hot-spot temperature that trips the zone (every load on it is cut for ``trip_min``):
    IEC 60076-7 Table 4, long-time emergency loading limit (140 °C)."""
    trip_current_pu: float = 1.8
    """Load / rating that trips the zone at once (IEC 60076-7 Table 4: 1.8 pu, long-time
    emergency current limit of distribution transformers)."""
    ageing_ref_c: float = 98.0
    """Hot-spot temperature of unit relative ageing: V = 2^((θ_h − 98)/6) (IEC 60076-7 eq. 2,
    non-thermally-upgraded paper)."""
    # --- prices --------------------------------------------------------------------------------
    base_price_inr: float = 7.6
    """Public AC price at 1.0x time-of-day, ₹/kWh (BESCOM 2023)."""
    peak_mult: float = 1.3
    """Time-of-day multiplier in the evening peak 18-22 h (MoP 2024: 1.3x outside solar)."""
    solar_mult: float = 0.7
    """Time-of-day multiplier in solar hours 09-16 h (MoP 2024: 0.7x)."""
    night_mult: float = 0.85
    """Time-of-day multiplier at night 22-06 h (BESCOM ToD ₹3.85 vs ₹4.85 ≈ 0.8)."""
    # --- roads ---------------------------------------------------------------------------------
    traffic_scale: float = 1.0
    """Multiplier of every travel time (monsoon flooding)."""
    jam: tuple[int, float, float, float] = (-1, 0.0, 0.0, 1.0)
    """(node, from hour, to hour, factor): roads at ``node`` slowed by ``factor`` in a window."""
    # --- stations ------------------------------------------------------------------------------
    outages: tuple[tuple[int, float, float], ...] = ()
    """(station, from hour, to hour): announced station outages (no charging, routing masked)."""
    background_occupancy: float = 0.35
    """Mean share of public slots used by EVs outside our fleet."""
    report_lag_min: float = 0.0
    """Station availability and queue reports describe the world this many minutes ago. v3: 0
    (v2: 10 min, ±1 slot): exact reports were worth ≤ 0.0005 to a greedy policy everywhere but
    one scenario, so the mechanic was removed (the fields stay for ablations)."""
    report_noise: float = 0.0
    """Standard deviation of the reported free-slot count, slots (v3: 0, see above)."""
    forecast_error: float = 0.08
    """Relative standard deviation of the base-load forecast behind the headroom forecast."""
    forecast_ticks: int = 4
    """Headroom forecast length, ticks; also how far ahead an action's prediction is scored."""
    defer_options_min: tuple[float, float, float] = (15.0, 60.0, 180.0)
    """Minutes ``defer`` can postpone an EV's decision by."""
    rates: tuple[float, float, float] = (0.4, 0.7, 1.0)
    """Allowed ``charge_rate`` values (fraction of the charger's rated power)."""

    @property
    def horizon_min(self) -> float:
        return self.horizon_h * 60.0

    @property
    def ticks(self) -> int:
        return round(self.horizon_min / self.tick_min)


SHORT = {"horizon_h": 8.0, "tick_min": 5.0}
"""Short scenarios: 8 hours at 5-minute ticks (96 ticks like the day-long ones)."""

SCENARIOS: dict[str, EVGridParams] = {
    # A weekday 06:00 -> 06:00: walk-ups with morning/evening peaks, workplace, depot and
    # overnight plugged-in EVs: when to deliver energy (solar hours, night tariff) matters.
    "baseline": EVGridParams(),
    # Air conditioning raises the base load 6% and derates transformers 5% in the heat;
    # the afternoon/evening peak leaves little headroom. 14:00-22:00.
    "heatwave_peak": EVGridParams(start_hour=14.0, base_scale=1.06,
                                  cap_scale=(0.95, 0.95, 0.95, 0.95, 0.95), kwh_per_km=0.18,
                                  ambient_mean_c=31.0, ambient_amp_c=6.0,
                                  walkups_per_hour=22.0, **SHORT),  # type: ignore[arg-type]
    # Festival evening: walk-up demand 1.9x, mostly private cars. 16:00-24:00.
    "festival_surge": EVGridParams(start_hour=16.0, walkups_per_hour=26.0,
                                   persona_mix=(0.22, 0.13, 0.1, 0.5, 0.05),
                                   demand_spike=(17.0, 22.0, 1.9), **SHORT),  # type: ignore[arg-type]
    # The east (Whitefield) transformer is derated to 85% of its rating all day (v3; v2: 55%
    # of a limit); its households' base load is the same as on baseline.
    "transformer_derate": EVGridParams(cap_scale=(1.0, 0.85, 1.0, 1.0, 1.0)),
    # Three stations (two ultra) are down for maintenance 08:00-14:00 (announced). 06:00-14:00.
    "station_outage": EVGridParams(start_hour=6.0, walkups_per_hour=28.0,
                                   outages=((10, 8.0, 14.0), (8, 8.0, 14.0), (0, 9.0, 13.0)),
                                   **SHORT),  # type: ignore[arg-type]
    # Evening peak price 1.9x and solar discount 0.55x: time-shifting pays twice as much.
    "tariff_shock": EVGridParams(peak_mult=1.9, solar_mult=0.55),
    # Clouds cut solar to 30%, flooding slows roads 1.4x, random feeder faults. 12:00-20:00.
    "monsoon_storm": EVGridParams(start_hour=12.0, renewable_scale=0.3, traffic_scale=1.4,
                                  fault_rate_per_h=0.02, walkups_per_hour=26.0,
                                  ambient_mean_c=22.0, ambient_amp_c=2.5,
                                  **SHORT),  # type: ignore[arg-type]
    # Match night at Chinnaswamy (near MG Road / Cunningham Road): central demand spikes before
    # the match and after it ends. 16:00-24:00.
    "cricket_final": EVGridParams(start_hour=16.0, walkups_per_hour=24.0,
                                  origin_boost=((10, 6.0), (16, 4.0), (24, 2.0)),
                                  demand_spike=(22.0, 24.0, 2.2), **SHORT),  # type: ignore[arg-type]
    # Early-morning airport taxis arriving low on charge. 04:00-12:00.
    "airport_rush": EVGridParams(start_hour=4.0, walkups_per_hour=13.0,
                                 persona_mix=(0.62, 0.1, 0.13, 0.1, 0.05),
                                 origin_boost=((25, 10.0), (17, 2.0), (8, 2.0)),
                                 soc_walkup=(0.08, 0.3), **SHORT),  # type: ignore[arg-type]
    # Silk Board junction gridlocked 08:00-11:00 (roads there 4x slower). 06:00-14:00.
    "silk_board_jam": EVGridParams(start_hour=6.0, walkups_per_hour=26.0,
                                   jam=(22, 8.0, 11.0, 4.0),
                                   origin_boost=((22, 3.0), (2, 2.0), (15, 2.0)),
                                   **SHORT),  # type: ignore[arg-type]
    # Overnight depots in the east: many fleet EVs plug in at night on a tight east feeder,
    # cheap night tariff, no sun. 20:00-08:00.
    "whitefield_night": EVGridParams(start_hour=20.0, horizon_h=12.0, tick_min=10.0,
                                     walkups_per_hour=10.0, dwell_counts=(0, 0, 40),
                                     cap_scale=(1.0, 0.85, 1.0, 1.0, 1.0),
                                     origin_boost=((1, 4.0), (5, 3.0), (21, 3.0))),
}
"""The seed project's eleven scenarios, each with a real effect (see README). v2: walk-up rates
doubled where walk-ups use the v2 state of charge (half the energy each; airport_rush keeps its
low-charge taxis and its rate)."""

EAST_DEPOTS = (1, 5, 21)
"""Stations hosting the east depots (whitefield_night puts its overnight fleet there)."""


def scenario_params(name: str) -> EVGridParams:
    """Parameters of scenario ``name`` (``ValueError`` listing the choices if unknown)."""
    if name not in SCENARIOS:
        raise ValueError(f"unknown evgrid scenario {name!r}; choose one of {sorted(SCENARIOS)}")
    return SCENARIOS[name]


def with_overrides(p: EVGridParams, **changes: object) -> EVGridParams:
    """A copy of ``p`` with fields replaced (for tests and ablations)."""
    return replace(p, **changes)  # type: ignore[arg-type]


SCENARIO_DESCRIPTIONS: dict[str, str] = {
    'baseline': (
        'A weekday 06:00-06:00: walk-ups with peaks, workplace, depot and overnight plugged-in '
        'EVs.'),
    'heatwave_peak': ('14:00-22:00 in a heatwave (25-37 °C): base load +6%, transformers '
                      'derated 5%.'),
    'festival_surge': 'Festival evening 16:00-24:00: walk-up demand x1.9.',
    'transformer_derate': ('The east (Whitefield) transformer is derated to 85% of its rating '
                           'all day.'),
    'station_outage': '06:00-14:00; three stations (two ultra) down 08:00-14:00, announced.',
    'tariff_shock': 'Evening peak price x1.9 and solar discount x0.55.',
    'monsoon_storm': '12:00-20:00: solar at 30%, roads 1.4x slower, random feeder faults.',
    'cricket_final': 'Match night 16:00-24:00: central demand spikes before and after the match.',
    'airport_rush': '04:00-12:00: airport taxis arriving low on charge.',
    'silk_board_jam': '06:00-14:00: Silk Board junction gridlocked 08:00-11:00 (4x slower).',
    'whitefield_night': (
        '20:00-08:00: overnight depot fleets on a tight east feeder, cheap night tariff, no sun.'),
}
"""One line per scenario (``GET /<env>/tasks`` lists them)."""
