"""Parameters of the dispatch environment: call-type tables, cities and named scenarios.

Everything here is frozen and documented with its unit. A scenario is one ``DispatchParams``;
the city (road graph, stations, hospitals, fleet) is part of it, so ``metro_*`` scenarios are the
same difficulties on the generated city.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

from lifeline.envs.dispatch.city import CityParams, metro_city

# ----- call types -------------------------------------------------------------------------
CALL_TYPES = ("cardiac", "stroke", "respiratory", "trauma", "fire", "minor")
"""Call types, in index order (observations carry the index)."""
CARDIAC, STROKE, RESPIRATORY, TRAUMA, FIRE, MINOR = range(6)

TARGET_MIN = (8.0, 10.0, 10.0, 12.0, 15.0, 20.0)
"""Response-time target per type (minutes from call to first unit on scene); late if above."""
SCENE_MIN = (15.0, 15.0, 12.0, 20.0, 25.0, 10.0)
"""On-scene minutes per type for a full crew complement."""
UNITS_NEEDED = (1, 1, 1, 1, 2, 1)
"""Units a call of each type needs on scene (fires take two; only then may two be sent)."""
TYPE_MIX = (0.15, 0.10, 0.15, 0.20, 0.10, 0.30)
"""Base probability of each type for a new call."""
SEVERITY_P = (
    (0.20, 0.30, 0.45, 0.05),  # cardiac: severity 3 is a cardiac arrest (v2: 5 %, was 20 %)
    (0.10, 0.30, 0.40, 0.20),
    (0.20, 0.40, 0.30, 0.10),
    (0.20, 0.40, 0.25, 0.15),
    (0.40, 0.30, 0.20, 0.10),
    (0.70, 0.30, 0.00, 0.00),
)
"""P(true severity = 0..3 | type). Severity is hidden from the agent. v2: 5 % of cardiac calls
are arrests (0.75 % of all calls; one US metro: 555 arrests in 101,642 dispatches = 0.55 %,
Resuscitation 2010), v1's 20 % made 3 % of calls arrests."""
TRANSPORT_P = (0.30, 0.70, 0.95, 1.00)
"""P(patient needs a hospital | severity 0..3)."""
RISK = (0.00, 0.02, 0.10, 0.30)
"""Death risk of an *untreated* patient by severity (non-arrest calls), scaled by TYPE_RISK."""
TYPE_RISK = (1.0, 1.0, 1.0, 1.0, 0.5, 0.2)
DECAY_MIN = (125.0, 367.0, 15.0, 114.0, 20.0, 60.0)
"""Time constant (minutes) of how fast a delayed response loses its benefit, per type (the
benefit is ``risk·exp(−t/τ)``, so its relative loss per minute at t = 0 is 1/τ). v4 sources the
time-critical types (v0-v3: 20 / 30 / 15 / 25 / 20 / 60, unsourced):
cardiac (non-arrest, STEMI-like) 125: 1-yr mortality 10.9 % at 30 min door-to-balloon → 13.6 % at
60 (Rathore 2009), +0.09 pp/min on ~11 %, i.e. 0.8 %/min of the risk;
stroke 367: in-hospital death OR 0.96 per 15 min earlier treatment (Saver 2013), ln(1/0.96)/15
= 0.27 %/min; major trauma 114: death +0.35 pp/min at 40 % mortality (Clarke 2002), 0.875 %/min.
Respiratory, fire and minor keep v3's values (modelling inputs, no checked source). Cardiac
arrest does not use this: it follows De Maio's logistic (``reward.benefit``)."""
URGENCY = (3.0, 2.5, 2.0, 2.0, 1.5, 0.0)
"""Public dispatch-protocol urgency of a *reported* type (used by heuristics, tie-breaks)."""

