"""State and action types of ``codered``.

The state is small (≤ a few dozen patients, 7 ambulances, 3 hospitals), so it is kept as plain
Python objects in lists: attribute access beats numpy indexing at this size, and the whole state
pickles exactly. Future events live in a heap of typed records inside the state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, CoreState
from lifeline.core.graph import RoadGraph

# ----- patient statuses ---------------------------------------------------------------------------
(FUTURE, WAITING, CALL, ASSIGNED, ON_SCENE, TRANSPORT, HANDOVER, AT_HOSPITAL, TREATED, DEAD,
 RESOLVED, SELF, STABILISED, CALLBACK) = range(14)
P_STATUS = ("future", "waiting", "call", "unit_en_route", "on_scene", "transporting", "handover",
            "awaiting_treatment", "treated", "dead", "resolved", "self_transport", "stabilised",
            "callback_pending")
ACTIVE = frozenset({WAITING, CALL, ASSIGNED, ON_SCENE, TRANSPORT, HANDOVER, AT_HOSPITAL, SELF,
                    STABILISED, CALLBACK})
"""Statuses of a patient still in the system."""
WITH_UNIT = frozenset({ASSIGNED, ON_SCENE, TRANSPORT})

# ----- ambulance statuses -------------------------------------------------------------------
INACTIVE, IDLE, EN_ROUTE, SCENE, TRANSPORTING, AT_HOSP, RETURNING, AID_INBOUND = range(8)
U_STATUS = ("inactive", "available", "en_route", "on_scene", "transporting", "handover",
            "returning", "aid_inbound")
DISPATCHABLE = frozenset({IDLE, RETURNING})

# ----- OR and specialist states ------------------------------------------------------------------
OR_FREE, OR_ELECTIVE, OR_PREP, OR_READY, OR_SURGERY, OR_FAILED = range(6)
OR_STATES = ("free", "elective", "preparing", "ready", "surgery", "failed")
SP_OFF, SP_PAGED, SP_PRESENT, SP_BUSY = range(4)


@dataclass
class Patient:
    """One patient (phase-1 incident, 911 call or secondary patient)."""

    cond: int
    """True condition (hidden for calls until a crew is on scene)."""
    onset: float
    """Minute the incident starts / the call rings."""
    node: int
    is_call: bool = False
    category: int = -1
    """Call category (calls only)."""
    secondary: bool = False
    surge_only: bool = False
    """A news-cycle call: it rings only if a news cycle is running at its onset (task5)."""
    known: bool = True
    """Whether the true condition is known to the agent."""
    hint: int = -1
    """Condition reported by a callback (may be wrong), −1 before any."""
    blood_type: int = 0
    type_known: bool = False
    type_pending: bool = False
    blood_need: int = 0
    """Units needed at surgery (trauma: visible estimate; cardiac: known at the hospital)."""
    blood_ready: int = 0
    """Units crossmatched/released and waiting for this patient."""
    blood_pending: int = 0
    """Units in crossmatch."""
    blood_emergency: int = 0
    """Emergency O− units released for this patient."""
    auto_blood: bool = False
    """The hospital's own typing and crossmatch has finished."""
    spawn: bool = False
    """(task5) Whether this patient's death spawns a secondary patient (pre-drawn)."""
    spawn_cond: int = 0
    status: int = FUTURE
    unit: int = -1
    hosp: int = -1
    v_ref: float = 1.0
    t_ref: float = 0.0
    v_onset: float = 1.0
    """(v3) Vitals at onset (the patient's own severity; the sourced outcome tables charge it)."""
    base_rate: float = 0.0
    """Vitals lost per minute with no care."""
    mult: float = 1.0
    token: int = 0
    escalated: bool = False
    bls_only: bool = False
    self_transported: bool = False
    arrived: float = -1.0
    """Minute of arrival at the current hospital."""
    workup_z: float = 0.0
    """Standard-normal draw of this patient's in-hospital work-up (v2, pre-drawn; the minutes
    follow from the condition: ``params.WORKUP_MEDIAN_MIN · exp(WORKUP_SIGMA · z)``)."""
    workup_until: float = -1.0
    """Minute the work-up at the current hospital ends (treatment cannot start before it)."""
    hosp_rate: float = 0.0
    """Vitals lost per minute while waiting for treatment in a capable hospital (v2 calibration:
    ``params.IN_HOSPITAL_RATE`` of the condition; 0: half the untreated rate)."""
    vitals_door: float = -1.0
    """Vitals when the patient reached the capable hospital that treats them (−1: not yet); the
    calibration card's in-hospital survival slope reads it."""
    at_hosp: int = -1
    """Hospital the patient is physically at (−1: not in a hospital)."""
    void: bool = False
    """A news-cycle call that never rang (not part of the episode)."""
    stab_until: float = -1.0
    or_ready_arr: bool = False
    spec_ready_arr: bool = False
    treated_at: float = -1.0
    vitals_at: float = 0.0
    survival: float = 0.0
    decision: int = -1
    """Triage decision taken (index into TRIAGE_DECISIONS), −1 none."""
    site: int = -1
    """(v3) Incident node (``node`` becomes the hospital's node on arrival; secondary patients
    appear at the site)."""
    prealerted: bool = False
    """(v3) At arrival the hospital had the OR (ready or preparing) and the specialist (present
    or paged) for this patient: the work-up is shortened (``params.PREALERT_SAVING_MIN``)."""
    replan_min: float = 0.0
    """(v3) Crew minutes owed for destination changes, added when the scene ends."""
    fmc: float = -1.0
    """(v3) Minute of first medical contact (the first crew on scene; a self-transported
    caller's arrival at hospital), −1 before."""
    oneg_held: int = 0
    """(v3) O− units among those reserved for this patient (emergency or typed O−)."""


