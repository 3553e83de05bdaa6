"""Seeded random streams: one independent ``numpy.random.Generator`` per stochastic process.

Every environment draws randomness only from streams created here and kept in its ``State``.
``SeedSequence(seed).spawn(k)`` gives statistically independent children, so adding draws to one
process (say, deterioration) never shifts another (say, arrivals) — which keeps paired-seed
comparisons between policies fair (common random numbers).
"""

from __future__ import annotations

import numpy as np


def check_seed(seed: object) -> int:
    """Return ``seed`` as an ``int`` or raise ``ValueError`` with a clear message."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    return int(seed)


def make_streams(seed: int, names: tuple[str, ...]) -> dict[str, np.random.Generator]:
    """One ``Generator`` per name, spawned in the given (fixed) order from ``SeedSequence(seed)``.

    The order of ``names`` is part of the determinism contract: append new streams at the end.
    """
    children = np.random.SeedSequence(check_seed(seed)).spawn(len(names))
    return {name: np.random.Generator(np.random.PCG64(child))
            for name, child in zip(names, children, strict=True)}
