"""Every command or face whose extra is missing says which one in one line (exit 2 for commands),
before any work: ``view``, ``train grpo``, ``train tiny-lm`` and ``render_mode="rgb_array"``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from typer.testing import CliRunner

import lifeline
from lifeline.cli import app
from lifeline.core import extras

runner = CliRunner()


def _without(monkeypatch: Any, *absent: str) -> None:
    real = extras.missing
    monkeypatch.setattr(extras, "missing", lambda extra: list(extras.EXTRAS[extra])
                        if extra in absent else real(extra))


@pytest.mark.parametrize(("args", "extra"), [
    (("view", "no-such.jsonl", "--no-browser"), "server"),
    (("train", "grpo", "ed", "--tiny", "--out", "{tmp}/g"), "grpo"),
    (("train", "tiny-lm", "--out", "{tmp}/t"), "grpo"),
    (("eval", "ed", "--agents", "hf:{tmp}", "--episodes", "1"), "grpo"),
])
def test_command_names_the_missing_extra_in_one_line(args: tuple[str, ...], extra: str,
                                                     monkeypatch: Any, tmp_path: Path) -> None:
    _without(monkeypatch, extra)
    result = runner.invoke(app, [a.format(tmp=tmp_path) for a in args])
    text = result.output.strip()
    assert result.exit_code == 2, text
    assert f'pip install "lifeline-gym[{extra}]"' in text and len(text.splitlines()) == 1, text
    assert not (tmp_path / "g").exists() and not (tmp_path / "t").exists()  # no work done


def test_rgb_array_without_matplotlib_is_one_line_naming_viz(monkeypatch: Any) -> None:
    _without(monkeypatch, "viz")
    with pytest.raises(extras.MissingExtra) as err:
        gym.make(lifeline.spec("ed").gym_id, render_mode="rgb_array")
    assert "render_mode=\"rgb_array\" needs the 'viz' extra" in str(err.value)
    assert "\n" not in str(err.value)
    gym.make(lifeline.spec("ed").gym_id, render_mode="ansi")  # other modes need nothing
