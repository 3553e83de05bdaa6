"""The CLI: listing, runs, evaluations, comparisons, leaderboard, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from lifeline.cli import app

runner = CliRunner()


def test_list_json() -> None:
    result = runner.invoke(app, ["list", "--json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    ed = next(r for r in rows if r["name"] == "ed")
    assert ed["gym_id"] == "lifeline/ED-v3" and "surge" in ed["scenarios"]


def test_run_with_render() -> None:
    result = runner.invoke(app, ["run", "ed", "--scenario", "night_shift", "--agent", "heuristic",
                                 "--seed", "2", "--render"])
    assert result.exit_code == 0, result.output
    assert "Queue" in result.stdout and "score" in result.stdout


def test_eval_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["eval", "ed", "--agent", "heuristic", "--scenario", "surge",
                                 "--episodes", "2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert {"records", "summary", "meta"} <= set(data) and len(data["records"]) == 2
    assert data["meta"]["package_version"]


def test_compare_paired(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    result = runner.invoke(app, ["compare", "ed", "--agents", "noop,heuristic", "--scenario",
                                 "normal_day", "--episodes", "2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    records = json.loads(out.read_text())["records"]
    assert sorted(r["seed"] for r in records if r["agent"] == "noop") == sorted(
        r["seed"] for r in records if r["agent"] == "heuristic")


def test_leaderboard(tmp_path: Path) -> None:
    result = runner.invoke(app, ["leaderboard", "--episodes", "2", "--out", str(tmp_path),
                                 "--env", "ed"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "report.md").read_text()
    assert "Environment `ed`" in text and "icu_boarding" in text
    assert (tmp_path / "ed.json").exists() and list(tmp_path.glob("*.png"))


def test_bench_prints_json() -> None:
    result = runner.invoke(app, ["bench", "--steps", "200", "--env", "ed"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["results"][0]
    assert row["env"] == "ed" and row["core_steps_per_s"] > 0 and row["reset_ms"] > 0


def test_bad_input_gives_clear_errors() -> None:
    cases = {
        ("run", "ed", "--scenario", "bogus"): "unknown scenario 'bogus'",
        ("run", "nope"): "unknown environment 'nope'",
        ("run", "ed", "--seed", "-1"): "seed must be a non-negative integer",
        ("run", "ed", "--agent", "oracle"): "unknown agent 'oracle'",
        ("eval", "ed", "--agent", "noop", "--episodes", "0"): "episodes must be >= 1",
        ("compare", "ed", "--agents", ","): "at least one agent",
        ("bench", "--env", "nope"): "unknown environment 'nope'",
        ("bench", "--steps", "0"): "steps must be >= 1",
    }
    for args, message in cases.items():
        result = runner.invoke(app, list(args))
        assert result.exit_code == 2, (args, result.output)
        assert message in " ".join(result.output.split()), (args, result.output)
        assert "Traceback" not in result.output
