"""The one place that decides validity: the integer encoding, the action mask and ``validate``.

Validity is judged only on what the coordinator knows (statuses, known conditions, stock), never on
hidden truth. Encoding (blocks in this order; U ambulances, P patients, H = 3 hospitals, R = 3 OR
slots per hospital)::

    dispatch_ambulance P·U | dispatch_als P·U | dispatch_bls P·U | triage_call P·5 |
    assign_hospital P·H | prepare_or H·2 | page_specialist H·3 | preempt_or H·R |
    allocate_blood H·P·9·4 (8 typed modes + emergency O−, 1-4 units) |
    transfer_blood H·H·8·4 | request_mutual_aid | query_blood_type P | query_or_status H·R |
    maintain_plan
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lifeline.envs.codered.params import (
    BLOOD_STOCK,
    BLOOD_TYPES,
    CAPABLE,
    N_OR,
    O_NEG,
    PROCEDURES,
    SPECIALISTS,
    TRIAGE_DECISIONS,
    CodeRedParams,
    compatible,
)
from lifeline.envs.codered.types import (
    ASSIGNED,
    AT_HOSPITAL,
    CALL,
    DISPATCHABLE,
    HANDOVER,
    ON_SCENE,
    OR_ELECTIVE,
    OR_FREE,
    P_STATUS,
    SP_OFF,
    STABILISED,
    TRANSPORT,
    U_STATUS,
    WAITING,
    AllocateBlood,
    AssignHospital,
    CodeRedAction,
    CodeRedState,
    DispatchALS,
    DispatchAmbulance,
    DispatchBLS,
    MaintainPlan,
    PageSpecialist,
    PreemptOR,
    PrepareOR,
    QueryBloodType,
    QueryORStatus,
    RequestMutualAid,
    TransferBlood,
    TriageCall,
)

H, R, MODES, UNITS = 3, 3, 9, 4
PROC_COND = (0, 2)
"""Condition each OR procedure treats (cardiac, trauma)."""
BLOOD_HOLDERS = frozenset({ASSIGNED, ON_SCENE, TRANSPORT, HANDOVER, AT_HOSPITAL})
TYPEABLE = frozenset({WAITING, ASSIGNED, ON_SCENE, TRANSPORT, HANDOVER, AT_HOSPITAL, STABILISED})
TYPEABLE_AT_HOSPITAL = frozenset({HANDOVER, AT_HOSPITAL, STABILISED})
"""(v3, ``hospital_typing``) Statuses in which the typing sample can be drawn: at a hospital."""
MAX_RESERVED = 8
"""Most units that may be reserved for one patient."""


class Layout:
    """Offsets of the action blocks in the flat encoding."""

    def __init__(self, n_units: int, n_patients: int) -> None:
        U, P = self.U, self.P = n_units, n_patients
        sizes = (("disp", P * U), ("als", P * U), ("bls", P * U), ("triage", P * 5),
                 ("assign", P * H), ("prep", H * 2), ("page", H * 3), ("preempt", H * R),
                 ("alloc", H * P * MODES * UNITS), ("transfer", H * H * 8 * UNITS), ("aid", 1),
                 ("qbt", P), ("qor", H * R), ("noop", 1))
        off = 0
        self.off: dict[str, int] = {}
        self.order: list[tuple[str, int]] = []
        for name, n in sizes:
            self.off[name] = off
            self.order.append((name, off))
            off += n
        self.total = off
        self.offsets = tuple(self.off[k] for k in (
            "disp", "als", "bls", "triage", "assign", "alloc", "qbt", "prep", "page", "preempt",
            "qor", "transfer", "aid", "noop"))
        """Block offsets in the order :func:`action_mask` unpacks them."""
        self._decoded: list[CodeRedAction | None] = [None] * off
        o_disp, o_als, o_bls, o_tri = (self.off[k] for k in ("disp", "als", "bls", "triage"))
        self.rows = (tuple(slice(o_als + i * U, o_als + (i + 1) * U) for i in range(P)),
                     tuple(slice(o_bls + i * U, o_bls + (i + 1) * U) for i in range(P)),
                     tuple(slice(o_tri + i * 5, o_tri + i * 5 + 5) for i in range(P)),
                     tuple(slice(o_disp + i * U, o_disp + (i + 1) * U) for i in range(P)))
        """Per patient, the slices of its ALS, BLS, triage and dispatch rows (for the mask)."""

    # ----- encode ------------------------------------------------------------------------------
    def encode(self, a: CodeRedAction) -> int:
        """Index of a semantic action (``ValueError`` if it has no encoding)."""
        o, U, P = self.off, self.U, self.P
        try:
            if isinstance(a, DispatchAmbulance):
                return o["disp"] + _idx((a.patient, P), (a.ambulance, U))
            if isinstance(a, DispatchALS):
                return o["als"] + _idx((a.call, P), (a.ambulance, U))
            if isinstance(a, DispatchBLS):
                return o["bls"] + _idx((a.call, P), (a.ambulance, U))
            if isinstance(a, TriageCall):
                return o["triage"] + _idx((a.call, P), (_pos(TRIAGE_DECISIONS, a.decision), 5))
            if isinstance(a, AssignHospital):
                return o["assign"] + _idx((a.patient, P), (a.hospital, H))
            if isinstance(a, PrepareOR):
                return o["prep"] + _idx((a.hospital, H), (_pos(PROCEDURES, a.procedure), 2))
            if isinstance(a, PageSpecialist):
                return o["page"] + _idx((a.hospital, H), (_pos(SPECIALISTS, a.specialist), 3))
            if isinstance(a, PreemptOR):
                return o["preempt"] + _idx((a.hospital, H), (a.or_index, R))
            if isinstance(a, AllocateBlood):
                b = _pos(BLOOD_TYPES, a.blood_type)
                if a.emergency and b != O_NEG:
                    raise IndexError("emergency release is O- only")
                mode = 8 if a.emergency else b
                return o["alloc"] + _idx((a.hospital, H), (a.patient, P), (mode, MODES),
                                         (a.units - 1, UNITS))
            if isinstance(a, TransferBlood):
                return o["transfer"] + _idx((a.from_hospital, H), (a.to_hospital, H),
                                            (_pos(BLOOD_TYPES, a.blood_type), 8),
                                            (a.units - 1, UNITS))
            if isinstance(a, QueryBloodType):
                return o["qbt"] + _idx((a.patient, P))
            if isinstance(a, QueryORStatus):
                return o["qor"] + _idx((a.hospital, H), (a.or_index, R))
        except (IndexError, TypeError) as exc:
            raise ValueError(f"{a!r} has no encoding: {exc}") from None
        if isinstance(a, RequestMutualAid):
            return o["aid"]
        if isinstance(a, MaintainPlan):
            return o["noop"]
        raise ValueError(f"not a codered action: {a!r}")

    # ----- decode ------------------------------------------------------------------------------
    def decode(self, index: int) -> CodeRedAction:
        """Semantic action of an index (``ValueError`` if out of range); actions are immutable,
        so each index is decoded once and the object reused."""
        if not 0 <= index < self.total:
            raise ValueError(f"action index {index} out of range 0..{self.total - 1}")
        a = self._decoded[index]
        if a is None:
            a = self._decoded[index] = self._decode(index)
        return a

    def _decode(self, index: int) -> CodeRedAction:
        name, base = self.order[0]
        for n, off in self.order:
            if off > index:
                break
            name, base = n, off
        r = index - base
        P, U = self.P, self.U
        if name in ("disp", "als", "bls"):
            i, u = divmod(r, U)
            cls = {"disp": DispatchAmbulance, "als": DispatchALS, "bls": DispatchBLS}[name]
            return cls(u, i)
        if name == "triage":
            c, d = divmod(r, 5)
            return TriageCall(c, TRIAGE_DECISIONS[d])
        if name == "assign":
            return AssignHospital(*divmod(r, H))
        if name == "prep":
            h, k = divmod(r, 2)
            return PrepareOR(h, PROCEDURES[k])
        if name == "page":
            h, k = divmod(r, 3)
            return PageSpecialist(h, SPECIALISTS[k])
        if name == "preempt":
            return PreemptOR(*divmod(r, R))
        if name == "alloc":
            rest, units = divmod(r, UNITS)
            rest, mode = divmod(rest, MODES)
            h, p = divmod(rest, P)
            if mode == 8:
                return AllocateBlood(h, p, "O-", units + 1, True)
            return AllocateBlood(h, p, BLOOD_TYPES[mode], units + 1, False)
        if name == "transfer":
            rest, units = divmod(r, UNITS)
            rest, b = divmod(rest, 8)
            f, t = divmod(rest, H)
            return TransferBlood(f, t, BLOOD_TYPES[b], units + 1)
        if name == "aid":
            return RequestMutualAid()
        if name == "qbt":
            return QueryBloodType(r)
        if name == "qor":
            return QueryORStatus(*divmod(r, R))
        return MaintainPlan()


def _pos(names: tuple[str, ...], value: object) -> int:
    if not isinstance(value, str) or value not in names:
        raise IndexError(f"{value!r} is not one of {', '.join(names)}")
    return names.index(value)


def _idx(*pairs: tuple[int, int]) -> int:
    out = 0
    for value, n in pairs:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
            raise IndexError(f"index {value!r} out of range 0..{n - 1}")
        out = out * n + value
    return out


# ----- validity -----------------------------------------------------------------------------------
def _int_in(x: object, n: int) -> bool:
    if type(x) is int:  # the common case first (a bool's type is bool, not int)
        return 0 <= x < n
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n


def _unit_msg(s: CodeRedState, u: object) -> str | None:
    if not _int_in(u, len(s.units)):
        return f"ambulance {u!r} does not exist (0..{len(s.units) - 1})"
    assert isinstance(u, int)
    if s.units[u].status not in DISPATCHABLE:
        return (f"ambulance {u} is {U_STATUS[s.units[u].status]}; only available or returning "
                "ambulances can be dispatched")
    return None


def _patient_msg(s: CodeRedState, i: object) -> str | None:
    if not _int_in(i, len(s.patients)):
        return f"patient {i!r} does not exist (0..{len(s.patients) - 1})"
    return None


def _hosp_msg(h: object) -> str | None:
    if type(h) is int and 0 <= h < H:
        return None
    return None if _int_in(h, H) else f"hospital {h!r} does not exist (0..{H - 1})"


def _has_free(s: CodeRedState, als: bool) -> bool:
    return any(u.status in DISPATCHABLE and u.als == als for u in s.units)


def _v_maintain_plan(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    return None


def _v_request_mutual_aid(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    return None if s.aid_left > 0 else "no mutual-aid requests left"


def _v_dispatch_ambulance(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    target = a.patient if isinstance(a, DispatchAmbulance) else a.call
    msg = _unit_msg(s, a.ambulance) or _patient_msg(s, target)
    if msg:
        return msg
    assert isinstance(target, int)
    st = s.patients[target].status
    if isinstance(a, DispatchAmbulance):
        if st not in (WAITING, STABILISED):
            return (f"patient {target} is {P_STATUS[st]}; dispatch_ambulance needs a waiting "
                    "patient or one stabilised for transfer (use dispatch_als/bls for calls)")
        return None
    if st != CALL:
        return f"patient {target} is {P_STATUS[st]}, not a pending 911 call"
    als = s.units[a.ambulance].als
    if isinstance(a, DispatchALS) and not als:
        return f"ambulance {a.ambulance} is BLS; use dispatch_bls"
    if isinstance(a, DispatchBLS) and als:
        return f"ambulance {a.ambulance} is ALS; use dispatch_als"
    return None


def _v_triage_call(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    msg = _patient_msg(s, a.call)
    if msg:
        return msg
    p = s.patients[a.call]
    if p.status != CALL:
        return f"patient {a.call} is {P_STATUS[p.status]}, not a pending 911 call"
    if a.decision not in TRIAGE_DECISIONS:
        return f"decision {a.decision!r} is not one of {', '.join(TRIAGE_DECISIONS)}"
    if a.decision == "dispatch_als" and not _has_free(s, True):
        return "no ALS ambulance is available or returning"
    if a.decision == "dispatch_bls" and not _has_free(s, False):
        return "no BLS ambulance is available or returning"
    if a.decision == "callback" and p.hint >= 0:
        return f"call {a.call} was already called back"
    return None


def _v_assign_hospital(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    msg = _patient_msg(s, a.patient) or _hosp_msg(a.hospital)
    if msg:
        return msg
    p = s.patients[a.patient]
    if p.status not in (ASSIGNED, ON_SCENE):
        return (f"patient {a.patient} is {P_STATUS[p.status]}; a hospital is chosen while an "
                "ambulance is en route or on scene")
    if s.hospitals[a.hospital].divert_until > s.t:
        return f"hospital {a.hospital} is on diversion"
    if a.hospital == p.hosp:
        return f"patient {a.patient} is already bound for hospital {a.hospital}"
    if a.hospital == p.at_hosp:
        return f"patient {a.patient} is already at hospital {a.hospital}"
    return None


def _v_prepare_or(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    msg = _hosp_msg(a.hospital)
    if msg:
        return msg
    if a.procedure not in PROCEDURES:
        return f"procedure {a.procedure!r} is not one of {', '.join(PROCEDURES)}"
    if not CAPABLE[a.hospital][PROC_COND[PROCEDURES.index(a.procedure)]]:
        return f"hospital {a.hospital} does not do {a.procedure} procedures"
    if not any(o.state == OR_FREE for o in s.hospitals[a.hospital].ors):
        return f"hospital {a.hospital} has no free OR (preempt an elective case or wait)"
    return None


def _v_page_specialist(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    msg = _hosp_msg(a.hospital)
    if msg:
        return msg
    if a.specialist not in SPECIALISTS:
        return f"specialist {a.specialist!r} is not one of {', '.join(SPECIALISTS)}"
    k = SPECIALISTS.index(a.specialist)
    if not any(sp.kind == k and sp.state == SP_OFF
               for sp in s.hospitals[a.hospital].specialists):
        return f"hospital {a.hospital} has no {a.specialist} on call to page"
    return None


def _v_or_slot(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    msg = _hosp_msg(a.hospital)
    if msg:
        return msg
    if not _int_in(a.or_index, N_OR[a.hospital]):
        return f"hospital {a.hospital} has ORs 0..{N_OR[a.hospital] - 1}, not {a.or_index!r}"
    o = s.hospitals[a.hospital].ors[a.or_index]
    if isinstance(a, PreemptOR):
        return None if o.state == OR_ELECTIVE else \
            f"OR {a.or_index} at hospital {a.hospital} has no elective case to preempt"
    return None if not o.queried else \
        f"OR {a.or_index} at hospital {a.hospital} was queried and has not changed since"


def _v_allocate_blood(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    msg = _hosp_msg(a.hospital) or _patient_msg(s, a.patient)
    if msg:
        return msg
    p = s.patients[a.patient]
    if p.status not in BLOOD_HOLDERS:
        return f"patient {a.patient} is {P_STATUS[p.status]}; blood is reserved for a " \
               "patient on the way to or in a hospital"
    if p.hosp != a.hospital:
        return f"patient {a.patient} is not bound for hospital {a.hospital}"
    if a.blood_type not in BLOOD_TYPES:
        return f"blood type {a.blood_type!r} is not one of {' '.join(BLOOD_TYPES)}"
    if not _int_in(a.units, UNITS + 1) or a.units < 1:
        return f"units must be 1-{UNITS}, got {a.units!r}"
    b = BLOOD_TYPES.index(a.blood_type)
    if s.hospitals[a.hospital].stock[b] < a.units:
        return f"hospital {a.hospital} has only {s.hospitals[a.hospital].stock[b]} " \
               f"{a.blood_type} units"
    if a.emergency is True:
        if b != O_NEG:
            return "emergency release is uncrossmatched O- only"
        if p.blood_emergency + a.units > params.oneg_cap:
            return f"at most {params.oneg_cap} emergency O- units per patient"
        return None
    if a.emergency is not False:
        return f"emergency must be true or false, got {a.emergency!r}"
    if not p.type_known:
        return f"patient {a.patient}'s blood type is unknown (query_blood_type first)"
    if not compatible(b, p.blood_type):
        return f"{a.blood_type} is not compatible with the patient's type"
    if p.blood_ready + p.blood_pending + a.units > MAX_RESERVED:
        return f"at most {MAX_RESERVED} units may be reserved for one patient"
    return None


_BT_INDEX = {b: i for i, b in enumerate(BLOOD_TYPES)}
"""Blood type name -> index (a dictionary lookup instead of ``BLOOD_TYPES.index``)."""


def _v_transfer_blood(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    f, t, units, bt = a.from_hospital, a.to_hospital, a.units, a.blood_type
    if (type(f) is int and type(t) is int and type(units) is int and type(bt) is str
            and 0 <= f < H and 0 <= t < H and f != t and 1 <= units <= UNITS
            and bt in _BT_INDEX):  # the well-formed case (every decoded index) checked at once
        if s.hospitals[f].stock[_BT_INDEX[bt]] < units:
            return f"hospital {f} does not have {units} {bt} units"
        return None
    msg = _hosp_msg(a.from_hospital) or _hosp_msg(a.to_hospital)
    if msg:
        return msg
    if a.from_hospital == a.to_hospital:
        return "transfer_blood needs two different hospitals"
    if a.blood_type not in BLOOD_TYPES:
        return f"blood type {a.blood_type!r} is not one of {' '.join(BLOOD_TYPES)}"
    if not _int_in(a.units, UNITS + 1) or a.units < 1:
        return f"units must be 1-{UNITS}, got {a.units!r}"
    if s.hospitals[a.from_hospital].stock[BLOOD_TYPES.index(a.blood_type)] < a.units:
        return f"hospital {a.from_hospital} does not have {a.units} {a.blood_type} units"
    return None


def _v_query_blood_type(s: CodeRedState, params: CodeRedParams, a: Any) -> str | None:
    msg = _patient_msg(s, a.patient)
    if msg:
        return msg
    p = s.patients[a.patient]
    if p.status not in (TYPEABLE_AT_HOSPITAL if params.hospital_typing else TYPEABLE) \
            or not p.known:
        return f"patient {a.patient} cannot be typed now ({P_STATUS[p.status]})" + (
            ": the sample is drawn at the hospital" if params.hospital_typing else "")
    if p.type_known or p.type_pending:
        return f"patient {a.patient}'s blood type is already known or being typed"
    return None

_VALIDATORS: dict[type, Callable[[CodeRedState, CodeRedParams, Any], str | None]] = {
    MaintainPlan: _v_maintain_plan,
    RequestMutualAid: _v_request_mutual_aid,
    DispatchAmbulance: _v_dispatch_ambulance,
    DispatchALS: _v_dispatch_ambulance,
    DispatchBLS: _v_dispatch_ambulance,
    TriageCall: _v_triage_call,
    AssignHospital: _v_assign_hospital,
    PrepareOR: _v_prepare_or,
    PageSpecialist: _v_page_specialist,
    PreemptOR: _v_or_slot,
    QueryORStatus: _v_or_slot,
    AllocateBlood: _v_allocate_blood,
    TransferBlood: _v_transfer_blood,
    QueryBloodType: _v_query_blood_type,
}
"""Validity check of each action type (one dictionary lookup instead of a chain of type tests)."""


def validate(s: CodeRedState, params: CodeRedParams, a: CodeRedAction) -> str | None:
    """``None`` if ``a`` is legal now, else a message saying why not."""
    check = _VALIDATORS.get(type(a))
    if check is None:
        return f"unknown action {a!r}"
    return check(s, params, a)


_COMPAT = tuple(tuple(compatible(d, r) for d in range(8)) for r in range(8))
"""``_COMPAT[recipient][donor]``."""
_RUN = tuple(b"\x01" * n + b"\x00" * (UNITS - n) for n in range(UNITS + 1))
"""Unit patterns: the first ``n`` of the 1-4 unit choices allowed."""
_CAN_PREP = tuple(bytes(CAPABLE[h][PROC_COND[k]] for k in range(2)) for h in range(H))


_ZERO_ROW = bytes(8 * UNITS)
_RUN_OF = tuple(_RUN[min(x, UNITS)] for x in range(sum(map(sum, BLOOD_STOCK)) + 1))
"""Unit pattern per stock level (blood is only moved or used, so no hospital ever holds more
than the city's whole stock at 08:00)."""
_TRI_BYTES = {(a, b, c): bytes((a, b, True, c, True)) for a in (False, True)
              for b in (False, True) for c in (False, True)}
"""Triage-block bytes per (any free ALS, any free BLS, callback allowed)."""
_CAN_PREP_BY_H = tuple(_CAN_PREP[h] for h in range(H))
_DISP_OR_STAB = frozenset({WAITING, STABILISED})
_ASSIGNABLE = frozenset({ASSIGNED, ON_SCENE})
_IDLE_OR_RETURNING = DISPATCHABLE
_MASKED = frozenset({WAITING, STABILISED, CALL, ASSIGNED, ON_SCENE}) | BLOOD_HOLDERS | TYPEABLE
"""Patient statuses with any action of their own (others are skipped by the mask)."""


_FLEET: dict[bytes, tuple[bytes, bytes, bytes, bool, bool, bool]] = {}


def _fleet(key: bytes) -> tuple[bytes, bytes, bytes, bool, bool, bool]:
    """Fleet rows of the mask from one byte per unit (bit 0: available or returning, bit 1:
    ALS): free units, free ALS, free BLS (one byte per unit) and whether any of each exists.
    Memoised: only a few hundred fleets exist."""
    free = bytes([k & 1 for k in key])
    free_als = bytes([k == 3 for k in key])
    free_bls = bytes([k == 1 for k in key])
    return free, free_als, free_bls, 1 in free, 1 in free_als, 1 in free_bls


_COMPAT_ROOM = tuple(
    tuple(int.from_bytes(b"".join([_RUN[room] if _COMPAT[r][b] else _RUN[0] for b in range(8)]),
                         "big") for room in range(UNITS + 1)) for r in range(8))
"""``_COMPAT_ROOM[recipient][room]``: bit pattern of the typed allocation bytes a patient of
that type may receive with ``room`` (0-4) units left under ``MAX_RESERVED``; ANDed with a
hospital's stock runs it gives ``_RUN[min(room, stock, 4)]`` for each compatible type."""


def action_mask(s: CodeRedState, params: CodeRedParams, lay: Layout) -> np.ndarray:
    """Exactly the actions :func:`validate` accepts, written as bytes block by block (this runs
    every step: contiguous per-patient blocks make it a few slice assignments)."""
    out = bytearray(lay.total)
    if s.done:
        return np.frombuffer(out, dtype=np.bool_)
    P = lay.P
    _, _, _, _, o_asg, o_alloc, o_qbt, o_prep, o_page, o_pre, o_qor, \
        o_transfer, o_aid, o_noop = lay.offsets  # dispatch/triage rows: ``lay.rows``
    out[o_noop] = 1
    fkey = bytes([(un.status in _IDLE_OR_RETURNING) | (un.als << 1) for un in s.units])
    fleet = _FLEET.get(fkey)
    if fleet is None:
        fleet = _FLEET[fkey] = _fleet(fkey)
    free, free_als, free_bls, any_free, any_als, any_bls = fleet
    hospitals = s.hospitals
    t = s.t
    h0, h1, h2 = hospitals
    open_h = (h0.divert_until <= t, h1.divert_until <= t, h2.divert_until <= t)
    cap = params.oneg_cap
    run_of = _RUN_OF  # per hospital and blood type, the 1-4 unit pattern its stock allows
    runs = (b"".join([run_of[x] for x in h0.stock]), b"".join([run_of[x] for x in h1.stock]),
            b"".join([run_of[x] for x in h2.stock]))
    tri_first = _TRI_BYTES[any_als, any_bls, True]
    tri_again = _TRI_BYTES[any_als, any_bls, False]
    i = -1
    als_rows, bls_rows, tri_rows, disp_rows = lay.rows
    open0, open1, open2 = open_h
    oneg = (h0.stock[O_NEG], h1.stock[O_NEG], h2.stock[O_NEG])
    runs_int = (int.from_bytes(runs[0], "big"), int.from_bytes(runs[1], "big"),
                int.from_bytes(runs[2], "big"))
    ROW, TYPED = MODES * UNITS, 8 * UNITS  # one patient's allocation row; its typed part
    typeable = TYPEABLE_AT_HOSPITAL if params.hospital_typing else TYPEABLE
    for p in s.patients:
        i += 1
        st = p.status
        if st not in _MASKED:
            continue
        if st == CALL:  # no blood or typing actions for a pending call
            out[als_rows[i]] = free_als
            out[bls_rows[i]] = free_bls
            out[tri_rows[i]] = tri_first if p.hint < 0 else tri_again
            continue
        if st in _DISP_OR_STAB:
            if any_free:
                out[disp_rows[i]] = free
        elif st in _ASSIGNABLE:
            ph, pa = p.hosp, p.at_hosp
            row = o_asg + i * H  # H == 3, unrolled
            if open0 and ph != 0 and pa != 0:
                out[row] = 1
            if open1 and ph != 1 and pa != 1:
                out[row + 1] = 1
            if open2 and ph != 2 and pa != 2:
                out[row + 2] = 1
        if st in BLOOD_HOLDERS and p.hosp >= 0:
            h = p.hosp
            base = o_alloc + (h * P + i) * ROW
            n = min(cap - p.blood_emergency, oneg[h], UNITS)
            if n > 0:
                out[base + TYPED:base + ROW] = _RUN[n]
            if p.type_known:
                room = MAX_RESERVED - p.blood_ready - p.blood_pending
                if room > 0:  # typed modes: the stock runs masked by compatibility and room
                    out[base:base + TYPED] = (
                        runs_int[h] & _COMPAT_ROOM[p.blood_type][min(room, UNITS)]
                    ).to_bytes(TYPED, "big")
        if st in typeable and p.known and not p.type_known and not p.type_pending:
            out[o_qbt + i] = 1
    h = -1
    for hosp in hospitals:
        h += 1
        k = -1
        for orr in hosp.ors:
            k += 1
            ost = orr.state
            if ost == OR_FREE:
                out[o_prep + 2 * h:o_prep + 2 * h + 2] = _CAN_PREP_BY_H[h]
            elif ost == OR_ELECTIVE:
                out[o_pre + h * R + k] = 1
            if not orr.queried:
                out[o_qor + h * R + k] = 1
        for sp in hosp.specialists:
            if sp.state == SP_OFF:
                out[o_page + h * 3 + sp.kind] = 1
    r0, r1, r2 = runs
    out[o_transfer:o_aid] = b"".join((_ZERO_ROW, r0, r0, r1, _ZERO_ROW, r1, r2, r2, _ZERO_ROW))
    if s.aid_left > 0:
        out[o_aid] = 1
    return np.frombuffer(out, dtype=np.bool_)
