"""A generic hindsight-lookahead teacher: one rollout policy-improvement step over a base agent.

At a state, the base agent (the env's reference) proposes its action; for a few candidate
actions (the base's own and up to ``k - 1`` alternatives), a deep copy of the core state and of
the base agent is stepped with the candidate and played to the end of the episode by the base
agent; the candidate with the best episode score is the label. Every env in Lifeline keeps all
it needs to step — RNG streams included — in its ``State`` (DESIGN principle 2), so a copy sees
the *same seeded future* as the episode itself: the teacher acts on hidden information (the
calls that will ring, the travel noise of each trip), the student sees only the observation and
can learn only what the observation predicts. Ties keep the base's action, so with the base's
action always among the candidates the teacher is never worse than the base on the states it
labels when followed everywhere (a rollout step on a deterministic future).

Which alternatives are worth a rollout is env knowledge: an env may define
``lookahead_candidates(core, state, base_action, k) -> list[action]`` in
``lifeline/envs/<env>/lookahead.py`` (ranked from its reference's own queue); otherwise
:func:`generic_candidates` takes legal actions of the base action's type that share a field
with it. Only a share ``prob`` of the states is looked ahead (cost control, DAgger style); the
others get the base's action. Training/validation seeds only.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import numpy as np

from lifeline.core.agent import Agent
from lifeline.core.env import Action, Environment

Candidates = Callable[[Any, Any, Any, int], list[Any]]


def generic_candidates(core: Any, state: Any, base_action: Any, k: int) -> list[Any]:
    """The base action, then legal actions of its type sharing at least one field value with
    it (index order), ``k`` in all. Integer base actions are decoded first."""
    base = core.decode(int(base_action)) if isinstance(base_action, (int, np.integer)) \
        else base_action
    out = [base_action]
    mask = np.asarray(core.action_mask(state), dtype=bool)
    names = [f.name for f in fields(base)] if hasattr(base, "__dataclass_fields__") else []
    for i in np.flatnonzero(mask).tolist():
        if len(out) >= k:
            break
        cand = core.decode(int(i))
        if type(cand) is not type(base) or cand == base:
            continue
        if not names or any(getattr(cand, n) == getattr(base, n) for n in names):
            out.append(cand)
    return out


def env_candidates(env_name: str) -> Candidates:
    """The env's ``lookahead_candidates`` hook if it has one, else :func:`generic_candidates`."""
    try:
        mod = importlib.import_module(f"lifeline.envs.{env_name}.lookahead")
    except ModuleNotFoundError:
        return generic_candidates
    return getattr(mod, "lookahead_candidates", generic_candidates)


def rollout_score(core: Any, state: Any, agent: Agent, first: Any,
                  horizon_steps: int = 0) -> float:
    """Episode score after stepping a copy of ``state`` with ``first`` and then ``agent`` (a
    copy) until the episode ends (or ``horizon_steps`` more steps when > 0, then the grade of
    that point). The originals are not touched."""
    s = copy.deepcopy(state)
    a = copy.deepcopy(agent)
    core.step(s, first)
    n = 0
    while not s.done and (horizon_steps <= 0 or n < horizon_steps):
        core.step(s, a.act(core, s))
        n += 1
    return float(core.grade(s).score)


class LookaheadAgent(Agent):
    """The lookahead teacher around ``base`` (module docstring). ``prob``: share of states
    looked ahead; ``k``: candidates per state; ``horizon_steps``: 0 = to the episode's end."""

    name = "lookahead"

    def __init__(self, base: Agent, candidates: Candidates, prob: float = 1.0, k: int = 4,
                 horizon_steps: int = 0, seed: int = 0) -> None:
        self.base, self.candidates = base, candidates
        self.prob, self.k, self.horizon_steps = prob, k, horizon_steps
        self.rng = np.random.default_rng(np.random.SeedSequence([seed, 0x100C]))
        self.looked = 0
        """States looked ahead so far (for cost reports)."""
        self.changed = 0
        """...of which the label differs from the base's action."""
        self.last_changed = False
        """Whether the last :meth:`act` returned something other than the base's action."""

    def reset(self, env: Environment, seed: int) -> None:
        self.base.reset(env, seed)

    def act(self, env: Environment, state: Any) -> Action | int:
        if state.done:
            return self.base.act(env, state)
        self.last_changed = False
        before = copy.deepcopy(self.base) if self.prob > 0 else self.base
        action = self.base.act(env, state)
        if self.prob <= 0 or self.rng.random() >= self.prob:
            return action
        cands = self.candidates(env, state, action, self.k)
        if len(cands) < 2:
            return action
        self.looked += 1
        best, best_score = action, rollout_score(env, state, before, action, self.horizon_steps)
        for cand in cands[1:]:
            score = rollout_score(env, state, before, cand, self.horizon_steps)
            if score > best_score + 1e-12:
                best, best_score = cand, score
        if best is not action:
            self.changed += 1
            self.last_changed = True
            # the base's bookkeeping (e.g. a move-up's settle timer) follows the executed action
            self.base = before
        return best
