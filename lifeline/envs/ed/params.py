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
FiveFloats = tuple[float, float, float, float, float]
"""One value per ESI level 1..5."""
FiveInts = tuple[int, int, int, int, int]
"""One value per ESI level 1..5."""
HourInts = tuple[int, ...]
"""One value per hour of the day 00..23."""
ED_V2_COMMIT = "72ee2d85efd0"
"""The last commit with ED-v2 (``EDv2Env``, its numba batch kernel, ``SCENARIOS_V2``)."""


def check_version(version: int) -> None:
    """Only ED-v3 is in the tree: any other ``version`` fails with one line naming the commit to
    check out (``EDParams(version=2)``, ``EDVectorEnv(version=2)``, ``make_vec(version=2)``)."""
    if version != 3:
        raise ValueError(f"ED-v{version} is not in this tree (only ED-v3); ED-v2 last existed at "
                         f"commit {ED_V2_COMMIT}: git checkout {ED_V2_COMMIT}")


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
    actions_per_tick: int = 6
    """K: the K-th consecutive non-wait action within a tick also advances the clock (v3 6: seeing
    patients and imaging priority are decisions too; v2 4)."""
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
    # --- admission ----------------------------------------------------------------------------
    ward_admit_prob: tuple[float, float, float, float, float] = (0.05, 0.18, 0.15, 0.04, 0.05)
    """Probability that a patient of true ESI 1..5 *without* ICU need is admitted to an inpatient
    ward at the end of ED treatment (drawn at arrival). With ICU need (always an admission) this
    gives admitted shares of about 32 / 32 / 15.5 / 3 / 3.5 % (Hocker 2018, NHAMCS 2011); ESI
    4-5 are set a little above their share because some of them leave unseen first. An
    admission boards in its ED bed until the hospital assigns an inpatient bed (v3 section)."""
    boarding_hours: tuple[float, float, float, float, float] = (2.9, 4.3, 3.9, 3.9, 3.9)
    """Mean boarding time of a ward admission by true ESI at arrival, hours (lognormal): after
    treatment the patient keeps the ED bed this long, until the ward takes them (decision to
    departure of medical admissions by ESI I/II/III 2.9 / 4.3 / 3.9 h, West J Emerg Med 2022;
    ESI 4-5 take the ESI-3 value, no published figure). ED-v2's sampled boarding: v3's boarding
    emerges from inpatient census; ``generator.make_patient`` still makes this draw (and discards
    it) so every patient consumes the same draws (the v3 digests depend on that)."""
    boarding_sigma: float = 0.6
    """Lognormal shape of ``boarding_hours`` (dimensionless; drawn and discarded, as above)."""
    triage_ticks: int = 1
    """Ticks between arrival and the waiting room (triage and registration): a patient
    arriving in tick t can be given a bed from tick t + triage_ticks on. No hazard applies
    during triage (the patient is with the triage nurse)."""
    # --- starting census ---------------------------------------------------------------------
    icu_boarders: int = 0
    """ICU beds occupied at 00:00 by long-stay (boarding) patients."""
    # --- treatment (hours) -------------------------------------------------------------------
    general_treatment_hours: FiveFloats = (2.0, 1.75, 1.25, 0.75, 0.75)
    """Mean general-bed treatment time by true acuity ESI 1..5, hours (lognormal): the treatment
    that follows the work-up (the assessment, the work-up and the queues make up the rest of the
    stay; v2, without them: 4 / 4 / 4 / 2 / 1 h)."""
    treatment_sigma: float = 0.4
    """Lognormal shape of treatment times (dimensionless)."""
    # --- deterioration (per-tick probabilities) ------------------------------------------------
    worsen_hazard: tuple[float, float, float, float, float] = (0.0, 0.03, 0.01, 0.003, 0.001)
    """Per-tick probability that an untreated patient of ESI 1..5 worsens one level (lowered to
    in-ED mortality in v3, see README; v2 0 / 5 / 1.5 / 0.4 / 0.1 %)."""
    death_hazard_untreated: float = 0.06
    """Per-tick death probability of an untreated ESI-1 patient (v2: 10 %)."""
    under_care_factor: float = 0.3
    """Hazard multiplier for an ICU-need patient in a general bed (lower care than needed;
    v2: 0.5)."""
    no_vent_factor: float = 1.0
    """Hazard multiplier for a ventilator-need patient without a ventilator (respiratory failure
    without ventilation is as dangerous as no care at all)."""
    treated_factor: float = 0.02
    """Hazard multiplier under correct care (small but not zero; v2: 0.05)."""
    # --- leaving without being seen ----------------------------------------------------------
    lwbs_patience_sigma: float = 0.6
    """Lognormal shape of the patience (dimensionless; v2: 0.3)."""
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
    # --- version -------------------------------------------------------------------------------
    version: int = 3
    """Mechanics version: always 3 (ED-v3). ED-v2 was retired from the tree; any other value is
    refused with the commit to check out for it (README, "Version history")."""
    # --- v3: clinicians ------------------------------------------------------------------------
    physicians_by_hour: HourInts = (2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4,
                                    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3)
    """Emergency physicians on duty in each hour of the day 00..23 (shifts). A physician
    assesses one patient at a time; an assessment that runs past a shift change is finished."""
    assess_ticks: FiveInts = (3, 3, 2, 1, 1)
    """Physician time of the provider assessment by true ESI 1..5, ticks (45 / 30 / 15 min). Care
    (and the work-up) starts with it; door-to-provider is arrival to its start."""
    unseen_factor: float = 0.3
    """Hazard multiplier of a patient in a bed whom no physician has assessed yet (nursing
    observation only)."""
    # --- v3: diagnostics -----------------------------------------------------------------------
    resources_base: FiveInts = (3, 2, 2, 1, 0)
    """Fixed part of the ESI resources a patient of true ESI 1..5 needs; the rest is Poisson
    (``resources_extra``) so the means are Tanabe et al. 2004's 5 / 3.89 / 3.3 / 1.2 / 0.2."""
    resources_extra: FiveFloats = (2.0, 1.89, 1.3, 0.2, 0.2)
    """Poisson mean of the additional resources by true ESI (see ``resources_base``)."""
    lab_prob: FiveFloats = (1.0, 0.95, 0.9, 0.4, 0.5)
    """Probability that one of a patient's resources (if any) is a laboratory panel (ESI counts
    all labs as one resource)."""
    imaging_share: float = 0.35
    """Probability that each further resource is an imaging study (X-ray, CT, ultrasound; at
    most ``max_imaging``); the rest are IV medication, consults and procedures."""
    max_imaging: int = 3
    """Most imaging studies one patient needs."""
    other_resource_minutes: float = 20.0
    """Treatment time each non-diagnostic resource (IV medication, consult, procedure) adds,
    minutes."""
    lab_minutes: float = 60.0
    """Mean laboratory turnaround from the order (at the end of the assessment) to the result,
    minutes (lognormal, ``diag_sigma``)."""
    scanners: int = 1
    """Imaging rooms; each scans one patient at a time, ``scan_ticks`` per study."""
    scan_ticks: int = 1
    """Scanner time per imaging study, ticks."""
    read_minutes: float = 30.0
    """Mean time from the end of a patient's scans to the radiology report, minutes
    (lognormal, ``diag_sigma``)."""
    diag_sigma: float = 0.5
    """Lognormal shape of lab turnaround and reporting time (dimensionless)."""
    icu_stabilise_hours: float = 2.0
    """Mean ED treatment (stabilisation) of an ICU admission before it is ready to go up,
    hours (lognormal); then it boards until the hospital ICU has a bed."""
    # --- v3: inpatient units outside the ED ------------------------------------------------------
    ward_capacity: int = 150
    """Staffed inpatient ward beds of the hospital."""
    ward_free_start: int = 2
    """Ward beds free at 00:00 (the rest are occupied by inpatients)."""
    ward_discharges_per_day: float = 27.0
    """Mean inpatient ward discharges per day (Poisson per tick, ``discharge_profile``)."""
    ward_electives_per_day: float = 12.0
    """Mean elective and direct ward admissions per day (take a free bed before ED boarders)."""
    bed_turnaround_minutes: float = 60.0
    """From the assignment of an inpatient bed to the admission being ready to leave the ED
    (bed preparation, handover, transport), minutes: the shortest possible boarding time."""
    hospital_icu_capacity: int = 16
    """Hospital ICU beds."""
    hospital_icu_free_start: int = 1
    """Hospital ICU beds free at 00:00."""
    icu_discharges_per_day: float = 4.5
    """Mean ICU discharges (step-downs, transfers, deaths) per day."""
    icu_other_admissions_per_day: float = 2.0
    """Mean ICU admissions from elsewhere (theatre, wards) per day (before ED boarders)."""
    # --- v3: leaving without being seen --------------------------------------------------------
    lwbs_patience_by_esi: FiveFloats = (0.0, 8.0, 6.0, 4.0, 3.5)
    """Mean patience in the waiting room by true ESI 1..5, hours (lognormal,
    ``lwbs_patience_sigma``; 0 = never leaves). v2 let only ESI 4-5 leave."""

    def __post_init__(self) -> None:
        check_version(self.version)


