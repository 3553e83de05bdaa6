"""A tiny fast-PPO run on the batch ED-v3 end to end (the real run is minutes, not here):
files, a time-to-score curve with scores in [0, 1], training seeds only, model selection on
validation seeds, the CLI wiring."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("numba")

from typer.testing import CliRunner

from lifeline.cli import app
from lifeline.eval.seeds import VALIDATION_SEED_BASE
from lifeline.faces.features import features
from lifeline.train.ed.fastppo import FastPPOConfig, Featurizer, train_fast_ppo

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
    assert payload["version"] == 3 and payload["eval_seeds"].startswith("validation_seeds")
    best = max(p["eval_score"] for p in payload["points"])
    assert payload["selected_validation_score"] == best
    assert payload["points"][payload["selected_point"]]["eval_score"] == best


def test_featurizer_is_the_policy_features_of_ppo() -> None:
    """The batch featurizer feeds the network exactly what lifeline.faces.features does."""
    import lifeline

    env = lifeline.make("ed", "surge")
    state = env.reset(3)
    obs = env.observe(state)
    obs["action_mask"] = env.action_mask(state).astype(np.int8)
    keys = list(obs)
    batch = Featurizer(keys)({k: v[None] for k, v in obs.items()})[0]
    np.testing.assert_array_equal(batch, features(obs, Featurizer(keys).keys))


def test_training_episodes_use_training_seeds_only() -> None:
    from lifeline.eval.seeds import train_seed_stream
    from lifeline.train.ed.vec import EDv3Vec

    stream = train_seed_stream(0)
    venv = EDv3Vec(2, "night_shift", episode_seeds=stream)
    obs = venv.reset([next(stream), next(stream)])
    assert venv.params.version == 3 and obs["staff"].shape == (2, 6)
    seen = set(int(s) for s in venv.batch.seeds)
    ended = 0
    for _ in range(2 * 96 * 4):
        _obs, _r, term, trunc, score = venv.step(np.zeros(2, dtype=np.int64))
        ended += int((term | trunc).sum())
        assert np.isnan(score[~(term | trunc)]).all()
        assert (score[term | trunc] >= 0).all()
        seen.update(int(s) for s in venv.batch.seeds)
    assert ended >= 2 and len(seen) >= 4 and max(seen) < VALIDATION_SEED_BASE


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


def test_pointer_head_tiny_run(tmp_path: Path) -> None:
    """The pointer policy (arch=pointer) with batch-kernel cloning data trains end to end, and
    the clone agrees with the heuristic well above chance after one short fit."""
    import dataclasses

    cfg = dataclasses.replace(TINY, arch="pointer", batch_collect=True, hidden=16,
                              scorer_hidden=8, bc_episodes=4, bc_epochs=2, paired=True,
                              bc_balance=0.5, eval_during_cloning=True)
    result = train_fast_ppo("night_shift", cpu_seconds=1.0, out_dir=tmp_path, config=cfg,
                            target=0.0)
    payload = json.loads((tmp_path / "curve.json").read_text())
    assert payload["config"]["arch"] == "pointer" and payload["points"] == result.points
    assert all(0.0 <= p["eval_score"] <= 1.0 for p in result.points)
    assert all(len(p["eval_scores"]) == 2 for p in result.points)
    assert [p["phase"] for p in result.points[:2]] == ["clone", "dagger 1"]
    paired = json.loads((tmp_path / "paired.json").read_text())
    heuristic = json.loads((tmp_path / "heuristic.json").read_text())
    assert paired["final"]["n"] == 2 and "first_reached" in paired
    final = paired["final"]
    assert final["mean_b"] == pytest.approx(heuristic["mean"])
    assert final["mean_a"] == pytest.approx(result.points[-1]["eval_score"])


def test_pointer_head_scores_each_action_from_its_own_row() -> None:
    """The shared scorer: swapping two ICU beds swaps their actions' logits once the position
    feature and the (order-aware) context are switched off."""
    import torch

    from lifeline.envs.ed.params import SCENARIOS
    from lifeline.envs.ed.rules import Layout
    from lifeline.train.ed.pointer import action_targets, make_pointer_agent

    params = SCENARIOS["surge"]
    torch.manual_seed(0)
    agent = make_pointer_agent(params, hidden=8, scorer_hidden=8)
    kind, target = action_targets(params)
    layout = Layout(params)
    assert kind.shape == (layout.total,) and target[0] == 0
    off = layout.offsets["discharge_icu"]
    assert target[off + 1] == 1 + params.queue_slots + params.general_beds + 1
    with torch.no_grad():
        agent.entity_proj.weight[:, -1] = 0.0  # drop the position feature
        agent.ctx_proj.weight.zero_()  # and the context of the whole (ordered) observation
        g, i, q = params.general_beds, params.icu_beds, params.queue_slots
        c = 9  # ED-v3 bed columns; sorted keys: general, icu, queue, staff(6), time, totals, vents
        x = torch.zeros(1, g * c + i * c + q * 3 + 6 + 2 + 4 + 2)
        icu = x[0, g * c:g * c + i * c].view(i, c)
        icu[0] = torch.tensor([1.0, 2.0, 3.0, 0.0, 1.0, 0.0, 1.0, 2.0, 1.0])
        icu[1] = torch.tensor([4.0, 5.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
        mask = torch.ones(1, layout.total, dtype=torch.bool)
        before = agent.logits(x, mask)[0]
        icu[[0, 1]] = icu[[1, 0]].clone()
        after = agent.logits(x, mask)[0]
    torch.testing.assert_close(after[off], before[off + 1])
    torch.testing.assert_close(after[off + 1], before[off])
    see = layout.offsets["see_icu"]
    assert target[see] == target[off] and kind[see] != kind[off]
    torch.testing.assert_close(after[see], before[see + 1])
    assert not torch.allclose(before[see], before[see + 1])  # the rows differ, so do the logits


def test_batch_labels_are_the_heuristics_actions() -> None:
    """collect_batch's labels equal the reference heuristic's act() on the scalar env."""
    import lifeline
    from lifeline.agents import make_agent as make_baseline
    from lifeline.core.registry import spec
    from lifeline.envs.ed.rules import Layout
    from lifeline.train.ed.clone import collect_batch
    from lifeline.train.ed.pointer import RawFeaturizer

    env: Any = lifeline.make("ed", "surge")
    heuristic: Any = make_baseline(spec("ed").reference, "ed")
    keys = ["action_mask", *env.observe(env.reset(0))]
    _x, mask, labels, _ = collect_batch("surge", 2, iter([11, 12]), 0.99, 0.05,
                                       RawFeaturizer(keys))
    expected: list[int] = []
    for seed in (11, 12):
        state = env.reset(seed)
        heuristic.reset(env, seed)
        while not state.done:
            action = heuristic.act(env, state)
            code = action if isinstance(action, int) else Layout(env.params).encode(action)
            expected.append(code)
            env.step(state, code)
    assert labels.tolist() == expected
    assert mask[np.arange(len(labels)), labels].all()


def test_held_out_comparison_is_a_compare_file(tmp_path: Path) -> None:
    """The selected model plays the scalar ED-v3 as agent ``learned`` beside the reference on
    held-out seeds; the reference's scalar scores equal its batch-kernel scores."""
    from lifeline.eval.seeds import eval_seeds
    from lifeline.train.ed.clone import heuristic_scores
    from lifeline.train.ed.fastppo import held_out_comparison

    train_fast_ppo("night_shift", cpu_seconds=0.5, out_dir=tmp_path, config=TINY)
    report = held_out_comparison("night_shift", tmp_path, episodes=2)
    agents = [r["agent"] for r in report["records"]]
    assert agents.count("learned") == 2 and agents.count("heuristic") == 2
    assert {r["seed"] for r in report["records"]} == set(eval_seeds(2))
    assert report["paired"][0]["agent"] == "learned" and report["paired"][0]["n"] == 2
    assert report["paired_harm"][0]["metric"] == "deaths"
    ref = [r["score"] for r in report["records"] if r["agent"] == "heuristic"]
    np.testing.assert_allclose(ref, heuristic_scores("night_shift", eval_seeds(2)))
    merged = held_out_comparison("night_shift", tmp_path, episodes=2, earlier={
        "records": [{**r, "scenario": "surge"} for r in report["records"]]})
    assert [p["scenario"] for p in merged["paired_harm"]] == ["surge", "night_shift"]
