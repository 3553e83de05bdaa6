"""State and action types of the ED environment.

``Patient`` holds both hidden truth (true acuity, needs, treatment time) and what triage shows.
``EDState`` holds everything needed to step, including the RNG streams.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, CoreState

# Where a patient is.
WAITING, GENERAL, ICU, GONE = 0, 1, 2, 3


@dataclass(slots=True)
class Patient:
    """One patient. Times are in ticks unless named otherwise."""

    pid: int
    """Arrival order, unique within an episode."""
    arrival_tick: int
    """Tick at which the patient (last) entered the waiting room."""
    true_acuity: int
    """ESI 1 (resuscitation) .. 5 (non-urgent); hidden."""
    triage_error: int
    """Observed acuity = clip(true + error, 1, 5); becomes 0 once revealed in a bed."""
    condition: int
    """Index into ``params.CONDITIONS``."""
    needs_icu: bool
    """Hidden: needs ICU-level care."""
    needs_vent: bool
    """Hidden: needs a ventilator (only ICU beds have them)."""
    treatment_ticks: int
    """Hidden: ticks of correct care needed before the patient is ready."""
    patience_ticks: int
    """Hidden: ticks an ESI 4-5 patient will wait before leaving unseen."""
    needs_ward: bool = False
    """Hidden: admitted to an inpatient ward at the end of ED treatment (drawn at arrival;
    never together with ICU need)."""
    board_ticks: int = 0
    """Hidden: extra ticks after treatment before ``ready`` (ED-v2's sampled boarding; the
    generator sets 0, as boarding now lasts until the hospital assigns a bed: ``awaiting_bed``).
    Kept as a state field because the kernel's ``F_BOARD`` column and ``ready`` read it."""
    ever_critical: bool = False
    """True acuity has been 1 or 2 at some point (dense reward only)."""
    critical_at_arrival: bool = False
    """True acuity was 1 or 2 at first arrival: the grader's fixed critical set."""
    admitted_acuity: int = 0
    """Observed (triage) acuity when last admitted, before the bed revealed the truth."""
    location: int = WAITING
    bed: int = -1
    """Bed index in its ward (general or ICU), -1 while waiting."""
    admitted_tick: int = -1
    """Tick of (first) admission to a bed in the current visit, -1 before."""
    progress_ticks: int = 0
    """Ticks of correct care received so far."""
    ventilated: bool = False
    ticks_in_bed: int = 0
    returned: bool = False
    """This visit is a return after an early discharge."""
    return_count: int = 0
    """Returns so far: the early discharge in visit ``k + 1`` (``k >= 1``) uses
    ``EDState.return_draws[pid, k - 1]``."""
    # --- clinicians, diagnostics, inpatient beds (v3) --------------------------------------------
    workup_done: bool = True
    """Assessed by a physician and every ordered result back; treatment progresses only then
    (the generator sets False; True is the default of a patient built by hand)."""
    awaiting_bed: bool = False
    """An admission (ward or ICU) without an assigned inpatient bed yet; ``ready`` only once the
    hospital assigns one."""
    seen_tick: int = -1
    """v3: tick the provider assessment of this visit started (-1 = not seen)."""
    assess_left: int = 0
    """v3: physician ticks left in the running assessment (a physician is busy while > 0)."""
    labs: int = 0
    """v3, hidden: 1 if a laboratory panel is part of the work-up."""
    imaging: int = 0
    """v3, hidden: imaging studies of the work-up (scanned in one session)."""
    other_resources: int = 0
    """v3, hidden: non-diagnostic resources (IV medication, consults, procedures)."""
    lab_ticks: int = 0
    """v3, hidden: laboratory turnaround of this patient, ticks (drawn at arrival)."""
    read_ticks: int = 0
    """v3, hidden: radiology reporting time after the scans, ticks (drawn at arrival)."""
    lab_result_tick: int = -1
    """v3: tick the lab results are back (-1 = none ordered yet)."""
    imaging_result_tick: int = -1
    """v3: tick the imaging report is back (-1 = not scanned yet)."""
    imaging_state: int = 0
    """v3: 0 no imaging pending, 1 queued for a scanner, 2 being scanned, 3 scanned."""
    decision_tick: int = -1
    """v3: tick the ED work was done (decision to admit or discharge) in this visit."""
    bed_assigned_tick: int = -1
    """v3: tick the hospital assigned this admission an inpatient bed (-1 = not yet); it leaves
    ``bed_turnaround_minutes`` later (bed preparation, handover, transport)."""
    esi_at_arrival: int = 0
    """True ESI at first arrival (the calibration card's stratum)."""
    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """Pickles and copies carry the patient's fields only, and give a plain ``Patient``
        (never a :class:`SyncedPatient`: a copy is not what the kernel arrays hold)."""
        return (_rebuild, (tuple(getattr(self, name) for name in PATIENT_FIELDS),))

    def __eq__(self, other: object) -> bool:
        """Equal fields (a :class:`SyncedPatient` equals the same plain ``Patient``)."""
        if not isinstance(other, Patient):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in PATIENT_FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, like any non-frozen dataclass

    @property
    def observed_acuity(self) -> int:
        level = self.true_acuity + self.triage_error  # hot path: no min()/max() calls
        return 1 if level < 1 else 5 if level > 5 else level

    @property
    def treatment_done(self) -> bool:
        """Treatment complete (hazards stop); a ward admission then boards ``board_ticks``."""
        return self.progress_ticks >= self.treatment_ticks

    @property
    def ready(self) -> bool:
        """Ready to leave: treatment complete and, for an admission, an inpatient bed assigned."""
        return (self.progress_ticks >= self.treatment_ticks + self.board_ticks
                and not self.awaiting_bed)

    @property
    def boarding(self) -> bool:
        """Treated ward admission still waiting in its ED bed for the ward."""
        return self.treatment_done and not self.ready