# ----- v4: call priorities (hidden: they follow the true type and severity) ------------------
PRIORITY_NAMES = ("P1", "P2", "P3")
"""v4 call priority classes. P1 (life-threatening, time-critical): a cardiac, stroke,
respiratory or trauma call of severity >= 2 (every cardiac arrest is P1); P3: severity 0 or a
minor call; P2: the rest. The priority is hidden (the dispatcher sees reported type and tone)."""
PRIORITY_TARGET_MIN = (8.0 + 59.0 / 60.0, 12.0, 20.0)
"""Response-time target per priority (minutes from the ring to the first unit on scene), v4.
P1: the 8:59 urban ALS standard (90 % within 8:59, K) and NFPA 1710's ALS fractile (2nd); P2 / P3:
the env's v0-v3 trauma and minor targets (modelling choices, no checked source)."""
PRIORITY_WEIGHT = (4.0, 2.0, 1.0)
"""v4 weight of a call's response credit by priority: one P1 call counts as two P2 or four P3
calls in the ``response`` component (an exchange rate, stated in the README)."""


def priority_of(ctype: int, sev: int) -> int:
    """Priority class index (0 = P1, 1 = P2, 2 = P3) of a call's true type and severity."""
    if ctype in (CARDIAC, STROKE, RESPIRATORY, TRAUMA) and sev >= 2:
        return 0
    if sev == 0 or ctype == MINOR:
        return 2
    return 1


EVENT_KINDS = ("bridge_collapse", "accident", "hospital_divert", "heatwave", "unit_breakdown",
               "mass_casualty")
"""City events, in index order (the observation's ``alerts`` follows it)."""
BRIDGE, ACCIDENT, DIVERT, HEATWAVE, BREAKDOWN, MCI = range(6)


SEED_ROADS: tuple[tuple[int, int, float], ...] = (
    (0, 1, 2), (1, 2, 3), (2, 3, 2), (0, 3, 4), (0, 2, 3),
    (4, 5, 3), (5, 6, 2), (6, 7, 3), (4, 7, 5), (5, 7, 4),
    (8, 9, 2), (9, 10, 3), (10, 11, 2), (8, 11, 4), (9, 11, 3),
    (12, 13, 2), (13, 14, 3), (14, 15, 2), (12, 15, 4), (13, 15, 3),
    (16, 17, 2), (17, 18, 3), (18, 19, 2), (16, 19, 4), (17, 19, 3),
    (3, 4, 5), (3, 8, 6), (7, 12, 5), (7, 16, 6), (11, 16, 5), (11, 12, 7), (15, 19, 5),
    (0, 16, 8), (5, 10, 7), (2, 13, 6),
)
"""The seed project's roads ``(u, v, minutes)`` as it wrote them (v1 used these minutes)."""
ROAD_SCALE = 1.75
"""v2 stretches the seed's road minutes by this factor (issue 18): with the seed's minutes the
closest idle unit reached a call in a median 2 min, against a 5-9 min urban call-to-arrival
(NEMSIS 2010 median 5, ESO urban mean 7.0, county median 9)."""

PEAK_STATIONS: tuple[int, ...] = (0, 3, 17, 5, 13, 9)
"""v3: home stations of the 20-node city's second units (unit slots 6-11), busiest first: the
two downtown stations (nodes 0 and 3; downtown has 1/3 of the demand), then suburbs, highway,
industrial, hills by their zone's demand. A scenario staffs the first ``units_on_duty`` slots;
the rest stay off duty (inactive) for the shift (see ``DIFFICULTIES``)."""

DISPATCHR_20 = CityParams(
    name="dispatchr-20",
    n_nodes=20,
    edges=tuple((u, v, w * ROAD_SCALE) for u, v, w in SEED_ROADS),
    zone_of=(0,) * 4 + (1,) * 4 + (2,) * 4 + (3,) * 4 + (4,) * 4,
    zone_names=("downtown", "highway", "hills", "industrial", "suburbs"),
    demand=(2.0,) * 4 + (1.0,) * 4 + (0.8,) * 4 + (1.0,) * 4 + (1.2,) * 4,
    hospitals=(1, 14, 17),
    hospital_names=("County General", "St. Mary's", "City Medical"),
    hospital_beds=(4, 3, 3),
    unit_home=(0, 5, 9, 13, 17, 3, *PEAK_STATIONS),
    # v3: each peak unit is the other kind than its station's first (one ALS, one BLS each)
    unit_als=(True, False, True, False, True, False, False, True, False, True, True, False),
    unit_reliability=(0.95, 0.90, 0.92, 0.88, 0.93, 0.91, 0.92, 0.90, 0.91, 0.89, 0.92, 0.90),
    posts=tuple(range(20)),
    bridges=((3, 8),),
    aid_entry=4,
    aid_slots=2,
)
"""The seed project's 20-node city (topology and unit placement from its constants; road
minutes × ``ROAD_SCALE`` since v2; since v3 twelve unit slots, a second at every station, of
which each difficulty staffs some: the seed's six units are slots 0-5)."""


