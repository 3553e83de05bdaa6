"""The ONE place for validity: the integer encoding, ``validate`` and ``action_mask``.

Encoding (K visible EV slots, S = 25 stations, R = 3 rates, D = 3 deferrals, Z = 5 zones;
defaults give 10·25·3 + 10·3 + 5 + 1 = 786): ``route(ev, station, rate)`` at
``(ev·S + station)·R + rate`` | ``defer(ev, option)`` | ``load_shift(zone)`` | ``hold``.
Prediction fields of an action do not change its encoding. The mask is exact: computed from the
same predicates as :func:`validate`.
"""

from __future__ import annotations

import math

import numpy as np

from lifeline.envs.evgrid.context import Context
from lifeline.envs.evgrid.params import STATIONS, ZONES
from lifeline.envs.evgrid.types import (
    PENDING,
    Defer,
    EVGridAction,
    EVGridState,
    Hold,
    LoadShift,
    Route,
)


class Layout:
    """Offsets of each action kind in the flat encoding."""

    def __init__(self, ctx: Context) -> None:
        self.K, self.S, self.R, self.D, self.Z = ctx.K, ctx.S, ctx.R, ctx.D, ctx.Z
        self.rates = ctx.p.rates
        self.defers = ctx.p.defer_options_min
        self.rate_percents = tuple(round(r * 100) for r in self.rates)
        self.defer_minutes = tuple(round(m) for m in self.defers)
        self.route = 0
        self.defer = self.K * self.S * self.R
        self.shift = self.defer + self.K * self.D
        self.hold = self.shift + self.Z
        self.total = self.hold + 1

    def rate_index(self, percent: int) -> int:
        """Index of a ``charge_rate`` given in percent of full power (40, 70, 100)."""
        for i, r in enumerate(self.rate_percents):
            if not isinstance(percent, bool) and isinstance(percent, (int, np.integer)) \
                    and percent == r:
                return i
        raise ValueError(f"charge_rate {percent!r} is not one of {list(self.rate_percents)} "
                         "(percent of full power)")

    def defer_index(self, minutes: int) -> int:
        for i, m in enumerate(self.defer_minutes):
            if not isinstance(minutes, bool) and isinstance(minutes, (int, np.integer)) \
                    and minutes == m:
                return i
        raise ValueError(f"defer minutes {minutes!r} is not one of {list(self.defer_minutes)}")

    def encode(self, a: EVGridAction) -> int:
        if isinstance(a, Hold):
            return self.hold
        if isinstance(a, Route):
            if not (0 <= a.ev < self.K and 0 <= a.station < self.S):
                raise ValueError(f"{a!r}: ev or station out of range")
            return (a.ev * self.S + a.station) * self.R + self.rate_index(a.charge_rate)
        if isinstance(a, Defer):
            if not 0 <= a.ev < self.K:
                raise ValueError(f"{a!r}: ev out of range")
            return self.defer + a.ev * self.D + self.defer_index(a.minutes)
        if isinstance(a, LoadShift):
            if not 0 <= a.zone < self.Z:
                raise ValueError(f"{a!r}: zone out of range")
            return self.shift + a.zone
        raise ValueError(f"not an evgrid action: {a!r}")

    def decode(self, index: int) -> EVGridAction:
        if not 0 <= index < self.total:
            raise ValueError(f"action index {index} out of range 0..{self.total - 1}")
        if index < self.defer:
            pair, r = divmod(index, self.R)
            ev, st = divmod(pair, self.S)
            return Route(ev=ev, station=st, charge_rate=self.rate_percents[r])
        if index < self.shift:
            ev, d = divmod(index - self.defer, self.D)
            return Defer(ev=ev, minutes=self.defer_minutes[d])
        if index < self.hold:
            return LoadShift(zone=index - self.shift)
        return Hold()


def _int_msg(value: object, size: int, what: str) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        return f"{what} must be an integer, got {value!r}"
    if not 0 <= int(value) < size:
        return f"{what} {value} does not exist (valid: 0..{size - 1})"
    return None