PATIENT_FIELDS = tuple(f.name for f in dataclasses.fields(Patient))
"""The fields that make a patient (what pickles and copies carry)."""


def _rebuild(values: tuple[Any, ...]) -> Patient:
    patient = Patient.__new__(Patient)
    for name, value in zip(PATIENT_FIELDS, values, strict=True):
        object.__setattr__(patient, name, value)
    return patient


class SyncedPatient(Patient):
    """A patient whose current values the scalar env's kernel arrays hold (v3 bookkeeping,
    ``scalar_kernel``): the env gives its patients this class when it stores a step, and any
    assignment to an attribute turns the patient back into a plain ``Patient``, so a state
    edited by hand is reloaded. Plain patients (every new one) pay nothing for it."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        object.__setattr__(self, "__class__", Patient)


@dataclass
class EDCounters:
    """Outcome counters used by the grader (counts of patients unless named otherwise)."""

    patients: int = 0
    """Distinct patients who have arrived (returns are not new patients)."""
    treated: int = 0
    """Patients discharged with their treatment complete (each at most once); ward admissions
    count when they leave for the ward after boarding."""
    ward_admissions: int = 0
    """Treated patients who left for an inpatient ward (included in ``treated``)."""
    deaths: int = 0
    """Deaths in the ED and outside it after an early discharge."""
    discharge_deaths: int = 0
    """Deaths outside the ED caused by an early discharge (included in ``deaths``)."""
    critical: int = 0
    """Distinct patients whose true acuity was 1-2 at first arrival (fixed; worsening adds none)."""
    critical_deaths: int = 0
    """Deaths among ``critical``."""
    lwbs: int = 0
    early_discharges: int = 0
    discharge_harms: int = 0
    """Early discharges after which the patient will come back one level worse (counted when
    the return is decided, so returns still pending at the end of the shift count too)."""
    returns: int = 0
    """Returns that arrived during the shift."""
    deteriorations: int = 0
    """Times a patient's true ESI worsened one level in the ED (waiting room, bed unseen or
    under care; a return's worsening is counted in ``discharge_harms`` instead). Harm of the
    policy, weighted like a return one level worse (``reward.RETURN_HARM``)."""
    wait_ticks_closed: int = 0
    """Sum of waits (ticks) of visits whose wait has ended (admitted, left, died waiting)."""
    waits_closed: int = 0
    """Number of visits whose wait has ended."""
    general_bed_ticks: int = 0
    """Occupied general beds summed over ticks (bed utilisation)."""
    icu_bed_ticks: int = 0
    """Occupied ICU beds summed over ticks."""
    ventilator_ticks: int = 0
    """Ventilators in use summed over ticks."""
    ticks: int = 0
    """Ticks simulated (the utilisation denominator)."""
    early_stop_tick: int = -1
    """Tick at which the death limit stopped the shift (-1 = it did not)."""
    provider_wait_ticks_closed: int = 0
    """v3: sum over visits whose provider assessment has started of door-to-provider ticks (the
    grader's wait; visits that died or left unseen count until then)."""


@dataclass
class EDLog:
    """v3: per-visit records for the calibration card (never observed, never graded).

    ``provider``: (ESI at arrival, door-to-provider ticks, arrival tick) per visit seen by a
    physician; ``departures``: (ESI at arrival, length of stay ticks, disposition 0 home /
    1 ward / 2 ICU, boarding ticks = departure minus decision (-1 for home), arrival tick) per
    visit that left treated."""

    provider: list[tuple[int, int, int]] = field(default_factory=list)
    departures: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    busy_physician_ticks: int = 0
    """Physician-ticks spent in assessments."""
    physician_ticks: int = 0
    """Physician-ticks on duty (the utilisation denominator)."""
    scanner_ticks: int = 0
    """Scanner-ticks spent scanning."""


@dataclass
class EDState(CoreState):
    """Everything needed to step the ED (RNG streams included)."""

    tick: int = 0
    """Ticks elapsed since 00:00."""
    actions_this_tick: int = 0
    """Consecutive non-wait actions (valid or not) in the current tick."""
    general: list[Patient | None] = field(default_factory=list)
    icu: list[Patient | None] = field(default_factory=list)
    ventilators_in_use: int = 0
    waiting: list[Patient] = field(default_factory=list)
    """The whole waiting room, kept sorted by (observed acuity, arrival tick, pid)."""
    schedule: list[list[Patient]] = field(default_factory=list)
    """Pre-generated arrivals per tick (the realised patient stream, identical for all policies).
    Arrivals of tick t enter the waiting room at tick t + ``EDParams.triage_ticks``."""
    returns: list[tuple[int, int, Patient]] = field(default_factory=list)
    """Pending returns after early discharge: (tick, pid, patient)."""
    counters: EDCounters = field(default_factory=EDCounters)
    episode_return: float = 0.0
    hazard_draws: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    """Uniform draw of the worsening/death hazard for patient ``pid`` at tick ``t``
    (``[pid, t]``): common random numbers, so the same patient under the same care meets the same
    fate whatever the policy does elsewhere (paired comparisons of policies are sharp)."""
    patient_draws: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    """Per patient: ``[0]`` ventilator need and ``[1]`` extra ICU time on worsening to ESI 1,
    ``[2:5]`` outside death, return and return delay of the first early discharge."""
    return_draws: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 3)))
    """``[pid, k - 1]``: outside death, return and return delay of the early discharge after the
    patient's ``k``-th return (drawn up front from the ``returns`` stream, like every other draw,
    so a batch kernel can replay them; :func:`max_returns` bounds ``k``)."""
    rng: dict[str, np.random.Generator] = field(default_factory=dict)
    # --- v3 -------------------------------------------------------------------------------------
    imaging_queue: list[Patient] = field(default_factory=list)
    """v3: patients waiting for a scanner, served front first (first come, unless expedited)."""
    scanning: list[list[Any]] = field(default_factory=list)
    """v3: ``[patient, ticks left]`` per scanner in use."""
    ward_free: int = 0
    """v3: free inpatient ward beds (outside the ED)."""
    hospital_icu_free: int = 0
    """v3: free hospital ICU beds."""
    elective_backlog: list[int] = field(default_factory=lambda: [0, 0])
    """v3: elective/other admissions waiting for a [ward, ICU] bed (served before ED boarders)."""
    inpatient_flow: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), dtype=np.int64))
    """v3: per tick [ward discharges, ward electives, ICU discharges, other ICU admissions],
    drawn up front from the ``inpatient`` stream (identical for every policy)."""
    log: EDLog = field(default_factory=EDLog)

    def __getstate__(self) -> dict[str, Any]:
        """Pickles and copies leave out the scalar env's sync stamp (``scalar_kernel``)."""
        state = self.__dict__.copy()
        state.pop("kernel_stamp", None)
        return state

    @property
    def physicians_busy(self) -> int:
        """v3: physicians in an assessment now."""
        return sum(1 for p in self.general if p is not None and p.assess_left > 0) + sum(
            1 for p in self.icu if p is not None and p.assess_left > 0)


