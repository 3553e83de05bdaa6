"""The generic hindsight-lookahead teacher: it copies, never mutates, and beats its base."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

import lifeline  # noqa: F401 - registers the envs
from lifeline.agents import make_agent
from lifeline.core import registry
from lifeline.envs.dispatch.lookahead import lookahead_candidates
from lifeline.envs.dispatch.types import Dispatch, Hold
from lifeline.train.lookahead import (
    LookaheadAgent,
    env_candidates,
    generic_candidates,
    rollout_score,
)


def _play(env: Any, agent: Any, seed: int) -> float:
    state = env.reset(seed)
    agent.reset(env, seed)
    while not state.done:
        env.step(state, agent.act(env, state))
    return float(env.grade(state).score)


def test_rollout_leaves_the_state_alone_and_repeats() -> None:
    env = registry.make("dispatch", scenario="advanced")
    ref = make_agent("verify_dmexclp", "dispatch")
    state = env.reset(11)
    ref.reset(env, 11)
    for _ in range(30):
        env.step(state, ref.act(env, state))
    before = copy.deepcopy(env.observe(state))
    a = rollout_score(env, state, ref, Hold())
    b = rollout_score(env, state, ref, Hold())
    assert a == b
    after = env.observe(state)
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_candidates_start_with_the_base_action_and_are_legal() -> None:
    env = registry.make("dispatch", scenario="advanced")
    assert env_candidates("dispatch") is lookahead_candidates
    assert env_candidates("no_such_env") is generic_candidates
    ref = make_agent("verify_dmexclp", "dispatch")
    state = env.reset(5)
    ref.reset(env, 5)
    seen = 0
    while not state.done and seen < 5:
        action = ref.act(env, state)
        if isinstance(action, Dispatch):
            for fn in (lookahead_candidates, generic_candidates):
                cands = fn(env, state, action, 4)
                assert cands[0] == action and 2 <= len(cands) <= 4
                mask = np.asarray(env.action_mask(state), dtype=bool)
                assert all(mask[int(env.encode(c))] for c in cands)
            seen += 1
        env.step(state, action)
    assert seen == 5


def test_lookahead_beats_its_base_and_is_the_base_when_off() -> None:
    env = registry.make("dispatch", scenario="advanced")
    seeds = [3, 4]
    ref = [_play(env, make_agent("verify_dmexclp", "dispatch"), s) for s in seeds]
    off = LookaheadAgent(make_agent("verify_dmexclp", "dispatch"), lookahead_candidates, prob=0)
    assert [_play(env, off, s) for s in seeds] == ref
    on = LookaheadAgent(make_agent("verify_dmexclp", "dispatch"), lookahead_candidates, prob=1)
    la = [_play(env, on, s) for s in seeds]
    assert on.looked > 0 and on.changed > 0
    assert all(x >= r - 1e-9 for x, r in zip(la, ref, strict=True))
    assert np.mean(la) > np.mean(ref) + 0.005
