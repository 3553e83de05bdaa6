"""A tiny fast-PPO run on the batch ED end to end (the real run is 2 CPU-minutes, not here):
files, a time-to-score curve with scores in [0, 1], training seeds only, the CLI wiring."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("numba")

from typer.testing import CliRunner

from lifeline.cli import app
from lifeline.eval.seeds import VALIDATION_SEED_BASE
from lifeline.train.fastppo import FastPPOConfig, Featurizer, train_fast_ppo
from lifeline.train.features import features

TINY = FastPPOConfig(num_envs=8, num_steps=16, epochs=1, minibatches=2, hidden=16,
                     eval_every_s=0.5, eval_episodes=2, bc_episodes=1, bc_epochs=1,
                     dagger_rounds=1, dagger_episodes=1, dagger_epochs=1, bc_coef=0.1)


def test_tiny_run_writes_a_curve_and_a_model(tmp_path: Path) -> None:
    result = train_fast_ppo("night_shift", cpu_seconds=1.5, out_dir=tmp_path, config=TINY,
                            target=0.5)
    payload = json.loads((tmp_path / "curve.json").read_text())
    assert (tmp_path / "model.pt").exists()
    assert len(payload["points"]) >= 2 and payload["points"] == result.points
    assert payload["points"][0]["train_score"] is None  # no training episode has ended yet
    for point in payload["points"]:
        assert 0.0 <= point["eval_score"] <= 1.0
    assert payload["points"][-1]["env_steps"] > 0
    assert payload["reached_at_cpu_s"] is not None  # the clone of the heuristic beats 0.5


def test_featurizer_is_the_policy_features_of_ppo() -> None:
    """The batch featurizer feeds the network exactly what lifeline.train.features does."""
    import lifeline

    env = lifeline.make("ed", "surge")
    state = env.reset(3)
    obs = env.observe(state)
    obs["action_mask"] = env.action_mask(state).astype(np.int8)
    keys = list(obs)
    batch = Featurizer(keys)({k: v[None] for k, v in obs.items()})[0]
    np.testing.assert_array_equal(batch, features(obs, Featurizer(keys).keys))


def test_training_episodes_use_training_seeds_only() -> None:
    from lifeline.envs.ed.batch import EDVectorEnv
    from lifeline.eval.seeds import train_seed_stream

    stream = train_seed_stream(0)
    venv = EDVectorEnv(2, "night_shift", autoreset_mode="SameStep", episode_seeds=stream)
    venv.reset(seed=[next(stream), next(stream)])
    seen = set(int(s) for s in venv.batch.seeds)
    for _ in range(2 * 96 * 4):
        venv.step(np.zeros(2, dtype=np.int64))
        seen.update(int(s) for s in venv.batch.seeds)
    assert len(seen) >= 4 and max(seen) < VALIDATION_SEED_BASE


def test_cli_fastppo(tmp_path: Path) -> None:
    sets = ["num_envs=4", "num_steps=8", "hidden=8", "eval_episodes=1", "eval_every_s=5",
            "epochs=1", "minibatches=1"]
    result = CliRunner().invoke(app, ["train", "fastppo", "ed", "--scenario", "night_shift",
                                      "--cpu-seconds", "0.5", "--out", str(tmp_path),
                                      *[x for s in sets for x in ("--set", s)]])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "curve.json").exists()
    assert "best_eval_score" in result.output
    bad = CliRunner().invoke(app, ["train", "fastppo", "ed", "--set", "nope=1",
                                   "--out", str(tmp_path / "x")])
    assert bad.exit_code != 0 and "unknown FastPPOConfig field" in bad.output