@dataclass(frozen=True)
class DispatchParams:
    """One scenario: a city plus the call stream, uncertainty and event settings."""

    city: CityParams
    calls_per_shift: int = 8
    """Ordinary calls per shift (arrival times follow the time-of-day rate)."""
    false_alarm_p: float = 0.10
    """P(a call is a false alarm: a real caller, no emergency)."""
    ghost_p: float = 0.0
    """P(a call is an AI-generated ghost call: nobody there)."""
    event_p: float = 0.10
    """P(a city event starts in any given hour of the shift)."""
    panic_range: float = 0.3
    """Zone panic bias of caller tone is uniform in ±panic_range (tone levels)."""
    radio_delay_p: float = 0.10
    """P(a unit status report reaches the dispatcher late (by ``radio_lag_min``))."""
    radio_lag_min: tuple[float, float] = (3.0, 8.0)
    """A late report arrives uniformly this many minutes after the change (v0: 2–3 min, which
    changed nothing measurable; the seed's "2–3 steps" were steps of several minutes)."""
    forced_events: tuple[tuple[float, int], ...] = ()
    """Events that always happen: ``(minute, kind index)`` (stress scenarios)."""
    type_mix: tuple[float, ...] = TYPE_MIX
    """Call-type probabilities (the adversarial designer reweights them)."""
    zone_weights: tuple[float, ...] | None = None
    """Optional per-zone demand multipliers (the adversarial designer sets them)."""
    traffic: tuple[tuple[float, float], ...] = ((3.0, 0.8), (8.5, 1.2), (13.0, 1.0), (17.5, 1.5))
    """v4: congestion anchors ``(hour, multiplier)`` of the time-of-day travel multiplier,
    interpolated linearly around the clock (night 0.8 at 03:00, morning peak 1.2 at 08:30,
    midday 1.0, evening peak 1.5 at 17:30; v3's four steps had these levels) and rounded to
    ``traffic_step``."""
    traffic_step: float = 0.1
    """The multiplier is rounded to this step (v4), so coverage is recomputed when it moves by a
    step, not at every epoch."""
    travel_sigma: float = 0.2
    """v4: log-scale spread of a per-trip travel-time factor (lognormal, median 1; a trip of the
    road minutes m takes m·multiplier·factor). A response trip's factor is drawn per call in the
    call stream (so every policy meets the same roads, and the clairvoyant plan sees it); other
    trips draw theirs from the ``travel`` stream. 0 = deterministic travel (v3). 0.2 puts 80 % of
    trips within ×0.77-1.29 of the road minutes (a modelling choice; no checked source)."""
    diurnal_amplitude: float = 0.35
    """v4: call rate ∝ 1 + a·cos(2π(h − peak)/24) (smooth; v3: four steps 0.5 / 1.0 / 1.2 /
    1.0). a = 0.35 makes the 14:00 peak 2.1× the 02:00 trough (EMS demand peaks in the
    afternoon and is lowest in the small hours; the ratio is a modelling choice, K). The mean
    rate over 24 h is 1, so ``calls_per_shift`` is the expected count of a shift at mean rate; a
    night shift gets fewer."""
    diurnal_peak_hour: float = 14.0
    """Hour of the call-rate peak (v4)."""
    rate_dispersion_k: float = 25.0
    """v4: the shift's call count is Poisson with a Gamma(k, 1/k) rate factor (a negative
    binomial): variance = λ + λ²/k, so a 26-call shift has a dispersion index of 2.0 (day-to-day
    demand varies beyond Poisson; k is a modelling choice). ``inf`` = plain Poisson; see also
    ``poisson_calls``."""
    poisson_calls: bool = True
    """v4: draw the call count (above). False = v3's fixed count ``calls_per_shift``."""
    conserve_beds: bool = True
    """v4: a delivered patient needs a free EMS bed; when none is free the crew waits with the
    patient (offload delay) until the earliest bed frees, and takes it. False = v3 (a patient
    delivered to a full hospital took no bed)."""
    shift_min: float = 480.0
    """Shift length in minutes; the episode ends when the clock reaches it."""
    arrival_cutoff_min: float = 30.0
    """No new calls in the last this-many minutes (they belong to the next shift)."""
    visible_calls: int = 8
    """K: open calls shown (oldest first) and addressable by actions."""
    actions_per_epoch: int = 8
    """At most this many non-hold actions per decision epoch; then the clock advances."""
    max_gap_min: float = 6.0
    """The clock never advances more than this many minutes per epoch."""
    handover_min: float = 20.0
    """Mean hospital handover minutes (normal, floored at ``handover_floor_min``). v2: 20 (was 30):
    offload medians 11 (one US ED, Cooney 2013) and 21-24 (chest pain, Victoria, Dawson 2022);
    NSW targets 90 % within 30."""
    handover_sd_min: float = 8.0
    """Standard deviation of the handover minutes (v1: 5)."""
    handover_floor_min: float = 10.0
    """Shortest handover, minutes."""
    call_processing_min: float = 1.25
    """Median minutes from the call ringing to the dispatcher being able to act on it
    (call-taking and processing; NFPA 1710: answering within 15 s for 95 % and processing within
    64 s for 90 %, 2nd). v2 used this as a constant; v3 draws each call's minutes (lognormal with
    this median and ``call_processing_sigma``) in the call stream, and a call never opens before
    one that rang earlier. The response is still measured from the ring."""
    call_processing_sigma: float = 0.4
    """Log-scale spread of the call-processing minutes (v3): 90th percentile = median × e^(1.28 σ)
    = 2.1 min for σ 0.4, a right tail past the NFPA 64-s fractile (a modelling choice: the
    references give only the standard's limits, not a measured distribution). 0 = constant."""
    turnout_min: float = 1.0
    """Median minutes a unit dispatched from its station (idle) needs to roll (v2: constant;
    NFPA 1710: EMS turn-out within 60 s for 90 %, 2nd); an unreliable unit adds 1-3 min more.
    v3 draws each call's turn-out (lognormal, ``turnout_sigma``) in the call stream."""
    turnout_sigma: float = 0.4
    """Log-scale spread of the turn-out minutes (v3; p90 = 1.7 min for σ 0.4, same reasoning as
    ``call_processing_sigma``). 0 = constant."""
    units_on_duty: int | None = None
    """Unit slots staffed for the shift (the first this many of ``city.unit_home``); the others
    stay off duty (inactive). ``None``: the whole fleet (v3; real systems staff peak units to the
    expected demand)."""
    divert_extra_min: float = 20.0
    """Extra handover minutes at a hospital that is on divert (v4 with ``conserve_beds``: only at
    a hospital forced on divert by an event; a full one costs the real wait for a bed)."""
    divert_outcome: float = 0.85
    """Multiplier on the benefit of the response for a patient taken to a diverting hospital."""
    bls_outcome: float = 0.7
    """Multiplier on the benefit *and the response credit* of a severe (≥ 2) cardiac / stroke /
    respiratory call whose first unit is BLS (v0: 0.8, benefit only)."""
    bed_stay_min: float = 120.0
    """Mean minutes a delivered patient occupies an EMS bed."""
    hospital_report_min: float = 15.0
    """Minutes between hospital status reports."""
    hospital_report_noise: float = 0.10
    """P(a hospital's reported divert flag is wrong)."""
    mci_plan: bool = False
    """v4.3 (issue 26): the mass-casualty plan. When a mass-casualty burst starts, the off-duty
    unit slots of the city's fleet are recalled (each enters service at its home station after
    ``mci_recall_delay_min`` and stays on duty for the rest of the shift) and every mutual-aid
    slot still unused is called in at no score cost (the plan's standing request, not the
    dispatcher's: its unit enters after ``mutual_aid_delay_min`` as requested aid does and is on
    loan ``mutual_aid_loan_min``). EMS MCI plans pre-arrange both: recall of off-duty personnel
    and automatic mutual-aid ambulance strike teams / task forces on declaration (USFA/NEMSMA,
    *Operational Templates and Guidance for EMS Mass Incident Deployment*, 2012; Massachusetts
    EMS MCI Plan 2016, MCI ambulance task forces); the delays are assumptions (no checked
    figure). On only in the ``mass_casualty`` scenarios: the random bursts of ``advanced`` /
    ``expert`` / ``heatwave`` keep v4's dynamics (their agents were trained on them)."""
    mci_recall_delay_min: float = 30.0
    """Minutes from the burst until a recalled off-duty crew is in service at its station
    (assumption: staff called at home, to the station, unit checked out)."""
    mutual_aid_delay_min: float = 20.0
    """Minutes until a requested mutual-aid unit enters the city."""
    mutual_aid_loan_min: float = 90.0
    """Minutes a mutual-aid unit stays after it enters the city; it leaves once free after that
    (requesting aid at the start of the shift does not buy a bigger fleet for the whole shift)."""
    mutual_aid_cost: float = 0.02
    """Score points (of 1) each mutual-aid request costs: a borrowed unit leaves the neighbouring
    service short and is paid for, so aid is worth it only when calls would otherwise wait long
    (v0 made it free, and requesting it at every epoch beat closest-idle)."""
    verify_beta: tuple[tuple[float, float], ...] = ((8.0, 2.0), (2.0, 6.0), (1.5, 8.0))
    """Beta(a, b) of the verification confidence that a call is genuine, by call kind (real,
    false alarm, ghost): means 0.80 / 0.25 / 0.16."""
    tone_severity: float = 2.0 / 3.0
    """Caller tone levels per severity level (tone = round(this·severity + panic + noise))."""
    tone_noise: float = 0.5
    """Standard deviation of the caller-tone noise (tone levels)."""
    fake_scene_min: tuple[float, float] = (20.0, 20.0)
    """On-scene minutes at a false alarm (crew assesses a caller who needs nothing) and at a ghost
    call (crew searches the address for nobody); the unit then drives home. v4.2: 20 / 20 (v1-v4:
    15 / 10, unsourced). An ambulance sent to a 999 call that ended without transport was
    committed a mean 34 min, drive included (Marks et al., Emerg Med J 2002, 500 non-transported
    calls, 2nd); with the env's response drive (median 7-9 min from ``learning`` up) and part of
    the drive home, 20 min on scene leaves that total. A ghost call gets the same: the crew
    searches the address and asks the caller back before it may leave (a modelling choice)."""
    fake_expiry_min: float = 30.0
    """An unserved false alarm or ghost call is cancelled after this many minutes."""
    coverage_min: float = 8.0
    """Coverage radius in minutes (the 8-min urban standard)."""
    unplanned_ref_min: float = 60.0
    """Reference minutes for a call the clairvoyant plan cannot serve with the home fleet."""
    shaping_per_action: float = 0.0005
    """Dense reward for each valid non-hold action, capped in total by ``shaping_cap``."""
    shaping_cap: float = 0.02
    """Most shaping reward an episode can collect (far below the outcome terms)."""
    invalid_penalty: float = 0.002
    """Reward subtracted for an invalid action (it is a no-op)."""
    tags: tuple[str, ...] = field(default=())

    @property
    def on_duty(self) -> int:
        """Number of unit slots staffed this shift (slots ``0..on_duty-1``)."""
        n = len(self.city.unit_home)
        return n if self.units_on_duty is None else min(int(self.units_on_duty), n)


