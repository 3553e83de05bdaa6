"""Baseline ladder and exploit policies of ``codered`` (``AGENTS`` at the end names them).

``heuristic`` reads only the observation (plus the public city map and call-category table);
``oracle`` plays the same rules with the hidden truth revealed (true conditions of calls, blood
types and needs, no callbacks needed); ``clairvoyant`` adds a search of hospital assignments,
dispatches and mutual aid by simulating the rest of the episode (it knows the future); ``bound``
is ``clairvoyant`` playing an idealised city (:data:`RELAXATION`: only driving takes time), a
relaxation that no policy in the real city should beat (the exploit suite checks). The exploit
policies are written against the grader and must lose.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import numpy as np

from lifeline.core.agent import Agent
from lifeline.core.env import Action, Environment
from lifeline.core.graph import RoadGraph
from lifeline.envs.codered.dynamics import eta
from lifeline.envs.codered.env import CodeRedEnv
from lifeline.envs.codered.params import (
    BLOOD_TYPES,
    CAPABLE,
    CATEGORY_TABLE,
    GERD,
    HOSPITAL_NODE,
    NODES,
    O_NEG,
    PROCEDURE_OF,
    ROADS,
    SERIOUS,
    SPECIALIST_COUNT,
    SPECIALIST_OF,
    SPECIALISTS,
    CodeRedParams,
    compatible,
)
from lifeline.envs.codered.types import (
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
    RequestMutualAid,
    TransferBlood,
    TriageCall,
)

# observation columns (see observation.py)
P_PRESENT, P_CALL, P_CAT, P_COND, P_HINT, P_NODE, P_STATUS, P_AGE = range(8)
P_UNIT, P_HOSP, P_BT, P_TYPING, P_NEED, P_READY, P_PENDING, P_ESC = 10, 11, 12, 13, 14, 15, 16, 17
U_ACTIVE, U_ALS, U_STATUS, U_NODE, U_DEST, U_ETA = range(6)
H_DIVERT, H_FREE, H_ELECTIVE, H_PREP, H_READY_C, H_READY_T = 1, 4, 5, 6, 7, 8
H_PRESENT, H_PAGED, H_ONCALL = 11, 14, 17
WAITING, CALL, ASSIGNED, ON_SCENE, TRANSPORT, HANDOVER, AT_HOSPITAL, STABILISED = \
    1, 2, 3, 4, 5, 6, 7, 12
BOUND = (ASSIGNED, ON_SCENE, TRANSPORT, HANDOVER, AT_HOSPITAL)
SERIOUS_PRIOR = tuple(sum(row[:4]) for row in CATEGORY_TABLE)


def _env(env: Environment) -> CodeRedEnv:
    if not isinstance(env, CodeRedEnv):
        raise TypeError(f"this agent plays codered, not {type(env).__name__}")
    return env


class _Map:
    """Road map the agents plan on, rebuilt from the observed road factors."""

    def __init__(self) -> None:
        self.graph = RoadGraph(len(NODES), list(ROADS))
        self.key: bytes = b""

    def update(self, roads: np.ndarray) -> np.ndarray:
        key = roads.tobytes()
        if key != self.key:
            self.key = key
            g = self.graph
            for (a, b, _), (f, closed) in zip(ROADS, roads, strict=True):
                g.factor[a, b] = g.factor[b, a] = float(f)
                g.removed[a, b] = g.removed[b, a] = bool(closed)
            g.recompute()
        return self.graph.dist


class HeuristicAgent(Agent):
    """Nearest capable ALS/BLS dispatch, nearest capable non-diverted hospital (load-aware),
    OR preparation and specialist paging on assignment, emergency O- at the door for bleeding
    trauma patients and the rest typed (from the hospital sample) and crossmatched,
    callbacks for ambiguous calls, mutual aid when patients wait with no free ambulance.
    Observation only."""

    name = "heuristic"
    oracle = False
    prealert = True
    blood = True
    triage = True
    prefer_als = False
    hoard = False
    oneg = False
    close_calls = False
    aid = True
    # ----- v3 knobs (tuned on training seeds 0-19 only; see the README's reference section) ---
    als_window = 5.0
    """An ALS unit is preferred for a serious patient if it arrives at most this much later."""
    load_cost = 40.0
    """Minutes added to a hospital whose specialists are all taken by patients bound there (v3
    first cut 25; 40 after the sourced outcome tables: +0.001 mean over the 7 scenarios on
    training seeds 0-39, +0.005 task5_surge; 60 plays the same as 40 there)."""
    callback_below = 0.6
    """Calls whose category's serious prior is below this get a callback first."""
    als_if_spare = True
    """(v3) Send the nearest ALS unit whatever the delay when there are at least as many free ALS
    units as patient rows that may still need a unit (ALS cannot be scarce then; tuned on
    training seeds: the ``all_als`` probe beat the ALS window on task1)."""
    callback_busy_only = True
    """(v3) Call back an ambiguous call only while no unit is free (the wait is then free)."""
    minor_self = True
    """(v3) A call hinted non-serious goes by self-transport (a wrong hint still reaches a
    hospital) instead of being closed."""
    alert_in_hospital = True
    """(v3) Pre-alerts also cover patients already in the hospital's work-up."""
    cardiac_blood = False
    """(v3: off) Order blood for cardiac patients (the hospital's own 20-min crossmatch finishes
    inside the work-up, so v2's emergency O- for them was pure waste)."""
    oneg_min_need = 0
    """(v3, fourth round) Release emergency O- at the hospital only for a patient whose visible
    blood need is at least this many units (0: every bleeding patient; ``SHOCK_UNITS``: only
    haemorrhagic shock)."""
    aid_gap = 1
    """Request mutual aid when at least this many patients wait beyond the aid units already
    inbound and no unit is free (v2 fired both requests in the same minute)."""

    def __init__(self) -> None:
        self.map = _Map()

    def view(self, env: CodeRedEnv, state: Any) -> dict[str, np.ndarray]:
        return env.observe(state)

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        obs = self.view(e, state)
        mask = e.action_mask(state)
        dist = self.map.update(obs["roads"])
        for rule in (self._calls, self._pickups, self._assign, self._prepare, self._blood,
                     self._aid, self._hoard):
            action = rule(e, obs, dist)
            if action is not None and mask[e.encode(action)]:
                return action
        return MaintainPlan()

    # ----- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _open_rows(obs: dict[str, np.ndarray], slots: int) -> int:
        """Patient rows that may still need a unit: of the scenario's ``slots`` (public), those
        not yet shown or waiting / calling / stabilised (the text view lists shown rows only)."""
        pts = obs["patients"]
        st = pts[:, P_STATUS]
        done = (pts[:, P_PRESENT] > 0) & (st != WAITING) & (st != CALL) & (st != STABILISED)
        return slots - int(np.count_nonzero(done))

    @staticmethod
    def _etas(obs: dict[str, np.ndarray], dist: np.ndarray, node: int) -> list[tuple[float, int]]:
        out = []
        for u, row in enumerate(obs["units"]):
            if row[U_ACTIVE] and int(row[U_STATUS]) in (1, 6):
                if int(row[U_STATUS]) == 1:
                    t = float(dist[int(row[U_NODE]), node])
                else:
                    t = float(row[U_ETA]) + float(dist[int(row[U_DEST]), node])
                out.append((t, u))
        return sorted(out)

    def _pick_unit(self, obs: dict[str, np.ndarray], dist: np.ndarray, node: int,
                   serious: bool, slots: int) -> int:
        etas = self._etas(obs, dist, node)
        if not etas:
            return -1
        if serious or self.prefer_als:
            als = [(t, u) for t, u in etas if obs["units"][u, U_ALS]]
            spare = self.als_if_spare and len(als) >= self._open_rows(obs, slots)
            if als and (self.prefer_als or spare or als[0][0] <= etas[0][0] + self.als_window):
                return als[0][1]
        return etas[0][1]

    # ----- rules ---------------------------------------------------------------------------------
    def _calls(self, e: CodeRedEnv, obs: dict[str, np.ndarray], dist: np.ndarray) -> Any:
        pts = obs["patients"]
        for i in np.flatnonzero(pts[:, P_STATUS] == CALL):
            row = pts[i]
            cat, hint = int(row[P_CAT]) - 1, int(row[P_HINT]) - 1
            if self.close_calls:
                return TriageCall(int(i), "no_dispatch")
            if self.triage and hint >= 0 and hint not in SERIOUS:
                return TriageCall(int(i), "self_transport" if hint == GERD or self.minor_self
                                  else "no_dispatch")
            u = self._pick_unit(obs, dist, int(row[P_NODE]), True, e.n_patients)
            if self.triage and hint < 0 and SERIOUS_PRIOR[cat] < self.callback_below and \
                    not row[P_ESC] and (u < 0 or not self.callback_busy_only):
                return TriageCall(int(i), "callback")
            if u < 0:
                continue
            als = bool(obs["units"][u, U_ALS])
            return DispatchALS(u, int(i)) if als else DispatchBLS(u, int(i))
        return None

    def _pickups(self, e: CodeRedEnv, obs: dict[str, np.ndarray], dist: np.ndarray) -> Any:
        pts = obs["patients"]
        for i in np.flatnonzero((pts[:, P_STATUS] == WAITING) | (pts[:, P_STATUS] == STABILISED)):
            cond = int(pts[i, P_COND]) - 1
            u = self._pick_unit(obs, dist, int(pts[i, P_NODE]), cond in (0, 1, 2), e.n_patients)
            if u >= 0:
                return DispatchAmbulance(u, int(i))
        return None

    def _load(self, obs: dict[str, np.ndarray], h: int, spec: int) -> int:
        pts = obs["patients"]
        n = 0
        for row in pts:
            c = int(row[P_COND]) - 1
            if int(row[P_HOSP]) - 1 == h and int(row[P_STATUS]) in BOUND and c >= 0 and \
                    c < 4 and SPECIALIST_OF[c] == spec:
                n += 1
        return n

    def _choose(self, obs: dict[str, np.ndarray], dist: np.ndarray, node: int, cond: int,
                exclude: int) -> int:
        best, best_c = -1, float("inf")
        for h in range(3):
            if h == exclude or obs["hospitals"][h, H_DIVERT] > 0 or not CAPABLE[h][cond]:
                continue
            cost = float(dist[node, HOSPITAL_NODE[h]])
            spec = SPECIALIST_OF[cond]
            if spec >= 0 and self._load(obs, h, spec) >= SPECIALIST_COUNT[h][spec]:
                cost += self.load_cost
            if cost < best_c:
                best, best_c = h, cost
        return best

    def _assign(self, e: CodeRedEnv, obs: dict[str, np.ndarray], dist: np.ndarray) -> Any:
        pts = obs["patients"]
        for i in np.flatnonzero((pts[:, P_STATUS] == ASSIGNED) | (pts[:, P_STATUS] == ON_SCENE)):
            cond = int(pts[i, P_COND]) - 1
            if cond < 0 or cond not in SERIOUS:
                continue
            cur = int(pts[i, P_HOSP]) - 1
            here = -1
            if pts[i, P_STATUS] == ASSIGNED and cur >= 0 and \
                    int(pts[i, P_NODE]) == HOSPITAL_NODE[cur]:
                here = cur  # a transfer: never back to where the patient is
            if cur >= 0 and cur != here and CAPABLE[cur][cond]:
                continue
            h = self._choose(obs, dist, int(pts[i, P_NODE]), cond, here)
            if h >= 0 and h != cur:
                return AssignHospital(int(i), h)
        return None

    def _prepare(self, e: CodeRedEnv, obs: dict[str, np.ndarray], dist: np.ndarray) -> Any:
        if not self.prealert:
            return None
        pts, hosp = obs["patients"], obs["hospitals"]
        bound = BOUND if self.alert_in_hospital else BOUND[:-1]
        for h in range(3):
            need_or = [0, 0]
            need_sp = [0, 0, 0]
            for row in pts:
                c = int(row[P_COND]) - 1
                if int(row[P_HOSP]) - 1 != h or int(row[P_STATUS]) not in bound or c < 0 \
                        or c >= 4 or not CAPABLE[h][c]:
                    continue
                if PROCEDURE_OF[c] >= 0:
                    need_or[PROCEDURE_OF[c]] += 1
                if SPECIALIST_OF[c] >= 0:
                    need_sp[SPECIALIST_OF[c]] += 1
            have_or = [hosp[h, H_READY_C], hosp[h, H_READY_T]]
            for k in range(2):
                if need_or[k] > have_or[k] + (hosp[h, H_PREP] if need_or[1 - k] == 0 else 0):
                    if hosp[h, H_FREE] > 0:
                        return PrepareOR(h, ("cardiac", "trauma")[k])
                    for r in range(3):
                        if obs["ors"][h, r, 0] and int(obs["ors"][h, r, 1]) == 1:
                            return PreemptOR(h, r)
            for k in range(3):
                if need_sp[k] > hosp[h, H_PRESENT + k] + hosp[h, H_PAGED + k]:
                    return PageSpecialist(h, SPECIALISTS[k])
        return None

    def _blood(self, e: CodeRedEnv, obs: dict[str, np.ndarray], dist: np.ndarray) -> Any:
        if not self.blood:
            return None
        pts = obs["patients"]
        for i, row in enumerate(pts):
            need = int(row[P_NEED])
            h = int(row[P_HOSP]) - 1
            if need <= 0 or int(row[P_STATUS]) not in BOUND or h < 0:
                continue
            if int(row[P_COND]) - 1 == 0 and not self.cardiac_blood:
                continue  # the hospital's own crossmatch is ready before the work-up ends
            have = int(row[P_READY] + row[P_PENDING])
            if have >= need:
                continue
            stock = obs["blood"][h]
            bt = int(row[P_BT]) - 1
            if self.oneg or (int(row[P_STATUS]) in (HANDOVER, AT_HOSPITAL)
                             and need >= self.oneg_min_need):
                # at the hospital a crossmatch would delay surgery: release O- now
                n = int(min(4, need - have, stock[O_NEG]))
                if n > 0:
                    return AllocateBlood(h, i, "O-", n, True)
            if bt < 0:
                if not row[P_TYPING] and (int(row[P_STATUS]) in (HANDOVER, AT_HOSPITAL)
                                          or not e.params.hospital_typing):
                    return QueryBloodType(i)  # v3: the sample is drawn at the hospital
                continue
            order = [bt] + [b for b in range(8) if b not in (bt, O_NEG)] + [O_NEG]
            for b in order:
                if compatible(b, bt) and stock[b] > 0:
                    return AllocateBlood(h, i, BLOOD_TYPES[b], int(min(4, need - have, stock[b])),
                                         False)
        return None

    def _aid(self, e: CodeRedEnv, obs: dict[str, np.ndarray], dist: np.ndarray) -> Any:
        if not self.aid:
            return None
        pts = obs["patients"]
        waiting = int(np.count_nonzero((pts[:, P_STATUS] == WAITING)
                                       | (pts[:, P_STATUS] == CALL)
                                       | (pts[:, P_STATUS] == STABILISED)))
        inbound = int(np.count_nonzero(obs["units"][:, U_STATUS] == 7))  # aid units inbound
        if waiting - inbound >= self.aid_gap and not self._etas(obs, dist, 0):
            return RequestMutualAid()
        return None

    def _hoard(self, e: CodeRedEnv, obs: dict[str, np.ndarray], dist: np.ndarray) -> Any:
        if not self.hoard:
            return None
        hosp = obs["hospitals"]
        for h in range(2):
            if hosp[h, H_FREE] > 0:
                return PrepareOR(h, "cardiac" if h else "trauma")
            for k in range(3):
                if hosp[h, H_ONCALL + k] > 0:
                    return PageSpecialist(h, SPECIALISTS[k])
        return None


