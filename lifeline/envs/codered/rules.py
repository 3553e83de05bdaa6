"""The one place that decides validity: the integer encoding, the action mask and ``validate``.

Validity is judged only on what the coordinator knows (statuses, known conditions, stock), never on
hidden truth. Encoding (blocks in this order; U ambulances, P patients, H = 3 hospitals, R = 3 OR
slots per hospital)::

    dispatch_ambulance U·P | dispatch_als U·P | dispatch_bls U·P | triage_call P·5 |
    assign_hospital P·H | prepare_or H·2 | page_specialist H·3 | preempt_or H·R |
    allocate_blood H·P·9·4 (8 typed modes + emergency O−, 1-4 units) |
    transfer_blood H·H·8·4 | request_mutual_aid | query_blood_type P | query_or_status H·R |
    maintain_plan
"""

from __future__ import annotations

import numpy as np

from lifeline.envs.codered.params import (
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
    SP_OFF,
    STABILISED,
    TRANSPORT,
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
MAX_RESERVED = 8
"""Most units that may be reserved for one patient."""


class Layout:
    """Offsets of the action blocks in the flat encoding."""

    def __init__(self, n_units: int, n_patients: int) -> None:
        U, P = self.U, self.P = n_units, n_patients
        sizes = (("disp", U * P), ("als", U * P), ("bls", U * P), ("triage", P * 5),
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

    # ----- encode ------------------------------------------------------------------------------
    def encode(self, a: CodeRedAction) -> int:
        """Index of a semantic action (``ValueError`` if it has no encoding)."""
        o, U, P = self.off, self.U, self.P
        try:
            if isinstance(a, DispatchAmbulance):
                return o["disp"] + _idx((a.ambulance, U), (a.patient, P))
            if isinstance(a, DispatchALS):
                return o["als"] + _idx((a.ambulance, U), (a.call, P))
            if isinstance(a, DispatchBLS):
                return o["bls"] + _idx((a.ambulance, U), (a.call, P))
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
        """Semantic action of an index (``ValueError`` if out of range)."""
        if not 0 <= index < self.total:
            raise ValueError(f"action index {index} out of range 0..{self.total - 1}")
        name, base = self.order[0]
        for n, off in self.order:
            if off > index:
                break
            name, base = n, off
        r = index - base
        P = self.P
        if name == "disp":
            return DispatchAmbulance(*divmod(r, P))
        if name == "als":
            return DispatchALS(*divmod(r, P))
        if name == "bls":
            return DispatchBLS(*divmod(r, P))
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


# ----- validity --------------------------------------------------------------------------------------
def _int_in(x: object, n: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n


def _unit_msg(s: CodeRedState, u: object) -> str | None:
    if not _int_in(u, len(s.units)):
        return f"ambulance {u!r} does not exist (0..{len(s.units) - 1})"
    assert isinstance(u, int)
    if s.units[u].status not in DISPATCHABLE:
        from lifeline.envs.codered.types import U_STATUS
        return (f"ambulance {u} is {U_STATUS[s.units[u].status]}; only available or returning "
                "ambulances can be dispatched")
    return None


def _patient_msg(s: CodeRedState, i: object) -> str | None:
    if not _int_in(i, len(s.patients)):
        return f"patient {i!r} does not exist (0..{len(s.patients) - 1})"
    return None


def _hosp_msg(h: object) -> str | None:
    return None if _int_in(h, H) else f"hospital {h!r} does not exist (0..{H - 1})"


def _has_free(s: CodeRedState, als: bool) -> bool:
    return any(u.status in DISPATCHABLE and u.als == als for u in s.units)


def validate(s: CodeRedState, params: CodeRedParams, a: CodeRedAction) -> str | None:
    """``None`` if ``a`` is legal now, else a message saying why not."""
    from lifeline.envs.codered.types import P_STATUS
    if isinstance(a, MaintainPlan):
        return None
    if isinstance(a, RequestMutualAid):
        return None if s.aid_left > 0 else "no mutual-aid requests left"
    if isinstance(a, (DispatchAmbulance, DispatchALS, DispatchBLS)):
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
    if isinstance(a, TriageCall):
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
    if isinstance(a, AssignHospital):
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
    if isinstance(a, PrepareOR):
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
    if isinstance(a, PageSpecialist):
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
    if isinstance(a, (PreemptOR, QueryORStatus)):
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
    if isinstance(a, AllocateBlood):
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
    if isinstance(a, TransferBlood):
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
    if isinstance(a, QueryBloodType):
        msg = _patient_msg(s, a.patient)
        if msg:
            return msg
        p = s.patients[a.patient]
        if p.status not in TYPEABLE or not p.known:
            return f"patient {a.patient} cannot be typed now ({P_STATUS[p.status]})"
        if p.type_known or p.type_pending:
            return f"patient {a.patient}'s blood type is already known or being typed"
        return None
    return f"unknown action {a!r}"


def action_mask(s: CodeRedState, params: CodeRedParams, lay: Layout) -> np.ndarray:
    """Exactly the actions :func:`validate` accepts (built from the few candidates per block)."""
    out = np.zeros(lay.total, dtype=bool)
    if s.done:
        return out
    o, U, P = lay.off, lay.U, lay.P
    idx: list[int] = [o["noop"]]
    free = [u for u, un in enumerate(s.units) if un.status in DISPATCHABLE]
    free_als = any(s.units[u].als for u in free)
    free_bls = any(not s.units[u].als for u in free)
    diverted = [hs.divert_until > s.t for hs in s.hospitals]
    for i, p in enumerate(s.patients):
        st = p.status
        if st in (WAITING, STABILISED):
            idx += [o["disp"] + u * P + i for u in free]
        elif st == CALL:
            for u in free:
                idx.append((o["als"] if s.units[u].als else o["bls"]) + u * P + i)
            base = o["triage"] + i * 5
            if free_als:
                idx.append(base)
            if free_bls:
                idx.append(base + 1)
            idx.append(base + 2)
            if p.hint < 0:
                idx.append(base + 3)
            idx.append(base + 4)
        if st in (ASSIGNED, ON_SCENE):
            idx += [o["assign"] + i * H + h for h in range(H)
                    if not diverted[h] and h != p.hosp and h != p.at_hosp]
        if st in BLOOD_HOLDERS and p.hosp >= 0:
            h = p.hosp
            stock = s.hospitals[h].stock
            base = o["alloc"] + (h * P + i) * MODES * UNITS
            room = params.oneg_cap - p.blood_emergency
            idx += [base + 8 * UNITS + k for k in range(min(room, stock[O_NEG], UNITS))]
            if p.type_known:
                room = MAX_RESERVED - p.blood_ready - p.blood_pending
                for b in range(8):
                    if compatible(b, p.blood_type):
                        idx += [base + b * UNITS + k for k in range(min(room, stock[b], UNITS))]
        if st in TYPEABLE and p.known and not p.type_known and not p.type_pending:
            idx.append(o["qbt"] + i)
    for h, hosp in enumerate(s.hospitals):
        if any(orr.state == OR_FREE for orr in hosp.ors):
            idx += [o["prep"] + h * 2 + k for k in range(2) if CAPABLE[h][PROC_COND[k]]]
        offs = {sp.kind for sp in hosp.specialists if sp.state == SP_OFF}
        idx += [o["page"] + h * 3 + k for k in sorted(offs)]
        for k, orr in enumerate(hosp.ors):
            if orr.state == OR_ELECTIVE:
                idx.append(o["preempt"] + h * R + k)
            if not orr.queried:
                idx.append(o["qor"] + h * R + k)
        for b in range(8):
            n = min(hosp.stock[b], UNITS)
            if n:
                for t in range(H):
                    if t != h:
                        base = o["transfer"] + ((h * H + t) * 8 + b) * UNITS
                        idx += range(base, base + n)
    if s.aid_left > 0:
        idx.append(o["aid"])
    out[idx] = True
    return out
