"""dispatch v4 (issue 26): the coverage-aware rung with the hidden-information signal
(``verify_dmexclp``) is ``verify_then_dispatch``'s call-back-and-hold on top of ``dmexclp``'s
dispatch and move-up, both parts live: switch either off and the episode changes."""

from __future__ import annotations

from typing import cast

from lifeline.envs.dispatch.baselines import (
    AGENTS,
    DMEXCLPAgent,
    VerifyDMEXCLPAgent,
    VerifyThenDispatchAgent,
)
from lifeline.envs.dispatch.env import DispatchEnv
from lifeline.envs.dispatch.types import Dispatch, DispatchAction, Relocate, Verify


def _trace(env: DispatchEnv, seed: int, agent: DMEXCLPAgent | VerifyThenDispatchAgent
           ) -> tuple[list[tuple[str, int, int]], float]:
    s = env.reset(seed)
    agent.reset(env, seed)
    out: list[tuple[str, int, int]] = []
    while not s.done:
        a = agent.act(env, s)
        if isinstance(a, Dispatch):
            out.append(("dispatch", a.unit, a.call))
        elif isinstance(a, Relocate):
            out.append(("relocate", a.unit, a.post))
        elif isinstance(a, Verify):
            out.append(("verify", a.call, 0))
        env.step(s, cast(DispatchAction, a))
    return out, env.grade(s).score


def test_the_rung_reuses_both_parents_and_both_parts_fire() -> None:
    assert AGENTS["verify_dmexclp"] is VerifyDMEXCLPAgent
    mro = VerifyDMEXCLPAgent.__mro__
    assert mro.index(VerifyThenDispatchAgent) < mro.index(DMEXCLPAgent)
    # it defines no method of its own: every decision is one of its parents'
    assert not {k for k, v in vars(VerifyDMEXCLPAgent).items() if callable(v)}
    env = DispatchEnv("expert")
    both, _ = _trace(env, 0, VerifyDMEXCLPAgent())  # a training seed
    kinds = [k for k, _, _ in both]
    assert kinds.count("verify") >= 5 and kinds.count("relocate") >= 5  # measured: 39 and 12
    no_move = VerifyDMEXCLPAgent()
    no_move.threshold_units, no_move.threshold = 0.0, float("inf")  # move-up off
    plain, _ = _trace(env, 0, no_move)
    assert "relocate" not in [k for k, _, _ in plain] and plain != both
    dm, _ = _trace(env, 0, DMEXCLPAgent())  # verification off
    assert "verify" not in [k for k, _, _ in dm] and dm != both