class OracleAgent(HeuristicAgent):
    """The heuristic's rules on the *true* state: true conditions of calls (so no callbacks and
    perfect triage), blood types known from the start. Clairvoyant; used inside ``bound``."""

    name = "oracle"
    oracle = True

    def view(self, env: CodeRedEnv, state: Any) -> dict[str, np.ndarray]:
        obs = env.observe(state)
        s: CodeRedState = state
        pts = obs["patients"]
        for i, p in enumerate(s.patients):
            if pts[i, P_PRESENT]:
                pts[i, P_COND] = p.cond + 1
                pts[i, P_HINT] = p.cond + 1
                pts[i, P_NEED] = p.blood_need  # known in advance, cardiac too
        return obs

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        s: CodeRedState = state
        mask = e.action_mask(state)
        for i, p in enumerate(s.patients):  # type every known patient at once
            a = QueryBloodType(i)
            if p.cond in (0, 2) and mask[e.encode(a)]:
                return a
        return super().act(env, state)


NEAREST = 2
"""Units the bound tries for a dispatch (the nearest by ETA, plus the oracle's choice)."""


class ClairvoyantAgent(Agent):
    """Clairvoyant plan in the real city: at every decision where the oracle would assign a
    hospital or dispatch, try each alternative (hospital, or unit) on a copy of the episode — the
    copy holds the future (calls, disruptions, hidden conditions) — finished by the oracle, and
    keep the best final score. Achievable only with foresight; not a proven optimum."""

    name = "clairvoyant"

    def __init__(self) -> None:
        self.oracle = OracleAgent()

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        a = self.oracle.act(e, state)
        if isinstance(a, int):
            return a
        assert isinstance(a, CodeRedAction)
        if isinstance(a, AssignHospital):
            cond = state.patients[a.patient].cond
            alts: list[CodeRedAction] = [AssignHospital(a.patient, h) for h in range(3)
                                         if cond >= 4 or CAPABLE[h][cond]]
        elif isinstance(a, (DispatchAmbulance, DispatchALS, DispatchBLS)):
            target = a.patient if isinstance(a, DispatchAmbulance) else a.call
            node = state.patients[target].node
            near = sorted((eta(state, u, node), u) for u, un in enumerate(state.units)
                          if un.status in (1, 6))[:NEAREST]
            alts = [a]
            for _, u in near:
                kind = DispatchAmbulance if isinstance(a, DispatchAmbulance) else \
                    (DispatchALS if state.units[u].als else DispatchBLS)
                if u != a.ambulance:
                    alts.append(kind(u, target))
        elif isinstance(a, MaintainPlan) and state.aid_left > 0 and any(
                p.status in (WAITING, CALL) for p in state.patients) and not any(
                un.status in (1, 6) for un in state.units):
            alts = [a, RequestMutualAid()]
        else:
            return a
        mask = e.action_mask(state)
        alts = [x for x in alts if mask[e.encode(x)]]
        if len(alts) <= 1:
            return a
        best: CodeRedAction = a
        best_v = -1.0
        for x in alts:
            v = self._rollout(e, state, x)
            if v > best_v + 1e-9:
                best, best_v = x, v
        return best

    def _rollout(self, e: CodeRedEnv, state: Any, first: CodeRedAction) -> float:
        sim = copy.deepcopy(state)
        e.step(sim, first)
        while not sim.done:
            nxt = self.oracle.act(e, sim)
            e.step(sim, nxt)  # type: ignore[arg-type]
        return e.grade(sim).score


