"""Baseline ladder for ``dispatch``: hold, closest-idle, DMEXCLP, DMEXCLP with verification
(``verify_dmexclp``, the registered reference) and the clairvoyant bound, the hidden-information
probes (``oracle``, ``verify_then_dispatch``) and the exploit policies.

``closest_idle``, ``dmexclp``, ``verify_then_dispatch`` and ``verify_dmexclp`` see only the
observation (reported statuses and positions, the visible calls, reported hospital status) plus
the static city map;
``oracle`` additionally reads the hidden severity and fake-call flags; ``bound`` reads the full
state. The exploits (``swarm``, ``aid_spam``, ``type_blind``, ``park_then_answer``,
``verify_everything``, ``ignore_priority``, ``priority_only``, ``reroute_churn``,
``relocate_churn``) are policies
written against the grader; the exploit suite (``lifeline.testing.run_exploit_suite``) proves they
neither beat the bound nor beat the reference while trading expected deaths for score.
"""

from __future__ import annotations

import copy
import math
from typing import Any, cast

import numpy as np

from lifeline.core.agent import Agent
from lifeline.core.env import Action, Environment
from lifeline.envs.dispatch import dynamics
from lifeline.envs.dispatch.env import DispatchEnv
from lifeline.envs.dispatch.reward import (
    benefit,
    capability,
    response_ratio,
    untreated_risk,
)
from lifeline.envs.dispatch.types import (
    DISPATCHABLE,
    EN_ROUTE,
    HOSPITAL_CHOICE,
    IDLE,
    REAL,
    RETURNING,
    AssignHospital,
    Dispatch,
    DispatchAction,
    DispatchState,
    Hold,
    Relocate,
    RequestMutualAid,
    Verify,
)

# observation column indices (see lifeline/envs/dispatch/observation.py)
C_PRESENT, C_NODE, C_RTYPE, C_TONE, C_AGE, C_ASSIGNED, C_NEEDED = 0, 1, 3, 4, 5, 6, 7
C_VERIFIED, C_CONF = 8, 9
U_ALS, U_STATUS, U_NODE, U_DEST, U_SINCE, U_HOSP = 1, 2, 3, 4, 5, 7
H_DIVERT = 1


class HoldAgent(Agent):
    """Never dispatches anything (``hold`` every step): the floor of the ladder."""

    name = "hold"

    def act(self, env: Environment, state: Any) -> Action | int:
        return Hold()


def _check(env: Environment) -> DispatchEnv:
    if not isinstance(env, DispatchEnv):
        raise TypeError(f"this agent plays dispatch, not {type(env).__name__}")
    return env


