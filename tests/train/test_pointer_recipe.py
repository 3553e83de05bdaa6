"""The entity-pointer policy plays every env legally; the recipe trains, selects and reloads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import lifeline  # noqa: F401 - registers the envs
from lifeline.agents import make_agent
from lifeline.agents.pointer import NEG, PointerNet, batch_tables
from lifeline.core import registry
from lifeline.faces.entities import entity_spec
from lifeline.train.pointer import PointerConfig, train_pointer

ENVS = [s.name for s in registry.all_specs()]


@pytest.mark.parametrize("name", ENVS)
def test_one_network_gives_masked_logits_on_every_env(name: str) -> None:
    env = registry.make(name)
    torch.manual_seed(0)
    net = PointerNet(entity_spec(env), d=16)
    state = env.reset(7)
    mask = np.asarray(env.action_mask(state), dtype=bool)
    with torch.no_grad():
        logits, value = net(batch_tables(net.spec, [env.observe(state)]),
                            torch.from_numpy(mask)[None])
    assert logits.shape == (1, env.num_actions) and value.shape == (1,)
    assert bool(torch.all(logits[0, torch.from_numpy(~mask)] == NEG))
    legal = logits[0, torch.from_numpy(mask)]
    assert bool(torch.all(torch.isfinite(legal))) and bool(torch.all(legal > NEG / 2))
    assert mask[int(logits[0].argmax())]


def test_pointer_rows_change_the_logit_of_the_action_that_points_at_them() -> None:
    env = registry.make("dispatch")
    spec = entity_spec(env)
    net = PointerNet(spec, d=16)
    obs = env.observe(env.reset(3))
    tables = batch_tables(spec, [obs])
    mask = torch.ones(1, env.num_actions, dtype=torch.bool)
    verify = list(spec.kinds["verify"].indices)
    tables["calls"][0, 6] = tables["calls"][0, 5]
    with torch.no_grad():
        same, _ = net(tables, mask)
        tables["calls"][0, 5] += 3.0
        moved, _ = net(tables, mask)
    assert float(same[0, verify[5]]) == pytest.approx(float(same[0, verify[6]]), abs=1e-6)
    assert abs(float(moved[0, verify[5]] - moved[0, verify[6]])) > 1e-4


def test_the_recipe_trains_selects_on_validation_and_reloads_as_an_agent(
        tmp_path: Path) -> None:
    cfg = PointerConfig("codered", "task1", d=16, dagger_rounds=2, episodes=3, bc_epochs=2,
                        ppo_iters=1, val_episodes=2)
    meta = train_pointer(cfg, tmp_path)
    saved = json.loads((tmp_path / "metadata.json").read_text())
    assert [h["stage"] for h in saved["history"]] == ["dagger0", "dagger1", "ppo0"]
    ppo = saved["history"][-1]  # the PPO diagnostics are logged with each iteration
    assert {"approx_kl", "clip_frac", "explained_var", "explained_var_before",
            "teacher_agreement", "entropy"} <= set(ppo)
    assert 0.0 <= ppo["teacher_agreement"] <= 1.0 and ppo["entropy"] >= 0.0
    best = max(h["validation_score"] for h in saved["history"])
    assert saved["best_validation_score"] == pytest.approx(best, abs=1e-5)
    assert meta["best_validation_score"] == saved["best_validation_score"]
    env = registry.make("codered", "task1")
    agent = make_agent(f"pointer:{tmp_path}", "codered")
    scores = []
    for seed in (900_000, 900_001):  # the two validation seeds: the saved net is the best one
        state = env.reset(seed)
        agent.reset(env, seed)
        while not state.done:
            action = int(agent.act(env, state))  # type: ignore[arg-type]
            assert env.action_mask(state)[action]
            env.step(state, action)
        scores.append(env.grade(state).score)
    assert float(np.mean(scores)) == pytest.approx(saved["best_validation_score"], abs=1e-9)


def test_with_beta_one_the_episode_is_the_references_own_including_tool_only_calls(
        tmp_path: Path) -> None:
    from lifeline.eval.seeds import train_seed_stream
    from lifeline.train.pointer import Recipe

    recipe = Recipe(PointerConfig("pharmacy", "light", d=8), tmp_path)
    steps = recipe._episode(beta=1.0, sample=False)
    learned_play = recipe.core.grade(recipe.gym.state).score
    env = registry.make("pharmacy", "light")
    seed = next(train_seed_stream(0))
    ref = make_agent(registry.spec("pharmacy").reference, "pharmacy")
    state = env.reset(seed)
    ref.reset(env, seed)
    calls = 0
    while not state.done:
        env.step(state, ref.act(env, state))
        calls += 1
    assert learned_play == pytest.approx(env.grade(state).score, abs=1e-12)
    assert 0 < len(steps) < calls  # tool-only calls are played but give no label
    assert all(s["label"] >= 0 and s["action"] == s["label"] for s in steps)


def test_a_privileged_teacher_labels_and_plays_the_expert_steps(tmp_path: Path) -> None:
    """``teacher`` replaces the reference as the labeller: at beta 1 the episode is the
    teacher's own play (codered's ``oracle`` reads the hidden truth), every label its action."""
    from lifeline.eval.seeds import train_seed_stream
    from lifeline.train.pointer import Recipe

    recipe = Recipe(PointerConfig("codered", "task1", d=8, teacher="oracle"), tmp_path)
    assert recipe.teacher_name == "oracle" and recipe.teacher is not recipe.reference
    steps = recipe._episode(beta=1.0, sample=False)
    played = recipe.core.grade(recipe.gym.state).score
    env = registry.make("codered", "task1")
    seed = next(train_seed_stream(0))
    oracle = make_agent("oracle", "codered")
    state = env.reset(seed)
    oracle.reset(env, seed)
    while not state.done:
        env.step(state, oracle.act(env, state))
    assert env.grade(state).score == pytest.approx(played, abs=1e-12)
    assert recipe.teacher.name == "oracle" and recipe.reference.name == "heuristic"
    assert steps and all(s["action"] == s["label"] for s in steps)


def test_the_value_loss_never_moves_the_policy_features() -> None:
    env = registry.make("dispatch")
    net = PointerNet(entity_spec(env), d=8)
    state = env.reset(1)
    mask = torch.from_numpy(np.asarray(env.action_mask(state), dtype=bool))[None]
    _, value = net(batch_tables(net.spec, [env.observe(state)]), mask)
    (value ** 2).sum().backward()
    assert all(p.grad is None or float(p.grad.abs().sum()) == 0.0
               for n, p in net.named_parameters() if not n.startswith("value."))
    assert any(p.grad is not None and float(p.grad.abs().sum()) > 0
               for p in net.value.parameters())


def test_fastppo_on_an_env_without_a_batch_kernel_runs_the_pointer_recipe(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import lifeline.cli.train as cli_train
    from lifeline.cli import app

    calls: list[tuple[object, ...]] = []
    monkeypatch.setattr(cli_train, "run_pointer", lambda *a: calls.append(a))
    result = CliRunner().invoke(app, ["train", "fastppo", "evgrid", "--scenario", "heatwave_peak",
                                      "--cpu-seconds", "7", "--out", str(tmp_path),
                                      "--set", "teacher=mpc"])
    assert result.exit_code == 0, result.output
    assert calls == [("evgrid", "heatwave_peak", 7.0, 0, tmp_path, None, 30, ["teacher=mpc"])]