RELAXATION: dict[str, Any] = {
    "rush_factor": 1.0, "disruption_rate": 0.0,
    "scene_min_als": 0.0, "scene_min_bls": 0.0, "handover_min": 0.0,
    "page_delay_min": 0.0, "prep_min": 0.0, "crossmatch_min": 0.0, "typing_min": 0.0,
    "auto_blood_min": 0.0, "aid_delay_min": (0.0, 0.0), "workup_factor": 0.0,
}
"""The idealised city the bound plays: free-flowing roads (no rush hour, no accidents, closures,
equipment failures, diversions or shift changes), crews that load and go (no on-scene or handover
time), hospitals that prepare, page, type and crossmatch instantly and treat without a work-up (v3:
with the sourced deterioration an in-hospital minute costs little, so v2's bound, which kept the
work-up, sat within the heuristic's CI on task1), mutual aid on request. Only driving takes
time. Patients, calls, blood types and needs,
hospitals at 08:00 are drawn from the same streams as the real episode (none of these fields
changes a draw)."""


def relaxed(params: CodeRedParams) -> CodeRedParams:
    """``params`` with :data:`RELAXATION` applied (the world the bound plays)."""
    return replace(params, **RELAXATION)


class BoundAgent(ClairvoyantAgent):
    """Upper bound: the clairvoyant plan played in the idealised city (:data:`RELAXATION`) on the
    same seeds, scored by the same grader. Every delay the relaxation removes postpones care, and
    the plan also knows the hidden truth and the future, so no policy in the real city should beat
    it (checked by the exploit suite); it is a loose reference, not an optimum."""

    name = "bound"

    def prepare(self, env: Environment) -> Environment:
        e = _env(env)
        return CodeRedEnv(e.scenario, params=relaxed(e.params))


