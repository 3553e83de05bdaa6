"""Parameters of the emergency-department simulation and its named scenarios.

Every field is documented with its unit. Scenarios are frozen ``EDParams`` presets; the upper
bound relaxes capacity through :func:`unconstrained`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

CONDITIONS = ("cardiac", "respiratory", "trauma", "stroke", "sepsis", "minor")
"""Condition names; observation code = index + 1 (0 means empty)."""
RESPIRATORY = CONDITIONS.index("respiratory")
TRAUMA = CONDITIONS.index("trauma")
MINOR = CONDITIONS.index("minor")

SixFloats = tuple[float, float, float, float, float, float]
"""One value per condition, in ``CONDITIONS`` order."""


@dataclass(frozen=True)
class EDParams:
    """One scenario of the ED. Times are in minutes or hours as each field says."""

    # --- resources ---------------------------------------------------------------------------
    general_beds: int = 24
    """Number of general ED beds (v1: 20; v2 adds four because ward admissions now board in
    them)."""
    icu_beds: int = 5
    """Number of ICU beds."""
    ventilators: int = 3
    """Number of ventilators (attachable to ICU beds only)."""
    queue_slots: int = 10
    """Visible waiting-room slots (the most urgent patients by observed acuity, then wait)."""
    # --- clock -------------------------------------------------------------------------------
    tick_minutes: float = 15.0
    """Length of one tick, minutes."""
    horizon_ticks: int = 96
    """Episode length, ticks (96 x 15 min = 24 h, starting at 00:00)."""
    actions_per_tick: int = 4
    """K: the K-th consecutive non-wait action within a tick also advances the clock."""
    # --- arrivals ----------------------------------------------------------------------------
    arrivals_per_hour: float = 5.5
    """Mean arrival rate over the day, patients/hour (the diurnal profile has mean 1)."""
    esi_mix: tuple[float, float, float, float, float] = (0.02, 0.20, 0.45, 0.25, 0.08)
    """Probability of true acuity ESI 1..5 at arrival."""
    respiratory_share: float = 0.18
    """Probability that a non-minor arrival is respiratory (the rest split evenly)."""
    # --- conditions (one value per condition, in CONDITIONS order) ---------------------------
    condition_icu_prob: SixFloats = (0.15, 0.20, 0.15, 0.20, 0.20, 0.0)
    """Probability that an ESI-2 patient of each condition needs ICU care."""
    esi1_icu_prob: float = 0.30
    """Probability that an ESI-1 patient needs ICU care (v2; v1: always). Munich tertiary ED
    2014-17 (BMJ Open 2022): 27 % of ESI-1 patients to the ICU, 37 % to intermediate care; the
    rest are resuscitated/stabilised in the ED (a general bed is correct care for them)."""
    condition_vent_prob: SixFloats = (0.10, 0.60, 0.15, 0.10, 0.20, 0.0)
    """Probability that an ICU-need patient (ESI 1-2) of each condition needs a ventilator."""
    condition_hazard: SixFloats = (0.9, 1.0, 1.1, 1.3, 1.3, 0.5)
    """Multiplier of the worsening and death hazards by condition (stroke/sepsis are time-critical,
    minor complaints are not)."""
    condition_los: SixFloats = (0.9, 1.1, 1.0, 1.3, 1.1, 0.7)
    """Multiplier of the treatment time by condition."""
    mistriage_prob: float = 0.10
    """Probability that the triage acuity of an ESI 3-5 patient is off by one level (either way);
    true ESI 1-2 patients are *under*-triaged (shown one level less urgent) with twice this
    probability (critical patients are the ones triage misses most: Sax et al. 2023 found 34 %
    of critically ill patients under-triaged). Revealed after a tick in a bed."""
    # --- mass-casualty incident ---------------------------------------------------------------
    mci_patients: tuple[int, int] = (0, 0)
    """Inclusive range of trauma patients arriving in the incident (0 = no incident)."""
    mci_window_hours: tuple[float, float] = (8.0, 16.0)
    """The incident starts uniformly in this window (hours of the day); lasts one hour."""
    # --- admission and boarding (v2) --------------------------------------------------------
    ward_admit_prob: tuple[float, float, float, float, float] = (0.05, 0.18, 0.15, 0.04, 0.05)
    """Probability that a patient of true ESI 1..5 *without* ICU need is admitted to an inpatient
    ward at the end of ED treatment (drawn at arrival). With ICU need (always an admission) this
    gives admitted shares of about 32 / 32 / 15.5 / 3 / 3.5 % (Hocker 2018, NHAMCS 2011); ESI
    4-5 are set a little above their share because some of them leave unseen first."""
    boarding_hours: tuple[float, float, float, float, float] = (2.9, 4.3, 3.9, 3.9, 3.9)
    """Mean boarding time of a ward admission by true ESI at arrival, hours (lognormal): after
    treatment the patient keeps the ED bed this long, until the ward takes them (decision to
    departure of medical admissions by ESI I/II/III 2.9 / 4.3 / 3.9 h, West J Emerg Med 2022;
    ESI 4-5 take the ESI-3 value, no published figure)."""
    boarding_sigma: float = 0.6
    """Lognormal shape of boarding times (dimensionless)."""
    triage_ticks: int = 1
    """Ticks between arrival and the waiting room (triage and registration, v2): a patient
    arriving in tick t can be given a bed from tick t + triage_ticks on. No hazard applies
    during triage (the patient is with the triage nurse)."""
    # --- starting census ---------------------------------------------------------------------
    icu_boarders: int = 0
    """ICU beds occupied at 00:00 by long-stay (boarding) patients."""
    # --- treatment (hours) -------------------------------------------------------------------
    general_treatment_hours: tuple[float, float, float, float, float] = (4.0, 4.0, 4.0, 2.0, 1.0)
    """Mean general-bed treatment time by true acuity ESI 1..5, hours (lognormal). v2: ESI 1
    4 h (v1: 6 h), as only the ESI-1 patients without ICU need are treated in the ED now."""
    icu_treatment_hours: float = 20.0
    """Mean ICU treatment time, hours (lognormal, roughly 12-36 h)."""
    treatment_sigma: float = 0.4
    """Lognormal shape of treatment times (dimensionless)."""
    # --- deterioration (per-tick probabilities) ------------------------------------------------
    worsen_hazard: tuple[float, float, float, float, float] = (0.0, 0.05, 0.015, 0.004, 0.001)
    """Per-tick probability that an untreated patient of ESI 1..5 worsens one level."""
    death_hazard_untreated: float = 0.10
    """Per-tick death probability of an untreated ESI-1 patient."""
    under_care_factor: float = 0.5
    """Hazard multiplier for an ICU-need patient in a general bed (lower care than needed)."""
    no_vent_factor: float = 1.0
    """Hazard multiplier for a ventilator-need patient without a ventilator (respiratory failure
    without ventilation is as dangerous as no care at all)."""
    treated_factor: float = 0.05
    """Hazard multiplier under correct care (small but not zero)."""
    # --- leaving without being seen ----------------------------------------------------------
    lwbs_patience_hours: float = 4.0
    """Mean patience of ESI 4-5 patients before they leave unseen, hours (lognormal)."""
    lwbs_patience_sigma: float = 0.3
    """Lognormal shape of that patience (dimensionless)."""
    # --- early discharge ---------------------------------------------------------------------
    return_prob: float = 0.5
    """Probability that an early-discharged (not ready) survivor returns, one level worse."""
    outside_death_prob: tuple[float, float, float, float, float] = (0.8, 0.1, 0.02, 0.0, 0.0)
    """Probability that an early-discharged patient of true ESI 1..5 dies outside the ED."""
    return_delay_hours: tuple[float, float] = (2.0, 8.0)
    """The return happens uniformly this many hours after discharge."""
    # --- episode end -------------------------------------------------------------------------
    early_stop_deaths: int = 0
    """Stop the episode once this many patients have died (0 = never). The rest of the shift is
    then simulated with nobody admitted and graded, so stopping never escapes harm."""


SCENARIOS: dict[str, EDParams] = {
    "normal_day": EDParams(mistriage_prob=0.0),
    "surge": EDParams(arrivals_per_hour=5.5 * 1.6, respiratory_share=0.55,
                      esi_mix=(0.03, 0.24, 0.45, 0.21, 0.07),
                      condition_vent_prob=(0.10, 0.75, 0.15, 0.10, 0.20, 0.0)),
    # Chaotic triage in the incident; the shift is called off after 60 deaths (the rest of the
    # day is still simulated and graded).
    "mass_casualty": EDParams(mci_patients=(15, 25), early_stop_deaths=60),
    # Night staffing: fewer staffed beds (6 general, 2 ICU, 1 ventilator) for fewer arrivals, and
    # fewer hands: two bed moves per 15 minutes (v2; v1: four, as by day).
    "night_shift": EDParams(arrivals_per_hour=5.5 * 0.4, esi_mix=(0.005, 0.06, 0.40, 0.37, 0.165),
                            general_beds=6, icu_beds=2, ventilators=1, actions_per_tick=2),
    # A respiratory wave with ICU beds to spare: the 3 ventilators are the binding constraint.
    "ventilator_crisis": EDParams(respiratory_share=0.8, esi_mix=(0.03, 0.25, 0.45, 0.20, 0.07),
                                  icu_beds=10,
                                  condition_icu_prob=(0.15, 0.50, 0.15, 0.20, 0.20, 0.0),
                                  condition_vent_prob=(0.10, 0.85, 0.15, 0.10, 0.20, 0.0)),
    "icu_boarding": EDParams(icu_boarders=4),  # 80% of the 5 ICU beds
}


def unconstrained(params: EDParams) -> EDParams:
    """The same scenario with effectively unlimited beds/ventilators and immediate admission."""
    return replace(params, general_beds=250, icu_beds=120, ventilators=120, queue_slots=60,
                   actions_per_tick=400)


def v1_mechanics(params: EDParams) -> EDParams:
    """The same scenario with the v2 mechanics switched off (a mechanic-sensitivity probe): every
    ESI-1 patient needs the ICU, nobody is admitted to a ward (no boarding), no triage step and
    the v1 outside-death probability of a discharged ESI-1 patient."""
    return replace(params, esi1_icu_prob=1.0, ward_admit_prob=(0.0,) * 5, triage_ticks=0,
                   outside_death_prob=(0.5, *params.outside_death_prob[1:]))


def without_ventilator_need(params: EDParams) -> EDParams:
    """The same scenario in which nobody ever needs a ventilator (a mechanic-sensitivity probe)."""
    return replace(params, condition_vent_prob=(0.0,) * 6)


def neutral_conditions(params: EDParams) -> EDParams:
    """The same scenario with conditions as labels only (every condition like the average)."""
    return replace(params, condition_icu_prob=(0.15,) * 5 + (0.0,),
                   condition_vent_prob=(0.25,) * 5 + (0.0,),
                   condition_hazard=(1.0,) * 6, condition_los=(1.0,) * 6)


SCENARIO_DESCRIPTIONS: dict[str, str] = {
    'normal_day': (
        'A weekday: 5.5 arrivals/h, no mis-triage; 24 general beds, 5 ICU beds, 3 ventilators.'),
    'surge': 'Respiratory surge: 1.6x arrivals, more acute patients, 10% mis-triage.',
    'mass_casualty': (
        'A mass-casualty incident brings 15-25 patients at once; chaotic triage; the shift is '
        'called off after 60 deaths (the rest is still graded).'),
    'night_shift': (
        "Night staffing (6 general, 2 ICU beds, 1 ventilator; two bed moves per 15 min) for 40% "
        "of the day's arrivals."),
    'ventilator_crisis': (
        'A respiratory wave with ICU beds to spare: the 3 ventilators are the binding constraint.'),
    'icu_boarding': '4 of the 5 ICU beds start occupied by boarders.',
}
"""One line per scenario (``GET /<env>/tasks`` lists them)."""