def max_returns(horizon_ticks: int, min_delay_ticks: int) -> int:
    """Most returns one patient can make in a shift: returns arrive at ticks ``1..horizon`` and
    successive ones are at least ``max(1, min_delay_ticks)`` ticks apart."""
    return horizon_ticks // max(1, min_delay_ticks) + 1


# ----- semantic actions ------------------------------------------------------------------------
@dataclass(frozen=True)
class Wait(Action):
    """Do nothing this tick: the clock advances 15 minutes."""

    kind: ClassVar[str] = "wait"


def _slot(doc: str) -> Any:
    return field(metadata={"doc": doc})


@dataclass(frozen=True)
class AdmitGeneral(Action):
    """Admit the waiting patient in visible queue slot `slot` to the first free general bed."""

    kind: ClassVar[str] = "admit_general"
    slot: int = _slot("visible queue slot, 0 = most urgent")


@dataclass(frozen=True)
class AdmitICU(Action):
    """Admit the waiting patient in visible queue slot `slot` to the first free ICU bed."""

    kind: ClassVar[str] = "admit_icu"
    slot: int = _slot("visible queue slot, 0 = most urgent")


@dataclass(frozen=True)
class Ventilate(Action):
    """Attach a free ventilator to the patient in ICU bed `bed`."""

    kind: ClassVar[str] = "ventilate"
    bed: int = _slot("ICU bed index")


