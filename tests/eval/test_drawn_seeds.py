"""A reset without a seed draws one outside every documented seed range (training,
validation, held-out evaluation), on the server and on the browser pages alike."""

from __future__ import annotations

import pytest

from lifeline.eval import seeds


def test_drawn_seeds_lie_outside_every_documented_range() -> None:
    drawn = [seeds.drawn_seed() for _ in range(2000)]
    assert all(seeds.DRAWN_SEED_BASE <= s < 2**31 for s in drawn)
    assert not any(seeds.is_eval_seed(s) or s <= seeds.TRAIN_SEED_MAX for s in drawn)
    assert seeds.is_eval_seed(seeds.EVAL_SEED_BASE) and seeds.is_eval_seed(
        seeds.EVAL_SEED_END - 1) and not seeds.is_eval_seed(seeds.EVAL_SEED_END)
    assert len(set(drawn)) > 1990  # drawn, not fixed


def test_an_unseeded_server_reset_reports_a_drawn_seed() -> None:
    pytest.importorskip("openenv")
    from lifeline.core.registry import spec
    from lifeline.serve.openenv import openenv_env_class

    obs = openenv_env_class(spec("pharmacy"))().reset()
    assert isinstance(obs.seed, int) and obs.seed >= seeds.DRAWN_SEED_BASE