class MutualAidOnlyAgent(Agent):
    """Requests every mutual-aid unit and nothing else (the best policy against the seed's code)."""

    name = "mutual_aid_only"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        a = RequestMutualAid()
        return a if e.action_mask(state)[e.encode(a)] else MaintainPlan()


class DispatchOnlyAgent(HeuristicAgent):
    """Exploit probe: dispatches and assigns but never pre-alerts hospitals or orders blood."""

    name = "dispatch_only"
    prealert = False
    blood = False


class HoarderAgent(HeuristicAgent):
    """Exploit probe: the heuristic plus preparing every free OR and paging every specialist."""

    name = "hoarder"
    hoard = True


class ONegAgent(HeuristicAgent):
    """Exploit probe: emergency O− for every bleeding patient (spends the scarce universal type)."""

    name = "oneg_everything"
    oneg = True


class CloseAllCallsAgent(HeuristicAgent):
    """Exploit probe: closes every 911 call without dispatch (saves ambulances, costs lives)."""

    name = "close_all_calls"
    close_calls = True


class AllALSAgent(HeuristicAgent):
    """Exploit probe: no triage — the nearest ALS goes to every call, callbacks never used."""

    name = "all_als"
    triage = False
    prefer_als = True


class NoAidAgent(HeuristicAgent):
    """Exploit probe (issue 24): the heuristic that never requests mutual aid. In v2 it scored
    higher than the heuristic with more deaths (the flat per-request penalty)."""

    name = "no_mutual_aid"
    aid = False