@dataclass
class Unit:
    """One ambulance (own fleet first, then mutual-aid slots)."""

    als: bool
    home: int
    status: int = IDLE
    node: int = 0
    """Node it is at, or the first node of its current trip."""
    dest: int = 0
    t_start: float = 0.0
    lead: float = 0.0
    """Minutes to reach ``node`` at trip start (re-dispatched mid-edge)."""
    t_arrive: float = 0.0
    patient: int = -1
    token: int = 0
    aid: bool = False


@dataclass
class OR:
    """One operating room (cardiac cath or trauma surgery)."""

    state: int = OR_FREE
    proc: int = -1
    agent_prep: bool = False
    """Prepared on the agent's order (used or wasted counts for efficiency)."""
    until: float = 0.0
    """End of the elective/surgery/preparation/hold/failure in progress."""
    claimed: int = -1
    """Patient this OR is being prepared for (−1: prepared by the agent for anyone)."""
    queried: bool = False
    preempted: bool = False
    token: int = 0


@dataclass
class Specialist:
    kind: int
    state: int = SP_OFF
    until: float = 0.0
    token: int = 0
    agent_paged: bool = False


@dataclass
class Hospital:
    ors: list[OR]
    specialists: list[Specialist]
    stock: list[int]
    icu_free: int
    divert_until: float = -1.0
    crowded_since: float = -1.0
    """Minute overcrowding began (−1: not overcrowded)."""
    shift_until: float = -1.0
    """A specialist shift change is under way until this minute (pages take longer)."""
    received: list[int] = field(default_factory=lambda: [0] * 8)
    """(v3) Units per blood type that came by ``transfer_blood`` and are still in the fridge."""


@dataclass
class Tally:
    """Counters for the grader (efficiency, cascade) and metrics."""

    preps_used: int = 0
    preps_wasted: int = 0
    pages_used: int = 0
    pages_wasted: int = 0
    blood_used: int = 0
    blood_wasted: int = 0
    oneg_nonneg: int = 0
    preempt_used: int = 0
    preempt_wasted: int = 0
    triage_good: int = 0
    triage_waste: float = 0.0
    escalations: int = 0
    crowded_minutes: float = 0.0
    icu_boarding: int = 0
    news_cycles: int = 0
    aid_requests: int = 0
    transfers: int = 0
    reassignments: int = 0
    """(v3) Destination changes (each costs ``params.reassign_min`` crew minutes)."""
    transfer_sent: int = 0
    """(v3) Blood units moved between hospitals (net of units sent on again)."""
    transfer_used: int = 0
    """(v3) Transferred units later drawn for a patient at the receiving hospital."""
    rbc_used: int = 0
    """(v3) Red-cell units transfused (card: O− share)."""
    oneg_used: int = 0
    """(v3) O− units among them."""
    emergency_units: int = 0
    """(v3, fourth round) Emergency (uncrossmatched) O− units released (card)."""
    emergency_patients: int = 0
    """(v3, fourth round) Patients who received an emergency O− release (card)."""


