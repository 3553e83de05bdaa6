"""A tiny MaskablePPO run end to end: files, metadata, training seeds only, the agent acts.

The real training runs (minutes each) are not part of the suite; this checks the plumbing.
"""

from __future__ import annotations

import csv
import json
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from lifeline.agents import make_agent
from lifeline.core.registry import make
from lifeline.eval.seeds import TRAIN_SEED_MAX, eval_seeds, train_seed_stream
from lifeline.faces.features import feature_keys, features
from lifeline.train import ppo


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ppo") / "ed-surge"
    cfg = ppo.PPOConfig(n_envs=2, n_steps=128, batch_size=64, n_epochs=1, bc_episodes=1,
                        bc_epochs=1, select_every=256, select_episodes=2)
    ppo.train_ppo("ed", "surge", 256, out, seed=3, config=cfg, progress_bar=False)
    return out


def test_run_writes_model_metadata_and_curve(run_dir: Path) -> None:
    assert (run_dir / ppo.MODEL_FILE).stat().st_size > 10_000
    meta = json.loads((run_dir / ppo.METADATA_FILE).read_text())
    core = make("ed", "surge")
    assert meta["env"] == "ed" and meta["scenario"] == "surge"
    assert meta["gym_id"] == "lifeline/ED-v3"
    assert meta["env_version"] == core.version and meta["num_actions"] == core.num_actions
    assert meta["seed"] == 3 and meta["timesteps"] >= 256 and meta["wall_s"] > 0
    assert meta["algorithm"] == "MaskablePPO" and meta["package_version"]
    assert meta["git_commit"] and meta["train_seeds"]["range"] == [0, TRAIN_SEED_MAX]
    assert meta["behaviour_cloning"]["bc_samples"] > 0
    # Learning curve: SB3's own logger (progress.csv) with the grader score added.
    with (run_dir / ppo.CURVE_FILE).open() as fh:
        header = set(next(csv.reader(fh)))
    # (rollout/ep_* columns appear once an episode has finished; 256 steps end none on ed)
    assert {"time/total_timesteps", "eval/val_score"} <= header
    assert (run_dir / ppo.MONITOR_FILE).is_file()  # SB3's VecMonitor: one row per episode
    assert meta["timesteps_planned"] == 256 and not meta["interrupted"]
    # Checkpoint selection: validated before training and at the end; best kept as model.zip.
    sel = meta["checkpoint_selection"]
    with (run_dir / ppo.VALIDATION_FILE).open() as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["timesteps"]) for r in rows] == [0, meta["timesteps"]] and sel["checks"] == 2
    best = max(rows, key=lambda r: float(r["val_score_mean"]))
    assert sel["best_val_score"] == pytest.approx(float(best["val_score_mean"]), abs=1e-5)
    assert sel["validation_seeds"][0] >= 900_000 and sel["validation_seeds"][1] < 1_000_000


def test_saved_agent_loads_and_plays_legal_deterministic_episodes(run_dir: Path) -> None:
    env = make("ed", "surge")
    grades = []
    for _ in range(2):
        agent = make_agent(f"ppo:{run_dir}", "ed")
        seed = eval_seeds(1)[0]
        state = env.reset(seed)
        agent.reset(env, seed)
        actions = []
        while not state.done:
            action = agent.act(env, state)
            assert isinstance(action, int) and env.action_mask(state)[action]
            actions.append(action)
            assert env.step(state, action).valid
        grades.append((actions, env.grade(state).score))
    assert grades[0] == grades[1]
    assert 0.0 <= grades[0][1] <= 1.0
    # The saved model is the selected checkpoint: its validation score is the recorded best.
    meta = json.loads((run_dir / ppo.METADATA_FILE).read_text())
    agent = make_agent(f"ppo:{run_dir}", "ed")
    again = ppo.validation_score(agent.model, "ed", "surge",  # type: ignore[attr-defined]
                                 [900_000, 900_001])
    assert again == pytest.approx(meta["checkpoint_selection"]["best_val_score"], abs=1e-9)
    # The model file itself also works as PATH.
    make_agent(f"ppo:{run_dir / ppo.MODEL_FILE}", "ed")


def test_agent_rejects_other_env_layouts_and_missing_paths(run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        make_agent(f"ppo:{tmp_path / 'nothing'}", "ed")
    agent = make_agent(f"ppo:{run_dir}", "ed")
    env = make("ed", "surge")
    agent.metadata = {**agent.metadata, "env_version": -1}  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="retrain"):
        agent.reset(env, 0)


