"""RLlib's PPO trains on a Lifeline id through :class:`lifeline.faces.flat.RLlibEnv`.

Slow (Ray start-up alone is 10-25 s on the shared machine): one local Ray instance trains the
default PPO module on the ``[mask | features]`` Box for a few iterations, then RLlib's own
action-masking module on the ``"dict"`` layout, whose greedy actions must all be legal.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("ray")
pytest.importorskip("tree", reason="RLlib needs dm-tree (the rllib extra)")
pytest.importorskip("torch")

import ray
from ray.rllib.algorithms.ppo import PPOConfig

from lifeline.faces.flat import RLlibEnv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _config(env_config: dict[str, object]) -> PPOConfig:
    return (PPOConfig()
            .environment(RLlibEnv, env_config=env_config)
            .env_runners(num_env_runners=0, rollout_fragment_length=200)
            .learners(num_learners=0)
            .training(train_batch_size_per_learner=400, minibatch_size=100, num_epochs=2)
            .debugging(seed=0))


def test_rllib_ppo_trains_a_few_iterations_on_the_flat_box(local_ray: None) -> None:
    config = _config({"id": "lifeline/ED-v3", "scenario": "surge"}).rl_module(
        model_config={"fcnet_hiddens": [64, 64]})
    algo = config.build_algo()
    try:
        results = [algo.train() for _ in range(3)]
    finally:
        algo.stop()
    sampled = [r["env_runners"]["num_env_steps_sampled_lifetime"] for r in results]
    assert sampled == sorted(sampled) and sampled[-1] >= 1200
    learner = results[-1]["learners"]["default_policy"]
    assert np.isfinite(learner["total_loss"]) and np.isfinite(learner["vf_loss"])
    assert np.isfinite(results[-1]["env_runners"]["episode_return_mean"])


def test_rllib_action_masking_module_plays_only_legal_actions(local_ray: None) -> None:
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    env_config: dict[str, object] = {"id": "lifeline/Pharmacy-v2", "mask": "dict"}
    config = _config(env_config).rl_module(rl_module_spec=RLModuleSpec(
        module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": [32]}))
    algo = config.build_algo()
    try:
        result = algo.train()
        module = algo.get_module()
    finally:
        algo.stop()
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 400
    assert module is not None
    env = RLlibEnv(env_config)
    obs, info = env.reset(seed=1_000_000)
    for _ in range(40):
        batch = {Columns.OBS: {k: torch.as_tensor(v[None]) for k, v in obs.items()}}
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        action = int(torch.argmax(logits))
        assert info["action_mask"][action], action
        obs, _, terminated, truncated, info = env.step(action)
        assert info["valid"]
        if terminated or truncated:
            break