@dataclass
class CodeRedState(CoreState):
    """Everything needed to step one episode (README.md lists every observed field's unit)."""

    graph: RoadGraph = field(default_factory=lambda: RoadGraph(1, []))
    rng: dict[str, np.random.Generator] = field(default_factory=dict)
    t: float = 0.0
    """Minutes since 08:00."""
    patients: list[Patient] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    hospitals: list[Hospital] = field(default_factory=list)
    heap: list[tuple[float, int, Any]] = field(default_factory=list)
    """Future events as ``(minute, sequence, record)`` (records: ``dynamics/events.py``)."""
    seq: int = 0
    epoch_actions: int = 0
    aid_left: int = 0
    aid_node_next: int = 0
    news_until: float = -1.0
    disruptions: list[tuple[float, int, int, int, float]] = field(default_factory=list)
    """Pre-drawn disruptions ``(minute, kind, a, b, duration)``."""
    active: list[bool] = field(default_factory=list)
    """Whether each disruption is in force."""
    rush: bool = True
    """Morning rush on the arterials (until 10:00)."""
    tally: Tally = field(default_factory=Tally)
    n_events: int = 0
    """Grade-relevant events and actions so far (the grade changes only when this moves)."""
    graded_key: tuple[float, ...] = ()
    """What the last dense-reward computation saw (skips recomputing an unchanged grade)."""
    score_paid: float = 0.0
    last_report: str = ""
    finished: bool = False
    """Every patient resolved and nothing more can arrive: the clock jumped to the horizon."""


# ----- actions -----------------------------------------------------------------------------------
_U = {"doc": "ambulance index (0-based; own fleet 0-4, then mutual-aid units)"}
_P = {"doc": "patient index (0-based, as listed in the observation)"}
_C = {"doc": "911 call = patient index of a pending call"}
_H = {"doc": "hospital index: 0 AIIMS Prakash, 1 District Hospital, 2 Community HC"}


class CodeRedAction(Action):
    """Base class of codered actions."""


@dataclass(frozen=True)
class DispatchAmbulance(CodeRedAction):
    """Send an available or returning ambulance to a known patient (phase-1 incident, secondary
    patient, or a patient stabilised at a hospital who needs transfer). The route starts from the
    ambulance's current position."""

    kind: ClassVar[str] = "dispatch_ambulance"
    ambulance: int = field(metadata=_U)
    patient: int = field(metadata=_P)


@dataclass(frozen=True)
class DispatchALS(CodeRedAction):
    """Send an ALS (advanced life support) ambulance to a pending 911 call. ALS crews slow
    deterioration more than BLS crews; the true condition is learnt on scene."""

    kind: ClassVar[str] = "dispatch_als"
    ambulance: int = field(metadata=_U)
    call: int = field(metadata=_C)


@dataclass(frozen=True)
class DispatchBLS(CodeRedAction):
    """Send a BLS (basic life support) ambulance to a pending 911 call."""

    kind: ClassVar[str] = "dispatch_bls"
    ambulance: int = field(metadata=_U)
    call: int = field(metadata=_C)


@dataclass(frozen=True)
class TriageCall(CodeRedAction):
    """Decide a pending 911 call: dispatch_als / dispatch_bls (nearest free unit of that type),
    self_transport (the caller goes to the nearest hospital), callback (ring back: a hint of the
    condition in 5 min) or no_dispatch (close the call)."""

    kind: ClassVar[str] = "triage_call"
    call: int = field(metadata=_C)
    decision: str = field(metadata={"doc": "dispatch_als | dispatch_bls | self_transport | "
                                           "callback | no_dispatch"})