SCENARIOS: dict[str, EDParams] = {
    "normal_day": EDParams(mistriage_prob=0.0),
    "surge": EDParams(arrivals_per_hour=5.5 * 1.6, respiratory_share=0.55,
                      esi_mix=(0.03, 0.24, 0.45, 0.21, 0.07),
                      condition_vent_prob=(0.10, 0.75, 0.15, 0.10, 0.20, 0.0),
                      ward_free_start=4, hospital_icu_free_start=0),
    # Chaotic triage in the incident; the shift is called off after 60 deaths (the rest of the
    # day is still simulated and graded).
    "mass_casualty": EDParams(mci_patients=(15, 25), early_stop_deaths=60),
    # Night staffing: fewer staffed beds (6 general, 2 ICU, 1 ventilator), physicians and hands
    # for fewer arrivals. K = 2 decisions per tick: with 4, the random policy's bed churn made
    # it no better than doing nothing (30 held-out seeds: 0.841 +- 0.013 vs noop 0.839 +- 0.014).
    "night_shift": EDParams(arrivals_per_hour=5.5 * 0.4,
                            esi_mix=(0.005, 0.06, 0.40, 0.37, 0.165),
                            general_beds=6, icu_beds=2, ventilators=1, actions_per_tick=2,
                            physicians_by_hour=(1,) * 10 + (2,) * 12 + (1,) * 2, scanners=1),
    # A respiratory wave with ICU beds to spare: the 3 ventilators are the binding constraint.
    "ventilator_crisis": EDParams(respiratory_share=0.8, esi_mix=(0.03, 0.25, 0.45, 0.20, 0.07),
                                  icu_beds=10,
                                  condition_icu_prob=(0.15, 0.50, 0.15, 0.20, 0.20, 0.0),
                                  condition_vent_prob=(0.10, 0.85, 0.15, 0.10, 0.20, 0.0)),
    "icu_boarding": EDParams(icu_boarders=4, hospital_icu_free_start=0,
                             icu_discharges_per_day=3.0),  # 80% of the 5 ED ICU beds
}
"""ED-v3's scenarios (the same worlds as v2's, with clinicians, diagnostics and inpatient
units)."""


