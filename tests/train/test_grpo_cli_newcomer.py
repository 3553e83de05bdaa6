"""GRPO for a newcomer: the tiny local model command, --out never silently overwritten, hf:
progress lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lifeline.cli import app

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "300"})
    return result.exit_code, result.output


def test_train_grpo_refuses_to_overwrite_a_previous_run(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    model = tmp_path / "model"
    model.mkdir()
    out = tmp_path / "run"
    (out / "model").mkdir(parents=True)
    (out / "metadata.json").write_text("{}")
    code, output = _run("train", "grpo", "ed", "--model", str(model), "--out", str(out))
    assert code == 2
    assert "already holds a GRPO run (model, metadata.json)" in output
    assert "--force" in output and len(output.strip().splitlines()) == 1
    # with --force it goes on to load the model (an empty directory: one line, exit 2)
    code, output = _run("train", "grpo", "ed", "--model", str(model), "--out", str(out),
                        "--force")
    assert code == 2 and "cannot load a model there" in output
    assert len(output.strip().splitlines()) == 1 and "Traceback" not in output


def test_train_grpo_needs_exactly_one_of_model_and_tiny(tmp_path: Path) -> None:
    code, output = _run("train", "grpo", "ed", "--out", str(tmp_path / "r"))
    assert code == 2 and "--model PATH" in output and "--tiny" in output
    code, output = _run("train", "grpo", "ed", "--tiny", "--model", str(tmp_path),
                        "--out", str(tmp_path / "r"))
    assert code == 2 and "--tiny" in output


def test_train_grpo_output_path_is_checked_first(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, output = _run("train", "grpo", "ed", "--tiny", "--out", str(blocker / "run"))
    assert code == 2 and "is not a directory" in output


def test_tiny_lm_refuses_an_existing_model_and_bad_envs(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    code, output = _run("train", "tiny-lm", "--out", str(tmp_path))
    assert code == 2 and "already holds a model" in output
    code, output = _run("train", "tiny-lm", "--out", str(tmp_path / "new"), "--envs", "nope")
    assert code == 2 and "nope" in output and len(output.strip().splitlines()) == 1


def test_hf_backend_prints_progress_lines(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from lifeline.agents import hf

    chat = hf.HFChat.__new__(hf.HFChat)  # the progress part only: no model needed
    chat.path, chat.verbose = "tiny", True
    chat.turns, chat.tokens, chat.busy_s, chat._last_note = 0, 0, 0.0, 0.0
    monkeypatch.setattr(hf, "PROGRESS_EVERY_S", 0.0)
    chat._progress(12, 0.5)
    chat._progress(8, 1.5)
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1] == "hf:tiny: 2 turns, 20 tokens generated, 1.00 s per turn"
    monkeypatch.setattr(hf, "PROGRESS_EVERY_S", 3600.0)
    chat._progress(1, 0.1)
    assert capsys.readouterr().err == ""


@pytest.mark.slow  # 1-4 min: transcripts, a tokenizer, 150 SFT steps
def test_tiny_lm_builds_a_model_hf_agents_and_grpo_load(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    pytest.importorskip("trl")
    out = tmp_path / "tiny"
    code, output = _run("train", "tiny-lm", "--out", str(out), "--envs", "ed", "--turns", "30",
                        "--sft-steps", "40")
    assert code == 0, output
    assert f"use it with --model {out}" in output
    from transformers import AutoModelForCausalLM, AutoTokenizer

    AutoTokenizer.from_pretrained(out, local_files_only=True)
    AutoModelForCausalLM.from_pretrained(out, local_files_only=True)
    assert (out / "lifeline_tiny.json").exists()