class ClosestIdleAgent(Agent):
    """The industry default: the closest free unit goes to the most urgent unassigned call.

    Urgency is the protocol priority of the reported type plus the caller's tone; ETAs come from
    the last reported position (interpolated along a reported trip) on the static map. Patients
    go to the nearest hospital not reported on divert; mutual aid is requested when two or more
    calls wait with no free unit. Uses only the observation.
    """

    name = "closest_idle"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _check(env)
        obs = e.observe(state)
        for choose in (self._dispatch, self._hospital, self._aid, self._reposition):
            action = choose(e, obs)
            if action is not None:
                return action
        return Hold()

    # ----- pieces (overridden by subclasses) -------------------------------------------------
    def _etas(self, e: DispatchEnv, obs: dict[str, np.ndarray], node: int) -> np.ndarray:
        """Estimated minutes from each unit to ``node`` (inf for units not free by report)."""
        units = obs["units"]
        dist = e.ctx.free_graph.dist
        mult = float(obs["clock"][2])
        status = units[:, U_STATUS].astype(np.int64)
        a = units[:, U_NODE].astype(np.int64)
        b = units[:, U_DEST].astype(np.int64)
        trip = dist[a, b] * mult
        frac = np.clip(units[:, U_SINCE] / np.maximum(trip, 1e-9), 0.0, 1.0)
        frac[status == IDLE] = 0.0
        eta = ((1.0 - frac) * dist[a, node] + frac * dist[b, node]) * mult
        return np.where(DISPATCHABLE[status], eta, np.inf)

    def _call_order(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> list[int]:
        calls = obs["calls"]
        slots = [k for k in range(e.ctx.K) if calls[k, C_PRESENT] > 0
                 and calls[k, C_ASSIGNED] < calls[k, C_NEEDED]]
        urg = e.ctx.urgency

        def key(k: int) -> tuple[float, float]:
            first = 0.0 if calls[k, C_ASSIGNED] == 0 else -10.0  # second units come last
            return (-(urg[int(calls[k, C_RTYPE])] + 0.7 * calls[k, C_TONE] + first),
                    -float(calls[k, C_AGE]))

        return sorted(slots, key=key)

    prefer_als: bool = True
    """Send an ALS unit to a high-urgency call if one is at most 2 min further away."""

    def _dispatch(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> Action | None:
        calls = obs["calls"]
        for k in self._call_order(e, obs):
            eta = self._etas(e, obs, int(calls[k, C_NODE]))
            if not np.isfinite(eta).any():
                return None
            u = int(np.argmin(eta))
            if (self.prefer_als and e.ctx.urgency[int(calls[k, C_RTYPE])] >= 2.0
                    and not obs["units"][u, U_ALS]):
                als = np.where(obs["units"][:, U_ALS] > 0, eta, np.inf)
                if np.isfinite(als).any() and als.min() <= eta[u] + 2.0:
                    u = int(np.argmin(als))
            return Dispatch(unit=u, call=k)
        return None

    def _hospital(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> Action | None:
        units, hosp = obs["units"], obs["hospitals"]
        dist = e.ctx.free_graph.dist
        for u in range(e.ctx.U):
            status = int(units[u, U_STATUS])
            if not HOSPITAL_CHOICE[status]:
                continue
            node = int(units[u, U_DEST]) if status == EN_ROUTE else int(units[u, U_NODE])
            current = int(units[u, U_HOSP]) - 1
            if current >= 0 and hosp[current, H_DIVERT] == 0:
                continue
            d = dist[node, e.ctx.hosp_node] + np.where(hosp[:, H_DIVERT] > 0, 1e3, 0.0)
            best = int(np.argmin(d))
            if best != current and (current < 0 or hosp[best, H_DIVERT] == 0):
                return AssignHospital(unit=u, hospital=best)
        return None

    def _aid(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> Action | None:
        calls, units = obs["calls"], obs["units"]
        waiting = int(np.sum((calls[:, C_PRESENT] > 0) & (calls[:, C_ASSIGNED] == 0)))
        free = DISPATCHABLE[units[:, U_STATUS].astype(np.int64)].any()
        if obs["clock"][4] > 0 and waiting >= 2 and not free:
            return RequestMutualAid()
        return None

    def _reposition(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> Action | None:
        return None


class DMEXCLPAgent(ClosestIdleAgent):
    """Closest-idle dispatch plus DMEXCLP move-up (Jagtenberg, Bhulai & van der Mei 2015).

    Expected coverage (MEXCLP) of node j with k free units within ``coverage_min`` is
    ``d_j (1 − q^k)``, ``q`` the share of the fleet busy now (floored at ``busy_floor``); moving
    free unit ``u`` from where it is (or is heading) to post ``p`` changes it by exactly
    ``Σ_j d_j (1 − q) q^(k_j − [u covers j]) ([p covers j] − [u covers j])``. At every epoch with
    nothing to dispatch, the best such move of one free unit (idle or returning, not moved in the
    last ``settle_min``) to a post within ``reach_min`` is made when its gain beats the
    threshold plus ``per_min`` per minute of the drive (a relocating unit counts as no cover
    while it drives; a returning unit is driving anyway, so only the extra minutes count).
    v0-v3's version moved only returning units and only for a gain of 0.15 of the demand and
    3× the gain at home — it almost never fired. Uses only the observation.
    """

    name = "dmexclp"
    threshold = 0.05
    """Least gain in expected covered demand (share of the city's demand) worth a move."""
    threshold_units = 0.6
    """If > 0 (v4.1): the threshold is this many units' fair share of the demand
    (``threshold_units`` / units in service) instead of ``threshold``, so it scales with the
    fleet. v4's fixed 0.05 of the city's demand (≈ 0.6 / 11 on the 20-node city) was out of reach
    of most single moves on the metro city, where one of 30 units has 1/30 of the demand:
    training seeds 0-19 of ``metro_advanced``, dmexclp − closest_idle +0.014 ± 0.012 with 0.05,
    +0.027 ± 0.017 with 0.6 units' share (0.3: +0.045; 0.3 with ALS units kept home: +0.031 and
    −0.009 ± 0.014 on ``warmup`` seeds 0-39, against −0.004 ± 0.005 at 0.6)."""
    min_busy = 0.0
    """No move-up while fewer than this share of the in-service fleet is busy. Off: on training
    seeds 0-39 a floor of 0.25 / 0.35 gave +0.010 / +0.006 on ``expert`` (+0.016 without) and
    −0.004 / −0.001 on ``warmup`` (−0.004 without)."""
    per_min = 0.001
    """Extra gain needed per minute of relocation drive."""
    reach_min = 20.0
    """Posts farther than this many minutes (by the current multiplier) are not considered."""
    busy_floor = 0.1
    """Floor of the busy fraction ``q`` (MEXCLP needs q > 0; an idle fleet is still busy soon)."""
    q_fixed = 0.0
    """If > 0: MEXCLP's busy fraction is this constant (the paper's long-run estimate) instead
    of the share of the fleet busy now."""
    settle_min = 30.0
    """A unit the policy relocated is left alone this many minutes (no ping-pong)."""
    bases_only = 0.0
    """1: units move only to staffed stations (DMEXCLP's bases), not to other posts."""
    move_als = 0.0
    """0: ALS units are never moved (they stay where the advanced calls expect them). v4.1: 0
    (v4: 1); on ``expert`` training seeds 0-39 dmexclp − closest_idle was +0.002 ± 0.018 moving
    ALS units and +0.016 ± 0.015 keeping them home (the tiered dispatch relies on them)."""
    move_idle = 1.0
    """1: idle units may be moved up too; 0: only freed (returning) units are redirected, as in
    DMEXCLP proper."""

    als_window = 2.0
    """Tiered dispatch: a high-urgency call (reported urgency ≥ 2) gets the nearest ALS unit if
    it is at most this many minutes further than the nearest unit (closest-idle: 2)."""
    bls_window = 0.0
    """...and a low-urgency call (urgency < 2 and a calm caller) the nearest BLS unit if it is at
    most this many minutes further, keeping ALS units free for the severe calls (tuned on
    training seeds 0-9: 6 / 3 and 4 / 3 scored below 2 / 0, so the defaults are closest-idle's
    windows)."""

    cover_window = 0.0
    """Coverage-aware dispatch: a call that does not look P1 (reported urgency < 2 or, with
    ``cover_urgent``, any call whose caller is not screaming) may get a free unit up to this
    many minutes further than the nearest if sending it leaves the city better covered (see
    ``_cover_choice``); 0 = nearest unit (closest-idle's rule). Off: on training seeds a
    3-min window gained +0.004 ± 0.018 on ``expert`` (0-39) and cost 0.001 on ``metro_warmup``
    (0-19); with the fleet-scaled threshold it lowered ``metro_advanced`` from +0.027 to +0.022
    over closest-idle."""
    cover_per_min = 0.02
    """Coverage (share of the city's demand) one extra response minute must buy."""
    cover_urgent = 0.0
    """1: the coverage-aware choice applies to urgent-looking calls too."""

    def _etas(self, e: DispatchEnv, obs: dict[str, np.ndarray], node: int) -> np.ndarray:
        """Minutes from each free unit to ``node``: a moving unit first finishes the road it is
        on (as the env moves it), found by walking its reported trip on the map (closest-idle
        interpolates linearly, which makes a unit half-way along a 10-min road look close)."""
        units = obs["units"]
        g = e.ctx.free_graph
        mult = float(obs["clock"][2])
        status = units[:, U_STATUS].astype(np.int64)
        a = units[:, U_NODE].astype(np.int64)
        b = units[:, U_DEST].astype(np.int64)
        since = units[:, U_SINCE].astype(float)
        eta = np.where(DISPATCHABLE[status], g.dist[a, node] * mult, np.inf)
        for u in np.flatnonzero(DISPATCHABLE[status] & (status != IDLE) & (a != b)):
            here, t, src, dst = int(a[u]), 0.0, int(a[u]), int(b[u])
            while here != dst:
                nxt = int(g.pred[dst, here])
                t += float(g.weight[here, nxt]) * mult
                here = nxt
                if t > since[u]:
                    break
            eta[u] = max(t - since[u], 0.0) + float(g.dist[here, node]) * mult
            del src
        return eta

    def _dispatch(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> Action | None:
        calls, units = obs["calls"], obs["units"]
        for k in self._call_order(e, obs):
            eta = self._etas(e, obs, int(calls[k, C_NODE]))
            if not np.isfinite(eta).any():
                return None
            u = int(np.argmin(eta))
            als = units[:, U_ALS] > 0
            urgent = e.ctx.urgency[int(calls[k, C_RTYPE])] >= 2.0
            if urgent and not als[u]:
                alt = np.where(als, eta, np.inf)
                if np.isfinite(alt).any() and alt.min() <= eta[u] + self.als_window:
                    u = int(np.argmin(alt))
            elif not urgent and calls[k, C_TONE] == 0 and als[u]:
                alt = np.where(~als, eta, np.inf)
                if np.isfinite(alt).any() and alt.min() <= eta[u] + self.bls_window:
                    u = int(np.argmin(alt))
            if (self.cover_window > 0 and calls[k, C_ASSIGNED] == 0
                    and (not urgent or self.cover_urgent) and calls[k, C_TONE] < 2):
                u = self._cover_choice(e, obs, eta, u)
            return Dispatch(unit=u, call=k)
        return None

    def _coverage_loss(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> np.ndarray:
        """Per unit: expected covered demand (MEXCLP, as in ``_reposition``) lost when it leaves
        the free fleet, ``Σ_j d_j (1 − q) q^(k_j − 1) [u covers j]`` (0 for units not free)."""
        units = obs["units"]
        status = units[:, U_STATUS].astype(np.int64)
        free = DISPATCHABLE[status]
        in_service = status > 0
        q = float(np.clip(1.0 - free.sum() / max(int(in_service.sum()), 1), self.busy_floor,
                          0.95)) if self.q_fixed <= 0 else self.q_fixed
        in_range, _ = self._in_range(e, float(obs["clock"][2]))
        dest = units[:, U_DEST].astype(np.int64)
        own = in_range[dest] * free[:, None]
        k_all = own.sum(axis=0)
        marg = e.ctx.demand * (1.0 - q) * q ** np.maximum(k_all - 1, 0)
        return (own * marg[None, :]).sum(axis=1)

    def _cover_choice(self, e: DispatchEnv, obs: dict[str, np.ndarray], eta: np.ndarray,
                      u: int) -> int:
        """Coverage-aware dispatch (Jagtenberg, Bhulai & van der Mei 2017, "Dynamic ambulance
        dispatching: is the closest-idle policy always optimal?"): among the free units at most
        ``cover_window`` minutes further than unit ``u``, send the one whose departure costs the
        least coverage, each extra minute of response weighed as ``cover_per_min`` of the
        city's demand."""
        near = np.isfinite(eta) & (eta <= eta[u] + self.cover_window)
        if near.sum() < 2:
            return u
        loss = self._coverage_loss(e, obs)
        cost = np.where(near, loss + self.cover_per_min * (eta - eta[u]), np.inf)
        best = int(np.argmin(cost))
        return best if cost[best] < cost[u] - 1e-12 else u

    def reset(self, env: Environment, seed: int) -> None:
        self._moved: dict[int, float] = {}
        self._cache: tuple[float, np.ndarray, np.ndarray] | None = None

    def _in_range(self, e: DispatchEnv, mult: float) -> tuple[np.ndarray, np.ndarray]:
        """``(in_range (N×N float), in_range at the posts (P×N))`` at this multiplier (cached)."""
        cache = getattr(self, "_cache", None)
        if cache is None or cache[0] != mult:
            rng = (e.ctx.free_graph.dist * mult <= e.ctx.p.coverage_min).astype(float)
            cache = (mult, rng, rng[e.ctx.posts])
            self._cache = cache
        return cache[1], cache[2]

    def _reposition(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> Action | None:
        units = obs["units"]
        t, mult = float(obs["clock"][0]), float(obs["clock"][2])
        status = units[:, U_STATUS].astype(np.int64)
        in_service = status[:e.ctx.n_fleet] > 0
        free = DISPATCHABLE[status[:e.ctx.n_fleet]]
        if not free.any():
            return None
        if 1.0 - free.sum() / max(int(in_service.sum()), 1) < self.min_busy:
            return None
        moved = getattr(self, "_moved", None)
        if moved is None:
            self.reset(e, 0)
            moved = self._moved
        dest = units[:e.ctx.n_fleet, U_DEST].astype(np.int64)
        node = units[:e.ctx.n_fleet, U_NODE].astype(np.int64)
        in_range, post_range = self._in_range(e, mult)
        q = float(np.clip(1.0 - free.sum() / max(int(in_service.sum()), 1), self.busy_floor,
                          0.95)) if self.q_fixed <= 0 else self.q_fixed
        k_all = in_range[dest[free]].sum(axis=0)
        movable = status[:e.ctx.n_fleet] == RETURNING
        if self.move_idle:
            movable |= status[:e.ctx.n_fleet] == IDLE
        if not self.move_als:
            movable &= units[:e.ctx.n_fleet, U_ALS] == 0
        cand = np.flatnonzero(free & movable)
        cand = np.asarray([u for u in cand if t - moved.get(int(u), -1e9) >= self.settle_min],
                          np.int64)
        if cand.size == 0:
            return None
        own = in_range[dest[cand]]  # (F, N): what each candidate covers where it is heading
        marg = e.ctx.demand * (1.0 - q) * q ** (k_all[None, :] - own)
        gain = marg @ post_range.T - (marg * own).sum(axis=1)[:, None]  # (F, P)
        dist = e.ctx.free_graph.dist
        drive = dist[node[cand]][:, e.ctx.posts] * mult
        planned = (dist[node[cand], dest[cand]] * mult)[:, None]
        extra = np.where((status[cand] == RETURNING)[:, None], np.maximum(drive - planned, 0.0),
                         drive)
        thr = (self.threshold if self.threshold_units <= 0
               else self.threshold_units / max(int(in_service.sum()), 1))
        need = thr + self.per_min * extra
        ok = (drive <= self.reach_min) & (e.ctx.posts[None, :] != dest[cand][:, None])
        if self.bases_only:
            ok &= np.isin(e.ctx.posts, e.ctx.p.city.unit_home[:e.ctx.p.on_duty])[None, :]
        margin = np.where(ok, gain - need, -np.inf)
        i, j = np.unravel_index(int(np.argmax(margin)), margin.shape)
        if margin[i, j] <= 0.0:
            return None
        u = int(cand[i])
        moved[u] = t
        return Relocate(unit=u, post=int(j))


class DMEXCLPStaticAgent(DMEXCLPAgent):
    """``dmexclp`` with its move-up switched off (an unreachable threshold): the same dispatch
    rules, units stay at their stations. Its margin below ``dmexclp`` is what move-up is worth."""

    name = "dmexclp_static"
    threshold = float("inf")
    threshold_units = 0.0


class BoundAgent(DMEXCLPAgent):
    """Clairvoyant upper bound: reads the full state (true severity, fake calls, true positions).

    Follows the offline MILP reference plan (``scipy.optimize.milp``) computed at reset on the
    realised call stream: each real call gets its planned unit when that unit is free and nearly
    as close as the truly closest free unit, otherwise the truly closest (ALS preferred for
    severe calls). It never answers false alarms or ghost calls, sends patients to the nearest
    hospital that is truly not on divert, stages an idle unit at the place of a real call that
    will ring within 15 min when no unit could reach it in the reference time, and otherwise
    holds (v4: no DMEXCLP move-up, see ``move_up``).
    """

    name = "bound"
    threshold_units = 0.0
    """The bound keeps v4's move-up settings (a fixed threshold, ALS units movable)."""
    move_als = 1.0

    def reset(self, env: Environment, seed: int) -> None:
        super().reset(env, seed)
        self._picked = not self.choose

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _check(env)
        s: DispatchState = state
        if not self._picked:
            self.move_up = self._best_move_up(e, s)
            self._picked = True
        obs = e.observe(s)
        steps = (self._dispatch_true, self._hospital_true, self._aid_true,
                 *((self._stage,) if self.stage else ()))
        for choose in steps:
            action = choose(e, s)
            if action is not None:
                return action
        action = self._reposition(e, obs) if self.move_up else None
        return action if action is not None else Hold()

    move_up = 0.0
    """1: free units are also moved up like ``dmexclp``; 0: they hold (the bound stages units
    where real calls will ring either way). Neither is better everywhere — on the exploit seeds
    (6, paired) the bound scored 0.750 / 0.929 / 0.701 with move-up and 0.756 / 0.950 / 0.722
    without on ``learning`` / ``expert`` / ``mass_casualty``, but on ``warmup`` without it its
    response credit (0.967) fell below dmexclp's (0.986) — so with ``choose`` it is picked per
    episode."""
    choose = 1.0
    """1: at the first step, play the shift to its end on copies of the state both with and
    without move-up (the bound knows the realised future, so this is exact) and keep the one
    that scores higher: the bound is the best of the two clairvoyant plans on every seed."""

    def _best_move_up(self, e: DispatchEnv, s: DispatchState) -> float:
        """The ``move_up`` setting whose clairvoyant play of this shift scores higher."""
        best, best_score = 0.0, -math.inf
        for setting in (0.0, 1.0):
            sim = copy.deepcopy(s)
            player = type(self)()
            player.choose, player.move_up = 0.0, setting
            player.reset(e, 0)
            while not sim.done:
                e.step(sim, cast("DispatchAction | int", player.act(e, sim)))
            score = e.grade(sim).score
            if score > best_score:
                best, best_score = setting, score
        return best

    horizon_min = 15.0
    """How far ahead the bound looks to stage a unit at a future real call's location."""
    follow_plan = 0.0
    """1: prefer the MILP plan's unit when it is at most 1 min further than the closest (v0-v3;
    off in v4: the response credit is absolute, and following the plan scored 0.853 against
    0.870 without it on the exploit seeds of ``advanced``)."""
    als_pref = 1.0
    """1: a severe call gets the nearest ALS unit if it is at most 2 min further (v0-v3)."""
    als_better = 1.0
    """1: the ALS swap of :meth:`_als_if_better` (v3)."""
    follow_plan_below_p1 = 0.0
    """1: follow the plan's unit (as above) for P2 and P3 calls only; a P1 call gets the
    fastest unit."""
    stage = 1.0
    """1: clairvoyant staging of idle units where real calls will ring."""

    def _stage(self, e: DispatchEnv, s: DispatchState) -> Action | None:
        """Clairvoyant staging: move a free idle unit to where a real call will ring soon."""
        upcoming = np.flatnonzero((s.c_time > s.t) & (s.c_time <= s.t + self.horizon_min)
                                  & (s.c_kind == REAL))
        post_dist = s.graph.dist[:, e.ctx.posts]
        for c in upcoming:
            node = int(s.c_node[c])
            post = int(np.argmin(post_dist[node]))
            target = int(e.ctx.posts[post])
            if np.any(DISPATCHABLE[s.u_obs_status] & (s.u_dest == target)):
                continue  # someone is already there or on the way
            idle = np.flatnonzero(s.u_obs_status == IDLE)
            if idle.size == 0:
                return None
            d = s.graph.dist[s.u_node[idle], target] * s.mult
            u = int(idle[np.argmin(d)])
            if d.min() <= float(s.c_bound[c]):
                continue  # a free unit can already make it within the reference time
            return Relocate(unit=u, post=post)
        return None

    def _true_etas(self, e: DispatchEnv, s: DispatchState, node: int, c: int = -1
                   ) -> np.ndarray:
        """True minutes from each free unit to ``node``; for call ``c`` (v4) with the call's
        drawn turn-out (a unit leaving from idle) and the response trip's travel factor."""
        free = DISPATCHABLE[s.u_obs_status]
        eta = np.full(e.ctx.U, np.inf)
        factor = float(s.c_travel[c]) if c >= 0 else 1.0
        for u in np.flatnonzero(free):
            nxt, rem = dynamics.where(s, int(u))
            lead = float(s.c_turnout[c]) if c >= 0 and s.u_status[u] == IDLE else 0.0
            eta[u] = lead + rem + s.graph.dist[nxt, node] * s.mult * factor
        return eta

    def _dispatch_true(self, e: DispatchEnv, s: DispatchState) -> Action | None:
        slots = [k for k in range(e.ctx.K) if s.visible[k] >= 0]
        cand = [k for k in slots if s.c_kind[s.visible[k]] == REAL
                and s.c_assigned[s.visible[k]] < s.c_needed[s.visible[k]]]
        if not cand:
            return None

        def key(k: int) -> tuple[float, float]:
            c = int(s.visible[k])
            second = 10.0 if s.c_assigned[c] > 0 else 0.0
            return (second - untreated_risk(e.ctx, int(s.c_type[c]), int(s.c_sev[c])),
                    float(s.c_time[c]))

        for k in sorted(cand, key=key):
            c = int(s.visible[k])
            eta = self._true_etas(e, s, int(s.c_node[c]), c)
            if not np.isfinite(eta).any():
                return None
            u = int(np.argmin(eta))
            planned = int(s.c_bound_unit[c])
            if ((self.follow_plan or (self.follow_plan_below_p1 and s.c_prio[c] > 0))
                    and planned >= 0 and np.isfinite(eta[planned])
                    and eta[planned] <= eta[u] + 1.0):
                u = planned
            elif self.als_pref and int(s.c_sev[c]) >= 2 and not s.u_als[u]:
                als = np.where(s.u_als, eta, np.inf)
                if np.isfinite(als).any() and als.min() <= eta[u] + 2.0:
                    u = int(np.argmin(als))
            if self.als_better and not s.u_als[u]:
                u = self._als_if_better(e, s, c, u, eta)
            return Dispatch(unit=u, call=k)
        return None

    @staticmethod
    def _als_if_better(e: DispatchEnv, s: DispatchState, c: int, u: int, eta: np.ndarray) -> int:
        """v3: the nearest ALS unit instead of basic unit ``u`` for a severe cardiac / stroke /
        respiratory call when its later arrival is still worth at least as much on the response
        credit and the (capped) survival benefit (the basic unit earns only ``bls_outcome`` of
        either) and is still within the call's target if the basic unit's would be."""
        ctype, sev = int(s.c_type[c]), int(s.c_sev[c])
        if capability(e.ctx, ctype, sev, False) >= 1.0:
            return u
        als = np.where(s.u_als, eta, np.inf)
        if not np.isfinite(als).any():
            return u
        a = int(np.argmin(als))
        waited = s.t - float(s.c_time[c])
        t_a, t_u = waited + float(eta[a]), waited + float(eta[u])
        ref, cap = float(e.ctx.prio_target[s.c_prio[c]]), float(s.c_bound_saved[c])
        credit_ok = (response_ratio(ref, t_a)
                     >= capability(e.ctx, ctype, sev, False) * response_ratio(ref, t_u))
        saved_ok = (min(benefit(e.ctx, ctype, sev, t_a, als=True), cap)
                    >= min(benefit(e.ctx, ctype, sev, t_u, als=False), cap))
        target = float(e.ctx.prio_target[s.c_prio[c]])  # v4: the priority target
        in_time_ok = t_a <= target  # v4: never swap to an ALS unit that misses the target
        return a if credit_ok and saved_ok and in_time_ok else u

    def _hospital_true(self, e: DispatchEnv, s: DispatchState) -> Action | None:
        for u in np.flatnonzero(HOSPITAL_CHOICE[s.u_obs_status]):
            c = int(s.u_call[u])
            if c < 0 or not s.c_transport[c]:
                continue
            div = np.array([dynamics.diverting(s, h) for h in range(e.ctx.H)])
            d = s.graph.dist[int(s.c_node[c]), e.ctx.hosp_node] + np.where(div, 1e3, 0.0)
            best = int(np.argmin(d))
            if best != s.u_hosp[u] and (s.u_hosp[u] < 0 or div[s.u_hosp[u]]):
                return AssignHospital(unit=int(u), hospital=best)
        return None

    def _aid_true(self, e: DispatchEnv, s: DispatchState) -> Action | None:
        waiting = sum(1 for c in s.visible if c >= 0 and s.c_kind[c] == REAL
                      and s.c_assigned[c] == 0)
        if s.mutual_aid_left > 0 and waiting >= 2 and not DISPATCHABLE[s.u_obs_status].any():
            return RequestMutualAid()
        return None


# ----- hidden-information probes --------------------------------------------------------------
class OracleAgent(ClosestIdleAgent):
    """Closest-idle dispatch with an oracle of the *call*: the true severity and which calls are
    false alarms or ghosts (everything else — units, hospitals — from the observation).

    It answers only real calls, most life-threatening first (untreated death risk by true
    severity). Its margin over ``closest_idle`` is what the hidden call information is worth.
    """

    name = "oracle"

    def act(self, env: Environment, state: Any) -> Action | int:
        self._state: DispatchState = state
        return super().act(env, state)

    def _call_order(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> list[int]:
        s = self._state
        calls = obs["calls"]
        slots = [k for k in range(e.ctx.K) if calls[k, C_PRESENT] > 0
                 and calls[k, C_ASSIGNED] < calls[k, C_NEEDED]
                 and s.c_kind[s.visible[k]] == REAL]

        def key(k: int) -> tuple[float, float]:
            c = int(s.visible[k])
            second = 10.0 if calls[k, C_ASSIGNED] > 0 else 0.0
            risk = untreated_risk(e.ctx, int(s.c_type[c]), int(s.c_sev[c]))
            return (second - risk - 0.01 * e.ctx.urgency[int(s.c_type[c])],
                    -float(calls[k, C_AGE]))

        return sorted(slots, key=key)


class VerifyThenDispatchAgent(ClosestIdleAgent):
    """Closest-idle that calls back every new call first and holds the doubtful ones.

    Observation only. A call whose verification confidence is below ``doubt_below`` gets no unit
    while it could still be a fake: false alarms and ghost calls are cancelled
    ``fake_expiry_min`` (30 min) after they ring, so a doubtful call still open then is real, and
    it goes to the front of the queue. Verification costs one action slot and no simulated time.
    """

    name = "verify_then_dispatch"
    doubt_below = 0.4
    """Below this confidence (P ≈ 0.004 for a real call, 0.84 for a false alarm, 0.96 for a
    ghost with the default ``verify_beta``) a call is doubtful."""

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _check(env)
        calls = e.observe(state)["calls"]
        for k in range(e.ctx.K):
            if calls[k, C_PRESENT] > 0 and calls[k, C_VERIFIED] == 0 \
                    and calls[k, C_ASSIGNED] == 0:
                return Verify(call=k)
        return super().act(env, state)

    def _call_order(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> list[int]:
        calls = obs["calls"]
        order = super()._call_order(e, obs)
        proven = [k for k in order if calls[k, C_AGE] >= e.params.fake_expiry_min]
        sure = [k for k in order if k not in proven and not (
            calls[k, C_VERIFIED] > 0 and calls[k, C_CONF] < self.doubt_below)]
        return proven + sure


class VerifyDMEXCLPAgent(VerifyThenDispatchAgent, DMEXCLPAgent):
    """The coverage-aware rung with the hidden-information signal: ``verify_then_dispatch``'s
    call-back-and-hold of doubtful calls on top of ``dmexclp``'s dispatch and move-up.

    No logic of its own: by the method order, ``act`` calls back every new call first
    (``VerifyThenDispatchAgent.act``), the queue drops doubtful calls still young enough to be
    fakes (``VerifyThenDispatchAgent._call_order``), and the rest is ``dmexclp``: road-walking
    ETAs, tiered dispatch and, at epochs with nothing to dispatch (a held doubtful call
    included), DMEXCLP move-up. Observation only. ``doubt_below`` is the verification threshold
    (``VerifyThenDispatchAgent``), ``threshold_units`` / ``threshold`` the move-up ones.
    """

    name = "verify_dmexclp"


# ----- exploit policies (each must lose; see the exploit suite) -----------------------------------
class SwarmAgent(ClosestIdleAgent):
    """Send everything: every open call (fakes too) gets its closest free unit in slot order, all
    mutual aid is requested at once, and idle units converge on the open calls' posts."""

    name = "swarm"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _check(env)
        obs = e.observe(state)
        if obs["clock"][4] > 0:
            return RequestMutualAid()
        calls = obs["calls"]
        for k in range(e.ctx.K):
            if calls[k, C_PRESENT] > 0 and calls[k, C_ASSIGNED] < calls[k, C_NEEDED]:
                eta = self._etas(e, obs, int(calls[k, C_NODE]))
                if np.isfinite(eta).any():
                    return Dispatch(unit=int(np.argmin(eta)), call=k)
        units = obs["units"]
        open_nodes = calls[calls[:, C_PRESENT] > 0, C_NODE].astype(np.int64)
        if open_nodes.size:
            post_dist = e.ctx.free_graph.dist[open_nodes][:, e.ctx.posts].min(axis=0)
            post = int(np.argmin(post_dist))
            for u in np.flatnonzero(units[:, U_STATUS] == IDLE):
                if int(units[u, U_DEST]) != int(e.ctx.posts[post]):
                    return Relocate(unit=int(u), post=post)
        return Hold()


class AidSpamAgent(ClosestIdleAgent):
    """Closest-idle that requests mutual aid whenever any is left (v0: aid was free)."""

    name = "aid_spam"

    def _aid(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> Action | None:
        return RequestMutualAid() if obs["clock"][4] > 0 else None


class TypeBlindAgent(ClosestIdleAgent):
    """Nearest free unit whatever its type: BLS to cardiac arrests if it is closer."""

    name = "type_blind"
    prefer_als = False


class ParkThenAnswerAgent(ClosestIdleAgent):
    """Keeps the fleet parked (full readiness) and answers calls only in the last 30 minutes."""

    name = "park_then_answer"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _check(env)
        if e.observe(state)["clock"][1] > 30.0:
            return Hold()
        return super().act(env, state)


class VerifyEverythingAgent(ClosestIdleAgent):
    """Verifies every call (free in simulated time), then plays closest-idle ignoring the result:
    spending a free action must not be worth score by itself."""

    name = "verify_everything"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _check(env)
        calls = e.observe(state)["calls"]
        for k in range(e.ctx.K):
            if calls[k, C_PRESENT] > 0 and calls[k, C_VERIFIED] == 0:
                return Verify(call=k)
        return super().act(env, state)


class IgnorePriorityAgent(ClosestIdleAgent):
    """First come, first served: the oldest waiting call gets the closest free unit."""

    name = "ignore_priority"

    def _call_order(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> list[int]:
        calls = obs["calls"]
        return [k for k in range(e.ctx.K) if calls[k, C_PRESENT] > 0
                and calls[k, C_ASSIGNED] < calls[k, C_NEEDED]]


class PriorityOnlyAgent(ClosestIdleAgent):
    """v4 probe of the priority-weighted grader: answers only calls that look like P1 (reported
    urgency ≥ 2 or a screaming caller) and leaves the rest waiting, keeping the fleet free for
    the heavily weighted calls and the P1 components."""

    name = "priority_only"

    def _call_order(self, e: DispatchEnv, obs: dict[str, np.ndarray]) -> list[int]:
        calls = obs["calls"]
        return [k for k in super()._call_order(e, obs)
                if e.ctx.urgency[int(calls[k, C_RTYPE])] >= 2.0 or calls[k, C_TONE] >= 2]


class RerouteChurnAgent(ClosestIdleAgent):
    """Closest-idle that, once per epoch, reroutes an en-route unit to another waiting call
    (cancel churn: each reroute unassigns the old call)."""

    name = "reroute_churn"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _check(env)
        s: DispatchState = state
        action = super().act(env, state)
        if isinstance(action, Hold) and s.epoch_actions == 0:
            mask = e.action_mask(s)
            block = np.flatnonzero(mask[e.layout.reroute:e.layout.relocate])
            if block.size:
                return e.decode(e.layout.reroute + int(block[0]))
        return action


class RelocateChurnAgent(ClosestIdleAgent):
    """Closest-idle that shuffles an idle unit to another post every epoch (coverage churn)."""

    name = "relocate_churn"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _check(env)
        s: DispatchState = state
        action = super().act(env, state)
        if isinstance(action, Hold) and s.epoch_actions == 0:
            idle = np.flatnonzero(s.u_obs_status == IDLE)
            if idle.size:
                u = int(idle[int(s.t) % idle.size])
                post = (int(s.t) * 7 + u) % e.ctx.P
                if e.ctx.posts[post] != s.u_dest[u]:
                    return Relocate(unit=u, post=post)
        return action


AGENTS: dict[str, type[Agent]] = {
    "hold": HoldAgent,
    "closest_idle": ClosestIdleAgent,
    "dmexclp": DMEXCLPAgent,
    "dmexclp_static": DMEXCLPStaticAgent,
    "bound": BoundAgent,
    "oracle": OracleAgent,
    "verify_then_dispatch": VerifyThenDispatchAgent,
    "verify_dmexclp": VerifyDMEXCLPAgent,
    "swarm": SwarmAgent,
    "aid_spam": AidSpamAgent,
    "type_blind": TypeBlindAgent,
    "park_then_answer": ParkThenAnswerAgent,
    "verify_everything": VerifyEverythingAgent,
    "ignore_priority": IgnorePriorityAgent,
    "priority_only": PriorityOnlyAgent,
    "reroute_churn": RerouteChurnAgent,
    "relocate_churn": RelocateChurnAgent,
}
"""The dispatch ladder's own agents (``random`` is generic) and its exploit policies."""

EXPLOITS: tuple[str, ...] = ("swarm", "aid_spam", "type_blind", "park_then_answer",
                             "verify_everything", "ignore_priority", "priority_only",
                             "reroute_churn", "relocate_churn")
"""The dispatch exploit policies (``EnvSpec.exploits``), shared by both cities."""

TEXT_POLICY = "lifeline.envs.dispatch.text_agent:DispatchTextPolicy"
"""The env's text-only heuristic (``EnvSpec.text_policy``; see ``text_agent.py``)."""

TEXT_POLICY_TWIN = "closest_idle"
"""The structured agent the text heuristic mirrors (closest-idle's rules from the text view),
not the env's reference ``verify_dmexclp`` (tests/agents/test_text_heuristic.py)."""

BOUNDED_COMPONENTS: tuple[str, ...] = ("response", "survival")
"""Components no policy may push above the bound's (exploit suite), besides the score itself.

v1-v3 bounded all three components (coverage counts only calls answered within target since v1,
so parking the fleet no longer keeps readiness). v4's bound maximises the score, and three of
v4's components are not maximised by a plan that maximises the score, so the suite checks the
score and the two components that are:

* ``p1_on_target`` and ``p1_p90`` time the *first* unit at a P1 call whatever its type, while
  the score's response and survival credit a basic unit at a severe cardiac / stroke /
  respiratory call only ``bls_outcome`` of their worth. The bound sends the nearest ALS unit when
  it is at most 2 min further, so the nearest-unit ``type_blind`` reaches more P1 calls first:
  on ``metro_warmup`` (exploit seeds) P1 on-target 0.830 against the bound's 0.807, P1 p90
  credit 0.982 against 0.960, while it scores 0.935 against the bound's 0.942 (response 0.932
  against 0.974). Dropping the ALS preference raises those two and costs the bound 0.015 of
  score on ``expert`` (training seeds).
* ``coverage`` is readiness (the demand share near an idle unit) times the in-time share, and
  that share is type-blind in the same way: on ``metro_warmup`` ``type_blind`` has coverage
  0.922 against the bound's 0.916. It also trades against survival: DMEXCLP move-up buys
  readiness by moving units off their stations; a bound made to always move up (``move_up``)
  had coverage 0.759 but survival 0.774 on ``learning`` against 0.742 / 0.817 for the bound
  that picks per shift (score 0.750 against 0.766).

Each of the three is still reported per episode and the score, which weighs them, is bounded."""


PASS_THRESHOLD = 0.78
"""An episode 'passes' at this score (pass^k with ``--trials k``): between closest-idle on expert
(0.755) and advanced (0.805) in v4 (30 held-out seeds; v3: 0.845, between 0.839 and 0.853; v2:
0.65; v1: 0.75)."""
