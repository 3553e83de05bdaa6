"""The policy input: one flat, scaled vector built from an environment's structured observation.

Training (through the Gymnasium face) and acting (:class:`lifeline.agents.ppo.PPOAgent`, through
the core env) must feed the network *exactly* the same numbers, so both call :func:`features`
here. Arrays are concatenated in *sorted key order* (Gymnasium's ``Dict`` space sorts its keys,
so sorting makes the core and the face agree), ``action_mask`` excluded — the mask is applied to
the logits, not fed to the network.

Why ``log1p``: every Lifeline observation is non-negative but the scales differ by orders of
magnitude (flags 0/1, hours up to 72, counts in the hundreds). ``log1p`` compresses them into a
range an MLP handles without running statistics, so there is no normaliser state to save and to
keep in sync between training and evaluation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

MASK_KEY = "action_mask"


def feature_keys(spec_keys: Sequence[str]) -> list[str]:
    """The observation keys fed to the policy, sorted (``action_mask`` removed)."""
    return sorted(k for k in spec_keys if k != MASK_KEY)


def features(obs: Mapping[str, np.ndarray], keys: Sequence[str]) -> np.ndarray:
    """Flat ``float32`` vector ``log1p(max(obs, 0))`` of ``obs[k]`` for ``k in keys``."""
    parts = [np.asarray(obs[k], dtype=np.float32).ravel() for k in keys]
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
    return np.log1p(np.maximum(flat, 0.0)).astype(np.float32)


def squash(x: np.ndarray) -> np.ndarray:
    """``sign(x) * log1p(|x|)`` as ``float32``: a fixed, documented squashing for any sign.

    The same as :func:`features`' ``log1p`` on non-negative values (0 -> 0, 1 -> 0.69,
    60 -> 4.11, 1e4 -> 9.21, 1e6 -> 13.8), odd for negative ones (evgrid's headroom forecast).
    It keeps no statistics, so a flattened observation is a pure function of the state.
    """
    arr = np.asarray(x, dtype=np.float32)
    return (np.sign(arr) * np.log1p(np.abs(arr))).astype(np.float32)


def feature_size(shapes: Mapping[str, tuple[int, ...]], keys: Sequence[str]) -> int:
    """Length of :func:`features` for arrays of the given shapes."""
    return int(sum(int(np.prod(shapes[k])) for k in keys))
