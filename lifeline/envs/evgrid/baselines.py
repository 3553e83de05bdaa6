"""Baseline ladder for ``evgrid`` and its exploit policies (``AGENTS`` at the end).

``never_route`` < ``nearest`` (uncontrolled: nearest station with a reported free slot, full
power, plugged-in EVs start at once) < ``greedy`` (station by travel + queue + the energy the
walk-up would miss before its stay limit at that charger's power and derating + feeder stress +
price; time-shifted plugged-in EVs; curtailment when the headroom forecast goes negative) ≤
``mpc`` (rolling-horizon plan of every plugged-in EV on a zone × tick load table: forecast,
expected base load, committed sessions; a thermal lookahead that prices each plan by the
transformer ageing it adds; critical walk-ups' missing kWh priced as harm) ≤ ``bound`` (an
upper reference on a *relaxed* problem:
clairvoyant, offline LP for plugged-in EVs, no stay limits, no background occupancy, limits
×1.6, exact reports). Observation-only agents use the public map, tariff and persona ranges
(``env.ctx``, ``params``), never hidden truth; ``bound`` reads the state.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from lifeline.core.agent import Agent
from lifeline.core.env import Action, Environment
from lifeline.envs.evgrid import thermal
from lifeline.envs.evgrid.dynamics import QUEUE_GRACE_MIN
from lifeline.envs.evgrid.env import EVGridEnv
from lifeline.envs.evgrid.params import MAX_STAY_MIN, MAX_WAIT_MIN, WEIGHT
from lifeline.envs.evgrid.reward import AGEING_RATE
from lifeline.envs.evgrid.rules import routable
from lifeline.envs.evgrid.types import DONE, FUTURE, Defer, EVGridState, Hold, LoadShift, Route

# observation columns (lifeline/envs/evgrid/observation.py)
E_DWELL, E_NEED, E_MAXKW, E_WAITED, E_DEPART, E_SITE = 2, 4, 5, 7, 9, 10
S_FREE, S_QUEUE, S_PRICE, S_CHARGING, S_ENROUTE, S_LOAD = 3, 4, 6, 7, 8, 10
Z_OURS, Z_OIL, Z_HOT = 2, 7, 8
SESSION_KWH = 22.0
"""Rough energy of a walk-up session, kWh (queue waits are estimated from it and the power)."""


def _route(ev: int, station: int, fraction: float) -> Route:
    """``route`` with the charge rate given as a fraction of full power (0.4, 0.7, 1.0)."""
    return Route(ev=ev, station=station, charge_rate=round(fraction * 100))


def _env(env: Environment) -> EVGridEnv:
    if not isinstance(env, EVGridEnv):
        raise TypeError(f"this agent plays evgrid, not {type(env).__name__}")
    return env


class NeverRouteAgent(Agent):
    """Never routes an EV: holds every tick (the floor of the ladder)."""

    name = "never_route"

    def act(self, env: Environment, state: Any) -> Action | int:
        return Hold()


class _Base(Agent):
    """Shared pieces: one decision per call, walk-ups and plugged-in EVs in slot order."""

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        obs = e.observe(state)
        shift = self.shift(e, state, obs)
        if shift is not None:
            return shift
        ok = routable(state, e.ctx)
        evs = obs["evs"]
        order = [k for k in range(e.ctx.K) if evs[k, 0] > 0 and evs[k, E_DWELL] == 0] + [
            k for k in range(e.ctx.K) if evs[k, 0] > 0 and evs[k, E_DWELL] > 0]
        for k in order:
            if evs[k, E_DWELL] > 0:
                action = self.dwell(e, state, obs, k)
            else:
                action = self.walkup(e, state, obs, k, ok[k])
            if action is not None:
                return action
        return Hold()

    def shift(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray]) -> Action | None:
        return None

    def dwell(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray], k: int
              ) -> Action | None:
        site = int(obs["evs"][k, E_SITE]) - 1
        return _route(k, site, 1.0)

    def walkup(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray], k: int,
               ok: np.ndarray) -> Action | None:
        raise NotImplementedError


class NearestAgent(_Base):
    """Uncontrolled charging: nearest station with a reported free slot (else the nearest in
    range), full power; plugged-in EVs start at full power on arrival. No curtailment."""

    name = "nearest"

    def walkup(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray], k: int,
               ok: np.ndarray) -> Action | None:
        if not ok.any():
            return Defer(ev=k, minutes=int(e.params.defer_options_min[0]))
        st = obs["stations"]
        travel = np.where(ok, obs["travel"][k], np.inf)
        free = st[:, S_FREE] - st[:, S_ENROUTE] > 0
        pick = np.where(free, travel, np.inf)
        j = int(np.argmin(pick)) if np.isfinite(pick).any() else int(np.argmin(travel))
        return _route(k, j, 1.0)


def zone_headroom(e: EVGridEnv, obs: dict[str, np.ndarray]) -> np.ndarray:
    """(Z,) forecast headroom for the next tick minus our charging and arriving load, kW.

    Our load is the nominal power of the sessions now charging plus ~40 kW per EV driving to a
    station in the zone that will find a free slot (it will plug in soon)."""
    ctx = e.ctx
    st = obs["stations"]
    coming = np.minimum(st[:, S_ENROUTE], np.maximum(st[:, S_FREE], 0.0))
    ours = np.bincount(ctx.st_zone, st[:, S_LOAD] + 40.0 * coming, minlength=ctx.Z)
    col = 1 if obs["headroom_forecast"].shape[1] > 1 else 0
    return obs["headroom_forecast"][:, col] - ours


def pick_rate(e: EVGridEnv, head: float, kw: float, urgent: bool) -> float:
    """Full power while the zone has room for half of it; 0.7 while any room is left; else 0.4."""
    if urgent:
        return e.params.rates[-1]
    if head >= 0.5 * kw:
        return e.params.rates[-1]
    return e.params.rates[1] if head >= 0.0 else e.params.rates[0]


def min_rate(e: EVGridEnv, need: float, kw: float, hours: float, margin: float = 1.2) -> float:
    """Lowest allowed rate that still delivers ``need`` kWh in ``hours`` (with a margin)."""
    for r in e.params.rates:
        if r * kw * hours >= need * margin:
            return r
    return e.params.rates[-1]


def hot_spot_path(e: EVGridEnv, oil: np.ndarray, rise: np.ndarray, k_pu: np.ndarray, tick: int
                  ) -> np.ndarray:
    """(T − tick + 1, Z) hot-spot °C from ``tick`` (row 0 unset) to the end of the horizon, from
    top-oil ``oil`` and hot-spot rise ``rise`` at per-unit loads ``k_pu`` (T+1, Z), stepped by
    the public thermal model at the public ambient curve."""
    ctx = e.ctx
    n = ctx.T - tick
    hot = np.zeros((n + 1, ctx.Z))
    for i in range(n):
        oil, rise = thermal.step(ctx.p, oil, rise, k_pu[tick + i], float(ctx.ambient[tick + i]),
                                 ctx.p.tick_min)
        hot[i + 1] = oil + rise
    return hot


class GreedyAgent(_Base):
    """Multi-objective heuristic (observation only).

    Walk-ups: the station minimising travel + estimated queue wait + the kWh the walk-up would
    miss before its stay limit there (charger power × derating, conservative end of the persona's
    published stay range) + a feeder-stress penalty + price (₹ → minutes) — what ``nearest``
    ignores. Full power unless the zone's headroom is short and a lower rate still finishes.
    Plugged-in EVs: wait (defer) for solar or night hours when the slack allows, then charge at
    the lowest rate that finishes in time. Curtails a zone (load_shift) when our load would
    exceed its forecast headroom.
    """

    name = "greedy"
    inr_to_min = 0.03
    """Minutes of travel worth one rupee of the session's energy bill."""
    stress_min = 5.0
    """Penalty, minutes, for a station whose zone has no headroom for the session."""
    kwh_to_min = 5.0
    """Minutes worth one (weighted) kWh the walk-up would leave without. v2: 5 (v1: 2). In the
    grader one kWh of a walk-up is worth ~20 walk-up-minutes of mean wait in v2 (twice the
    walk-ups, half the kWh each; ~10 in v1); 5 buys energy with drives, not with every drive."""
    balk_min = 3.0
    """Penalty per minute the expected start lies past the short end of the persona's patience."""
    stay_quantile = 0.25
    """Where in the persona's published stay range the expected stay is taken (conservative)."""

    hot_margin_k = 3.0
    """Curtail a zone (and avoid routing there) once its transformer hot-spot is within this
    many kelvin of the protection limit (v3: protection would curtail every EV charger there,
    outside EVs' too, which the grader prices as harm)."""
    commit = False
    """Whether planned plugged-in sessions are committed to a zone × tick load table (``mpc``)."""

    def __init__(self) -> None:
        self._load = np.zeros((0, 0))
        self._episode: int | None = None
        self._age_key: tuple[int, int] | None = None
        self._age = np.zeros((0, 0))

    def reset(self, env: Environment, seed: int) -> None:
        self._episode = None

    def hot(self, e: EVGridEnv, obs: dict[str, np.ndarray]) -> np.ndarray:
        """(Z,) zones whose hot-spot is within ``hot_margin_k`` of the protection limit."""
        return obs["zones"][:, Z_HOT] > e.params.hotspot_limit_c - self.hot_margin_k

    def shift(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray]) -> Action | None:
        """Curtail a zone whose transformer is near its hot-spot limit (v3; v2 curtailed when
        the load forecast passed the limit, which with a thermal time constant of hours only
        wasted energy: a probe that never curtailed beat it by +0.01-0.02 on training seeds)."""
        zones = obs["zones"]
        nominal = np.bincount(e.ctx.st_zone, obs["stations"][:, S_LOAD], minlength=e.ctx.Z)
        over = self.hot(e, obs)
        for z in np.flatnonzero(over & (zones[:, 5] == 0) & (nominal > 0)):
            return LoadShift(zone=int(z))
        return None

    def station_cost(self, e: EVGridEnv, obs: dict[str, np.ndarray], k: int,
                     ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(cost per station in minutes, session kW per station).

        Minutes of travel and expected queue wait, plus the energy the walk-up would *not* get
        before its stay limit (persona's published range, conservative end) at the station's
        power × the zone's derating, at ``kwh_to_min`` minutes per weighted kWh, plus a
        feeder-stress penalty and the price of the energy (₹ → minutes). Emergencies by time
        and energy alone."""
        ctx = e.ctx
        ev, st, zones = obs["evs"][k], obs["stations"], obs["zones"]
        persona = int(ev[1])
        kw = np.minimum(ctx.st_kw, ev[E_MAXKW])
        free = st[:, S_FREE] - st[:, S_ENROUTE] - st[:, S_QUEUE]
        session = SESSION_KWH / np.minimum(ctx.st_kw, 50.0) * 60.0
        qwait = np.where(free > 0, 0.0, (1.0 - free) * session / np.maximum(ctx.st_slots, 1))
        lo, hi = MAX_STAY_MIN[persona]
        # v3: a session cannot run past the end of the horizon (its energy is capped there)
        left_h = float(obs["clock"][1]) / 60.0
        stay_h = min((lo + self.stay_quantile * (hi - lo)) / 60.0, max(left_h, 0.0))
        need = ev[E_NEED] + ctx.km[int(ev[6]), :ctx.S] * e.params.kwh_per_km
        power = kw * zones[ctx.st_zone, 3]
        got = np.minimum(need, power * stay_h)
        short = np.maximum(need - got, 0.0)
        head = zone_headroom(e, obs)[ctx.st_zone]
        stress = np.where(self.hot(e, obs)[ctx.st_zone],
                          self.stress_min * (1.0 - np.clip(head / kw, 0, 1)) + self.stress_min,
                          0.0)
        urgent = persona == 4
        p_lo = MAX_WAIT_MIN[persona][0]
        late = np.where(qwait > 0, np.maximum(obs["travel"][k] + qwait + ev[E_WAITED] - p_lo,
                                              0.0), 0.0)
        # mpc: a critical walk-up's missing kWh is harm too (the grader's exchange rate)
        per_kwh = self.kwh_to_min * WEIGHT[persona] + (
            self.critical_premium(e) if WEIGHT[persona] > 1.0 else 0.0)
        cost = (obs["travel"][k] + qwait + self.balk_min * np.minimum(late, 10.0)
                + per_kwh * short)
        if not urgent:
            cost = cost + stress + self.inr_to_min * st[:, S_PRICE] * got
        return np.where(ok, cost, np.inf), kw

    thermal_lookahead = False
    """Whether plans are priced by the transformer ageing they would cause (``mpc``)."""
    critical_harm_min = 0.0
    """Extra minutes per kWh a critical walk-up (weight > 1) would leave without (``mpc``)."""
    critical_share_max = 0.7
    """The premium applies only where at most this share of walk-ups is critical (the
    scenario's public persona mix): it buys a critical walk-up the faster charger *over a
    non-critical one*; where nearly every walk-up is critical (``airport_rush``: 77 %, taxis)
    every queue it jumps is another critical walk-up's and ``mpc`` falls back to ``greedy``'s
    rule. Decided on training seeds 0-199 of ``airport_rush``: mpc − greedy +0.0001
    [−0.0003, +0.0005] with the premium at 2.5, +0.0004 [+0.0002, +0.0006] at 1.25, +0.0006
    [+0.0005, +0.0006] without it; the next-highest share is ``baseline``'s 55 %."""

    def critical_premium(self, e: EVGridEnv) -> float:
        """``critical_harm_min``, or 0 where critical walk-ups are more than
        ``critical_share_max`` of the scenario's walk-up persona mix (public params)."""
        mix = np.asarray(e.params.persona_mix, dtype=float)
        crit = float(mix[np.asarray(WEIGHT[:mix.size]) > 1.0].sum() / mix.sum())
        return self.critical_harm_min if crit <= self.critical_share_max else 0.0

    harm_to_value = 12.0
    """(price/base − renewable) value units per critical-kWh equivalent of harm (a harm kWh
    costs 2/Σw·need; moving a kWh by one value unit moves the cost term by ~0.76/kWh charged,
    ≈ 12× less on ``baseline``)."""

    def ageing_price(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray]
                     ) -> np.ndarray:
        """(T+1, Z) marginal loss of life beyond normal ageing, hours per kWh our fleet adds
        to a zone in each tick (``mpc``'s thermal lookahead, cached per tick).

        The zone's expected load (forecast, then the public base-load and outside-EV curves,
        the committed sessions and our present walk-up load decaying) is run through the
        public thermal model (``thermal.py``) from the observed top-oil and hot-spot; the
        derivative of the excess ageing Σ max(V − 1, 0)·Δt with respect to the load of each
        tick is computed exactly along that path by a backward recursion over the two lags."""
        ctx, p = e.ctx, e.ctx.p
        tick = min(s.tick, ctx.T)
        key = (id(s), tick)
        if self._age_key == key:
            return self._age
        T, dt = ctx.T, p.tick_min
        planned = self._table(e, s)
        load = ctx.base_mean + ctx.out_mean
        fc = obs["headroom_forecast"]
        n_fc = min(fc.shape[1], T + 1 - tick)
        load[tick:tick + n_fc] = ctx.zone_cap[None, :] - fc[:, :n_fc].T
        zones = obs["zones"]
        walk = np.maximum(zones[:, Z_OURS] - planned[tick], 0.0)
        decay = 0.85 ** np.arange(T + 1 - tick)
        load[tick:] += planned[tick:] + decay[:, None] * walk[None, :]
        k_pu = load / ctx.zone_cap[None, :]
        oil = zones[:, Z_OIL].astype(float)
        rise = (zones[:, Z_HOT] - zones[:, Z_OIL]).astype(float)
        n = T - tick
        hot = hot_spot_path(e, oil, rise, k_pu, tick)
        v = thermal.ageing_rate(p, hot)
        g = np.where(v > 1.0, v * np.log(2.0) / 6.0, 0.0) * dt / 60.0
        a_o = np.exp(-dt / p.tau_oil_min)
        a_w = np.exp(-dt / (2.0 * p.tau_winding_min))
        go = np.zeros((n + 2, ctx.Z))
        gw = np.zeros((n + 2, ctx.Z))
        for j in range(n, 0, -1):
            go[j] = g[j] + a_o * go[j + 1]
            gw[j] = g[j] + a_w * gw[j + 1]
        kk = k_pu[tick:T]
        r = p.loss_ratio
        d_oil = (p.oil_rise_k * p.oil_exponent * ((1 + r * kk * kk) / (1 + r))
                 ** (p.oil_exponent - 1.0) * 2.0 * r * kk / (1 + r))
        d_wind = p.hotspot_gradient_k * p.winding_exponent * np.maximum(kk, 1e-6) ** (
            p.winding_exponent - 1.0)
        price = np.zeros((T + 1, ctx.Z))
        price[tick:T] = ((1 - a_o) * d_oil * go[1:n + 1] + (1 - a_w) * d_wind * gw[1:n + 1]) / (
            ctx.zone_cap[None, :] * dt / 60.0)
        self._age_key, self._age = key, price
        return price

    def walkup(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray], k: int,
               ok: np.ndarray) -> Action | None:
        if not ok.any():
            return Defer(ev=k, minutes=int(e.params.defer_options_min[0]))
        cost, kw = self.station_cost(e, obs, k, ok)
        j = int(np.argmin(cost))
        return _route(k, j, self.walkup_rate(e, obs, k, j, float(kw[j])))

    def walkup_rate(self, e: EVGridEnv, obs: dict[str, np.ndarray], k: int, j: int,
                    kw: float) -> float:
        """Full power, unless the zone's headroom is short and a lower rate still charges the
        walk-up before the short end of its persona's stay range."""
        ev = obs["evs"][k]
        persona = int(ev[1])
        zone = int(e.ctx.st_zone[j])
        if persona == 4 or not self.hot(e, obs)[zone]:
            return e.params.rates[-1]
        need = float(ev[E_NEED]) + float(e.ctx.km[int(ev[6]), j]) * e.params.kwh_per_km
        derate = float(obs["zones"][e.ctx.st_zone[j], 3])
        return min_rate(e, need, kw * derate, MAX_STAY_MIN[persona][0] / 60.0, margin=1.1)

    overload_value = 3.0
    """Penalty per kWh planned above a zone's limit, in the units of the (price/base − renewable)
    value of a kWh (≈ 0.3-1.2): overload heats the transformer and derates every charger."""
    headroom_margin = 0.95
    """Plan against this share of each zone's rating (forecast error, walk-ups arriving)."""
    margin = 1.3
    """A plan is feasible when delay + charging time × this + one tick fits before departure."""
    margin_critical = 1.6
    """The same for high-weight plugged-in EVs (depot fleet)."""

    def _table(self, e: EVGridEnv, s: EVGridState) -> np.ndarray:
        if self._episode != id(s) or self._load.shape[0] != e.ctx.T + 1:
            self._load = np.zeros((e.ctx.T + 1, e.ctx.Z))
            self._episode = id(s)
        if not self.commit:
            self._load.fill(0.0)
        return self._load

    def dwell(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray], k: int
              ) -> Action | None:
        """Plan the plugged-in EV over its window (v3, was ``mpc``'s alone): every feasible
        (start delay, rate) plan is scored by its energy's price − renewable value over the
        ticks it would charge, plus a penalty per kWh above the zone's expected room (forecast,
        then the public base-load and outside-EV curves; ``mpc`` adds the sessions it has
        committed); the best plan is carried out (defer, or start at its rate)."""
        ctx = e.ctx
        dt = ctx.p.tick_min
        planned = self._table(e, s)
        ev = obs["evs"][k]
        site = int(ev[E_SITE]) - 1
        z = int(ctx.st_zone[site])
        need, kw, left_min = float(ev[E_NEED]), float(ev[E_MAXKW]), float(ev[E_DEPART])
        # time margin on the plan: derating and curtailment may slow it; more for the
        # high-weight fleets (depot), whose unmet energy is the harm metric
        margin = self.margin_critical if WEIGHT[int(ev[1])] > 1.0 else self.margin
        tick = min(s.tick, ctx.T)
        value = ctx.price[:, site] / ctx.p.base_price_inr - ctx.renewable
        # expected non-fleet load in the zone: forecast for the next ticks, public curves after
        base = ctx.base_mean[:, z] + ctx.out_mean[:, z]
        fc = obs["headroom_forecast"][z]
        n_fc = min(fc.size, ctx.T + 1 - tick)
        base[tick:tick + n_fc] = ctx.zone_cap[z] - fc[:n_fc]
        walk_now = max(float(obs["zones"][z, Z_OURS]) - float(planned[tick, z]), 0.0)
        decay = 0.85 ** np.arange(ctx.T + 1 - tick)
        busy = base.copy()
        busy[tick:] += planned[tick:, z] + walk_now * decay
        room = self.headroom_margin * ctx.zone_cap[z] - busy
        best: tuple[float, float, float, int, int] = (np.inf, 0.0, 1.0, tick, tick + 1)
        # announced outages of the site: no energy in those ticks (plans count only open ones)
        open_ticks = np.flatnonzero(~ctx.outage[:ctx.T, site])
        age = self.ageing_price(e, s, obs)[:, z] if self.thermal_lookahead else None
        for delay in (0.0, *e.params.defer_options_min):
            a = tick + int(delay / dt)
            usable = open_ticks[open_ticks >= a]
            for rate in e.params.rates:
                power = rate * kw
                dur = need / power * 60.0
                fallback = delay == 0.0 and rate == 1.0
                n_plan = max(1, int(np.ceil(dur * margin / dt)))
                if usable.size < n_plan:
                    if not fallback:
                        continue
                    n_plan = max(1, usable.size)
                elif (usable[n_plan - 1] + 1 - tick) * dt + dt > left_min and not fallback:
                    continue
                n_run = max(1, int(np.ceil(dur / dt)))
                run = usable[:n_run]
                if run.size == 0:
                    continue
                over = np.clip(power - room[run], 0.0, power)
                v = float(value[run].mean()) + self.overload_value * float(over.sum()) / (
                    power * run.size)
                if age is not None:
                    v += self.harm_to_value * AGEING_RATE * float(age[run].mean())
                if v < best[0] - 1e-9:
                    best = (v, delay, rate, int(run[0]), int(run[-1]) + 1)
        _, delay, rate, a, b = best
        if delay > 0:
            return Defer(ev=k, minutes=int(delay))
        planned[a:b, z] += rate * kw
        return _route(k, site, rate)