DIFFICULTIES: dict[str, dict[str, float]] = {
    "warmup": dict(calls=5, fa=0.0, ghost=0.0, event=0.0, panic=0.0, radio=0.0, units=6),
    "learning": dict(calls=14, fa=0.10, ghost=0.0, event=0.10, panic=0.3, radio=0.15, units=8),
    "advanced": dict(calls=26, fa=0.15, ghost=0.10, event=0.25, panic=0.6, radio=0.25, units=10),
    "expert": dict(calls=30, fa=0.20, ghost=0.15, event=0.40, panic=1.0, radio=0.35, units=11),
}
"""Settings per difficulty (calls per shift are for dispatchr-20; ``metro_calls`` sets metro's).

v1 raised the seed's 3/5/8/12 calls so that calls queue for the 6 units and prioritisation
matters, and raised ghost and radio-delay rates where the scenario advertises them (v0's seed
settings left closest-idle within 0.005–0.05 of the clairvoyant bound and made hidden information
worth +0.001).

``units``: units on duty on ``dispatchr-20`` (v3; metro keeps its whole fleet). v2 ran every
difficulty with the seed's 6 units, so from ``learning`` up the nearest unit was often busy and
the 90th-percentile response was 15-34 min against 8-15; v3 staffs second units at the busiest
stations (``PEAK_STATIONS``) in proportion to the calls, as services add peak-hour units.

v4: ``calls`` is the *expected* count at mean rate (Poisson × Gamma, ``poisson_calls``), raised
to 5 / 14 / 26 / 30 (v3: 4 / 10 / 20 / 26 fixed) so the unit busy fractions sit in the regime
each level is meant for (Henrico commitment-factor scale, 2nd): with v3's counts under the v4
load closest-idle's busy fraction on 30 held-out seeds was 4.8 / 12.9 / 19.9 / 26.4 %
(warmup / learning / advanced / expert), metro_advanced 18.2 %."""

