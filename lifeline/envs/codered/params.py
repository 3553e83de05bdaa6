"""Parameters of ``codered`` (Prakashnagar mass-casualty coordination) and its scenarios.

City, hospitals and fleet are the seed project's data (see README.md). Every field documents its
unit; times are simulated minutes from 08:00. The ``mech_*`` switches exist so that the tests can
turn one mechanic off and show that its test then fails (ablations, never used by scenarios).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import pairwise

# ----- conditions --------------------------------------------------------------------------------
CONDITIONS = ("cardiac", "stroke", "trauma", "general", "anxiety", "gerd", "panic", "minor")
"""True conditions; the first four need hospital care, the rest are resolved without it."""
CARDIAC, STROKE, TRAUMA, GENERAL, ANXIETY, GERD, PANIC, MINOR = range(8)
SERIOUS = (CARDIAC, STROKE, TRAUMA, GENERAL)
TARGET_MIN = (90.0, 60.0, 60.0, 120.0)
"""Onset-to-treatment target per serious condition, minutes (door-to-balloon / door-to-needle /
golden hour / general), as the seed advertised."""
TIME_TO_DEATH = ((60.0, 90.0), (100.0, 150.0), (50.0, 80.0), (220.0, 320.0))
"""Range of minutes from onset until vitals reach 0 with no care, per serious condition."""
SHOCK_UNITS = 4
"""(v3) A trauma patient needing at least this many units (4-6 of the 2-6 drawn: 60 %) is in
haemorrhagic shock and keeps trauma's ``TIME_TO_DEATH``; one needing 2-3 units deteriorates on
the general range instead. Why: the evidence for a pre-hospital time penalty in trauma holds for
the shock subgroup (Newgard CD et al., Ann Emerg Med 2015;66:30-41: > 60 min out of hospital, shock
patients needing early critical resources aOR 2.37 [1.05-5.37]) but not for physiologically
abnormal trauma as a whole (Newgard 2010, Ann Emerg Med 55:235-246: OR 1.00 per EMS minute). The
4-unit line is the massive-transfusion alternative definition (>= 4 U in 1 h, StatPearls). The
need is visible from the scene, so the agent can tell who is in shock."""
SURVIVAL_MAX = (0.95, 0.97, 0.92, 0.99)
"""Survival probability when treated at full vitals with everything ready."""
SURVIVAL_SLOPE = (0.85, 0.7, 0.9, 0.3)
"""Survival lost per unit of vitals lost before treatment."""
TREAT_MIN = (60.0, 30.0, 90.0, 20.0)
"""Treatment duration (OR / specialist occupancy), minutes."""
PROCEDURE_OF = (0, -1, 1, -1)
"""OR procedure each serious condition needs (0 cardiac cath, 1 trauma surgery, −1 none)."""
PROCEDURES = ("cardiac", "trauma")
SPECIALISTS = ("cardiologist", "neurologist", "trauma_surgeon")
SPECIALIST_OF = (0, 1, 2, -1)
"""Specialist each serious condition needs (index into SPECIALISTS, −1 none)."""
WORKUP_MEDIAN_MIN = (64.0, 67.0, 0.0, 0.0)
"""Median in-hospital door-to-treatment work-up per serious condition, minutes (v2): cardiac =
door-to-balloon, US median Jan-Sep 2010 (Krumholz HM et al., Circulation 2011;124:1038-1045);
stroke = door-to-needle, Target: Stroke 2010-13 median (Fonarow GC et al., JAMA 2014;311:1632-1640).
Trauma and general: 0 (no sourced interval; trauma's activation is the OR/surgeon/blood model)."""
WORKUP_SIGMA = (0.25, 0.40, 0.0, 0.0)
"""Log-normal shape of the work-up per serious condition: cardiac from the same source's share
within 90 min (91.4 %: ln(90/64)/z(0.914) = 0.25; its share within 75 min, 70.4 %, is then
matched to 3 points), stroke from the IQR 51-87 (ln(87/51)/1.349 = 0.40)."""
IN_HOSPITAL_LOSS_10MIN = (0.0096, 0.0022, 0.0, 0.0)
"""Survival lost per 10 minutes a cardiac / stroke patient spends in a capable hospital before
treatment (the work-up and any wait for an OR / specialist after it), as a probability (v2;
0: trauma and general keep the generic in-hospital multiplier ``0.5`` of their untreated rate).

* Cardiac: Rathore SS et al., Am J Cardiol 2009;104:1198 — unadjusted 1-year mortality by
  door-to-balloon time rises from 10.9 % at 30 min to 25.3 % at 180 min: (25.3 − 10.9) / 150 min
  = 0.096 points per minute = **0.96 points per 10 min** (the least-squares slope over all six
  points, 0.97, agrees).
* Stroke: Saver JL et al., JAMA 2013;309:2480-2488 — each 15 min earlier onset-to-treatment,
  in-hospital death OR 0.96, overall in-hospital mortality 8.8 %. 15 min later multiplies the odds
  0.088 / 0.912 = 0.0965 by 1 / 0.96 → 0.1005, i.e. mortality 9.13 %: +0.333 points per 15 min =
  **0.22 points per 10 min**.

Before v2's calibration the env charged its generic rate here (half the untreated rate: cardiac
0.85 · 0.5 / 75 per min ≈ 5.7 points per 10 min, stroke 0.7 · 0.5 / 125 ≈ 2.8). Pre-hospital and
untreated deterioration (``TIME_TO_DEATH``) are unchanged: Rathore measures door-to-balloon only,
and Saver's cohort is patients treated within the tPA window (see the README)."""
IN_HOSPITAL_RATE = tuple(
    loss / 10.0 / slope for loss, slope in zip(IN_HOSPITAL_LOSS_10MIN, SURVIVAL_SLOPE, strict=True))
"""Vitals lost per minute at a capable hospital before treatment, per serious condition: the
survival loss above divided by ``SURVIVAL_SLOPE`` (cardiac 0.0096 / 10 / 0.85 = 0.00113 per min,
stroke 0.0022 / 10 / 0.7 = 0.000314 per min; ×1.5 while the hospital is overcrowded, like the
generic rate). 0: the generic multiplier applies."""

STEMI_SYSTEM_DELAY_MORTALITY: tuple[tuple[float, float], ...] = (
    (30.0, 0.154), (90.0, 0.233), (150.0, 0.281), (270.0, 0.308))
"""(v3) Mortality of STEMI patients treated with primary PCI by *system delay* (first contact
with the emergency medical service to the guiding catheter), as (bin midpoint, minutes;
mortality): Terkelsen CJ et al., JAMA 2010;304:763-771 (6,209 Danish EMS-transported patients,
long-term mortality, median follow-up 3.4 years): 0-60 min 15.4 %, 61-120 23.3 %, 121-180 28.1 %,
181-360 30.8 %; after adjustment system delay stayed an independent predictor while patient delay
(onset to the call) did not. In the env a patient's onset *is* the emergency call (a phase-1
patient is known from onset, a phase-2 call rings at onset), so the system delay is treatment
minus onset. ``outcome_at`` interpolates linearly between the midpoints (flat outside) and
charges the difference to the first bin, so a cardiac patient treated within 30 min of the call
keeps ``SURVIVAL_MAX``; one treated at 90 min loses 7.9 points, at 150 min 12.7."""
STROKE_GOOD_OUTCOME_OR: tuple[tuple[float, float], ...] = (
    (45.0, 2.8), (135.0, 1.6), (225.0, 1.4), (315.0, 1.2), (360.0, 1.0))
"""(v3) Odds ratio of a favourable 3-month functional outcome with intravenous alteplase
against placebo by onset-to-treatment time, as (bin midpoint, minutes; OR): pooled analysis of
ATLANTIS, ECASS and NINDS (Hacke W et al., Lancet 2004;363:768-774): 2.8 (95 % CI 1.8-4.5) for
0-90 min, 1.6 (1.1-2.2) 91-180, 1.4 (1.1-1.9) 181-270, 1.2 (0.9-1.5) 271-360; 1.0 (no benefit)
from 360 min (the end of the pooled window). Favourable there is the trials' global outcome
(modified Rankin 0-1 with Barthel >= 95 and NIHSS <= 1); the env reads it as mRS 0-1."""
STROKE_GOOD_BASE = 0.26
"""(v3) Share with a good functional outcome (mRS 0-1 at 3 months) without thrombolysis: the NINDS
rt-PA trial's placebo arm (NEJM 1995;333:1581-1587: 26 % vs 39 % with t-PA; as commonly quoted,
not re-read here). A stroke patient's outcome is ``odds(STROKE_GOOD_BASE) x OR(onset-to-needle)``
as a probability: 0.50 at 45 min, 0.36 at 135, 0.33 at 225 (the grade's ``alive`` counts this
good-outcome probability for stroke, not survival)."""


def _interp(t: float, table: tuple[tuple[float, float], ...]) -> float:
    """Piecewise-linear value of ``table`` ((x, y) rows, x increasing) at ``t``, flat outside."""
    if t <= table[0][0]:
        return table[0][1]
    for (x0, y0), (x1, y1) in pairwise(table):
        if t <= x1:
            return y0 + (y1 - y0) * (t - x0) / (x1 - x0)
    return table[-1][1]


def outcome_at(cond: int, minutes: float) -> float:
    """(v3) Best outcome of a cardiac / stroke patient treated ``minutes`` after onset (the call):
    cardiac survival ``SURVIVAL_MAX − (mortality(minutes) − mortality(first bin))`` from
    ``STEMI_SYSTEM_DELAY_MORTALITY``; stroke the probability of mRS 0-1 from
    ``STROKE_GOOD_BASE`` and ``STROKE_GOOD_OUTCOME_OR``."""
    if cond == CARDIAC:
        table = STEMI_SYSTEM_DELAY_MORTALITY
        return SURVIVAL_MAX[CARDIAC] - (_interp(minutes, table) - table[0][1])
    if cond == STROKE:
        odds = STROKE_GOOD_BASE / (1.0 - STROKE_GOOD_BASE) * _interp(minutes,
                                                                    STROKE_GOOD_OUTCOME_OR)
        return odds / (1.0 + odds)
    raise ValueError(f"no sourced outcome table for condition {cond}")


# ----- 911 call categories (phase 2) -----------------------------------------------------------
CATEGORIES = ("chest_pain", "stroke_symptoms", "injury", "breathing", "collapse")
CATEGORY_MIX = (0.30, 0.15, 0.25, 0.15, 0.15)
"""Probability of each call category."""
CATEGORY_TABLE: tuple[tuple[float, ...], ...] = (
    # cardiac stroke trauma general anxiety gerd panic minor
    (0.45, 0.00, 0.00, 0.00, 0.25, 0.20, 0.10, 0.00),   # chest pain (the seed's table)
    (0.00, 0.60, 0.00, 0.15, 0.10, 0.00, 0.00, 0.15),   # stroke symptoms
    (0.00, 0.00, 0.50, 0.20, 0.00, 0.00, 0.00, 0.30),   # injury
    (0.20, 0.00, 0.00, 0.40, 0.15, 0.00, 0.25, 0.00),   # breathing
    (0.20, 0.15, 0.00, 0.35, 0.00, 0.00, 0.00, 0.30),   # collapse
)
"""P(true condition | category): public (shown in the README), the draw per call is hidden."""
TRIAGE_DECISIONS = ("dispatch_als", "dispatch_bls", "self_transport", "callback", "no_dispatch")
SURGE_SERIOUS_SHARE = 0.10
"""(v3) Share of news-cycle ("surge") calls whose caller needs hospital care: the rest are the
worried well (anxiety, GERD, panic, minor). A *stated* mix, not a sourced one: reports of
mass-casualty events describe the worried well outnumbering the injured several-fold (not checked
against a primary source here). Within each part the category's own table sets the condition.
v2 drew surge calls from the ordinary table, so 59-71 % of them were serious."""

PREALERT_SAVING_MIN = (26.0, 0.0, 0.0, 0.0)
"""(v3) Minutes of door-to-treatment a pre-alert saves, per serious condition. Cardiac:
pre-hospital activation of the cath lab shortens door-to-balloon by 26 min (95 % CI 19-33),
meta-analysis PMC9072100 as quoted in issue 24 (the pooled effect; not re-read here). Stroke,
trauma, general: 0 (no sourced effect in the project's notes).

How it enters the model: the drawn work-up (``WORKUP_MEDIAN_MIN``, the national door-to-balloon
distribution) is taken as that of a pre-alerted ambulance arrival; an arrival that was *not*
pre-alerted (at arrival the hospital had neither the OR ready or preparing for the procedure nor
the specialist present or paged) waits ``26 − page_delay_min`` = 11 extra work-up minutes, on top
of the page (15 min) the hospital then sends after the work-up: 26 min in all, the sourced
difference. v2 charged only the page."""

# ----- blood ------------------------------------------------------------------------------------
BLOOD_TYPES = ("A+", "A-", "B+", "B-", "AB+", "AB-", "O+", "O-")
O_NEG = 7
BLOOD_FREQ = (0.30, 0.06, 0.22, 0.04, 0.07, 0.01, 0.26, 0.04)
"""Population blood-type frequencies (India, approximate)."""


def compatible(donor: int, recipient: int) -> bool:
    """Red-cell compatibility: ABO (A=1, B=2 bits) and RhD."""
    abo = (0b01, 0b01, 0b10, 0b10, 0b11, 0b11, 0b00, 0b00)
    rh = (True, False, True, False, True, False, True, False)
    return (abo[donor] & ~abo[recipient]) == 0 and (rh[recipient] or not rh[donor])


# ----- city (the seed's Prakashnagar) ----------------------------------------------------------
NODES = ("Rajiv Chowk", "Lajpat Nagar", "Chowkha", "District Hospital", "Railway Crossing",
         "NH45 Bypass", "Ring Road", "IT Hub", "MG Chowk", "Sector 12", "Community HC",
         "AIIMS Prakash")
ROADS = ((0, 1, 3), (1, 2, 4), (1, 6, 6), (2, 3, 2), (2, 4, 5), (4, 5, 6), (4, 6, 4), (5, 7, 4),
         (5, 8, 8), (5, 6, 3), (7, 9, 3), (7, 10, 7), (8, 11, 5), (8, 9, 4), (6, 10, 5))
"""Roads as (node, node, free-flow minutes)."""
ARTERIALS = ((1, 6), (4, 6), (5, 6), (6, 10), (4, 5), (5, 7), (5, 8))
"""Ring Road and NH45 roads, slowed by the morning rush."""
HOSPITAL_NAMES = ("AIIMS Prakash", "District Hospital", "Community HC")
HOSPITAL_NODE = (11, 3, 10)
CAPABLE = ((True, True, True, True), (True, False, True, True), (False, False, False, True))
"""Definitive treatment per hospital × serious condition (C stabilises the rest)."""
QUALITY = ((1.0, 1.0, 1.0, 1.0), (0.95, 1.0, 0.93, 1.0), (1.0, 1.0, 1.0, 1.0))
"""Post-treatment survival multiplier per hospital × condition (the seed's table, softened)."""
N_OR = (3, 2, 0)
ICU_BEDS = (4, 2, 1)
SPECIALIST_COUNT = ((2, 1, 2), (1, 0, 1), (0, 0, 0))
"""On-call specialists per hospital × (cardiologist, neurologist, trauma surgeon)."""
BLOOD_STOCK = ((10, 5, 10, 5, 5, 3, 12, 6), (6, 3, 6, 3, 3, 2, 8, 4), (0, 0, 0, 0, 0, 0, 4, 2))
"""Units per hospital × blood type at 08:00."""
AMBULANCE_NODE = (4, 5, 1, 7, 0)
AMBULANCE_ALS = (True, True, False, False, False)
AID_ENTRY = (0, 9)
"""Nodes where mutual-aid units enter the city (alternating)."""
DISRUPTIONS = ("accident", "road_closure", "equipment_failure", "surge_diversion",
               "shift_change")


@dataclass(frozen=True)
class CodeRedParams:
    """One scenario. Minutes are simulated minutes; rates are per minute."""

    horizon_min: float = 90.0
    """Episode length, minutes (ends earlier only by fast-forwarding once all is resolved; the
    scenarios run 60 min longer since v2 so that the in-hospital work-up plays out)."""
    patients: tuple[tuple[int, float], ...] = ((CARDIAC, 0.0),)
    """Phase-1 patients as (condition, onset minute)."""
    call_rate: float = 0.0
    """Phase-2 911 calls per minute (0: no call queue)."""
    call_window_min: float = 0.0
    """Calls arrive during [0, call_window_min)."""
    max_calls: int = 0
    """Call slots (calls beyond it are not generated)."""
    cascade: bool = False
    """Task5: deaths spawn secondary patients, saves start news cycles (surge calls)."""
    mutual_aid: int = 0
    """Mutual-aid requests allowed."""
    disruption_rate: float = 0.0
    """Disruptions per minute (Poisson)."""
    actions_per_epoch: int = 4
    """Decision slots per epoch; the last slot (or maintain_plan) advances the clock."""
    max_epoch_min: float = 10.0
    """An epoch lasts until the next decision event or at most this many minutes."""
    escalate_min: float = 10.0
    """A call left untriaged this long escalates (its patient deteriorates 1.5× faster)."""
    aid_delay_min: tuple[float, float] = (15.0, 25.0)
    """Mutual-aid arrival delay range, minutes."""
    page_delay_min: float = 15.0
    """Minutes from paging a specialist to their arrival."""
    hold_min: float = 60.0
    """Minutes a prepared OR / present specialist is held for an arriving patient."""
    prep_min: float = 10.0
    """OR preparation time, minutes."""
    crossmatch_min: float = 15.0
    """Crossmatch time for typed blood, minutes (the abbreviated emergency route: group-specific
    units are issued about 10 min after the sample is received, 5-15 in the calibration notes'
    blood-bank table; a full serological crossmatch, 45-60 min, is not modelled separately)."""
    typing_min: float = 5.0
    """Blood-type query delay, minutes: ABO/RhD grouping of the sample takes 5-10 min once it is
    in the laboratory (Bloodworks Northwest, 'Stock O guidance': 'usually takes only 5-10
    minutes'; UAMS blood bank: 5 min type-specific)."""
    auto_blood_min: float = 20.0
    """Hospital's own typing + crossmatch after arrival when nothing was allocated, minutes
    (= typing + crossmatch from the sample drawn at the door)."""
    hospital_typing: bool = True
    """(v3, fourth round) The blood group is typed from a sample drawn at the hospital:
    ``query_blood_type`` is valid only once the patient is there (handover, in hospital or
    stabilised), so a bleeding patient arrives untyped and waits ``auto_blood_min`` for typed units
    unless emergency O- is released (real practice: uncrossmatched group O from the emergency
    fridge at once, group-specific after the sample is grouped; Scottish Code Red audit 2018-19,
    EMJ 2022;39:A989: red cells 4 min [IQR 0-17] after ED arrival). Off: typing may start from the
    scene, as in v2 and v3's first rounds (typed units were crossmatched during transport, so the
    O- share of transfused red cells was 1.5-5.6 %)."""
    oneg_cap: int = 4
    """Emergency O− units releasable per patient."""
    handover_min: float = 5.0
    """Handover (offload) time at the hospital, minutes."""
    scene_min_als: float = 12.0
    """On-scene time of an ALS crew, minutes."""
    scene_min_bls: float = 10.0
    """On-scene time of a BLS crew, minutes."""
    elective_prob: float = 0.4
    """Probability each OR is busy with an elective case at 08:00."""
    rush_factor: float = 1.3
    """Arterial travel-time multiplier until 10:00."""
    aid_penalty: float = 0.0
    """Score penalty per mutual-aid request (v3: 0 — the price of aid is in the dynamics: the
    arrival delay ``aid_delay_min`` and the request limit ``mutual_aid``; v2 charged 0.04, more
    than the lives the unit saved, so refusing aid scored higher with more deaths). v3's first
    cut also had the lender recall its unit 60 min after arrival; it moved no policy measurably
    (heuristic <= 0.002, a request-at-once probe -0.006 [-0.016, +0.006] on task5_surge, 30
    held-out seeds) and was removed."""
    aid_penalty_cap: float = 0.10
    """Cap of the mutual-aid penalty."""
    invalid_penalty: float = 0.01
    """Reward subtracted per invalid action (dense reward)."""
    invalid_score: float = 0.002
    """(v3) Grade score subtracted per invalid action (capped at ``invalid_score_cap``): padding
    a plan with invalid actions lowers the score (v2: only the dense reward fell)."""
    invalid_score_cap: float = 0.10
    """Cap of the invalid-action deduction (50 invalid actions reach it)."""
    reassign_min: float = 2.0
    """(v3) Crew minutes each change of an already chosen destination costs (re-planning and
    re-notifying; added to the scene time): churn is no longer free."""
    transfer_waste: float = 0.5
    """(v3) Efficiency waste per blood unit moved by ``transfer_blood`` and not (yet) drawn at the
    receiving hospital (a unit out of its home fridge; credited back as useful when used)."""
    prealert: bool = True
    """(v3) An arrival that was not pre-alerted waits ``PREALERT_SAVING_MIN`` − page delay more
    work-up minutes (off: v2's work-up)."""
    sourced_ischaemia: bool = True
    """(v3) Cardiac and stroke patients lose vitals at the sourced ``IN_HOSPITAL_RATE`` from
    onset, wherever they are (the time-outcome gradients are over total ischaemic time /
    onset-to-treatment), times the care multipliers; off: v2's invented pre-hospital curves
    (``TIME_TO_DEATH``: dead in 60-90 / 100-150 min untreated, ≈ 11× / 24× the sourced rate)."""
    in_hospital_calibrated: bool = True
    """Cardiac / stroke patients waiting in a capable hospital deteriorate at the sourced
    ``IN_HOSPITAL_RATE`` (v2; off: half their untreated rate, as before the calibration — the
    ablation the tests switch back to)."""
    workup_factor: float = 1.0
    """Multiplier of each patient's drawn door-to-treatment work-up (v2; 0: treatment may start
    the minute the patient arrives, as in v0 — the bound's idealised hospitals and the ablation)."""
    # ----- ablation switches (tests only) -----------------------------------------------------
    mech_deterioration: bool = True
    """Vitals fall after onset (off: vitals stay at their onset value)."""
    mech_readiness: bool = True
    """OR preparation and specialist paging matter (off: OR and specialist always ready)."""
    mech_blood: bool = True
    """Trauma needs blood before surgery (off: blood never waits or runs short)."""
    mech_escalation: bool = True
    """Untriaged calls escalate."""
    mech_diversion: bool = True
    """Surge disruptions put hospitals on diversion."""
    mech_aid_delay: bool = True
    """Mutual aid arrives after a delay (off: instantly)."""
    sourced_outcome: bool = True
    """(v3) A cardiac patient's survival at treatment follows the sourced system-delay table
    (``STEMI_SYSTEM_DELAY_MORTALITY``) and a stroke patient's outcome is the probability of a good
    functional outcome (mRS 0-1) by onset-to-needle time (``STROKE_GOOD_OUTCOME_OR``), each less
    the patient's own severity at onset (``SURVIVAL_SLOPE`` x vitals missing at onset) and the
    readiness / crew penalties; off: survival from vitals at treatment (v2's curve)."""
    mech_shock: bool = True
    """(v3) Only trauma in haemorrhagic shock (``SHOCK_UNITS``) deteriorates on trauma's fast
    range (off: every trauma patient does, as in v2)."""


_T1 = CodeRedParams(horizon_min=150.0)
_T2 = replace(_T1, horizon_min=180.0, patients=((CARDIAC, 0.0), (STROKE, 5.0)), mutual_aid=1,
              disruption_rate=0.02)
_T3 = replace(_T1, horizon_min=240.0,
              patients=((CARDIAC, 0.0), (CARDIAC, 3.0), (STROKE, 5.0), (TRAUMA, 8.0),
                        (GENERAL, 12.0)), mutual_aid=2, disruption_rate=0.03)
_T4 = replace(_T1, horizon_min=180.0, patients=(), call_rate=0.1, call_window_min=90.0,
              max_calls=12, mutual_aid=1, disruption_rate=0.02)
_T5 = replace(_T1, horizon_min=240.0, patients=((TRAUMA, 0.0), (CARDIAC, 4.0)), call_rate=0.08,
              call_window_min=140.0, max_calls=16, cascade=True, mutual_aid=2,
              disruption_rate=0.03)

SCENARIOS: dict[str, CodeRedParams] = {
    "task1": _T1,
    "task2": _T2,
    "task3": _T3,
    "task4": _T4,
    "task5": _T5,
    "task3_gridlock": replace(_T3, disruption_rate=0.1, rush_factor=1.6),
    "task5_surge": replace(_T5, call_rate=0.12, max_calls=20, disruption_rate=0.06),
}
"""The seed's five tasks plus two stress variants (heavy disruption; call surge)."""


def scenario_params(name: str) -> CodeRedParams:
    """Preset ``name`` or a ``ValueError`` listing the choices."""
    if name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r} for codered; choose one of: "
                         f"{', '.join(SCENARIOS)}")
    return SCENARIOS[name]


SCENARIO_DESCRIPTIONS: dict[str, str] = {
    'task1': 'One cardiac emergency (STEMI) at minute 0; 150 minutes.',
    'task2': 'A cardiac and a stroke patient 5 minutes apart, 1 mutual-aid unit; 180 minutes.',
    'task3': ('Five staggered patients (2 cardiac, stroke, trauma, general), 2 mutual-aid units, '
              'road disruptions; 240 minutes.'),
    'task4': 'The 911 call queue only: hidden true conditions and escalation; 180 minutes.',
    'task5': ('Trauma and cardiac patients, a 911 call queue and the cascade of secondary '
              'incidents; 240 minutes.'),
    'task3_gridlock': 'task3 with heavy road disruption (0.1/min) and rush-hour traffic x1.6.',
    'task5_surge': 'task5 with a bigger call surge (0.12 calls/min, up to 20 calls).',
}
"""One line per scenario (``GET /<env>/tasks`` lists them)."""