class MPCAgent(GreedyAgent):
    """Rolling-horizon planning over the feeders (observation and public curves only).

    As ``greedy`` (v3: ``greedy`` plans each plugged-in EV over its window too), plus, v3
    (issue 25, where v3's ``mpc`` was ``greedy`` within 1e-4):

    * every started session is committed to a zone × tick load table that later plans see;
    * a **thermal lookahead** (``ageing_price``): the expected load of each zone is run
      through the public IEC 60076-7 model over the rest of the horizon and each plugged-in
      EV's plan pays the transformer ageing it would add (in place of ``greedy``'s crude
      penalty for load above 95 % of the rating, which shifts sessions where the transformer
      never gets warm);
    * walk-ups are routed with the grader's price of a critical kWh (harm on top of energy),
      except where nearly every walk-up is critical (``critical_share_max``);
    * a wider margin from the hot-spot limit (5 K, a 15-min routing penalty) where protection
      would act (v3.1).
    """

    name = "mpc"
    commit = True
    thermal_lookahead = True
    overload_value = 0.0
    """The headroom penalty is replaced by the thermal price: above the rating a zone is only
    harmed once its hot-spot passes 98 °C, which the lookahead prices exactly."""
    hot_margin_k = 5.0
    """Curtail a zone, and price routing there, once its hot-spot is within 5 K of the limit
    (``greedy``: 3 K). v3.1 (derating no longer derates the base load): protection binds on
    ``heatwave_peak``, ``transformer_derate`` and ``whitefield_night``, and one protective
    curtailment costs more than every drive it saves. Tuned on training seeds 0-39 / 0-29
    with ``stress_min`` below: mpc − greedy on ``heatwave_peak`` +0.0017 [−0.0035, +0.0047] →
    +0.0124 [+0.0017, +0.0248], ``transformer_derate`` +0.0053 → +0.0099, ``whitefield_night``
    +0.0003 → +0.0068; within 1e-4 on the eight others (their zones never get within 5 K)."""
    stress_min = 15.0
    """Penalty, minutes, for routing to a zone near its hot-spot limit (``greedy``: 5)."""
    critical_harm_min = 2.5
    """Extra minutes per kWh a critical walk-up (weight > 1) would leave without: harm on top of
    its energy (the grader: 2/Σw·need against w·0.5/Σw·need); ``greedy`` values it as energy
    only. Tuned on training seeds 0-39: 10 and 30 lost on ``monsoon_storm`` (−0.0002, −0.022),
    5 on ``airport_rush`` and ``whitefield_night`` (−0.002, −0.0002 over seeds 10-19, where
    nearly every walk-up is critical or the plugged-in fleet dominates); 2.5 is ≈ 0 there, and
    below ``greedy`` on ``airport_rush``'s held-out seeds (−0.0005), where it is now off."""