STRESS: dict[str, tuple[tuple[float, int], ...]] = {
    "heatwave": ((60.0, HEATWAVE),),
    "bridge_collapse": ((90.0, BRIDGE), (150.0, ACCIDENT)),
    "mass_casualty": ((120.0, MCI),),
    "hospital_divert": ((30.0, DIVERT), (200.0, DIVERT)),
}
"""Stress scenarios: the ``advanced`` difficulty plus forced events ``(minute, kind)``."""

MCI_PLAN_SCENARIOS = ("mass_casualty",)
"""Stress scenarios (both cities) that run the mass-casualty plan (``mci_plan``, v4.3)."""

METRO_UNITS = 30
"""Units on duty in the metro city (its whole fleet)."""


METRO_SERVICE_RATIO = 1.14
"""How many metro calls make one 20-node call's unit-minutes (v4.4, issue 26): a call keeps a
closest-idle unit committed (en route, on scene, transporting, at hospital) 46.7 min on the 20-node
city and 40.8 min on metro (training seeds 0-19 of learning / advanced / expert, each within
0.5 min; metro's trips are shorter and it has six hospitals). Measured, not fitted to a busy
fraction (``Probe.busy_min`` over ``Probe.n_calls`` of :mod:`lifeline.calibrate.dispatch`)."""