def _prediction_msg(*values: float) -> str | None:
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            return f"predictions must be finite numbers (−1 for none), got {v!r}"
    return None


def _ev_msg(s: EVGridState, ctx: Context, slot: object) -> str | None:
    msg = _int_msg(slot, ctx.K, "EV slot")
    if msg is None and s.visible[int(slot)] < 0:  # type: ignore[call-overload]
        n = int(np.count_nonzero(s.visible >= 0))
        msg = f"EV slot {slot} is empty ({n} pending EV(s) visible)"
    return msg


def validate(s: EVGridState, ctx: Context, lay: Layout, a: EVGridAction) -> str | None:
    """``None`` if ``a`` is legal now, else a message saying why not (for agents and LLMs)."""
    if isinstance(a, Hold):
        return None
    if isinstance(a, LoadShift):
        msg = _int_msg(a.zone, ctx.Z, "zone")
        if msg is None and s.shift_tick[a.zone] == s.tick:
            msg = f"zone {a.zone} ({ZONES[a.zone]}) is already shifted this tick"
        return msg
    if isinstance(a, Defer):
        msg = _ev_msg(s, ctx, a.ev)
        if msg is None:
            try:
                lay.defer_index(a.minutes)
            except ValueError as exc:
                msg = str(exc)
        return msg
    if not isinstance(a, Route):
        return f"unknown action {a!r}"
    msg = (_ev_msg(s, ctx, a.ev) or _int_msg(a.station, ctx.S, "station")
           or _prediction_msg(a.predicted_load_kw, a.predicted_queue))
    if msg is not None:
        return msg
    try:
        lay.rate_index(a.charge_rate)
    except ValueError as exc:
        return str(exc)
    ev = int(s.visible[a.ev])
    if s.ev_dwell[ev]:
        site = int(s.ev_site[ev])
        if a.station != site:
            return (f"EV slot {a.ev} is plugged in at {STATIONS[site][0]} ({STATIONS[site][1]},"
                    f" station {site}): route it there to start charging")
        return None
    if ctx.outage[s.tick, a.station]:
        return f"station {a.station} ({STATIONS[a.station][1]}) is out of service"
    if not s.ev_reach[ev, a.station]:
        return (f"station {a.station} ({STATIONS[a.station][1]}) is out of range for EV slot "
                f"{a.ev} (battery too low for the drive)")
    return None


def routable(s: EVGridState, ctx: Context) -> np.ndarray:
    """(K, S) True where the visible EV may be routed to the station."""
    vis = s.visible
    present = vis >= 0
    out = np.zeros((ctx.K, ctx.S), bool)
    if not present.any():
        return out
    ids = vis[present]
    ok = s.ev_reach[ids] & ~ctx.outage[s.tick][None, :]
    dwell = s.ev_dwell[ids]
    if dwell.any():
        site = np.zeros_like(ok)
        site[np.arange(ids.size), np.maximum(s.ev_site[ids], 0)] = True
        ok = np.where(dwell[:, None], site, ok)
    out[present] = ok
    return out


def action_mask(s: EVGridState, ctx: Context, lay: Layout) -> np.ndarray:
    """Exactly the actions :func:`validate` accepts, as a boolean vector.

    The visible slots are filled from slot 0 (``refresh_visible``), so the first ``n`` rows are
    the present EVs; their ``route`` rows are precomputed (``ev_routes``), so this is one gather
    per step (:func:`routable` is the readable (K, S) form of the same predicate)."""
    out = np.zeros(lay.total, dtype=bool)
    if s.done:
        return out
    vis = s.visible
    n = int(np.count_nonzero(vis >= 0))
    if n:
        ids = vis[:n]
        rows: np.ndarray = s.ev_routes[ids]
        k = s.tick
        if ctx.any_outage[k]:
            rows[~s.ev_dwell[ids]] &= ctx.open_routes[k]
        out[:rows.size] = rows.ravel()
        out[lay.defer:lay.defer + n * lay.D] = True
    out[lay.shift:lay.hold] = s.shift_tick != s.tick
    out[lay.hold] = True
    return out


__all__ = ["PENDING", "Layout", "action_mask", "routable", "validate"]