class BoundAgent(MPCAgent):
    """Upper reference: a clairvoyant policy on a *relaxed* problem (reads the state).

    The relaxed world (``prepare``) is the same seed's world with every hard limit loosened —
    no stay limits at the charger (walk-ups stay until charged), no public slots taken by other
    EVs, transformer limits ×1.6, exact reports and forecasts; the same EVs, base load,
    prices and renewables. In it, each walk-up goes where it starts charging soonest, given its
    true patience and the remaining horizon; every plugged-in EV follows the offline LP
    (``scipy.optimize.linprog``) over the whole horizon — kW per EV and tick within its window,
    energy up to its need, each zone's realised headroom (85% of the relaxed limit − base load)
    never exceeded, maximising weighted energy minus price plus renewable value — started when
    its LP schedule starts, at the rate covering its planned average power. It is scored by the
    same grader on the same seeds. It is an upper *reference*, not a proven optimum of the
    relaxed problem; the ladder and the exploit suite check that nothing scores above it.
    """

    name = "bound"
    relax_capacity = 1.6
    """Transformer limits ×1.6 in the relaxed world."""

    def prepare(self, env: Environment) -> Environment:
        e = _env(env)
        p = e.params
        relaxed = replace(p, report_lag_min=0.0, report_noise=0.0, forecast_error=0.0,
                          cap_scale=tuple(c * self.relax_capacity for c in p.cap_scale),
                          background_occupancy=0.0, stay_scale=np.inf)
        return EVGridEnv(e.scenario, params=relaxed)

    def __init__(self) -> None:
        super().__init__()
        self._plan_for: int | None = None
        self._start = np.zeros(0)
        self._rate = np.zeros(0)

    def reset(self, env: Environment, seed: int) -> None:
        super().reset(env, seed)
        self._plan_for = None

    def _plan(self, e: EVGridEnv, s: EVGridState) -> None:
        ctx = e.ctx
        dw = np.flatnonzero(s.ev_dwell)
        T, dt_h = ctx.T, ctx.p.tick_min / 60.0
        start = np.zeros(s.ev_arrive.size)
        rate = np.ones(s.ev_arrive.size)
        if dw.size:
            a = np.floor(s.ev_arrive[dw] / ctx.p.tick_min).astype(int)
            b = np.minimum(np.floor(s.ev_depart[dw] / ctx.p.tick_min).astype(int), T)
            var_ev, var_t = [], []
            for i in range(dw.size):
                for t in range(a[i], b[i]):
                    var_ev.append(i)
                    var_t.append(t)
            ve, vt = np.asarray(var_ev), np.asarray(var_t)
            ids = dw[ve]
            site = s.ev_site[ids]
            val = (s.ev_weight[ids] * 10.0 - ctx.price[vt, site] / ctx.p.base_price_inr
                   + ctx.renewable[vt])
            c = -val * dt_h
            n = ve.size
            cols = np.arange(n)
            zone = ctx.st_zone[site]
            # rows 0..D-1: energy of each EV ≤ its need; then one row per (zone, tick) headroom
            a_ub = coo_matrix((np.concatenate([np.full(n, dt_h), np.ones(n)]),
                               (np.concatenate([ve, dw.size + zone * T + vt]),
                                np.concatenate([cols, cols]))),
                              shape=(dw.size + ctx.Z * T, n)).tocsr()
            head = np.maximum(ctx.zone_cap[None, :] * 0.85 - s.base[:T] - s.bg_kw[:T],
                              0.0).T.ravel()
            res = linprog(c, A_ub=a_ub,
                          b_ub=np.concatenate([s.ev_need[dw], head]),
                          bounds=np.stack([np.zeros(n), s.ev_max_kw[ids]], 1), method="highs")
            if res.x is not None:
                x = res.x
                for i, ev in enumerate(dw):
                    mine = ve == i
                    on = np.flatnonzero(x[mine] > 1e-6)
                    if on.size:
                        t0 = vt[mine][on[0]]
                        t1 = vt[mine][on[-1]] + 1
                        avg = x[mine][on].sum() / ((t1 - t0) * s.ev_max_kw[ev])
                        start[ev] = t0 * ctx.p.tick_min
                        rate[ev] = next((r for r in e.params.rates if r >= avg * 1.15), 1.0)
        self._start, self._rate = start, rate
        self._plan_for = id(s)

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        if self._plan_for is None or (state.tick == 0 and state.steps == 0):
            self._plan(e, state)
        return super().act(env, state)

    def walkup(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray], k: int,
               ok: np.ndarray) -> Action | None:
        """Clairvoyant station choice: the true stay limit (none in the relaxed world), patience,
        derating and free slots give each station's delivered energy (up to the end of the
        horizon) and start time (queue waits are still estimated)."""
        if not ok.any():
            return Defer(ev=k, minutes=int(e.params.defer_options_min[0]))
        ctx = e.ctx
        ev = int(s.visible[k])
        kw = np.minimum(ctx.st_kw, s.ev_max_kw[ev])
        need = (s.ev_need[ev] + s.ev_drain[ev] - s.ev_delivered[ev]
                + ctx.km[int(s.ev_origin[ev]), :ctx.S] * e.params.kwh_per_km)
        k_now = min(s.tick, ctx.T)
        free = (ctx.st_slots - s.bg_busy[k_now] - s.st_charging - s.st_enroute - s.st_queue)
        session = SESSION_KWH / np.minimum(ctx.st_kw, 50.0) * 60.0
        qwait = np.where(free > 0, 0.0, (1.0 - free) * session / np.maximum(ctx.st_slots, 1))
        travel = ctx.travel[k_now, int(s.ev_origin[ev])]
        start = travel + qwait + (s.t - s.ev_arrive[ev])
        # energy counts from the tick after plug-in and the stay ends on a tick: one tick less
        left = e.params.horizon_min - s.t
        hours = max(min(float(s.ev_maxstay[ev]), left) - e.params.tick_min, 0.0) / 60.0
        got = np.minimum(need, 0.9 * kw * s.derate[ctx.st_zone] * hours)
        # a walk-up that finds a free slot plugs in on arrival; one that queues balks when
        # both its patience and the queue grace are over before a slot frees
        balk = (qwait > QUEUE_GRACE_MIN) & (start > s.ev_maxwait[ev])
        short = np.where(balk, need, np.maximum(need - got, 0.0))
        w = float(s.ev_weight[ev])
        cost = travel + qwait + self.kwh_to_min * w * short
        if s.ev_persona[ev] != 4:
            cost = cost + self.inr_to_min * ctx.price[k_now] * got
        j = int(np.argmin(np.where(ok, cost, np.inf)))
        return _route(k, j, 1.0)

    def dwell(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray], k: int
              ) -> Action | None:
        ev = int(s.visible[k])
        wait = self._start[ev] - s.t
        opts = [m for m in e.params.defer_options_min if m <= wait + 1e-9]
        if opts:
            return Defer(ev=k, minutes=int(max(opts)))
        return _route(k, int(s.ev_site[ev]), float(self._rate[ev]))


