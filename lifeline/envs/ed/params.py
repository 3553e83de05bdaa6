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


@dataclass(frozen=True)
class EDParams:
    """One scenario of the ED. Times are in minutes or hours as each field says."""

    # --- resources ---------------------------------------------------------------------------
    general_beds: int = 20
    """Number of general (ward) beds."""
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
    esi2_icu_prob: float = 0.12
    """Probability that an ESI-2 arrival needs ICU care (ESI 1 always does)."""
    vent_prob_respiratory: float = 0.6
    """Probability that a respiratory patient of ESI 1-2 needs a ventilator."""
    vent_prob_other: float = 0.15
    """Probability that a non-respiratory ESI-1 patient needs a ventilator."""
    mistriage_prob: float = 0.10
    """Probability that triage acuity is off by one level (revealed after a tick in a bed)."""
    # --- mass-casualty incident ---------------------------------------------------------------
    mci_patients: tuple[int, int] = (0, 0)
    """Inclusive range of trauma patients arriving in the incident (0 = no incident)."""
    mci_window_hours: tuple[float, float] = (8.0, 16.0)
    """The incident starts uniformly in this window (hours of the day); lasts one hour."""
    # --- starting census ---------------------------------------------------------------------
    icu_boarders: int = 0
    """ICU beds occupied at 00:00 by long-stay (boarding) patients."""
    # --- treatment (hours) -------------------------------------------------------------------
    general_treatment_hours: tuple[float, float, float, float, float] = (6.0, 4.0, 4.0, 2.0, 1.0)
    """Mean general-bed treatment time by true acuity ESI 1..5, hours (lognormal)."""
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
    """Hazard multiplier for a patient in a lower level of care than needed."""
    treated_factor: float = 0.05
    """Hazard multiplier under correct care (small but not zero)."""
    # --- leaving without being seen ----------------------------------------------------------
    lwbs_patience_hours: float = 4.0
    """Mean patience of ESI 4-5 patients before they leave unseen, hours (lognormal)."""
    # --- early discharge ---------------------------------------------------------------------
    return_prob: float = 0.5
    """Probability that an early-discharged (not ready) survivor returns, one level worse."""
    outside_death_prob: tuple[float, float, float, float, float] = (0.5, 0.1, 0.02, 0.0, 0.0)
    """Probability that an early-discharged patient of true ESI 1..5 dies outside the ED."""
    return_delay_hours: tuple[float, float] = (2.0, 8.0)
    """The return happens uniformly this many hours after discharge."""


SCENARIOS: dict[str, EDParams] = {
    "normal_day": EDParams(mistriage_prob=0.0),
    "surge": EDParams(arrivals_per_hour=5.5 * 1.6, respiratory_share=0.55,
                      esi_mix=(0.03, 0.24, 0.45, 0.21, 0.07), vent_prob_respiratory=0.75),
    "mass_casualty": EDParams(mci_patients=(15, 25)),
    # Night staffing: fewer staffed beds (8 general, 3 ICU, 2 ventilators) for fewer arrivals.
    "night_shift": EDParams(arrivals_per_hour=5.5 * 0.4, esi_mix=(0.005, 0.06, 0.40, 0.37, 0.165),
                            general_beds=8, icu_beds=3, ventilators=2),
    "ventilator_crisis": EDParams(respiratory_share=0.8, vent_prob_respiratory=0.8,
                                  esi_mix=(0.03, 0.25, 0.45, 0.20, 0.07)),
    "icu_boarding": EDParams(icu_boarders=4),  # 80% of the 5 ICU beds
}


def unconstrained(params: EDParams) -> EDParams:
    """The same scenario with effectively unlimited beds/ventilators and immediate admission."""
    return replace(params, general_beds=250, icu_beds=120, ventilators=120, queue_slots=60,
                   actions_per_tick=400)