@dataclass(frozen=True)
class TransferToICU(Action):
    """Move the patient in general bed `bed` to the first free ICU bed."""

    kind: ClassVar[str] = "transfer_to_icu"
    bed: int = _slot("general bed index")


@dataclass(frozen=True)
class StepDown(Action):
    """Move the patient in ICU bed `bed` to the first free general bed (ventilator detaches)."""

    kind: ClassVar[str] = "step_down"
    bed: int = _slot("ICU bed index")


@dataclass(frozen=True)
class DischargeGeneral(Action):
    """Discharge the patient in general bed `bed` (before `ready` it is an early discharge; a
    ready ward admission leaves for the ward)."""

    kind: ClassVar[str] = "discharge_general"
    bed: int = _slot("general bed index")


@dataclass(frozen=True)
class DischargeICU(Action):
    """Discharge the patient in ICU bed `bed` (before `ready` it is an early discharge)."""

    kind: ClassVar[str] = "discharge_icu"
    bed: int = _slot("ICU bed index")


@dataclass(frozen=True)
class SeeGeneral(Action):
    """v3: a free physician starts the provider assessment of the patient in general bed `bed`."""

    kind: ClassVar[str] = "see_general"
    bed: int = _slot("general bed index")


@dataclass(frozen=True)
class SeeICU(Action):
    """v3: a free physician starts the provider assessment of the patient in ICU bed `bed`."""

    kind: ClassVar[str] = "see_icu"
    bed: int = _slot("ICU bed index")


@dataclass(frozen=True)
class ExpediteGeneral(Action):
    """v3: move the imaging order of the patient in general bed `bed` to the front of the
    scanner queue."""

    kind: ClassVar[str] = "expedite_general"
    bed: int = _slot("general bed index")


@dataclass(frozen=True)
class ExpediteICU(Action):
    """v3: move the imaging order of the patient in ICU bed `bed` to the front of the queue."""

    kind: ClassVar[str] = "expedite_icu"
    bed: int = _slot("ICU bed index")


EDAction = (Wait | AdmitGeneral | AdmitICU | Ventilate | TransferToICU | StepDown
            | DischargeGeneral | DischargeICU | SeeGeneral | SeeICU | ExpediteGeneral
            | ExpediteICU)
ACTION_TYPES: tuple[type[Action], ...] = (Wait, AdmitGeneral, AdmitICU, Ventilate,
                                          TransferToICU, StepDown, DischargeGeneral,
                                          DischargeICU, SeeGeneral, SeeICU, ExpediteGeneral,
                                          ExpediteICU)