# ----- exploit policies -----------------------------------------------------------------------
class AlwaysDeferAgent(Agent):
    """Exploit probe: defers every pending EV by the longest option, forever."""

    name = "always_defer"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        for k in range(e.ctx.K):
            if state.visible[k] >= 0:
                return Defer(ev=k, minutes=int(e.params.defer_options_min[-1]))
        return Hold()


class AlwaysShiftAgent(Agent):
    """Exploit probe: curtails every zone every tick and never routes (a 'perfect grid' with
    no charging)."""

    name = "always_shift"

    def act(self, env: Environment, state: Any) -> Action | int:
        _env(env)
        for z in np.flatnonzero(state.shift_tick != state.tick):
            return LoadShift(zone=int(z))
        return Hold()


class UltraHogAgent(NearestAgent):
    """Exploit probe: every walk-up to the nearest ultra-fast station at full power (energy
    fast, feeders be damned)."""

    name = "ultra_hog"

    def walkup(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray], k: int,
               ok: np.ndarray) -> Action | None:
        ultra = ok & (e.ctx.st_type == 2)
        if not ultra.any():
            return super().walkup(e, s, obs, k, ok)
        j = int(np.argmin(np.where(ultra, obs["travel"][k], np.inf)))
        return _route(k, j, 1.0)


