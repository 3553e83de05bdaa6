"""The two roles in one session: ``evgrid_team`` (``lifeline/EVGridTeam-v3``).

The served face of the multi-agent variant: one episode, one OpenEnv session, two roles whose
actions are distinct tools. The grid **operator** issues directives — ``set_cap(zone, level)``
(cap our charging load in a zone at none / 60% / 30% of its forecast headroom),
``blacklist(station)`` (toggle), ``set_price(zone, level)`` (a 1.0 / 1.25 / 1.5 price
multiplier the operator charges the dispatcher) — and the **dispatcher** plays the single-agent
actions (route, defer, load_shift, hold) under them. Every action, of either role, uses a decision
slot of the tick, as in ``evgrid``. Two clients can share the session (each sends its role's
tools) or one agent can play both.

Directives are never enforced by rewriting actions: routing a walk-up to a blacklisted station
is carried out and counted as a violation (``violations`` metric, ``info["violations"]``). v3:
violations have consequences. A zone cap is enforced by protection — our chargers in the zone
are scaled down to the cap during the tick (the operator's remote curtailment), and a tick in
which our sessions asked for more is a violation; every violation costs the team score
``VIOLATION_COST`` (team score = the single-agent grader − ``VIOLATION_COST`` × violations,
clipped at 0). The price multiplier is a transfer inside the team (the dispatcher pays it, the
operator receives it): reported as ``surcharge_inr``, team-neutral, a signal only. The
PettingZoo face (``marl.py``) gives each role the team reward plus a small share of its own terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, Grade
from lifeline.envs.evgrid import dynamics, rules
from lifeline.envs.evgrid.env import EVGridEnv
from lifeline.envs.evgrid.params import STATIONS, ZONES
from lifeline.envs.evgrid.types import ACTION_TYPES, EVGridState, Route

CAP_LEVELS: tuple[float | None, ...] = (None, 0.6, 0.3)
"""Zone cap as a share of the forecast headroom (None: no cap)."""
PRICE_LEVELS = (1.0, 1.25, 1.5)
VIOLATION_COST = 0.002
"""Team score lost per violation (v3; v2: none). Set, not sourced (there is no published price
of ignoring a grid operator's directive): chosen so that no single violation can pay for
itself. The most one violation can buy is the energy of one walk-up session routed to a
blacklisted station (~11 kWh × 0.5 × weight 1.5 / Σw·need ≈ 1.2e-3 on ``baseline``, Σw·need ≈
6,790 kWh) — a cap violation buys nothing, the cap is enforced by protection — so 0.002 (≈ 5
critical kWh on ``baseline``, a critical kWh ≈ 4.4e-4) exceeds it. Measured:
``tests/envs/evgrid/test_evgrid_team_roles.py`` (ignoring every directive 0.592 vs obeying
0.673 on ``baseline``, seeds 0-2)."""


def _doc(text: str) -> Any:
    return field(metadata={"doc": text})


@dataclass(frozen=True)
class SetCap(Action):
    """Operator: cap our charging load in `zone` at level 0 (none), 1 (60%) or 2 (30%) of the
    zone's forecast headroom. Enforced by protection (our chargers there are scaled down to it);
    a tick in which our sessions ask for more is a violation, costed in the team score."""

    kind: ClassVar[str] = "set_cap"
    zone: int = _doc("feeder zone 0-4")
    level: int = _doc("0 none, 1 = 60% of headroom, 2 = 30%")


@dataclass(frozen=True)
class Blacklist(Action):
    """Operator: toggle `station` on/off the blacklist (routing a walk-up there is a
    violation)."""

    kind: ClassVar[str] = "blacklist"
    station: int = _doc("station index 0-24")


@dataclass(frozen=True)
class SetPrice(Action):
    """Operator: price multiplier level 0 (1.0), 1 (1.25) or 2 (1.5) charged to the dispatcher
    for energy in `zone` (a transfer inside the team: reported, team-neutral, a signal)."""

    kind: ClassVar[str] = "set_price"
    zone: int = _doc("feeder zone 0-4")
    level: int = _doc("0 = 1.0x, 1 = 1.25x, 2 = 1.5x")


OPERATOR_TYPES: tuple[type[Action], ...] = (SetCap, Blacklist, SetPrice)


@dataclass
class EVGridTeamState(EVGridState):
    """``EVGridState`` plus the operator's directives and the violation count."""

    cap_level: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    price_level: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    blacklisted: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    violations: int = 0
    tick_caps: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """(Z,) caps in force during the last tick, kW (inf: none)."""
    tick_msgs: list[str] = field(default_factory=list)
    """Cap violations found when the last tick ran (reported in ``info["violations"]``)."""
    surcharge_inr: float = 0.0
    """Extra ₹ the operator's price multipliers charged the dispatcher."""


class EVGridTeamEnv(EVGridEnv):
    """``evgrid`` with the operator's directives as extra actions (one session, two roles)."""

    name: ClassVar[str] = "evgrid_team"
    action_types: ClassVar[tuple[type[Action], ...]] = ACTION_TYPES + OPERATOR_TYPES

    @property
    def num_actions(self) -> int:
        return self.layout.total + self.n_operator

    @property
    def n_operator(self) -> int:
        ctx = self.ctx
        return ctx.Z * len(CAP_LEVELS) + ctx.S + ctx.Z * len(PRICE_LEVELS)

    def reset(self, seed: int) -> EVGridTeamState:
        base = super().reset(seed)
        s = EVGridTeamState(**{f: getattr(base, f) for f in base.__dataclass_fields__})
        s.cap_level = np.zeros(self.ctx.Z, np.int64)
        s.price_level = np.zeros(self.ctx.Z, np.int64)
        s.blacklisted = np.zeros(self.ctx.S, bool)
        s.tick_caps = np.full(self.ctx.Z, np.inf)
        return s

    # ----- encoding: the dispatcher's block first, then the operator's ------------------------
    def encode(self, action: Any) -> int:
        ctx, off = self.ctx, self.layout.total
        if isinstance(action, SetCap):
            self._check(action.zone, ctx.Z, action.level, len(CAP_LEVELS))
            return off + action.zone * len(CAP_LEVELS) + action.level
        if isinstance(action, Blacklist):
            self._check(action.station, ctx.S, 0, 1)
            return off + ctx.Z * len(CAP_LEVELS) + action.station
        if isinstance(action, SetPrice):
            self._check(action.zone, ctx.Z, action.level, len(PRICE_LEVELS))
            return off + ctx.Z * len(CAP_LEVELS) + ctx.S + action.zone * len(PRICE_LEVELS) \
                + action.level
        return super().encode(action)

    @staticmethod
    def _check(a: int, na: int, b: int, nb: int) -> None:
        if not (0 <= a < na and 0 <= b < nb):
            raise ValueError("operator action argument out of range")

    def decode(self, index: int) -> Any:
        ctx, off = self.ctx, self.layout.total
        if not 0 <= index < self.num_actions:
            raise ValueError(f"action index {index} out of range 0..{self.num_actions - 1}")
        if index < off:
            return super().decode(index)
        i = index - off
        if i < ctx.Z * len(CAP_LEVELS):
            return SetCap(*divmod(i, len(CAP_LEVELS)))
        i -= ctx.Z * len(CAP_LEVELS)
        if i < ctx.S:
            return Blacklist(station=i)
        return SetPrice(*divmod(i - ctx.S, len(PRICE_LEVELS)))

    # ----- validity -------------------------------------------------------------------------
    def validate(self, state: EVGridState, action: Any) -> str | None:
        s = state
        assert isinstance(s, EVGridTeamState)
        ctx = self.ctx
        if isinstance(action, (SetCap, SetPrice)):
            n = len(CAP_LEVELS) if isinstance(action, SetCap) else len(PRICE_LEVELS)
            msg = rules._int_msg(action.zone, ctx.Z, "zone") or rules._int_msg(
                action.level, n, "level")
            current = s.cap_level if isinstance(action, SetCap) else s.price_level
            if msg is None and current[action.zone] == action.level:
                msg = (f"zone {action.zone} ({ZONES[action.zone]}) is already at level "
                       f"{action.level}")
            return msg
        if isinstance(action, Blacklist):
            return rules._int_msg(action.station, ctx.S, "station")
        return super().validate(s, action)

    def action_mask(self, state: EVGridState) -> np.ndarray:
        s = state
        assert isinstance(s, EVGridTeamState)
        ctx = self.ctx
        base = super().action_mask(s)
        op = np.zeros(self.n_operator, bool)
        if not s.done:
            nc, npr = len(CAP_LEVELS), len(PRICE_LEVELS)
            op[:ctx.Z * nc] = (np.arange(nc)[None, :] != s.cap_level[:, None]).ravel()
            op[ctx.Z * nc:ctx.Z * nc + ctx.S] = True
            op[ctx.Z * nc + ctx.S:] = (np.arange(npr)[None, :] != s.price_level[:, None]).ravel()
        return np.concatenate([base, op])

    # ----- transitions ------------------------------------------------------------------------
    def zone_caps(self, s: EVGridTeamState) -> np.ndarray:
        """(Z,) cap on our charging load per zone, kW (inf: none)."""
        head = np.maximum(s.forecast[:, 0], 0.0)
        share = np.array([np.inf if CAP_LEVELS[i] is None else float(CAP_LEVELS[i])
                          for i in s.cap_level])
        return np.where(np.isfinite(share), head * np.where(np.isfinite(share), share, 0.0),
                        np.inf)

    def zone_ceiling(self, s: EVGridState) -> np.ndarray | None:
        """The operator's caps are enforced by protection during the tick (v3)."""
        assert isinstance(s, EVGridTeamState)
        caps = self.zone_caps(s)
        s.tick_caps = caps
        return caps if np.isfinite(caps).any() else None

    def after_tick(self, s: EVGridState) -> None:
        """Count the tick's cap violations (our sessions asked for more than the cap) and the
        price surcharge, before the dense reward is taken."""
        assert isinstance(s, EVGridTeamState)
        caps = s.tick_caps
        over = np.flatnonzero(s.ev_want > caps + 1e-6)
        s.tick_msgs = [f"zone {z} ({ZONES[z]}) charging asked {s.ev_want[z]:.0f} kW over its cap "
                       f"{caps[z]:.0f} kW (curtailed to the cap)" for z in over]
        s.violations += len(s.tick_msgs)
        mult = np.array([PRICE_LEVELS[i] for i in s.price_level])
        s.surcharge_inr += float(np.dot(mult - 1.0, s.ev_load)) * self.params.tick_min \
            / 60.0 * self.params.base_price_inr

    def score_now(self, s: EVGridState) -> float:
        assert isinstance(s, EVGridTeamState)
        return max(0.0, super().score_now(s) - VIOLATION_COST * s.violations)

    def _apply(self, state: EVGridState, action: Any) -> tuple[float, dict[str, Any]]:
        s = state
        assert isinstance(s, EVGridTeamState)
        violations: list[str] = []
        s.tick_msgs = []
        if isinstance(action, SetCap):
            s.cap_level[action.zone] = action.level
        elif isinstance(action, SetPrice):
            s.price_level[action.zone] = action.level
        elif isinstance(action, Blacklist):
            s.blacklisted[action.station] = not s.blacklisted[action.station]
        if isinstance(action, OPERATOR_TYPES):
            dynamics.refresh_visible(s, self.ctx)
            r = self._use_slot(s)
            return r, {"violations": list(s.tick_msgs)}
        if isinstance(action, Route) and s.blacklisted[action.station] \
                and not s.ev_dwell[s.visible[action.ev]]:
            violations.append(f"walk-up routed to blacklisted station {action.station} "
                              f"({STATIONS[action.station][1]})")
            s.violations += 1  # counted before the action can end the tick (dense reward)
        r, info = super()._apply(s, action)
        info["violations"] = violations + list(s.tick_msgs)
        return r, info

    def _apply_invalid(self, state: EVGridState) -> tuple[float, dict[str, Any]]:
        s = state
        assert isinstance(s, EVGridTeamState)
        s.tick_msgs = []
        r, info = super()._apply_invalid(s)
        info["violations"] = list(s.tick_msgs)
        return r, info

    def grade(self, state: EVGridState) -> Grade:
        g = super().grade(state)
        assert isinstance(state, EVGridTeamState)
        cost = VIOLATION_COST * state.violations
        return Grade(max(0.0, g.score - cost), {**g.components, "violation_cost": cost},
                     {**g.metrics, "violations": float(state.violations),
                      "surcharge_inr": state.surcharge_inr,
                      "score_before_violations": g.score})

    def render_text(self, state: EVGridState) -> str:
        s = state
        assert isinstance(s, EVGridTeamState)
        caps = self.zone_caps(s)
        lines = [super().render_text(s), "OPERATOR DIRECTIVES:"]
        for z in range(self.ctx.Z):
            cap = "none" if not np.isfinite(caps[z]) else f"{caps[z]:.0f} kW"
            lines.append(f"  zone {z} {ZONES[z]}: cap {cap}, price x"
                         f"{PRICE_LEVELS[int(s.price_level[z])]:.2f}")
        black = [STATIONS[j][1] for j in np.flatnonzero(s.blacklisted)]
        lines.append("  blacklist: " + (", ".join(black) if black else "none"))
        lines.append(f"  violations so far: {s.violations}")
        return "\n".join(lines)