def resolve(scenario: str, params: EDParams | None,
            scenarios: dict[str, EDParams] = SCENARIOS) -> EDParams:
    """``params`` if given, else the named scenario's (a one-line error naming the choices)."""
    if params is not None:
        return params
    if scenario not in scenarios:
        raise ValueError(f"unknown scenario {scenario!r} for ed; choose one of: "
                         f"{', '.join(scenarios)}")
    return scenarios[scenario]


def unconstrained(params: EDParams) -> EDParams:
    """The same scenario with effectively unlimited beds/ventilators and immediate admission:
    a physician and a scanner for everyone, and inpatient beds to spare."""
    return replace(params, general_beds=250, icu_beds=120, ventilators=120, queue_slots=60,
                   actions_per_tick=800, physicians_by_hour=(250,) * 24, scanners=250,
                   ward_capacity=params.ward_capacity + 400, ward_free_start=400,
                   hospital_icu_capacity=params.hospital_icu_capacity + 200,
                   hospital_icu_free_start=200)


def unlimited_physicians(params: EDParams) -> EDParams:
    """v3 probe: a physician for every patient at every hour (the capacity limit switched off)."""
    return replace(params, physicians_by_hour=(250,) * 24)


def no_imaging_queue(params: EDParams) -> EDParams:
    """v3 probe: a scanner for every order (the imaging queue switched off; scan and report
    times remain)."""
    return replace(params, scanners=250)


def unlimited_inpatient_beds(params: EDParams) -> EDParams:
    """v3 probe: the hospital always has a ward and an ICU bed (boarding is only the bed
    turnaround)."""
    return replace(params, ward_capacity=params.ward_capacity + 400, ward_free_start=400,
                   hospital_icu_capacity=params.hospital_icu_capacity + 200,
                   hospital_icu_free_start=200)


def without_workup(params: EDParams) -> EDParams:
    """v3 probe: nobody needs labs or imaging (care is assessment and treatment only)."""
    return replace(params, lab_prob=(0.0,) * 5, imaging_share=0.0)


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
