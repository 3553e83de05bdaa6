"""State and action types of the dispatch environment.

The state is a bag of fixed-size numpy arrays (one row per call of the realised stream, per unit
slot, per hospital) plus the road graph and the RNG streams, so stepping is array indexing rather
than object churn, and ``pickle``/``deepcopy`` snapshots are cheap and exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from lifeline.core.env import Action, CoreState
from lifeline.core.graph import RoadGraph

# ----- unit status codes (true and reported) -------------------------------------------------
INACTIVE, IDLE, RELOCATING, EN_ROUTE, ON_SCENE, TRANSPORTING, AT_HOSPITAL, RETURNING, \
    OUT_OF_SERVICE, AID_INBOUND = range(10)
STATUS_NAMES = ("inactive", "idle", "relocating", "en_route", "on_scene", "transporting",
                "at_hospital", "returning", "out_of_service", "aid_inbound")
MOVING = np.zeros(10, dtype=bool)
MOVING[[RELOCATING, EN_ROUTE, TRANSPORTING, RETURNING]] = True
DISPATCHABLE = np.zeros(10, dtype=bool)
DISPATCHABLE[[IDLE, RELOCATING, RETURNING]] = True
"""Statuses from which a unit may be dispatched or relocated (judged on the *reported* status)."""
HOSPITAL_CHOICE = np.zeros(10, dtype=bool)
HOSPITAL_CHOICE[[EN_ROUTE, ON_SCENE, TRANSPORTING]] = True
"""Statuses in which a unit's destination hospital may be chosen (reported status)."""

# ----- call kinds and statuses ---------------------------------------------------------------
REAL, FALSE_ALARM, GHOST = range(3)
FUTURE, OPEN, CLOSED = range(3)


@dataclass
class DispatchState(CoreState):
    """Everything needed to step one episode (see README.md for every field's unit)."""

    graph: RoadGraph = field(default_factory=lambda: RoadGraph(1, []))
    rng: dict[str, np.random.Generator] = field(default_factory=dict)
    t: float = 0.0
    """Minutes since the start of the shift."""
    start_hour: float = 7.0
    """Hour of day at which the shift starts."""
    mult: float = 1.0
    """Current time-of-day travel multiplier."""
    travel_sigma: float = 0.0
    """Spread of the per-trip travel factor (v4; a copy of the scenario's ``travel_sigma``)."""
    epoch_actions: int = 0
    """Valid non-hold actions taken in the current decision epoch."""
    e_left_post: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))
    """``[u, p]``: unit ``u`` was heading to post ``p`` earlier in this decision epoch and a
    relocation took it elsewhere (v4.5; cleared when the clock moves). Moving it back is masked:
    no time passed, so it would change nothing."""
    e_left_hosp: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))
    """``[u, h]``: unit ``u`` was bound for hospital ``h`` earlier in this decision epoch and was
    assigned another (v4.5; cleared when the clock moves); assigning ``h`` again is masked."""

    # calls: the realised stream, one row per call (sorted by arrival time)
    c_time: np.ndarray = field(default_factory=lambda: np.zeros(0))
    c_node: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    c_type: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    c_rtype: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    c_sev: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    c_kind: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    c_tone: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    c_transport: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    c_needed: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    c_status: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    c_assigned: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    c_arrived: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    c_first: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Minute the first unit reached the call (inf until then)."""
    c_first_als: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    c_first_aid: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    """True if the first unit to reach the call was a borrowed mutual-aid unit."""
    c_verify: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Verification confidence that the call is genuine (−1 until verified)."""
    c_outcome: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Benefit of the response (expected lives saved), NaN until final."""
    c_divert: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    c_mci: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    """Call belongs to a mass-casualty burst (hidden; v2, read by the calibration card)."""
    c_open: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Minute the call opens to the dispatcher (ring + drawn call processing; v3)."""
    c_turnout: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Turn-out minutes of a unit sent from its station to the call (drawn per call; v3)."""
    c_travel: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Travel-time factor of a response trip to the call (v4; drawn per call, hidden)."""
    c_prio: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """True priority class (0 = P1, 1 = P2, 2 = P3; v4, hidden; see ``params.priority_of``)."""
    c_wait: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Minutes the carrying crew waited at hospital for a free EMS bed (v4 offload delay)."""
    c_held: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    """True if no unit was free (truly) when the call arrived."""
    c_bound: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Response minutes of the clairvoyant reference plan (real calls)."""
    c_bound_unit: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """Unit of the clairvoyant plan (−1: none)."""
    c_bound_saved: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Expected lives saved under the clairvoyant plan."""
    next_call: int = 0
    fake_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """False alarms and ghost calls in arrival order (each is cancelled ``fake_expiry_min`` after
    it rings unless a unit has reached it)."""
    next_fake: int = 0
    visible: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """Call id in each of the K visible slots (−1 empty), oldest first."""
    n_open: int = 0

    # units: one row per slot (fleet first, then mutual-aid slots)
    u_home: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_als: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    u_rel: np.ndarray = field(default_factory=lambda: np.zeros(0))
    u_status: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_node: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """Node where a stationary unit is, or the first node of its current trip's path."""
    u_dest: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_tstart: np.ndarray = field(default_factory=lambda: np.zeros(0))
    u_lead: np.ndarray = field(default_factory=lambda: np.zeros(0))
    u_tmult: np.ndarray = field(default_factory=lambda: np.zeros(0))
    u_next: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Minute of the unit's next internal transition (inf if none)."""
    u_call: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_hosp: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """Hospital index chosen by the dispatcher (−1: nearest)."""
    u_carrier: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    """True if this unit carries its call's patient (the first to arrive)."""
    u_obs_status: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_obs_node: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_obs_dest: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_obs_t: np.ndarray = field(default_factory=lambda: np.zeros(0))
    u_rep_status: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_rep_node: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_rep_dest: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_rep_made: np.ndarray = field(default_factory=lambda: np.zeros(0))
    u_rep_t: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Delivery minute of an in-flight (delayed) status report (inf if none)."""
    u_dispatches: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    u_loan_end: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Minute a mutual-aid unit's loan ends (inf for the fleet and unused slots)."""

    # hospitals
    h_release: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    """Minute each EMS bed frees up (≤ now: free; padded with −inf for absent beds)."""
    h_forced_until: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Divert forced by an event until this minute."""
    h_obs_divert: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    h_obs_t: np.ndarray = field(default_factory=lambda: np.zeros(0))
    h_next_report: np.ndarray = field(default_factory=lambda: np.zeros(0))

    # events: the realised schedule (sorted) and ongoing effects
    e_time: np.ndarray = field(default_factory=lambda: np.zeros(0))
    e_kind: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    e_a: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    e_b: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    e_dur: np.ndarray = field(default_factory=lambda: np.zeros(0))
    next_event: int = 0
    alert_until: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Per event kind: the minute its alert ends (inf: permanent; ≤ now: none)."""
    slow_edges: list[tuple[int, int, float]] = field(default_factory=list)
    """Accidents in force: ``(u, v, end minute)``."""

    mutual_aid_left: int = 0
    mci_aid: int = 0
    """Mutual-aid slots called in by the MCI plan (``mci_plan``): not charged to the dispatcher."""
    cov_integral: float = 0.0
    """∫ coverage dt over the shift so far (minutes)."""
    cov_now: float = 1.0
    cov_dirty: bool = True
    shaping_used: float = 0.0
    reward_acc: float = 0.0
    """Dense reward accumulated by the dynamics since the last step returned it."""
    last_report: str = ""
    """What the last action revealed (e.g. a verification result), for text views."""


