"""One seed, one action sequence, four faces: core, Gymnasium, in-process OpenEnv, live server.

Observations, rewards, validity, termination and the final grade must be identical — the
live server is driven by OpenEnv's own ``GenericEnvClient`` over the WebSocket.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from openenv.core.generic_client import GenericEnvClient

from lifeline.core.registry import EnvSpec
from lifeline.faces.gymnasium import LifelineGymEnv
from lifeline.faces.tools import action_to_call
from lifeline.serve.openenv import LifelineAction, openenv_env_class
from lifeline.serve.run import background_server
from lifeline.serve.server import build_app
from tests.server_helpers import SERVED, masked_random_indices


@pytest.fixture(scope="module")
def live_url() -> Iterator[str]:
    with background_server(build_app(SERVED, max_sessions=8)) as url:
        yield url


def _cases() -> list[Any]:
    cases = []
    for spec in SERVED:
        # One full episode on the default scenario, a short one on every other scenario.
        cases.append(pytest.param(spec, spec.default_scenario, 5, 10_000,
                                  id=f"{spec.name}-{spec.default_scenario}-full"))
        cases += [pytest.param(spec, sc, 11, 25, id=f"{spec.name}-{sc}-short")
                  for sc in spec.scenarios[1:]]
    return cases


def _same_arrays(core_obs: dict[str, np.ndarray], structured: dict[str, list[Any]],
                 mask: np.ndarray, face: str) -> None:
    assert set(structured) == {*core_obs, "action_mask"}, face
    for key, arr in core_obs.items():
        got = np.asarray(structured[key], dtype=arr.dtype).reshape(arr.shape)
        assert np.array_equal(got, arr), f"{face}: {key} differs"
    assert structured["action_mask"] == mask.tolist(), f"{face}: action_mask differs"


@pytest.mark.parametrize(("spec", "scenario", "seed", "max_steps"), _cases())
def test_faces_agree(live_url: str, spec: EnvSpec, scenario: str, seed: int,
                     max_steps: int) -> None:
    core = spec.load()(scenario)
    actions = masked_random_indices(core, seed, max_steps, invalid_every=9)

    state = core.reset(seed)
    gym_env = LifelineGymEnv(core=spec.load()(scenario))
    gym_obs, _ = gym_env.reset(seed=seed)
    inproc = openenv_env_class(spec)()
    ip = inproc.reset(seed=seed, scenario=scenario)
    with GenericEnvClient(base_url=f"{live_url}/{spec.name}").sync() as client:
        live = client.reset(seed=seed, scenario=scenario)
        assert live.observation["seed"] == seed and live.observation["scenario"] == scenario

        def check(step: int) -> None:
            obs, mask = core.observe(state), core.action_mask(state)
            for key, arr in obs.items():
                assert np.array_equal(gym_obs[key], arr), f"gym {key} at step {step}"
            assert np.array_equal(gym_obs["action_mask"], mask.astype(np.int8))
            _same_arrays(obs, ip.structured, mask, f"in-process step {step}")
            _same_arrays(obs, live.observation["structured"], mask, f"live step {step}")
            assert ip.text == live.observation["text"]
            assert ip.text.startswith(core.render_text(state).rstrip())

        check(0)
        for step, index in enumerate(actions, start=1):
            name, args = action_to_call(core.decode(index))
            ts = core.step(state, index)
            gym_obs, g_reward, g_term, g_trunc, g_info = gym_env.step(index)
            ip = inproc.step(LifelineAction(tool_name=name, arguments=args))
            live = client.step({"tool_name": name, "arguments": args})
            assert live.reward is not None and ip.reward is not None
            assert ts.reward == g_reward == ip.reward == live.reward, f"reward at step {step}"
            assert (ts.terminated, ts.truncated) == (g_term, g_trunc)
            assert state.done == ip.done == live.done
            assert ts.valid == g_info["valid"] == ip.valid == live.observation["valid"]
            assert ts.message == ip.error == live.observation["error"]
            check(step)
        if max_steps >= 10_000:
            assert state.done, "a full episode must end"
        grade = core.grade(state)
        if state.done:
            assert ip.score == live.observation["score"] == grade.score == g_info["score"]
            assert ip.components == live.observation["components"] == grade.components
        else:
            assert live.observation["score"] is None