def metro_calls(difficulty: str) -> int:
    """Expected calls per shift of a metro difficulty: the 20-node city's offered load per staffed
    unit at the same difficulty, ``round(calls · 30 / units · METRO_SERVICE_RATIO)``:
    28 / 60 / 89 / 93 on warmup / learning / advanced / expert.

    v0-v4.2 scaled the calls by the fleet (``METRO_CALL_SCALE`` = 5: metro has 5× the seed's 6
    units), which was right while every difficulty ran 6 units, but since v3 the 20-node city
    staffs 6 / 8 / 10 / 11 units, so ×5 gave metro 1.7-2.4× the 20-node load per unit from
    learning up: closest-idle's busy fraction on training seeds 0-19 was 21.8 / 40.6 / 49.0 % on
    metro_learning / advanced / expert (``bench/dispatch_busy.py``). v4.3 matched the calls per
    staffed unit (25 / 52 / 78 / 82), which left metro 14 % lighter per unit (a metro call takes
    fewer unit-minutes): 16.0 / 23.9 / 26.1 % on training seeds, and 18.9 / 20.9 % on the 10
    held-out seeds of the metro_advanced / metro_expert cards, below the stressed band. v4.4
    matches the unit-minutes (``METRO_SERVICE_RATIO``, measured)."""
    d = DIFFICULTIES[difficulty]
    return round(d["calls"] * METRO_UNITS / d["units"] * METRO_SERVICE_RATIO)