class SelfTransportAllAgent(HeuristicAgent):
    """Exploit probe: every 911 call is told to make its own way to hospital (no ambulance is
    ever spent on a call)."""

    name = "self_transport_all"

    def _calls(self, e: CodeRedEnv, obs: dict[str, np.ndarray], dist: np.ndarray) -> Any:
        calls = np.flatnonzero(obs["patients"][:, P_STATUS] == CALL)
        return TriageCall(int(calls[0]), "self_transport") if calls.size else None


class InvalidPaddingAgent(HeuristicAgent):
    """Exploit probe (issue 24): the heuristic's plan with an invalid action before every
    action it takes (v2 scored the same with 46-317 invalid actions per episode)."""

    name = "invalid_padding"

    def reset(self, env: Environment, seed: int) -> None:
        super().reset(env, seed)
        self._pad = True

    def act(self, env: Environment, state: Any) -> Action | int:
        self._pad = not getattr(self, "_pad", True)
        if self._pad:
            return PreemptOR(2, 0)  # the Community HC has no OR: always invalid
        return super().act(env, state)


class ChurnAgent(HeuristicAgent):
    """Exploit probe (issue 24): re-routes every patient once to the Community HC while a crew
    is with them (the heuristic then routes them back): destination churn."""

    name = "churn"

    def reset(self, env: Environment, seed: int) -> None:
        super().reset(env, seed)
        self._churned: set[int] = set()

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        obs = e.observe(state)
        mask = e.action_mask(state)
        churned: set[int] = getattr(self, "_churned", set())
        self._churned = churned
        for i, row in enumerate(obs["patients"]):
            if int(row[P_STATUS]) in (ASSIGNED, ON_SCENE) and row[P_HOSP] > 0 and \
                    int(row[P_HOSP]) != 3 and i not in churned:
                a = AssignHospital(i, 2)
                if mask[e.encode(a)]:
                    churned.add(i)
                    return a
        return super().act(env, state)


