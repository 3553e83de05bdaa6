"""``EVGridEnv``: EV charging dispatch on a feeder-constrained Bangalore grid (see README.md)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, Environment, Grade
from lifeline.core.rng import check_seed, make_streams
from lifeline.core.specs import ArraySpec
from lifeline.envs.evgrid import dynamics, frame, observation, render, reward, rules, thermal
from lifeline.envs.evgrid.context import Context
from lifeline.envs.evgrid.generator import (
    generate_background,
    generate_evs,
    outside_load,
    reach_of,
)
from lifeline.envs.evgrid.params import EVGridParams, scenario_params
from lifeline.envs.evgrid.types import (
    ACTION_TYPES,
    FUTURE,
    Defer,
    EVGridAction,
    EVGridState,
    Hold,
    LoadShift,
    Route,
)

STREAMS = ("walkups", "dwell", "background", "reports", "forecast")
"""One random stream per stochastic process (order is part of the determinism contract)."""


class EVGridEnv(Environment[EVGridState, EVGridAction]):
    """Route, defer and curtail EV charging over 8-24 h; scored on energy, waits, grid, cost."""

    name: ClassVar[str] = "evgrid"
    version: ClassVar[int] = 3
    action_types: ClassVar[tuple[type[Action], ...]] = ACTION_TYPES

    def __init__(self, scenario: str = "baseline", params: EVGridParams | None = None) -> None:
        super().__init__(scenario)
        self.params = scenario_params(scenario) if params is None else params
        self.ctx = Context(self.params)
        self.layout = rules.Layout(self.ctx)
        self._spec = observation.observation_spec(self.ctx)

    @property
    def num_actions(self) -> int:
        return self.layout.total

    @property
    def max_steps(self) -> int:
        return self.ctx.T * (self.params.actions_per_tick + 1) + 10

    def observation_spec(self) -> dict[str, ArraySpec]:
        return dict(self._spec)

    def reset(self, seed: int) -> EVGridState:
        """A fresh episode: the EV stream, background occupancy and base load are drawn now."""
        seed = check_seed(seed)
        ctx = self.ctx
        rng = make_streams(seed, STREAMS)
        evs = generate_evs(ctx, rng["walkups"], rng["dwell"])
        busy, base, faults = generate_background(ctx, rng["background"])
        m, S, Z, T = evs.arrive.size, ctx.S, ctx.Z, ctx.T
        s = EVGridState(rng=rng)
        s.ev_arrive, s.ev_persona, s.ev_dwell = evs.arrive, evs.persona, evs.dwell
        s.ev_cap, s.ev_soc, s.ev_need = evs.cap, evs.soc.copy(), evs.need
        s.ev_delivered, s.ev_drain = np.zeros(m), np.zeros(m)
        s.ev_max_kw, s.ev_origin, s.ev_site = evs.max_kw, evs.origin.copy(), evs.site
        s.ev_maxwait, s.ev_depart, s.ev_weight = evs.maxwait, evs.depart, evs.weight
        s.ev_maxstay = evs.maxstay
        s.ev_reach = reach_of(ctx, evs.origin, evs.soc * evs.cap)
        s.ev_reach[evs.dwell] = False
        s.ev_status = np.full(m, FUTURE, np.int64)
        s.ev_station = np.full(m, -1, np.int64)
        s.ev_rate = np.zeros(m)
        s.ev_power = np.zeros(m)
        s.ev_ready = np.full(m, np.inf)
        s.ev_until = np.full(m, np.inf)
        s.ev_start = np.full(m, np.inf)
        s.ev_end = np.full(m, np.inf)
        s.ev_cost, s.ev_green = np.zeros(m), np.zeros(m)
        s.ev_defers = np.zeros(m, np.int64)
        s.visible = np.full(ctx.K, -1, np.int64)
        s.ev_order = dynamics.visibility_order(s)
        s.ev_routes = dynamics.route_rows(s, ctx)
        s.rep_free, s.rep_queue = np.zeros(S), np.zeros(S)
        s.forecast = np.zeros((Z, self.params.forecast_ticks))
        s.bg_busy, s.base, s.fault_at = busy, base, faults
        s.st_charging = np.zeros(S, np.int64)
        s.st_queue = np.zeros(S, np.int64)
        s.st_enroute = np.zeros(S, np.int64)
        s.hist_free = np.zeros((T + 1, S), np.int64)
        s.hist_queue = np.zeros((T + 1, S), np.int64)
        s.ev_load = np.zeros(Z)
        s.ev_want = np.zeros(Z)
        s.bg_kw = outside_load(ctx, busy)
        s.out_load = s.bg_kw[0].copy()
        s.last_load = base[0] + s.bg_kw[0]
        s.derate = np.ones(Z)
        # transformers start in the thermal steady state of the load at the start
        oil, rise = thermal.steady_state(self.params, s.last_load / ctx.zone_cap,
                                         float(ctx.ambient[0]))
        s.top_oil, s.hs_rise = oil, rise
        s.peak_hotspot = float((oil + rise).max())
        s.trip_until = np.full(Z, -np.inf)
        s.trip_fault = np.zeros(Z, bool)
        s.shift_tick = np.full(Z, -1, np.int64)
        j = int(np.searchsorted(evs.arrive, 0.0, side="right"))
        s.ev_status[:j] = 1
        s.next_ev = j
        dynamics.update_reports(s, ctx)
        dynamics.refresh_visible(s, ctx)
        s.last_score = reward.score(s, ctx)
        return s

    def validate(self, state: EVGridState, action: EVGridAction) -> str | None:
        return rules.validate(state, self.ctx, self.layout, action)

    def action_mask(self, state: EVGridState) -> np.ndarray:
        return rules.action_mask(state, self.ctx, self.layout)

    def encode(self, action: EVGridAction) -> int:
        return self.layout.encode(action)

    def decode(self, index: int) -> EVGridAction:
        return self.layout.decode(index)

    def _apply(self, state: EVGridState, action: EVGridAction) -> tuple[float, dict[str, Any]]:
        s, ctx = state, self.ctx
        if isinstance(action, Hold):
            return self._advance(s), {}
        due = s.tick + self.params.forecast_ticks
        if isinstance(action, Route):
            ev = int(s.visible[action.ev])
            rate = self.params.rates[self.layout.rate_index(action.charge_rate)]
            dynamics.apply_route(s, ctx, ev, action.station, rate)
            if action.predicted_load_kw >= 0 or action.predicted_queue >= 0:
                s.forecast_due.append((due, int(ctx.st_zone[action.station]), action.station,
                                       float(action.predicted_load_kw),
                                       float(action.predicted_queue)))
        elif isinstance(action, Defer):
            dynamics.apply_defer(s, int(s.visible[action.ev]), float(action.minutes))
        elif isinstance(action, LoadShift):
            s.shift_tick[action.zone] = s.tick
        dynamics.refresh_visible(s, ctx)
        return self._use_slot(s), {}

    def _use_slot(self, s: EVGridState) -> float:
        s.tick_actions += 1
        if s.tick_actions >= self.params.actions_per_tick:
            return self._advance(s)
        return 0.0

    def _apply_invalid(self, state: EVGridState) -> tuple[float, dict[str, Any]]:
        """An invalid action uses one of the tick's decision slots (the clock moves when they
        run out), exactly like a valid non-hold action that changed nothing."""
        return self._use_slot(state), {}

    def _advance(self, s: EVGridState) -> float:
        dynamics.advance(s, self.ctx, self.zone_ceiling(s))
        self.after_tick(s)
        score = self.score_now(s)
        r = score - s.last_score
        s.last_score = score
        return r

    def after_tick(self, s: EVGridState) -> None:
        """Hook run after each tick, before the dense reward is taken (the two-role env counts
        the tick's cap violations here)."""

    def score_now(self, s: EVGridState) -> float:
        """The score the dense reward differences (the two-role env subtracts violations)."""
        return reward.score(s, self.ctx)

    def zone_ceiling(self, s: EVGridState) -> np.ndarray | None:
        """(Z,) enforced ceiling on our charging load per zone, kW (None: none; the two-role
        env enforces the operator's caps here)."""
        return None

    def is_terminal(self, state: EVGridState) -> bool:
        return state.tick >= self.ctx.T

    def progress(self, state: EVGridState) -> float:
        return min(1.0, state.tick / self.ctx.T)

    def noop_action(self) -> EVGridAction:
        return Hold()

    def invalid_penalty(self) -> float:
        return reward.INVALID_PENALTY

    def observe(self, state: EVGridState) -> dict[str, np.ndarray]:
        return observation.observe(state, self.ctx)

    def render_text(self, state: EVGridState) -> str:
        return render.render_text(state, self.ctx)

    def frame(self, state: EVGridState) -> dict[str, Any]:
        return frame.frame(state, self.ctx)

    def grade(self, state: EVGridState) -> Grade:
        return reward.grade(state, self.ctx)
