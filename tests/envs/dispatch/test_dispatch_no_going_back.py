"""v4.5: within one decision epoch a unit cannot be moved back (issue 31).

No simulated time passes between the actions of an epoch, so relocating a unit to the post it was
heading to earlier in the epoch, or giving it back the hospital it was bound for, undoes a move
made at the same minute. MaskablePPO's 50k-step argmax on DispatchMetro-v4 filled every epoch
with such pairs (83 % of its relocations, 84 % of its hospital choices). These moves are masked
exactly, refused with a message, and legal again once the clock moves.
"""

from __future__ import annotations

import numpy as np

from lifeline.envs.dispatch import rules
from lifeline.envs.dispatch.env import DispatchEnv, DispatchMetroEnv
from lifeline.envs.dispatch.types import (
    DISPATCHABLE,
    AssignHospital,
    Dispatch,
    DispatchState,
    Hold,
    Relocate,
)
from lifeline.testing.checker import after_invalid_turn, world_bytes


def _free_unit_at_post(env: DispatchEnv, s: DispatchState) -> tuple[int, int]:
    posts = env.ctx.posts.tolist()
    for u in range(env.ctx.U):
        if DISPATCHABLE[s.u_obs_status[u]] and int(s.u_dest[u]) in posts:
            return u, posts.index(int(s.u_dest[u]))
    raise AssertionError("no free unit at a post")


def _check_mask(env: DispatchEnv, s: DispatchState) -> None:
    mask = env.action_mask(s)
    assert np.array_equal(mask, rules.action_mask_numpy(s, env.ctx, env.layout))
    for i in range(env.layout.relocate, env.layout.aid):  # relocate, verify, hospital blocks
        assert mask[i] == (env.validate(s, env.decode(i)) is None), env.decode(i)


def test_relocating_back_within_an_epoch_is_masked_refused_and_free_again_later() -> None:
    env = DispatchMetroEnv("metro_warmup")
    s = env.reset(0)
    u, home = _free_unit_at_post(env, s)
    other = (home + 1) % env.ctx.P
    back, onward = Relocate(unit=u, post=home), Relocate(unit=u, post=(home + 2) % env.ctx.P)
    assert env.step(s, Relocate(unit=u, post=other)).valid
    t = s.t
    assert s.epoch_actions == 1
    assert not env.action_mask(s)[env.encode(back)]
    assert env.action_mask(s)[env.encode(onward)]  # a move on is a real change: still legal
    msg = env.validate(s, back)
    assert msg is not None and "earlier in this decision epoch" in msg
    _check_mask(env, s)
    expected = after_invalid_turn(env, s)
    ts = env.step(s, back)
    assert not ts.valid and ts.message == msg
    assert world_bytes(s) == expected  # a no-op that uses the turn
    assert int(s.u_dest[u]) == int(env.ctx.posts[other])
    env.step(s, Hold())
    assert s.t > t and s.epoch_actions == 0 and not s.e_left_post.any()
    assert env.validate(s, back) is None and env.action_mask(s)[env.encode(back)]


def test_choosing_a_left_hospital_again_within_an_epoch_is_masked() -> None:
    env = DispatchEnv("learning")
    s = env.reset(0)
    while s.visible[0] < 0:
        env.step(s, Hold())
    u = next(u for u in range(env.ctx.U)
             if env.validate(s, Dispatch(unit=u, call=0)) is None)
    assert env.step(s, Dispatch(unit=u, call=0)).valid
    assert env.step(s, AssignHospital(unit=u, hospital=0)).valid
    assert env.step(s, AssignHospital(unit=u, hospital=1)).valid
    back = AssignHospital(unit=u, hospital=0)
    assert not env.action_mask(s)[env.encode(back)]
    msg = env.validate(s, back)
    assert msg is not None and "earlier in this decision epoch" in msg
    assert env.action_mask(s)[env.encode(AssignHospital(unit=u, hospital=2))]
    _check_mask(env, s)
    env.step(s, Hold())
    assert env.validate(s, back) is None