class BloodShuttleAgent(HeuristicAgent):
    """Exploit probe (issue 24): the heuristic plus one blood transfer between the two big
    hospitals in every epoch where it would otherwise wait (v2: changed nothing)."""

    name = "blood_shuttle"

    def _hoard(self, e: CodeRedEnv, obs: dict[str, np.ndarray], dist: np.ndarray) -> Any:
        if obs["clock"][2] < e.params.actions_per_epoch:
            return None  # once per epoch, as the first action
        for b in range(8):
            src = 0 if obs["blood"][0, b] >= obs["blood"][1, b] else 1
            if obs["blood"][src, b] >= 2:
                return TransferBlood(src, 1 - src, BLOOD_TYPES[b], 1)
        return None


class BloodGrabberAgent(HeuristicAgent):
    """Exploit probe (issue 24): reserves two emergency O- units for every patient on the way to
    a hospital, needed or not (v2: units left stock uncounted when the need was 0)."""

    name = "blood_grabber"

    def _hoard(self, e: CodeRedEnv, obs: dict[str, np.ndarray], dist: np.ndarray) -> Any:
        for i, row in enumerate(obs["patients"]):
            h = int(row[P_HOSP]) - 1
            if h >= 0 and int(row[P_STATUS]) in BOUND and row[P_READY] + row[P_PENDING] == 0 \
                    and obs["blood"][h, O_NEG] >= 2:
                return AllocateBlood(h, i, "O-", 2, True)
        return None


