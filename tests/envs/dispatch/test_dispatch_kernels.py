"""Dispatch's numba kernels (``kernels.py``) equal the numpy path byte for byte (issue 15).

``observe`` and ``action_mask`` run one compiled call each when numba is installed; the numpy
functions they replace (``observe_numpy``, ``action_mask_numpy``) stay as the path without numba.
Every step of many episodes — masked-random play with several hold rates (so that the clock,
reports, city events and fake-call cancellations move), the heuristic and exploit agents that
reroute, verify, choose hospitals and call mutual aid — on every scenario of both cities must give
the same observation arrays (keys, dtypes, shapes, contiguity, bytes) and masks from both paths.
The environment without numba (``_kernels`` unset) must also run and give the same trajectory.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from lifeline.envs.dispatch import observation, rules
from lifeline.envs.dispatch.baselines import AGENTS
from lifeline.envs.dispatch.env import DispatchEnv, DispatchMetroEnv
from lifeline.envs.dispatch.params import SCENARIO_NAMES
from lifeline.envs.dispatch.types import DispatchState
from lifeline.testing.play import play_checked

pytest.importorskip("numba")

SMALL = [s for s in SCENARIO_NAMES if not s.startswith("metro_")]
METRO = [s for s in SCENARIO_NAMES if s.startswith("metro_")]


def _env(scenario: str) -> DispatchEnv:
    return DispatchMetroEnv(scenario) if scenario.startswith("metro_") else DispatchEnv(scenario)


def _same(env: DispatchEnv, state: DispatchState, where: str) -> None:
    new, ref = env.observe(state), observation.observe_numpy(state, env.ctx)
    assert list(new) == list(ref), where
    for key, want in ref.items():
        got = new[key]
        assert got.dtype == want.dtype and got.shape == want.shape, f"{where}: {key}"
        assert got.flags.c_contiguous and got.flags.writeable, f"{where}: {key}"
        assert got.tobytes() == want.tobytes(), f"{where}: {key}\n{got}\n!=\n{want}"
    mask, want_mask = env.action_mask(state), rules.action_mask_numpy(state, env.ctx, env.layout)
    assert mask.dtype == want_mask.dtype and mask.shape == want_mask.shape, where
    assert mask.tobytes() == want_mask.tobytes(), \
        f"{where}: mask differs at {np.flatnonzero(mask != want_mask)}"


def _random_play(env: DispatchEnv, seed: int, hold_p: float, max_steps: int) -> int:
    return play_checked(env, seed, env.layout.hold, hold_p, max_steps,
                        lambda state, where: _same(env, state, where), rng_offset=7000)


@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_kernels_match_numpy_on_random_play(scenario: str) -> None:
    env = _env(scenario)
    steps = sum(_random_play(env, seed, hold_p, 700)
                for seed, hold_p in ((11, 0.0), (12, 0.3), (13, 0.7), (14, 0.95)))
    assert steps > 1000


@pytest.mark.parametrize("agent", ["closest_idle", "dmexclp", "verify_then_dispatch",
                                   "verify_dmexclp", "reroute_churn", "aid_spam", "swarm"])
def test_kernels_match_numpy_under_scripted_agents(agent: str) -> None:
    if agent not in AGENTS:
        pytest.skip(f"no agent {agent!r}")
    for scenario in ("expert", METRO[-1]):
        env = _env(scenario)
        policy = AGENTS[agent]()
        state = env.reset(21)
        policy.reset(env, 21)
        steps = 0
        while not state.done and steps < 900:
            env.step(state, policy.act(env, state))
            steps += 1
            _same(env, state, f"{agent} {scenario} step {steps}")


def test_kernels_on_edge_states() -> None:
    """Hand-edited and restored states: more open calls than slots, alerts, hospitals, done."""
    env = DispatchEnv("expert")
    state = env.reset(3)
    for _ in range(200):
        env.step(state, env.layout.hold)
    state.c_status[: state.c_status.size // 2] = 1  # many open calls: zones count them all
    state.n_open = int(np.count_nonzero(state.c_status == 1))
    assert state.n_open > env.ctx.K
    _same(env, state, "n_open > K")
    until = [np.inf, -np.inf, state.t + 3.0, 1e9, state.t - 1.0, 0.0, 480.0]
    state.alert_until[:] = [until[i % len(until)] for i in range(state.alert_until.size)]
    state.u_hosp[:] = np.arange(state.u_hosp.size) % (env.ctx.H + 1) - 1
    state.u_call[:2] = state.visible[:2]
    _same(env, state, "alerts and hospitals")
    state.visible[:] = -1
    state.n_open = 0
    _same(env, state, "no visible calls")
    _same(env, pickle.loads(pickle.dumps(copy.deepcopy(state))), "restored")
    state.done = True
    _same(env, state, "done")
    assert not env.action_mask(state).any()


def test_numpy_fallback_gives_the_same_trajectory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without numba (``_kernels`` None) the env runs the numpy path: same observations, masks,
    rewards and messages along the same action stream."""

    def run() -> list[bytes]:
        env = DispatchEnv("expert")
        rng = np.random.default_rng(5)
        state = env.reset(8)
        out: list[bytes] = []
        for _ in range(400):
            mask = env.action_mask(state)
            action = int(rng.integers(env.num_actions)) if rng.random() < 0.2 \
                else int(np.flatnonzero(mask)[rng.integers(mask.sum())])
            ts = env.step(state, action)
            out.append(pickle.dumps((mask, env.observe(state), ts.reward, ts.valid, ts.message)))
        return out

    fast = run()
    monkeypatch.setattr(observation, "_kernels", None)
    monkeypatch.setattr(rules, "_kernels", None)
    assert run() == fast


def test_next_stop_equals_graph_locate() -> None:
    """``dynamics._next_stop`` (Python scalars) is ``RoadGraph.locate`` value for value."""
    from lifeline.envs.dispatch.dynamics import _next_stop

    for env in (DispatchEnv("expert"), DispatchMetroEnv("metro_expert")):
        g = copy.deepcopy(env.ctx.free_graph)
        u, v, _ = env.params.city.edges[0]
        g.slow_edge(u, v, 3.0)  # an accident: a non-default weight on some paths
        rng = np.random.default_rng(9)
        for _ in range(3000):
            args = (int(rng.integers(g.n)), int(rng.integers(g.n)), float(rng.uniform(0, 3)),
                    float(rng.uniform(0, 40)), float(rng.choice([1.0, 1.15, 1.4])))
            pos = g.locate(*args)
            node, rem = _next_stop(g, *args)
            assert node == pos.next_node and rem == pos.remaining, args