def _build(city: CityParams, difficulty: str, forced: tuple[tuple[float, int], ...],
           metro: bool, visible: int, actions: int) -> DispatchParams:
    d = DIFFICULTIES[difficulty]
    return DispatchParams(
        city=city, calls_per_shift=metro_calls(difficulty) if metro else int(d["calls"]),
        false_alarm_p=d["fa"],
        ghost_p=d["ghost"], event_p=d["event"], panic_range=d["panic"], radio_delay_p=d["radio"],
        forced_events=forced, visible_calls=visible, actions_per_epoch=actions,
        units_on_duty=int(d["units"]) if city is DISPATCHR_20 else None,
    )


SCENARIO_NAMES: tuple[str, ...] = (
    *DIFFICULTIES, *STRESS, *(f"metro_{n}" for n in (*DIFFICULTIES, *STRESS)),
)
"""Every named scenario; the first is the default."""


@functools.cache
def scenario_params(name: str) -> DispatchParams:
    """The parameters of scenario ``name`` (``ValueError`` listing the choices if unknown)."""
    if name not in SCENARIO_NAMES:
        raise ValueError(f"unknown scenario {name!r} for dispatch; choose one of: "
                         f"{', '.join(SCENARIO_NAMES)}")
    metro = name.startswith("metro_")
    base = name.removeprefix("metro_")
    if metro:
        city, visible, actions = metro_city(seed=2026), 16, 8
    else:
        city, visible, actions = DISPATCHR_20, 8, 8
    if base in STRESS:
        return replace(_build(city, "advanced", STRESS[base], metro, visible, actions),
                       tags=("stress",), mci_plan=base in MCI_PLAN_SCENARIOS)
    return _build(city, base, (), metro, visible, actions)


SCENARIO_DESCRIPTIONS: dict[str, str] = {
    'warmup': 'About 5 calls in 8 h, honest callers, no events.',
    'learning': 'About 14 calls; 10% false alarms; radio reports late 15% of the time.',
    'advanced': 'About 26 calls; 15% false alarms, 10% ghost calls; city events; radio delay 25%.',
    'expert': (
        'About 30 calls; 20% false alarms, 15% ghost calls; frequent events; panicky callers; '
        'radio delay 35%.'),
    'heatwave': 'advanced plus a heatwave from minute 60.',
    'bridge_collapse': 'advanced plus a bridge collapse at minute 90 and an accident at 150.',
    'mass_casualty': ('advanced plus a mass-casualty burst at minute 120; the MCI plan recalls '
                      'off-duty crews and calls in mutual aid.'),
    'hospital_divert': 'advanced plus hospital divert events at minutes 30 and 200.',
    'metro_warmup': (
        'About 25 calls in 8 h, honest callers, no events. On the 240-node metro city.'),
    'metro_learning': (
        'About 52 calls; 10% false alarms; radio reports late 15% of the time. On the '
        '240-node metro city.'),
    'metro_advanced': (
        'About 78 calls; 15% false alarms, 10% ghost calls; city events; radio delay 25%. '
        'On the 240-node metro city.'),
    'metro_expert': (
        'About 82 calls; 20% false alarms, 15% ghost calls; frequent events; panicky '
        'callers; radio delay 35%. On the 240-node metro city.'),
    'metro_heatwave': 'advanced plus a heatwave from minute 60. On the 240-node metro city.',
    'metro_bridge_collapse': (
        'advanced plus a bridge collapse at minute 90 and an accident at 150. On the 240-node '
        'metro city.'),
    'metro_mass_casualty': (
        'advanced plus a mass-casualty burst at minute 120; the MCI plan calls in mutual aid. '
        'On the 240-node metro city.'),
    'metro_hospital_divert': (
        'advanced plus hospital divert events at minutes 30 and 200. On the 240-node metro city.'),
}
"""One line per scenario (``GET /<env>/tasks`` lists them)."""