@dataclass(frozen=True)
class AssignHospital(CodeRedAction):
    """Choose the destination hospital of a patient an ambulance is heading to or on scene with
    (default when the scene time ends: the nearest open hospital). Only capable hospitals treat;
    others stabilise and the patient then needs a transfer."""

    kind: ClassVar[str] = "assign_hospital"
    patient: int = field(metadata=_P)
    hospital: int = field(metadata=_H)


@dataclass(frozen=True)
class PrepareOR(CodeRedAction):
    """Prepare a free OR for a procedure; it is ready after 10 min and kept ready for the next
    patient needing it (released unused after 60 min: wasted)."""

    kind: ClassVar[str] = "prepare_or"
    hospital: int = field(metadata=_H)
    procedure: str = field(metadata={"doc": "cardiac | trauma"})


@dataclass(frozen=True)
class PageSpecialist(CodeRedAction):
    """Page an on-call specialist; they arrive after 15 min and are held available for 60 min
    (then go home unused: wasted)."""

    kind: ClassVar[str] = "page_specialist"
    hospital: int = field(metadata=_H)
    specialist: str = field(metadata={"doc": "cardiologist | neurologist | trauma_surgeon"})


@dataclass(frozen=True)
class PreemptOR(CodeRedAction):
    """Cancel the elective case in an OR so that it is free now (wasted if no emergency uses it
    within the hold time)."""

    kind: ClassVar[str] = "preempt_or"
    hospital: int = field(metadata=_H)
    or_index: int = field(metadata={"doc": "OR index at that hospital (0-based)"})


@dataclass(frozen=True)
class AllocateBlood(CodeRedAction):
    """Reserve blood at the patient's destination hospital: typed units (the patient's type must
    be known and the units compatible) are crossmatched in 15 min; emergency O− (at most 4 per
    patient) is released at once."""

    kind: ClassVar[str] = "allocate_blood"
    hospital: int = field(metadata=_H)
    patient: int = field(metadata=_P)
    blood_type: str = field(metadata={"doc": "A+ A- B+ B- AB+ AB- O+ O-"})
    units: int = field(metadata={"doc": "1-4 units"})
    emergency: bool = field(metadata={"doc": "true: uncrossmatched O- release"})


@dataclass(frozen=True)
class TransferBlood(CodeRedAction):
    """Send blood units between hospitals; they arrive after the road travel time."""

    kind: ClassVar[str] = "transfer_blood"
    from_hospital: int = field(metadata=_H)
    to_hospital: int = field(metadata=_H)
    blood_type: str = field(metadata={"doc": "A+ A- B+ B- AB+ AB- O+ O-"})
    units: int = field(metadata={"doc": "1-4 units"})


@dataclass(frozen=True)
class RequestMutualAid(CodeRedAction):
    """Ask a neighbouring service for an ambulance: it arrives after 15-25 min at a city entry
    and is then an ordinary unit you control. Limited per task; no score cost (its price is the
    15-25 min it takes to arrive)."""

    kind: ClassVar[str] = "request_mutual_aid"


@dataclass(frozen=True)
class QueryBloodType(CodeRedAction):
    """Type a patient's blood from a sample drawn at the hospital (valid once the patient is in
    handover, in hospital or stabilised; result after 5 min)."""

    kind: ClassVar[str] = "query_blood_type"
    patient: int = field(metadata=_P)


@dataclass(frozen=True)
class QueryORStatus(CodeRedAction):
    """Read one OR's details (minutes left of its elective case, preparation or surgery)."""

    kind: ClassVar[str] = "query_or_status"
    hospital: int = field(metadata=_H)
    or_index: int = field(metadata={"doc": "OR index at that hospital (0-based)"})


@dataclass(frozen=True)
class MaintainPlan(CodeRedAction):
    """Do nothing more now: advance the clock to the next decision epoch (a call, an arrival on
    scene, a handover, a disruption, ... or at most 10 minutes)."""

    kind: ClassVar[str] = "maintain_plan"


ACTION_TYPES: tuple[type[Action], ...] = (
    DispatchAmbulance, DispatchALS, DispatchBLS, TriageCall, AssignHospital, PrepareOR,
    PageSpecialist, PreemptOR, AllocateBlood, TransferBlood, RequestMutualAid, QueryBloodType,
    QueryORStatus, MaintainPlan,
)
