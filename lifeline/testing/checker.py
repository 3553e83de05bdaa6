"""Conformance checker: every registered environment × scenario must pass it.

``check_env("ed", "surge")`` runs the checks below and returns a :class:`CheckReport` (a list of
:class:`CheckResult` that prints as a readable summary and has ``.passed`` and
``.raise_if_failed()``); by default it raises :class:`CheckFailure` listing every failed check
(``raise_on_failure=False`` returns the report instead). ``lifeline check ENV`` runs it too.
The checks pin down the promises of DESIGN.md: determinism (also in another process under
another ``PYTHONHASHSEED``), an exact action mask, invalid actions as no-ops, observations that
conform to their spec and never alias the state, episodes that end, snapshots that restore, and
text rendering.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from lifeline.agents.base import RandomAgent
from lifeline.core.env import BOOKKEEPING_FIELDS, Environment
from lifeline.core.registry import make


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one named check."""

    name: str
    passed: bool
    detail: str = ""


class CheckFailure(AssertionError):
    """Raised by :func:`check_env` when at least one check fails."""


class CheckReport(list[CheckResult]):
    """The results of :func:`check_env`: a ``list`` of :class:`CheckResult` (iterate it as
    before) that prints as a readable summary and can raise."""

    def __init__(self, env: str, scenario: str | None, results: list[CheckResult]) -> None:
        super().__init__(results)
        self.env, self.scenario = env, scenario

    @property
    def passed(self) -> bool:
        """True when every check passed."""
        return all(r.passed for r in self)

    @property
    def failed(self) -> list[CheckResult]:
        return [r for r in self if not r.passed]

    def summary(self) -> str:
        """One line per check (``PASS``/``FAIL`` and the reason) under a verdict line."""
        where = f"{self.env}/{self.scenario or 'default'}"
        verdict = (f"all {len(self)} checks passed" if self.passed
                   else f"{len(self.failed)} of {len(self)} checks FAILED")
        lines = [f"{where}: {verdict}"]
        lines += [f"  {'PASS' if r.passed else 'FAIL'}  {r.name}"
                  + (f": {r.detail}" if r.detail else "") for r in self]
        return "\n".join(lines)

    def raise_if_failed(self) -> CheckReport:
        """Raise :class:`CheckFailure` listing the failed checks; return ``self`` otherwise."""
        if not self.passed:
            lines = "\n".join(f"  {r.name}: {r.detail}" for r in self.failed)
            raise CheckFailure(f"{self.env}/{self.scenario}: {len(self.failed)} check(s) "
                               f"failed\n{lines}")
        return self

    def to_dict(self) -> dict[str, Any]:
        return {"env": self.env, "scenario": self.scenario, "passed": self.passed,
                "checks": [dataclasses.asdict(r) for r in self]}

    def __str__(self) -> str:
        return self.summary()

    __repr__ = __str__


def canonical_bytes(obj: Any) -> bytes:
    """Pickle bytes that depend only on structure and values, not on object identity history.

    Pickling twice normalises memo references (e.g. a string shared by two fields in one object
    graph but not in another), so equal states give equal bytes.
    """
    return pickle.dumps(pickle.loads(pickle.dumps(obj, protocol=4)), protocol=4)


def after_invalid_turn(env: Environment, state: Any) -> bytes:
    """World bytes of ``state`` after the turn an invalid action uses (and nothing else)."""
    expected = copy.deepcopy(state)
    env._apply_invalid(expected)
    return world_bytes(expected)


def world_bytes(state: Any) -> bytes:
    """Canonical bytes of ``state`` with bookkeeping zeroed: what an invalid action must keep."""
    clone = copy.copy(state)
    for name in BOOKKEEPING_FIELDS:
        setattr(clone, name, type(getattr(state, name))())
    return canonical_bytes(clone)


def _obs_digest(obs: dict[str, np.ndarray], h: Any) -> None:
    for key in sorted(obs):
        arr = np.ascontiguousarray(obs[key])
        h.update(key.encode())
        h.update(str(arr.dtype).encode() + str(arr.shape).encode())
        h.update(arr.tobytes())


def trajectory_digest(env_name: str, scenario: str | None, seed: int, max_steps: int = 400) -> str:
    """SHA-256 of a masked-random rollout: observations, rewards, flags, text and final grade."""
    env = make(env_name, scenario)
    agent = RandomAgent()
    state = env.reset(seed)
    agent.reset(env, seed)
    h = hashlib.sha256()
    _obs_digest(env.observe(state), h)
    for _ in range(max_steps):
        if state.done:
            break
        ts = env.step(state, agent.act(env, state))
        h.update(repr((ts.reward, ts.terminated, ts.truncated, ts.valid, ts.message)).encode())
        _obs_digest(env.observe(state), h)
    h.update(env.render_text(state).encode())
    grade = env.grade(state)
    h.update(repr((grade.score, sorted(grade.components.items()))).encode())
    return h.hexdigest()


