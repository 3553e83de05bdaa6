"""``DispatchEnv``: emergency medical dispatch on a city road graph (see README.md)."""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, Environment, Grade
from lifeline.core.rng import check_seed, make_streams
from lifeline.core.specs import ArraySpec
from lifeline.envs.dispatch import dynamics, observation, render, reward, rules
from lifeline.envs.dispatch import frame as dispatch_frame
from lifeline.envs.dispatch.context import Context
from lifeline.envs.dispatch.generator import SHIFT_STARTS, generate_calls, generate_events
from lifeline.envs.dispatch.params import (
    EVENT_KINDS,
    DispatchParams,
    priority_of,
    scenario_params,
)
from lifeline.envs.dispatch.plan import reference_plan
from lifeline.envs.dispatch.types import (
    ACTION_TYPES,
    FUTURE,
    IDLE,
    INACTIVE,
    REAL,
    AssignHospital,
    Dispatch,
    DispatchAction,
    DispatchState,
    Hold,
    Relocate,
    RequestMutualAid,
    Reroute,
    Verify,
)

STREAMS = ("shift", "calls", "patients", "tone", "events", "hospital", "radio", "reliability",
           "verify", "service", "travel")
"""One random stream per stochastic process (order is part of the determinism contract)."""

MAX_EPOCHS = 2000
"""Generous bound on decision epochs per shift, used for the truncation step budget."""