class HeuristicV2Agent(HeuristicAgent):
    """Probe: v2's heuristic rules in the v3 world (before the audit's observation-only
    improvements were folded in): ALS preferred within 10 min, hinted minor calls closed, no
    pre-alerts for patients already in work-up, emergency O- for cardiac patients at hospital,
    callbacks whether or not a unit is free, mutual aid at two waiting patients."""

    name = "heuristic_v2"
    als_window = 10.0
    minor_self = False
    alert_in_hospital = False
    cardiac_blood = True
    callback_busy_only = False
    aid_gap = 2


AGENTS: dict[str, type[Agent]] = {
    "mutual_aid_only": MutualAidOnlyAgent,
    "heuristic": HeuristicAgent,
    "oracle": OracleAgent,
    "clairvoyant": ClairvoyantAgent,
    "bound": BoundAgent,
    "dispatch_only": DispatchOnlyAgent,
    "hoarder": HoarderAgent,
    "oneg_everything": ONegAgent,
    "close_all_calls": CloseAllCallsAgent,
    "all_als": AllALSAgent,
    "no_mutual_aid": NoAidAgent,
    "self_transport_all": SelfTransportAllAgent,
    "invalid_padding": InvalidPaddingAgent,
    "churn": ChurnAgent,
    "blood_shuttle": BloodShuttleAgent,
    "blood_grabber": BloodGrabberAgent,
    "heuristic_v2": HeuristicV2Agent,
}
"""The codered ladder's own agents (``noop``/``random`` are generic) and its exploit policies."""

EXPLOITS: tuple[str, ...] = (
    "dispatch_only", "hoarder", "oneg_everything", "close_all_calls", "all_als", "no_mutual_aid",
    "self_transport_all", "invalid_padding", "churn", "blood_shuttle", "blood_grabber")
"""The codered exploit policies (``EnvSpec.exploits``)."""


TEXT_POLICY = "lifeline.envs.codered.text_agent:CodeRedTextPolicy"
"""The env's text-only heuristic (``EnvSpec.text_policy``; see ``text_agent.py``)."""

BOUNDED_COMPONENTS: tuple[str, ...] = ()
"""The bound must dominate the score; single components trade off (e.g. efficiency vs speed)."""


PASS_THRESHOLD = 0.5
"""An episode 'passes' at this score (pass^k with ``--trials k``): v3's heuristic scores 0.48-0.74
across tasks and passes 40-100 % of held-out episodes per task (ladder seeds; 40 % on task2 and
task3_gridlock since stroke counts its good functional outcome), masked random 0 %, clairvoyant
50-100 %. Kept at 0.5 (v3 first round: heuristic 0.53-0.73, 63-100 %). v2: 0.4 (heuristic
0.39-0.56); before v2's in-hospital calibration 0.3; v0: 0.5."""
