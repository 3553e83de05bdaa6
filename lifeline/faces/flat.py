"""Flat faces for libraries that take one ``Box`` observation: RLlib, SuperSuit, plain MLPs.

Lifeline's Gymnasium and PettingZoo faces observe a ``Dict`` of arrays plus ``action_mask``.
RLlib's default encoders ("No default encoder config for obs space=Dict") and SuperSuit's
wrappers (``pad_observations_v0``, ``flatten_v0``, ``agent_indicator_v0``,
``pettingzoo_env_to_vec_env_v1``) take ``Box`` observations only. The faces here flatten every
array except the mask, in the ``Dict``'s key order, into one float32 vector and keep the mask
in one of three layouts (``mask=``):

- ``"first"`` (default): ``[action_mask (A) | features (F)]`` in one ``Box`` of ``A + F``; the
  policy sees the legal actions as its first ``A`` inputs and a masked learner slices them.
- ``"dict"``: ``Dict(action_mask=Box(0, 1, (A,)), observations=Box(F))``, the layout of RLlib's
  ``ActionMaskingTorchRLModule`` example (masked logits).
- ``"none"``: the features only (like :class:`lifeline.faces.gymnasium.FlattenMasked`).

Whatever the layout, ``info["action_mask"]`` (boolean) and ``action_masks()`` stay, so
sb3-contrib's MaskablePPO and :func:`lifeline.eval.evaluate_masked` work through the wrapper.

One-liners::

    from ray.rllib.algorithms.ppo import PPOConfig
    from lifeline.faces.flat import RLlibEnv
    algo = PPOConfig().environment(RLlibEnv, env_config={"id": "lifeline/ED-v3"}).build_algo()

    import supersuit as ss
    from lifeline.faces.flat_marl import FlatParallel
    from lifeline.envs.evgrid import parallel_env
    vec = ss.pettingzoo_env_to_vec_env_v1(FlatParallel(parallel_env(), pad=True))

``pad=True`` gives every agent the same spaces (SuperSuit's vector conversion needs them):
``Discrete(A_max)`` actions, the mask padded with zeros to ``A_max`` (the extra actions are
never legal) and the features padded with zeros to ``F_max``; an agent's padded action ids
reach the environment unchanged, where they are invalid no-ops (they cost the turn).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

MaskLayout = Literal["first", "dict", "none"]
MASK_LAYOUTS: tuple[str, ...] = ("first", "dict", "none")
MASK_KEY = "action_mask"


class FlatLayout:
    """How one ``Dict`` observation space flattens: feature keys, bounds, mask size."""

    def __init__(self, space: spaces.Space[Any], mask: MaskLayout = "first",
                 num_actions: int | None = None, features: int | None = None) -> None:
        if not isinstance(space, spaces.Dict):
            raise TypeError(f"expected a Dict observation space, got {space}")
        if mask not in MASK_LAYOUTS:
            raise ValueError(f"mask must be one of {MASK_LAYOUTS}, got {mask!r}")
        self.mask: MaskLayout = mask
        self.keys = [k for k in space.spaces if k != MASK_KEY]
        boxes: list[Any] = [space.spaces[k] for k in self.keys]
        for key, box in zip(self.keys, boxes, strict=True):
            if not isinstance(box, spaces.Box):
                raise TypeError(f"observation {key!r} is {box}, not a Box")
        low = np.concatenate([np.broadcast_to(b.low, b.shape).ravel() for b in boxes])
        high = np.concatenate([np.broadcast_to(b.high, b.shape).ravel() for b in boxes])
        mask_space = space.spaces.get(MASK_KEY)
        own_actions = int(np.prod(mask_space.shape or ())) if mask_space is not None else 0
        self.own_actions = own_actions
        self.num_actions = num_actions if num_actions is not None else own_actions
        self.own_features = low.size
        self.features = features if features is not None else low.size
        if self.num_actions < own_actions or self.features < low.size:
            raise ValueError("padding may only grow the mask and the features")
        pad = self.features - low.size
        self.low = np.concatenate([low, np.zeros(pad)]).astype(np.float32)
        self.high = np.concatenate([high, np.zeros(pad)]).astype(np.float32)

    def space(self) -> spaces.Space[Any]:
        """The flat observation space of this layout."""
        feats = spaces.Box(self.low, self.high, dtype=np.float32)
        mask = spaces.Box(0.0, 1.0, shape=(self.num_actions,), dtype=np.float32)
        if self.mask == "none":
            return feats
        if self.mask == "dict":
            return spaces.Dict({MASK_KEY: mask, "observations": feats})
        return spaces.Box(np.concatenate([mask.low, self.low]),
                          np.concatenate([mask.high, self.high]), dtype=np.float32)

    def padded_mask(self, obs: Mapping[str, np.ndarray]) -> np.ndarray:
        """The observation's mask as float32, zero-padded to ``num_actions``."""
        out = np.zeros(self.num_actions, dtype=np.float32)
        if MASK_KEY in obs:
            m = np.asarray(obs[MASK_KEY]).ravel()
            out[:m.size] = m
        return out

    def flatten(self, obs: Mapping[str, np.ndarray]) -> Any:
        """One ``Dict`` observation in this layout (copies; never aliases ``obs``)."""
        feats = np.zeros(self.features, dtype=np.float32)
        feats[:self.own_features] = np.concatenate(
            [np.asarray(obs[k], dtype=np.float32).ravel() for k in self.keys])
        if self.mask == "none":
            return feats
        mask = self.padded_mask(obs)
        if self.mask == "dict":
            return {MASK_KEY: mask, "observations": feats}
        return np.concatenate([mask, feats])


class FlatBox(gym.ObservationWrapper[Any, Any, dict[str, np.ndarray]],
              gym.utils.RecordConstructorArgs):
    """A Lifeline Gymnasium env with a flat observation (layouts: module docstring).

    ``FlatBox(gym.make("lifeline/ED-v3"))`` observes ``[mask | features]`` as float32;
    ``info["action_mask"]`` and ``action_masks()`` are those of the wrapped env.
    """

    def __init__(self, env: gym.Env[Any, Any], mask: MaskLayout = "first") -> None:
        gym.utils.RecordConstructorArgs.__init__(self, mask=mask)
        gym.ObservationWrapper.__init__(self, env)
        self.layout = FlatLayout(env.observation_space, mask)
        self.observation_space = self.layout.space()

    def observation(self, observation: dict[str, np.ndarray]) -> Any:
        return self.layout.flatten(observation)

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal actions (MaskablePPO's hook), from the wrapped env."""
        mask: np.ndarray = self.env.get_wrapper_attr("action_masks")()
        return mask


class RLlibEnv(FlatBox):
    """RLlib's env-class convention: built from one ``env_config`` mapping.

    Keys: ``id`` (a Gymnasium id, default ``"lifeline/ED-v3"``), ``mask`` (layout, default
    ``"first"``; ``"dict"`` for RLlib's action-masking RL module), and anything ``gym.make``
    takes for that id (``scenario``). ``PPOConfig().environment(RLlibEnv, env_config={"id":
    "lifeline/Pharmacy-v2", "scenario": "heavy"})``. Remote env runners import this module,
    and with it the ``lifeline`` package, which registers the ids.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        kwargs = dict(config or {})
        gym_id = str(kwargs.pop("id", "lifeline/ED-v3"))
        mask = kwargs.pop("mask", "first")
        super().__init__(gym.make(gym_id, **kwargs), mask=mask)