class CheapHoursOnlyAgent(GreedyAgent):
    """Exploit probe: charges only when the tariff is at its cheapest (solar hours), deferring
    everything else — chasing the cost and renewable components."""

    name = "cheap_hours_only"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        k_now = min(state.tick, e.ctx.T)
        if e.ctx.price[k_now].min() > e.ctx.price.min() + 1e-9:
            for k in range(e.ctx.K):
                if state.visible[k] >= 0:
                    return Defer(ev=k, minutes=int(e.params.defer_options_min[1]))
            return Hold()
        return super().act(env, state)


class NearSlowAgent(GreedyAgent):
    """Exploit probe (issue 25): ``greedy`` that barely values the energy a walk-up would miss
    (0.5 min per kWh, not 5), so walk-ups go to nearer, slower stations: shorter waits bought
    with unmet (critical) energy. v2 paid for it on ``monsoon_storm``; v3's harm price must not."""

    name = "near_slow"
    kwh_to_min = 0.5


class IgnoreLimitsAgent(GreedyAgent):
    """Exploit probe: ``greedy`` blind to the grid — never curtails, ignores headroom and the
    transformers' temperature, always full power (energy bought with ageing and curtailment)."""

    name = "ignore_limits"
    hot_margin_k = -1.0e9
    stress_min = 0.0
    overload_value = 0.0

    def shift(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray]) -> Action | None:
        return None

    def walkup_rate(self, e: EVGridEnv, obs: dict[str, np.ndarray], k: int, j: int,
                    kw: float) -> float:
        return e.params.rates[-1]