def _digest_in_subprocess(env_name: str, scenario: str | None, seed: int, max_steps: int,
                          hash_seed: str) -> str:
    code = ("import sys; from lifeline.testing.checker import trajectory_digest as d; "
            "print(d(sys.argv[1], sys.argv[2] or None, int(sys.argv[3]), int(sys.argv[4])))")
    env_vars = {**os.environ, "PYTHONHASHSEED": hash_seed}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env_vars["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env_vars.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-c", code, env_name, scenario or "", str(seed),
                          str(max_steps)], capture_output=True, text=True, env=env_vars,
                         timeout=300, check=True)
    return out.stdout.strip().splitlines()[-1]


def _sample_states(env: Environment, seed: int, count: int, stride: int) -> list[Any]:
    """Snapshots taken every ``stride`` steps of a masked-random rollout."""
    agent = RandomAgent()
    state = env.reset(seed)
    agent.reset(env, seed)
    states = [copy.deepcopy(state)]
    step = 0
    while not state.done and len(states) < count:
        env.step(state, agent.act(env, state))
        step += 1
        if step % stride == 0 and not state.done:
            states.append(copy.deepcopy(state))
    return states


class _Checks:
    """The individual checks for one environment instance."""

    def __init__(self, env_name: str, scenario: str | None, seed: int, subprocess_check: bool):
        self.env_name, self.scenario, self.seed = env_name, scenario, seed
        self.env = make(env_name, scenario)
        self.subprocess_check = subprocess_check

    def spec_valid(self) -> None:
        env = self.env
        assert env.num_actions > 0, "num_actions must be positive"
        assert env.max_steps > 0, "max_steps must be positive"
        assert env.observation_spec(), "observation_spec is empty"
        assert "action_mask" not in env.observation_spec(), "action_mask is added by the faces"
        assert env.action_types, "no action types"
        for t in env.action_types:
            assert dataclasses.is_dataclass(t), f"{t.__name__} is not a dataclass"
            assert t.__dataclass_params__.frozen, f"{t.__name__} is not frozen"
            assert t.kind and t.kind != "action", f"{t.__name__} has no kind"
            assert (t.__doc__ or "").strip(), f"{t.__name__} has no docstring"
        for i in range(env.num_actions):
            action = env.decode(i)
            assert env.encode(action) == i, f"encode(decode({i})) != {i}"
        for bad in (-1, env.num_actions):
            try:
                env.decode(bad)
            except ValueError:
                continue
            raise AssertionError(f"decode({bad}) did not raise ValueError")
        try:
            env.reset(-1)
        except ValueError:
            pass
        else:
            raise AssertionError("reset(-1) did not raise ValueError")

    def reset_deterministic(self) -> None:
        a, b = self.env.reset(self.seed), self.env.reset(self.seed)
        assert canonical_bytes(a) == canonical_bytes(b), "same seed gave different reset states"
        oa, ob = self.env.observe(a), self.env.observe(b)
        assert all(np.array_equal(oa[k], ob[k]) for k in oa), "same seed, different observation"

    def rollout_deterministic(self) -> None:
        d1 = trajectory_digest(self.env_name, self.scenario, self.seed)
        d2 = trajectory_digest(self.env_name, self.scenario, self.seed)
        assert d1 == d2, "same seed and actions gave different trajectories"
        other = trajectory_digest(self.env_name, self.scenario, self.seed + 1)
        assert other != d1, "different seeds gave identical trajectories"
        if self.subprocess_check:
            remote = _digest_in_subprocess(self.env_name, self.scenario, self.seed, 400, "12345")
            assert remote == d1, "trajectory differs in another process (PYTHONHASHSEED=12345)"

    def mask_exact(self) -> None:
        env = self.env
        rng = np.random.default_rng(self.seed)
        for state in _sample_states(env, self.seed, count=5, stride=37):
            mask = env.action_mask(state)
            assert mask.dtype == bool and mask.shape == (env.num_actions,), "mask shape/dtype"
            assert mask[env.encode(env.noop_action())], "the no-op action must always be legal"
            for i in np.flatnonzero(mask):
                msg = env.validate(state, env.decode(int(i)))
                assert msg is None, f"masked-in action {i} rejected by validate: {msg}"
                trial = copy.deepcopy(state)
                ts = env.step(trial, int(i))
                assert ts.valid, f"masked-in action {i} reported invalid: {ts.message}"
            illegal = np.flatnonzero(~mask)
            for i in rng.choice(illegal, size=min(12, illegal.size), replace=False):
                msg = env.validate(state, env.decode(int(i)))
                assert isinstance(msg, str) and msg, f"masked-out action {i} passed validate"
                trial = copy.deepcopy(state)
                expected = after_invalid_turn(env, trial)
                ts = env.step(trial, int(i))
                assert not ts.valid and ts.message, f"masked-out action {i} not reported invalid"
                assert world_bytes(trial) == expected, (
                    f"invalid action {i} did more than use the turn (half-applied?)")
                assert trial.invalid_actions == state.invalid_actions + 1, "invalid not counted"

    def bad_input_is_noop(self) -> None:
        env = self.env
        state = env.reset(self.seed)
        for bad in (-1, env.num_actions, 10**9, "wait", None, 3.5):
            if state.done:
                break
            expected = after_invalid_turn(env, state)
            ts = env.step(state, bad)
            assert not ts.valid and ts.message, f"bad action {bad!r} was not reported invalid"
            assert world_bytes(state) == expected, f"bad action {bad!r} did more than use the turn"

    def observations_conform(self) -> None:
        env = self.env
        spec = env.observation_spec()
        for state in _sample_states(env, self.seed, count=6, stride=29):
            before = canonical_bytes(state)
            obs = env.observe(state)
            assert set(obs) == set(spec), f"observation keys {sorted(obs)} != spec {sorted(spec)}"
            for key, s in spec.items():
                problem = s.validate(key, obs[key])
                assert problem is None, problem
            reference = {k: v.copy() for k, v in obs.items()}
            for arr in obs.values():  # scribbling on the observation must not touch the state
                arr.fill(-1)
            again = env.observe(state)
            assert all(np.array_equal(again[k], reference[k]) for k in spec), "obs aliases state"
            assert canonical_bytes(state) == before, "observe() changed the state"

    def episode_terminates(self) -> None:
        env = self.env
        agent = RandomAgent()
        state = env.reset(self.seed)
        agent.reset(env, self.seed)
        ts = None
        for _ in range(env.max_steps):
            ts = env.step(state, agent.act(env, state))
            assert np.isfinite(ts.reward), "non-finite reward"
            if state.done:
                break
        assert ts is not None and (ts.terminated or ts.truncated), "episode did not end"
        assert state.invalid_actions == 0, "masked-random played an invalid action"
        grade = env.grade(state)
        assert 0.0 <= grade.score <= 1.0, f"score {grade.score} outside [0, 1]"
        assert all(np.isfinite(v) for v in grade.components.values()), "non-finite component"
        after = env.step(state, env.noop_action())
        assert not after.valid and after.message, "step after done must be reported"

    def snapshot_restores(self) -> None:
        env = self.env
        for state in _sample_states(env, self.seed, count=4, stride=41)[1:]:
            blob = pickle.dumps(state, 4)
            legal = np.flatnonzero(env.action_mask(state))
            action = int(legal[len(legal) // 2])
            restored = pickle.loads(blob)
            t1, t2 = env.step(state, action), env.step(restored, action)
            assert (t1.reward, t1.terminated, t1.truncated) == (t2.reward, t2.terminated,
                                                                t2.truncated), "restore differs"
            assert canonical_bytes(state) == canonical_bytes(restored), "restored state diverged"

    def render_text(self) -> None:
        state = self.env.reset(self.seed)
        text = self.env.render_text(state)
        assert isinstance(text, str) and text.strip(), "render_text must return non-empty text"


CHECKS: tuple[str, ...] = ("spec_valid", "reset_deterministic", "rollout_deterministic",
                           "mask_exact", "bad_input_is_noop", "observations_conform",
                           "episode_terminates", "snapshot_restores", "render_text")


def check_env(env_name: str, scenario: str | None = None, seed: int = 7, *,
              subprocess_check: bool = True, raise_on_failure: bool = True,
              only: tuple[str, ...] | None = None) -> CheckReport:
    """Run the conformance checks on ``env_name``/``scenario``; raise if any fail.

    Returns a :class:`CheckReport` (``print(report)`` shows one line per check).
    """
    checks = _Checks(env_name, scenario, seed, subprocess_check)
    results = []
    for name in only or CHECKS:
        fn: Callable[[], None] = getattr(checks, name)
        try:
            fn()
            results.append(CheckResult(name, True))
        except Exception as exc:  # every failure is reported, none hidden
            results.append(CheckResult(name, False, f"{type(exc).__name__}: {exc}"))
    report = CheckReport(env_name, scenario, results)
    return report.raise_if_failed() if raise_on_failure else report
