"""The one place that decides validity: the integer encoding, the action mask and ``validate``.

Validity is judged on what the dispatcher *knows* (reported unit statuses, visible calls), never on
hidden truth; the dynamics guarantee that anything valid by report is also physically possible
(reports that would make it otherwise — on scene, at hospital, breakdown — are never delayed).

Encoding (blocks in this order, U unit slots, K call slots, P posts, H hospitals)::

    dispatch U·K | reroute U·K | relocate U·P | verify K | assign_hospital U·H | aid 1 | hold 1

Within one decision epoch (the actions taken at one simulated minute) a unit cannot be moved
back: a relocation to a post it was heading to earlier in the epoch, or a hospital it was bound
for earlier in the epoch, is illegal (v4.5, issue 31; see :func:`_no_going_back`).
"""

from __future__ import annotations

import functools

import numpy as np

from lifeline.envs.dispatch.context import Context
from lifeline.envs.dispatch.types import (
    AID_INBOUND,
    DISPATCHABLE,
    EN_ROUTE,
    HOSPITAL_CHOICE,
    INACTIVE,
    STATUS_NAMES,
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

try:  # the compiled path (extra ``fast``); without numba the numpy path below runs
    from lifeline.envs.dispatch import kernels as _kernels
except ImportError:  # pragma: no cover - exercised where numba is not installed
    _kernels = None  # type: ignore[assignment]

HOSPITAL_CHOICE_SET = frozenset(np.flatnonzero(HOSPITAL_CHOICE).tolist())
DISPATCHABLE_LIST: list[bool] = DISPATCHABLE.tolist()
"""Status tables as Python lists: indexing them with an int beats indexing the arrays."""


class Layout:
    """Offsets of the action blocks in the flat encoding."""

    def __init__(self, ctx: Context) -> None:
        self.U, self.K, self.P, self.H = ctx.U, ctx.K, ctx.P, ctx.H
        self.dispatch = 0
        self.reroute = self.dispatch + self.U * self.K
        self.relocate = self.reroute + self.U * self.K
        self.verify = self.relocate + self.U * self.P
        self.hospital = self.verify + self.K
        self.aid = self.hospital + self.U * self.H
        self.hold = self.aid + 1
        self.total = self.hold + 1

    @functools.cached_property
    def actions(self) -> tuple[DispatchAction, ...]:
        """Every index's semantic action, built on first use: decoding is then a tuple lookup
        (actions are frozen, so sharing them is safe)."""
        return tuple(self._decode(i) for i in range(self.total))

    def encode(self, a: DispatchAction) -> int:
        """Index of a semantic action (``ValueError`` if a field is out of range)."""
        try:
            if isinstance(a, Dispatch):
                return self.dispatch + self._pair(a.unit, self.U, a.call, self.K)
            if isinstance(a, Reroute):
                return self.reroute + self._pair(a.unit, self.U, a.call, self.K)
            if isinstance(a, Relocate):
                return self.relocate + self._pair(a.unit, self.U, a.post, self.P)
            if isinstance(a, Verify):
                return self.verify + self._pair(0, 1, a.call, self.K)
            if isinstance(a, AssignHospital):
                return self.hospital + self._pair(a.unit, self.U, a.hospital, self.H)
        except IndexError as exc:
            raise ValueError(f"{a!r}: {exc}") from None
        if isinstance(a, RequestMutualAid):
            return self.aid
        if isinstance(a, Hold):
            return self.hold
        raise ValueError(f"not a dispatch action: {a!r}")

    @staticmethod
    def _pair(i: int, n_i: int, j: int, n_j: int) -> int:
        if not 0 <= i < n_i:
            raise IndexError(f"index {i} out of range 0..{n_i - 1}")
        if not 0 <= j < n_j:
            raise IndexError(f"index {j} out of range 0..{n_j - 1}")
        return i * n_j + j

    def decode(self, index: int) -> DispatchAction:
        """Semantic action of an index (``ValueError`` if out of range)."""
        if not 0 <= index < self.total:
            raise ValueError(f"action index {index} out of range 0..{self.total - 1}")
        return self.actions[index]

    def _decode(self, index: int) -> DispatchAction:
        if index < self.reroute:
            return Dispatch(*divmod(index - self.dispatch, self.K))
        if index < self.relocate:
            return Reroute(*divmod(index - self.reroute, self.K))
        if index < self.verify:
            return Relocate(*divmod(index - self.relocate, self.P))
        if index < self.hospital:
            return Verify(index - self.verify)
        if index < self.aid:
            return AssignHospital(*divmod(index - self.hospital, self.H))
        if index == self.aid:
            return RequestMutualAid()
        return Hold()


def action_mask(s: DispatchState, ctx: Context, lay: Layout) -> np.ndarray:
    """Exactly the actions :func:`validate` accepts, as a boolean vector.

    One call of the numba kernel :func:`lifeline.envs.dispatch.kernels.mask_kernel` when numba is
    installed, else :func:`action_mask_numpy`; both are byte-identical (tested).
    """
    if _kernels is None:
        return action_mask_numpy(s, ctx, lay)
    if s.done:
        return np.zeros(lay.total, dtype=bool)
    out: np.ndarray = _kernels.mask_kernel(
        lay.total, s.mutual_aid_left, s.u_obs_status, s.visible, s.c_assigned, s.c_needed,
        s.c_verify, s.u_call, s.u_dest, s.u_hosp, ctx.posts, ctx.H, DISPATCHABLE,
        HOSPITAL_CHOICE)
    return _no_going_back(out, s, lay)


def _no_going_back(out: np.ndarray, s: DispatchState, lay: Layout) -> np.ndarray:
    """Clear, in place, the moves back within one decision epoch (v4.5): relocating a unit to a
    post it was heading to earlier in the epoch, or giving it a hospital it was bound for
    earlier in the epoch. No simulated time passes between an epoch's actions, so such a move
    undoes one made at the same minute and changes nothing; every end-of-epoch plan is still
    reachable (do not make the first move). Cheap: two ``&=`` over blocks, skipped when empty."""
    if s.epoch_actions:
        out[lay.relocate:lay.verify] &= ~s.e_left_post.ravel()
        out[lay.hospital:lay.aid] &= ~s.e_left_hosp.ravel()
    return out


def action_mask_numpy(s: DispatchState, ctx: Context, lay: Layout) -> np.ndarray:
    """:func:`action_mask` in numpy (the path without numba; also the kernel's test oracle).

    This runs every step on blocks of 8–2,000 entries, so its cost is the count of numpy calls:
    each block is one broadcast ``&`` of a per-unit column (free, en route, hospital choice) with
    a row gathered from a :class:`Context` table (posts that are not the unit's destination,
    hospitals that are not its chosen one) or the visible calls that still need a unit, written
    only over the filled call slots; empty blocks are skipped. The pre-optimisation version is
    kept in ``tests.oracles.dispatch_reference`` and a test keeps both byte-identical.
    """
    out = np.zeros(lay.total, dtype=bool)
    if s.done:
        return out
    obs = s.u_obs_status
    statuses = obs.tolist()  # tiny: Python membership tests beat ndarray.any() here
    free_col = DISPATCHABLE[obs][:, None]
    vis = s.visible
    vis_list = vis.tolist()
    n_vis = lay.K if vis_list[-1] >= 0 else vis_list.index(-1)  # filled from the front
    U, K = lay.U, lay.K
    if n_vis:
        ids = vis[:n_vis]
        needs = s.c_assigned[ids] < s.c_needed[ids]
        out[lay.dispatch:lay.reroute].reshape(U, K)[:, :n_vis] = free_col & needs
        if EN_ROUTE in statuses:
            out[lay.reroute:lay.relocate].reshape(U, K)[:, :n_vis] = \
                (obs == EN_ROUTE)[:, None] & needs & (ids != s.u_call[:, None])
        out[lay.verify:lay.verify + n_vis] = s.c_verify[ids] < 0
    out[lay.relocate:lay.verify] = (free_col & ctx.not_post[s.u_dest]).ravel()
    if not HOSPITAL_CHOICE_SET.isdisjoint(statuses):
        out[lay.hospital:lay.aid] = (HOSPITAL_CHOICE[obs][:, None]
                                     & ctx.not_hospital[s.u_hosp]).ravel()
    out[lay.aid] = s.mutual_aid_left > 0
    out[lay.hold] = True
    return _no_going_back(out, s, lay)


def _unit_msg(s: DispatchState, u: int, U: int) -> str | None:
    if not 0 <= u < U:
        return f"unit {u} does not exist (units are 0..{U - 1})"
    if s.u_obs_status[u] in (INACTIVE, AID_INBOUND):
        return f"unit {u} is not in service"
    return None


def _call_msg(s: DispatchState, k: int, K: int) -> str | None:
    if not 0 <= k < K:
        return f"call slot {k} does not exist (slots are 0..{K - 1})"
    if s.visible[k] < 0:
        return f"call slot {k} is empty"
    return None


def validate(s: DispatchState, ctx: Context, a: DispatchAction) -> str | None:
    """``None`` if ``a`` is legal now, else a message saying why not (for agents and LLMs).

    The two commonest actions (dispatch, relocate) take a fast path that only says yes: it makes
    the same checks as :func:`_validate` without building messages, and defers to it otherwise.
    """
    kind = type(a)
    if kind is Hold:
        return None
    if kind is Dispatch:
        u, k = a.unit, a.call  # type: ignore[attr-defined]
        if 0 <= u < ctx.U and 0 <= k < ctx.K:
            c = s.visible.item(k)
            if DISPATCHABLE_LIST[s.u_obs_status.item(u)] and c >= 0 \
                    and s.c_assigned[c] < s.c_needed[c]:
                return None
    elif kind is Relocate:
        u, post = a.unit, a.post  # type: ignore[attr-defined]
        if 0 <= u < ctx.U and 0 <= post < ctx.P and DISPATCHABLE_LIST[s.u_obs_status.item(u)] \
                and s.u_dest[u] != ctx.posts[post] and not s.e_left_post.item(u, post):
            return None
    return _validate(s, ctx, a)


def _validate(s: DispatchState, ctx: Context, a: DispatchAction) -> str | None:
    """:func:`validate` with every message (the reference order of checks)."""
    if isinstance(a, Hold):
        return None
    if isinstance(a, RequestMutualAid):
        return None if s.mutual_aid_left > 0 else "no mutual aid left this shift"
    if isinstance(a, Verify):
        msg = _call_msg(s, a.call, ctx.K)
        if msg is None and s.c_verify[s.visible[a.call]] >= 0:
            msg = f"call slot {a.call} was already verified"
        return msg
    if not isinstance(a, (Dispatch, Reroute, Relocate, AssignHospital)):
        return f"unknown action {a!r}"
    msg = _unit_msg(s, a.unit, ctx.U)
    if msg is not None:
        return msg
    status = STATUS_NAMES[int(s.u_obs_status[a.unit])]
    if isinstance(a, (Dispatch, Reroute)):
        msg = _call_msg(s, a.call, ctx.K)
        if msg is not None:
            return msg
        c = int(s.visible[a.call])
        if s.c_assigned[c] >= s.c_needed[c]:
            return (f"call slot {a.call} already has the {int(s.c_needed[c])} unit(s) it needs; "
                    "reroute or wait")
        if isinstance(a, Dispatch):
            if not DISPATCHABLE[s.u_obs_status[a.unit]]:
                return (f"unit {a.unit} is {status} (by its last report); only idle, relocating "
                        "or returning units can be dispatched")
            return None
        if s.u_obs_status[a.unit] != EN_ROUTE:
            return f"unit {a.unit} is {status}; only en-route units can be rerouted"
        if s.u_call[a.unit] == c:
            return f"unit {a.unit} is already heading to call slot {a.call}"
        return None
    if isinstance(a, Relocate):
        if not 0 <= a.post < ctx.P:
            return f"post {a.post} does not exist (posts are 0..{ctx.P - 1})"
        if not DISPATCHABLE[s.u_obs_status[a.unit]]:
            return f"unit {a.unit} is {status}; only free units can be relocated"
        if s.u_dest[a.unit] == ctx.posts[a.post]:
            return f"unit {a.unit} is already at or heading to post {a.post}"
        if s.e_left_post[a.unit, a.post]:
            return (f"unit {a.unit} was heading to post {a.post} earlier in this decision epoch; "
                    "moving it back changes nothing (hold to let time pass)")
        return None
    if not 0 <= a.hospital < ctx.H:
        return f"hospital {a.hospital} does not exist (hospitals are 0..{ctx.H - 1})"
    if not HOSPITAL_CHOICE[s.u_obs_status[a.unit]]:
        return (f"unit {a.unit} is {status}; a hospital can be chosen only while en route, "
                "on scene or transporting")
    if s.u_hosp[a.unit] == a.hospital:
        return f"unit {a.unit} is already bound for hospital {a.hospital}"
    if s.e_left_hosp[a.unit, a.hospital]:
        return (f"unit {a.unit} was bound for hospital {a.hospital} earlier in this decision "
                "epoch; choosing it again changes nothing (hold to let time pass)")
    return None