# ----- the two roles (``evgrid_team`` and the PettingZoo face) --------------------------------
def operator_reference(e: EVGridEnv, s: EVGridState) -> Action | None:
    """The grid operator's reference rule (observation only): cap a zone at 60 % of its
    headroom once its transformer hot-spot is within 6 K of the protection limit, lift the cap
    once it is 12 K under; no blacklist, no price change. ``None``: no directive now."""
    from lifeline.envs.evgrid.team import EVGridTeamState, SetCap

    if not isinstance(s, EVGridTeamState):
        return None
    hot = s.top_oil + s.hs_rise
    limit = e.params.hotspot_limit_c
    for z in range(e.ctx.Z):
        if hot[z] > limit - 6.0 and s.cap_level[z] == 0:
            return SetCap(zone=z, level=1)
        if hot[z] < limit - 12.0 and s.cap_level[z] != 0:
            return SetCap(zone=z, level=0)
    return None


class ObeyingGreedyAgent(GreedyAgent):
    """``greedy`` under the operator's directives (the dispatcher's reference in the two-role
    envs): never routes a walk-up to a blacklisted station (defers it when nothing else is in
    range) and curtails a zone whose coming load would pass its cap."""

    name = "obeying_greedy"

    def shift(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray]) -> Action | None:
        from lifeline.envs.evgrid.team import EVGridTeamEnv, EVGridTeamState

        if isinstance(e, EVGridTeamEnv) and isinstance(s, EVGridTeamState):
            zones = obs["zones"]
            nominal = np.bincount(e.ctx.st_zone, obs["stations"][:, S_LOAD], minlength=e.ctx.Z)
            caps = e.zone_caps(s)
            over = nominal * zones[:, 3] > caps
            for z in np.flatnonzero(over & (zones[:, 5] == 0) & (nominal > 0)):
                return LoadShift(zone=int(z))
        return super().shift(e, s, obs)

    def walkup(self, e: EVGridEnv, s: EVGridState, obs: dict[str, np.ndarray], k: int,
               ok: np.ndarray) -> Action | None:
        black = getattr(s, "blacklisted", None)
        if black is not None:
            ok = ok & ~black
        return super().walkup(e, s, obs, k, ok)