def test_training_env_uses_only_training_seeds_and_same_features_as_core() -> None:
    tenv = ppo.make_training_env("ed", "surge", train_seed_stream(5), reward_scale=1.0)
    expected = list(islice(train_seed_stream(5), 3))
    core = make("ed", "surge")
    keys = feature_keys(list(core.observation_spec()))
    for want in expected:
        obs, _ = tenv.reset(seed=eval_seeds(1)[0])  # a held-out seed is ignored on purpose
        assert tenv.episode_seed == want
        state = core.reset(want)
        np.testing.assert_array_equal(obs, features(core.observe(state), keys))
        np.testing.assert_array_equal(tenv.action_masks(), core.action_mask(state))
    # Run one episode to the end: the wrapper reports the grader score.
    done = False
    info: dict[str, Any] = {}
    rng = np.random.default_rng(0)
    while not done:
        action = int(rng.choice(np.flatnonzero(tenv.action_masks())))
        _, _, term, trunc, info = tenv.step(action)
        done = term or trunc
    ep = info["lifeline_episode"]
    assert 0.0 <= ep["score"] <= 1.0 and ep["length"] > 0 and ep["seed"] == tenv.episode_seed


def test_train_rejects_held_out_seed(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="training seed"):
        ppo.train_ppo("ed", "surge", 256, tmp_path, seed=eval_seeds(1)[0])
    with pytest.raises(ValueError, match="unknown scenario"):
        ppo.train_ppo("ed", "nope", 256, tmp_path)


def test_parallel_evaluation_of_a_ppo_agent_equals_serial(run_dir: Path) -> None:
    from lifeline.eval.harness import evaluate

    agents = ["heuristic", f"ppo:{run_dir}"]
    start = eval_seeds(1)[0]
    serial = evaluate("ed", agents, ["surge"], 3, start, workers=1)["records"]
    parallel = evaluate("ed", agents, ["surge"], 3, start, workers=2)["records"]
    assert len(serial) == 6 and serial == parallel
    assert {r["agent"] for r in serial} == set(agents)
    assert [r["seed"] for r in serial[:3]] == eval_seeds(3)


def test_grader_reward_telescopes_to_the_final_score() -> None:
    tenv = ppo.make_training_env("ed", "mass_casualty", train_seed_stream(2), reward_scale=0.1,
                                 reward="grader")
    tenv.reset()
    start = ppo.grader_points(tenv.env)
    total, done, info = 0.0, False, {}
    rng = np.random.default_rng(1)
    while not done:
        action = int(rng.choice(np.flatnonzero(tenv.action_masks())))
        _, r, term, trunc, info = tenv.step(action)
        total += r
        done = term or trunc
    final = info["lifeline_episode"]["score"] * 100.0
    assert total == pytest.approx(0.1 * (final - start), abs=1e-6)
    assert final < start  # a random policy loses points over a mass-casualty shift
    with pytest.raises(ValueError):
        ppo.make_training_env("ed", "surge", train_seed_stream(2), 1.0, reward="nope")


def test_death_penalty_is_charged_per_reported_death() -> None:
    plain = ppo.make_training_env("ed", "mass_casualty", train_seed_stream(4), 1.0, "grader")
    safe = ppo.make_training_env("ed", "mass_casualty", train_seed_stream(4), 1.0, "grader",
                                 death_penalty=7.0)
    plain.reset()
    safe.reset()
    deaths, done = 0, False
    while not done:  # always wait: patients die in the waiting room
        _, r1, term, trunc, info = plain.step(0)
        _, r2, *_ = safe.step(0)
        deaths += int(info.get("deaths", 0))
        assert r2 == pytest.approx(r1 - 7.0 * info.get("deaths", 0))
        done = term or trunc
    assert deaths > 0


def test_training_is_reproducible(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    cfg = ppo.PPOConfig(n_envs=2, n_steps=64, batch_size=64, n_epochs=1, bc_episodes=1,
                        bc_epochs=1, reward="grader")
    params = []
    for i in range(2):
        result = ppo.train_ppo("ed", "night_shift", 128, tmp_path / str(i), seed=7, config=cfg,
                               progress_bar=False)
        model = MaskablePPO.load(result.model_path, device="cpu")
        params.append(np.concatenate([p.detach().numpy().ravel()
                                      for p in model.policy.parameters()]))
    np.testing.assert_array_equal(params[0], params[1])
