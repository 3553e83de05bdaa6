"""Output paths are checked before any work: the parent must exist (nothing is created
silently) and the file must really be writable (a probe, not permission bits: root on /sys)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lifeline.cli import app

runner = CliRunner()


def _error(args: list[str]) -> str:
    start = time.perf_counter()
    result = runner.invoke(app, args)
    text = result.output.strip()
    assert result.exit_code == 2, text
    assert len(text.splitlines()) == 1 and text.startswith("Error:"), text
    assert time.perf_counter() - start < 20, "the check came after the work"
    return text


def test_json_into_a_missing_directory_is_refused_and_nothing_is_created(tmp_path: Path
                                                                         ) -> None:
    target = tmp_path / "no" / "such" / "x.json"
    text = _error(["eval", "ed", "--agents", "heuristic", "--episodes", "30", "--json",
                   str(target)])
    assert f"directory {target.parent} does not exist" in text
    assert not (tmp_path / "no").exists()


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux sysfs")
def test_unwritable_targets_are_refused_even_for_root() -> None:
    assert "cannot write /sys/x.json" in _error(
        ["eval", "ed", "--agents", "heuristic", "--episodes", "30", "--json", "/sys/x.json"])
    assert "--out /sys/lb: cannot create files in /sys" in _error(
        ["leaderboard", "--episodes", "30", "--out", "/sys/lb"])


def test_the_probe_leaves_no_file_behind(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["eval", "ed", "--agents", "heuristic", "-s", "surge",
                                 "--episodes", "1", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and not list(tmp_path.glob(".lifeline-write-test*"))
