"""GRPO with TRL: the environment factory built from the tool layer, and an offline end-to-end
smoke run (a tiny Qwen3 built locally, SFT on the call format, GRPO steps on two environments)."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lifeline.core.registry import make, spec
from lifeline.serve.run import background_server
from lifeline.serve.server import build_app
from lifeline.train.grpo import EpisodeOver, GRPOSettings, environment_factory

pytest.importorskip("trl")
transformers = pytest.importorskip("transformers")


def test_factory_exposes_one_documented_tool_per_action_type() -> None:
    cls = environment_factory("ed", "night_shift")
    env = make("ed", "night_shift")
    public = {n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}
    assert public == {t.kind for t in env.action_types} | {"reset", "get_reward"}
    schema = transformers.utils.get_json_schema(cls().admit_icu)["function"]
    assert schema["name"] == "admit_icu" and schema["parameters"]["required"] == ["slot"]
    assert schema["parameters"]["properties"]["slot"]["type"] == "integer"


def test_tools_step_the_env_and_the_reward_plays_out_the_rest() -> None:
    instance = environment_factory("ed", "night_shift")()
    text = instance.reset(seed=5)
    assert "Legal actions" in text
    out = instance.discharge_icu(bed=9)  # no such patient: a wasted, penalised turn
    assert "INVALID" in out and "the turn was used" in out
    session = instance._session
    steps_before = session.state.steps
    score = instance.get_reward()
    assert session.state.done and session.state.steps > steps_before  # played to the end
    # The same seed played with do-nothing turns from the start gives the same final state.
    env = make("ed", "night_shift")
    state = env.reset(5)
    env.step(state, 10_000)  # the same wasted first turn
    while not state.done:
        env.step(state, env.noop_action())
    assert score == pytest.approx(env.grade(state).score)
    with pytest.raises(EpisodeOver):
        instance.wait()


def test_a_row_pins_the_seed_and_scenario_and_fresh_seeds_are_training_seeds() -> None:
    cls = environment_factory("ed")
    a, b = cls(), cls()
    assert a.reset(seed=3, scenario="surge") == b.reset(seed=3, scenario="surge")
    a.reset()
    assert a._session.state is not None and a._session.env.scenario == spec("ed").scenarios[0]


@pytest.fixture(scope="module")
def live_url() -> Iterator[str]:
    with background_server(build_app([spec("ed")], max_sessions=4)) as url:
        yield url


def test_the_same_class_drives_a_served_env(live_url: str) -> None:
    local = environment_factory("ed", "night_shift")()
    remote = environment_factory("ed", "night_shift", server_url=live_url)()
    assert local.reset(seed=8).split("Legal actions")[1] == \
        remote.reset(seed=8).split("Legal actions")[1]
    local.wait()
    remote.wait()
    assert remote.get_reward() == pytest.approx(local.get_reward())


@pytest.mark.slow
def test_grpo_smoke_two_envs_offline(tmp_path: Path) -> None:
    import torch

    from lifeline.agents.toolcall import extract_calls
    from lifeline.train.grpo import train
    from lifeline.train.tiny_lm import build_tiny_qwen, sft_tool_calls, transcripts

    torch.set_num_threads(1)
    envs = ["ed", "dispatch"]
    examples = transcripts(envs, 60)  # text_heuristic: text observation in, its reply out
    assert all(extract_calls(e["completion"]) for e in examples)
    assert all("Legal actions" in e["prompt"][-1]["content"] for e in examples)
    corpus = [e["prompt"][0]["content"] + e["completion"] for e in examples]
    corpus += [str(examples[0]["tools"]), str(examples[-1]["tools"])]
    model, tokenizer = build_tiny_qwen(tmp_path / "tiny", corpus)
    losses = sft_tool_calls(model, tokenizer, examples, steps=150, context=64)
    assert losses[-1] < 0.5 * losses[0]
    settings = GRPOSettings(steps=2, batch_size=4, num_generations=2, max_completion_length=256,
                            max_tool_calling_iterations=2)
    result: dict[str, Any] = train(envs, model, tmp_path / "grpo", settings, tokenizer=tokenizer)
    logs = [row for row in result["history"] if "reward" in row]
    assert len(logs) == 2
    rewarded = {name for row in logs for name in ("EdToolEnv", "DispatchToolEnv")
                if row.get(f"rewards/{name}/mean") is not None}
    assert rewarded == {"EdToolEnv", "DispatchToolEnv"}
    assert sum(row["tools/call_frequency"] for row in logs) > 0  # calls parsed and executed
    assert (tmp_path / "grpo" / "model").is_dir() and (tmp_path / "grpo" / "log.jsonl").exists()


def test_cli_train_grpo_rejects_bad_input_clearly(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from lifeline.cli import app

    runner = CliRunner()

    def error(*args: str) -> str:
        result = runner.invoke(app, ["train", "grpo", *args], env={"COLUMNS": "300"})
        assert result.exit_code == 2
        return " ".join(result.output.replace("│", " ").split())

    assert "not a directory" in error("ed", "--model", str(tmp_path / "nope"))
    assert "exactly one environment" in error("ed,dispatch", "--model", str(tmp_path),
                                              "--scenario", "surge")
    assert "key=value" in error("ed", "--model", str(tmp_path), "--set", "steps")