class DispatchEnv(Environment[DispatchState, DispatchAction]):
    """Dispatch ambulances to calls over an 8-hour shift; scored by response, survival, coverage."""

    name: ClassVar[str] = "dispatch"
    version: ClassVar[int] = 4
    action_types: ClassVar[tuple[type[Action], ...]] = ACTION_TYPES
    metro: ClassVar[bool] = False
    """True for the metro-city family (``dispatch_metro``): one id, one city, fixed spaces."""

    def __init__(self, scenario: str | None = None, params: DispatchParams | None = None) -> None:
        if scenario is None:
            scenario = "metro_warmup" if self.metro else "warmup"
        if params is None and scenario.startswith("metro_") != self.metro:
            other = "dispatch_metro" if not self.metro else "dispatch"
            raise ValueError(f"scenario {scenario!r} belongs to the {other!r} environment "
                             f"(each id has one city, so its spaces are fixed)")
        super().__init__(scenario)
        self.params = scenario_params(scenario) if params is None else params
        self.ctx = Context(self.params)
        self.layout = rules.Layout(self.ctx)
        self._spec = observation.observation_spec(self.ctx)

    # ----- sizes and specs -------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        return self.layout.total

    @property
    def max_steps(self) -> int:
        return MAX_EPOCHS * (self.params.actions_per_epoch + 1)

    def observation_spec(self) -> dict[str, ArraySpec]:
        return dict(self._spec)

    # ----- episode -----------------------------------------------------------------------------
    def reset(self, seed: int) -> DispatchState:
        """A fresh shift for ``seed``: the call stream, events and reference plan are drawn now."""
        seed = check_seed(seed)
        p, ctx = self.params, self.ctx
        city = p.city
        rng = make_streams(seed, STREAMS)
        start_hour = float(SHIFT_STARTS[int(rng["shift"].integers(len(SHIFT_STARTS)))])
        events = generate_events(p, rng["events"])
        calls = generate_calls(p, events, start_hour, rng["calls"], rng["patients"], rng["tone"])
        b_min, b_unit, b_saved = reference_plan(ctx, calls, start_hour)
        m, U, H = calls.time.size, ctx.U, ctx.H
        needed = ctx.needed[calls.type]

        s = DispatchState(graph=copy.deepcopy(ctx.free_graph), rng=rng, start_hour=start_hour,
                          mult=ctx.traffic.multiplier(start_hour), travel_sigma=p.travel_sigma)
        s.c_time, s.c_node, s.c_type, s.c_rtype = calls.time, calls.node, calls.type, calls.rtype
        s.c_sev, s.c_kind, s.c_tone, s.c_transport = calls.sev, calls.kind, calls.tone, \
            calls.transport
        s.c_needed = needed.astype(np.int64)
        s.c_mci = (np.zeros(m, bool) if calls.mci is None
                   else np.asarray(calls.mci, bool))
        s.c_open = (calls.time + p.call_processing_min if calls.open is None
                    else np.asarray(calls.open, float))
        s.c_turnout = (np.full(m, p.turnout_min) if calls.turnout is None
                       else np.asarray(calls.turnout, float))
        s.c_travel = (np.ones(m) if calls.travel is None
                      else np.asarray(calls.travel, float))
        s.c_prio = np.asarray([priority_of(int(t), int(v)) for t, v
                               in zip(calls.type, calls.sev, strict=True)], np.int64)
        s.c_wait = np.zeros(m)
        s.c_status = np.full(m, FUTURE, np.int64)
        s.c_assigned = np.zeros(m, np.int64)
        s.c_arrived = np.zeros(m, np.int64)
        s.c_first = np.full(m, np.inf)
        s.c_first_als = np.zeros(m, bool)
        s.c_first_aid = np.zeros(m, bool)
        s.c_verify = np.full(m, -1.0)
        s.c_outcome = np.full(m, np.nan)
        s.c_divert = np.zeros(m, bool)
        s.c_held = np.zeros(m, bool)
        s.c_bound, s.c_bound_unit, s.c_bound_saved = b_min, b_unit, b_saved
        s.visible = np.full(ctx.K, -1, np.int64)
        s.fake_ids = np.flatnonzero(calls.kind != REAL)

        homes = list(city.unit_home) + [city.aid_entry] * city.aid_slots
        s.u_home = np.asarray(homes, np.int64)
        s.u_als = np.asarray(list(city.unit_als) + [False] * city.aid_slots)
        s.u_rel = np.asarray(list(city.unit_reliability) + [0.85] * city.aid_slots)
        on = p.on_duty  # v3: slots past the staffed ones stay off duty for the shift
        s.u_status = np.asarray([IDLE] * on + [INACTIVE] * (ctx.n_fleet - on + city.aid_slots),
                                np.int64)
        s.u_node = s.u_home.copy()
        s.u_dest = s.u_home.copy()
        s.u_tstart = np.zeros(U)
        s.u_lead = np.zeros(U)
        s.u_tmult = np.ones(U)
        s.u_next = np.full(U, np.inf)
        s.u_call = np.full(U, -1, np.int64)
        s.u_hosp = np.full(U, -1, np.int64)
        s.e_left_post = np.zeros((U, ctx.P), bool)
        s.e_left_hosp = np.zeros((U, H), bool)
        s.u_carrier = np.zeros(U, bool)
        s.u_obs_status = s.u_status.copy()
        s.u_obs_node = s.u_home.copy()
        s.u_obs_dest = s.u_home.copy()
        s.u_obs_t = np.zeros(U)
        s.u_rep_status = np.zeros(U, np.int64)
        s.u_rep_node = np.zeros(U, np.int64)
        s.u_rep_dest = np.zeros(U, np.int64)
        s.u_rep_made = np.zeros(U)
        s.u_rep_t = np.full(U, np.inf)
        s.u_dispatches = np.zeros(U, np.int64)
        s.u_loan_end = np.full(U, np.inf)

        beds = max(city.hospital_beds)
        release = np.full((H, beds), np.inf)  # +inf pads hospitals with fewer beds: never free
        for h, n_beds in enumerate(city.hospital_beds):
            busy = rng["hospital"].random(n_beds) < 0.5
            release[h, :n_beds] = np.where(busy, rng["hospital"].uniform(0, 2 * p.bed_stay_min,
                                                                         n_beds), -np.inf)
        s.h_release = release
        s.h_forced_until = np.full(H, -np.inf)
        s.h_obs_divert = np.zeros(H, bool)
        s.h_obs_t = np.zeros(H)
        s.h_next_report = p.hospital_report_min * (np.arange(H) + 1) / H

        s.e_time, s.e_kind, s.e_a, s.e_b, s.e_dur = events.time, events.kind, events.a, \
            events.b, events.dur
        s.alert_until = np.full(len(EVENT_KINDS), -np.inf)
        s.mutual_aid_left = city.aid_slots
        s.cov_now = dynamics.coverage(s, ctx)
        s.cov_dirty = False
        return s

    def validate(self, state: DispatchState, action: DispatchAction) -> str | None:
        return rules.validate(state, self.ctx, action)

    def action_mask(self, state: DispatchState) -> np.ndarray:
        return rules.action_mask(state, self.ctx, self.layout)

    def encode(self, action: DispatchAction) -> int:
        return self.layout.encode(action)

    def decode(self, index: int) -> DispatchAction:
        return self.layout.decode(index)

    def _apply(self, state: DispatchState, action: DispatchAction) -> tuple[float, dict[str, Any]]:
        s, ctx, p = state, self.ctx, self.params
        s.reward_acc = 0.0
        info: dict[str, Any] = {}
        if isinstance(action, Hold):
            dynamics.advance(s, ctx)
        else:
            if isinstance(action, Dispatch):
                dynamics.apply_dispatch(s, ctx, action.unit, int(s.visible[action.call]))
            elif isinstance(action, Reroute):
                dynamics.apply_reroute(s, ctx, action.unit, int(s.visible[action.call]))
            elif isinstance(action, Relocate):
                s.e_left_post[action.unit] |= ~ctx.not_post[s.u_dest[action.unit]]
                dynamics.apply_relocate(s, ctx, action.unit, action.post)
            elif isinstance(action, Verify):
                c = int(s.visible[action.call])
                conf = dynamics.apply_verify(s, ctx, c)
                s.last_report = (f"verification of call slot {action.call} (call #{c}): "
                                 f"confidence genuine {conf:.2f}")
                info["verify_confidence"] = conf
            elif isinstance(action, AssignHospital):
                if s.u_hosp[action.unit] >= 0:
                    s.e_left_hosp[action.unit, s.u_hosp[action.unit]] = True
                dynamics.apply_assign_hospital(s, ctx, action.unit, action.hospital)
            elif isinstance(action, RequestMutualAid):
                info["mutual_aid_unit"] = dynamics.apply_mutual_aid(s, ctx)
            bonus = min(p.shaping_per_action, p.shaping_cap - s.shaping_used)
            s.shaping_used += bonus
            s.reward_acc += bonus
            s.epoch_actions += 1
            if s.epoch_actions >= p.actions_per_epoch:
                dynamics.advance(s, ctx)
        if s.t >= p.shift_min:
            s.reward_acc += reward.terminal_correction(s, ctx)
        r = s.reward_acc
        s.reward_acc = 0.0
        return r, info

    def is_terminal(self, state: DispatchState) -> bool:
        return state.t >= self.params.shift_min

    def progress(self, state: DispatchState) -> float:
        return min(1.0, float(state.t) / self.params.shift_min)

    def noop_action(self) -> DispatchAction:
        return Hold()

    def invalid_penalty(self) -> float:
        return -self.params.invalid_penalty

    def observe(self, state: DispatchState) -> dict[str, np.ndarray]:
        return observation.observe(state, self.ctx)

    def render_text(self, state: DispatchState) -> str:
        return render.render_text(state, self.ctx)

    def frame(self, state: DispatchState) -> dict[str, Any]:
        return dispatch_frame.frame(state, self.ctx, self.progress(state))

    def frame_static(self) -> dict[str, Any]:
        return dispatch_frame.static(self.ctx)

    def grade(self, state: DispatchState) -> Grade:
        return reward.grade(state, self.ctx)


class DispatchMetroEnv(DispatchEnv):
    """``dispatch`` on the generated 240-node metro city (scenarios ``metro_*``).

    A separate id because its spaces differ (34 unit slots, 16 call slots, 30 posts, 6 hospitals:
    ``Discrete(2330)`` instead of ``Discrete(556)``); Gymnasium expects one id to have fixed spaces.
    """

    name: ClassVar[str] = "dispatch_metro"
    metro: ClassVar[bool] = True
