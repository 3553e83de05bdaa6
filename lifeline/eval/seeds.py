"""The seed split: training seeds and a fixed, held-out evaluation set that training never touches.

Why: a policy evaluated on the episodes it was trained on reports memorisation, not skill. Every
episode of every Lifeline environment is a pure function of ``(scenario, seed)``, so splitting
the integer seed range is enough to keep training and evaluation episodes disjoint:

* **training seeds** are ``0 .. TRAIN_SEED_MAX`` (inclusive). :func:`train_seed_stream` draws an
  endless reproducible sequence of them for a training run from ``[0, VALIDATION_SEED_BASE)``.
* **validation seeds** ``VALIDATION_SEED_BASE + i`` (still below the held-out range) are for
  choosing hyperparameters and checkpoints; the training stream never draws them, and tuning on
  them keeps the held-out set untouched until the final evaluation.
* **evaluation seeds** are ``EVAL_SEED_BASE + i`` for ``i = 0, 1, 2, ...`` — the same list for
  every agent, environment and scenario, so agents are compared on paired episodes (common random
  numbers) and results from different runs line up seed by seed.

* **drawn seeds** ``[DRAWN_SEED_BASE, 2**31)``: what a server draws for a reset that names no
  seed (:func:`drawn_seed`), so an unseeded interactive episode is never a training, validation
  or held-out one.

Seeds in ``[EVAL_SEED_BASE, EVAL_SEED_END)`` are reserved for evaluation; nothing in training
may produce one (:func:`check_train_seed` enforces it).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import numpy as np

TRAIN_SEED_MAX = 999_999
"""Largest training seed (inclusive); training episodes use seeds in ``[0, TRAIN_SEED_MAX]``."""

VALIDATION_SEED_BASE = 900_000
"""First validation seed; ``validation_seeds(n)`` = ``VALIDATION_SEED_BASE + i`` (i < 100_000)."""

EVAL_SEED_BASE = 1_000_000
"""First held-out evaluation seed; the evaluation set is ``EVAL_SEED_BASE + i``."""

EVAL_SEED_END = 2**30
"""End (exclusive) of the held-out range ``[EVAL_SEED_BASE, EVAL_SEED_END)``."""

DRAWN_SEED_BASE = EVAL_SEED_END
"""First seed :func:`drawn_seed` may return (drawn seeds: ``[DRAWN_SEED_BASE, 2**31)``)."""


def eval_seeds(n: int, start: int = 0) -> list[int]:
    """The first ``n`` held-out evaluation seeds (offset by ``start`` within the held-out set).

    The list is fixed forever so that committed results can be reproduced seed by seed.
    """
    if n < 0 or start < 0:
        raise ValueError(f"n and start must be non-negative, got n={n}, start={start}")
    return [EVAL_SEED_BASE + start + i for i in range(n)]


def validation_seeds(n: int) -> list[int]:
    """The first ``n`` validation seeds (for tuning; disjoint from training streams and eval)."""
    if not 0 <= n <= TRAIN_SEED_MAX + 1 - VALIDATION_SEED_BASE:
        raise ValueError(f"n must be in [0, {TRAIN_SEED_MAX + 1 - VALIDATION_SEED_BASE}], got {n}")
    return [VALIDATION_SEED_BASE + i for i in range(n)]


def is_eval_seed(seed: int) -> bool:
    """True if ``seed`` belongs to the held-out evaluation range."""
    return EVAL_SEED_BASE <= seed < EVAL_SEED_END


def drawn_seed() -> int:
    """A fresh seed for an episode reset without one (servers, browser pages): uniform on
    ``[DRAWN_SEED_BASE, 2**31)``, outside the training, validation and held-out ranges (the
    seed is reported back, so the episode stays reproducible)."""
    return DRAWN_SEED_BASE + secrets.randbelow(2**31 - DRAWN_SEED_BASE)


def check_train_seed(seed: int) -> int:
    """Return ``seed`` if it is a training seed, otherwise raise ``ValueError``."""
    if not 0 <= seed <= TRAIN_SEED_MAX:
        raise ValueError(
            f"seed {seed} is not a training seed (training seeds are 0..{TRAIN_SEED_MAX}; "
            f"seeds >= {EVAL_SEED_BASE} are held out for evaluation)"
        )
    return seed


def train_seed_stream(seed: int) -> Iterator[int]:
    """An endless, reproducible stream of training episode seeds for a training run seeded ``seed``.

    Different run seeds give different (independently drawn) streams; every value lies in
    ``[0, VALIDATION_SEED_BASE)``, so no training episode ever equals a validation or held-out
    evaluation episode.
    """
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x7EA1]))
    while True:
        for value in rng.integers(0, VALIDATION_SEED_BASE, size=1024):
            yield int(value)