# ----- actions ------------------------------------------------------------------------------
_UNIT = {"doc": "unit slot index (0-based, as listed in the observation)"}
_CALL = {"doc": "visible call slot index (0-based, as listed in the observation; oldest first)"}


class DispatchAction(Action):
    """Base class of dispatch actions."""


@dataclass(frozen=True)
class Dispatch(DispatchAction):
    """Send a free unit (idle, relocating or returning, by its last report) to an open call.

    A call may receive a second unit only if it needs two (fires). A unit at the call's own node
    arrives immediately. Idle units may suffer a short turn-out delay (unit reliability).
    """

    kind: ClassVar[str] = "dispatch"
    unit: int = field(metadata=_UNIT)
    call: int = field(metadata=_CALL)


@dataclass(frozen=True)
class Reroute(DispatchAction):
    """Divert a unit that is en route to one call to another open call.

    The old call becomes unassigned again (it reappears as needing a unit).
    """

    kind: ClassVar[str] = "reroute"
    unit: int = field(metadata=_UNIT)
    call: int = field(metadata=_CALL)


@dataclass(frozen=True)
class Relocate(DispatchAction):
    """Move a free unit to a staging post (move-up / coverage repositioning).

    It stays dispatchable while moving and waits at the post until sent elsewhere.
    """

    kind: ClassVar[str] = "relocate"
    unit: int = field(metadata=_UNIT)
    post: int = field(metadata={"doc": "staging post index (see the observation's post list)"})


@dataclass(frozen=True)
class Verify(DispatchAction):
    """Call back a caller to check the call; reveals a noisy confidence that it is genuine.

    Genuine calls give high confidence, false alarms middling, ghost calls low (documented
    distributions in the README). Each call can be verified once; it costs no simulated time.
    """

    kind: ClassVar[str] = "verify"
    call: int = field(metadata=_CALL)


@dataclass(frozen=True)
class AssignHospital(DispatchAction):
    """Choose the hospital a unit on a call will take its patient to (default: the nearest).

    Allowed while the unit is en route, on scene or transporting; a transporting unit re-routes.
    Taking a patient to a hospital on divert costs extra handover time and patient outcome.
    """

    kind: ClassVar[str] = "assign_hospital"
    unit: int = field(metadata=_UNIT)
    hospital: int = field(metadata={"doc": "hospital index (0-based, as listed)"})


@dataclass(frozen=True)
class RequestMutualAid(DispatchAction):
    """Ask a neighbouring service for one extra unit; it enters the city after a delay.

    The budget per shift is limited (shown in the observation).
    """

    kind: ClassVar[str] = "request_mutual_aid"


@dataclass(frozen=True)
class Hold(DispatchAction):
    """Do nothing more now: advance the clock to the next decision epoch.

    The next epoch is the next call, status report or city event, at most a few minutes away.
    """

    kind: ClassVar[str] = "hold"


ACTION_TYPES: tuple[type[Action], ...] = (
    Dispatch, Reroute, Relocate, Verify, AssignHospital, RequestMutualAid, Hold,
)