class TeamGreedyAgent(ObeyingGreedyAgent):
    """Both roles of ``evgrid_team`` in one agent: the operator's reference rule, then the
    obeying dispatcher (the team env's reference)."""

    name = "team_greedy"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        op = operator_reference(e, state)
        if op is not None:
            return op
        return super().act(env, state)


class IgnoreDirectivesAgent(GreedyAgent):
    """Probe (two-role env): the operator's reference rule issues directives and the dispatcher
    plays plain ``greedy``, ignoring them (caps, blacklist)."""

    name = "ignore_directives"

    def act(self, env: Environment, state: Any) -> Action | int:
        e = _env(env)
        op = operator_reference(e, state)
        if op is not None:
            return op
        return super().act(env, state)


AGENTS: dict[str, type[Agent]] = {
    "never_route": NeverRouteAgent,
    "nearest": NearestAgent,
    "greedy": GreedyAgent,
    "mpc": MPCAgent,
    "bound": BoundAgent,
    "always_defer": AlwaysDeferAgent,
    "always_shift": AlwaysShiftAgent,
    "ultra_hog": UltraHogAgent,
    "cheap_hours_only": CheapHoursOnlyAgent,
    "near_slow": NearSlowAgent,
    "ignore_limits": IgnoreLimitsAgent,
    "obeying_greedy": ObeyingGreedyAgent,
    "team_greedy": TeamGreedyAgent,
    "ignore_directives": IgnoreDirectivesAgent,
}
"""The evgrid ladder (``random`` is generic) and its exploit policies."""

EXPLOITS: dict[str, tuple[str, ...]] = {
    "evgrid": ("always_defer", "always_shift", "ultra_hog", "cheap_hours_only", "near_slow",
               "ignore_limits"),
    "evgrid_team": ("always_shift", "ignore_directives"),
}
"""The exploit policies (``EnvSpec.exploits``) of each env this module serves."""

TEXT_POLICY = "lifeline.envs.evgrid.text_agent:EVGridTextPolicy"
"""The env's text-only heuristic (``EnvSpec.text_policy``; see ``text_agent.py``)."""

BOUNDED_COMPONENTS: tuple[str, ...] = ()
"""The bound must dominate the score; per-component dominance is not claimed (a policy that
serves fewer EVs can pay a lower average price or wait less on those it serves)."""

__all__ = ["AGENTS", "BOUNDED_COMPONENTS", "DONE", "FUTURE"]


PASS_THRESHOLD = 0.78
"""An episode 'passes' at this score (pass^k with ``--trials k``): just below the greedy reference
on baseline (v3: 0.809 on 30 held-out seeds; v2's 0.83 sat below 0.862, v1's 0.80 below
v1's 0.835, v0's 0.85 below v0's 0.89)."""
