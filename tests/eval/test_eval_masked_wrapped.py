"""``evaluate_masked`` plays models trained on a flat face; every id's vector env has masks."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import lifeline
from lifeline.eval import evaluate_masked
from lifeline.eval.masked import match_observations
from lifeline.faces.flat import FlatBox
from lifeline.faces.gymnasium import FlattenMasked

PHARMACY = lifeline.spec("pharmacy").gym_id


class FirstLegal:
    """A model stand-in: checks what it is handed, plays the last legal action."""

    def __init__(self, observation_space: gym.Space[Any]) -> None:
        self.observation_space = observation_space
        self.calls = 0

    def predict(self, obs: object, deterministic: bool = True,
                action_masks: np.ndarray | None = None) -> tuple[int, None]:
        assert self.observation_space.contains(obs), "the model got another face's observation"
        assert action_masks is not None
        self.calls += 1
        return int(np.flatnonzero(action_masks)[-1]), None


@pytest.mark.parametrize("face", ["flatten_masked", "first", "dict", "raw"])
def test_evaluate_masked_wraps_the_env_id_to_the_models_face(face: str) -> None:
    base = gym.make(PHARMACY)
    wrapped = {"flatten_masked": lambda e: FlattenMasked(e), "first": lambda e: FlatBox(e),
               "dict": lambda e: FlatBox(e, "dict"), "raw": lambda e: e}[face](base)
    model = FirstLegal(wrapped.observation_space)
    result = evaluate_masked(model, PHARMACY, n_eval_episodes=1)
    assert model.calls == result.lengths[0] > 0
    assert sum(result.invalid) == 0 and 0.0 <= result.scores[0] <= 1.0
    # the same episode as evaluating on the env the model was trained on
    again = evaluate_masked(FirstLegal(wrapped.observation_space), wrapped, n_eval_episodes=1)
    assert again.scores == result.scores and again.returns == result.returns


def test_a_model_of_another_shape_is_one_line_naming_both() -> None:
    model = FirstLegal(gym.spaces.Box(0, 1, (7,)))
    with pytest.raises(ValueError, match=r"the model observes Box\(7,\) but the env gives Dict"
                       ) as err:
        match_observations(gym.make(PHARMACY), model.observation_space)
    assert "\n" not in str(err.value) and len(str(err.value)) < 2000


@pytest.mark.slow  # 15-20 s on the shared machine (torch import + a 64-step rollout)
def test_evaluate_masked_plays_a_maskableppo_trained_with_flattenmasked() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    model = sb3_contrib.MaskablePPO("MlpPolicy", FlattenMasked(gym.make(PHARMACY)), n_steps=64,
                                    batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    result = evaluate_masked(model, PHARMACY, n_eval_episodes=1)
    assert sum(result.invalid) == 0 and np.isfinite(result.mean_score)


@pytest.mark.parametrize("gym_id,kwargs", [(s.gym_id, {}) for s in lifeline.all_specs()]
                         + [(lifeline.spec("ed").gym_id, {"vectorization_mode": "sync"})])
def test_every_ids_vector_env_infos_carry_the_action_mask(gym_id: str,
                                                         kwargs: dict[str, Any]) -> None:
    """Every id's default vector env (ED's: the batch ``EDVectorEnv``), and ED's loop of scalar
    envs too."""
    vec = gym.make_vec(gym_id, num_envs=2, **kwargs)
    _, info = vec.reset(seed=0)
    n = vec.single_action_space.n  # type: ignore[attr-defined]
    assert info["action_mask"].shape == (2, n) and info["_action_mask"].all()
    masks = np.asarray(info["action_mask"], dtype=bool)
    for _ in range(3):
        actions = np.array([int(np.flatnonzero(m)[-1]) for m in masks])
        obs, _, _, _, info = vec.step(actions)
        masks = np.asarray(info["action_mask"], dtype=bool)
        assert masks.shape == (2, n)
        np.testing.assert_array_equal(masks, obs["action_mask"] > 0)
    vec.close()
