"""CLI papercuts of issue 28: paired differences in ``compare``, scenario lists, bad scenarios
named first, piped ``list`` keeps whole ids, ``run --record X`` and ``view X`` agree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lifeline.cli import app
from lifeline.eval.replay import find_replays, replay_target, verify
from lifeline.eval.stats import paired_differences

runner = CliRunner()


def _records(agent: str, scores: dict[int, float], scenario: str = "s") -> list[dict[str, Any]]:
    return [{"env": "e", "scenario": scenario, "agent": agent, "seed": s, "score": v}
            for s, v in scores.items()]


def test_paired_differences_are_per_seed_differences_against_the_first_agent() -> None:
    records = (_records("a", {1: 0.5, 2: 0.6, 3: 0.7}) + _records("b", {1: 0.6, 2: 0.8, 3: 0.7})
               + _records("c", {1: 0.5, 2: 0.6, 3: 0.7}))
    rows = paired_differences(records, "a")
    assert [(r["agent"], r["reference"], r["n"]) for r in rows] == [("b", "a", 3), ("c", "a", 3)]
    assert rows[0]["mean_diff"] == pytest.approx(0.1) and rows[0]["wins"] == 2
    assert rows[0]["losses"] == 0 and rows[0]["ci_low"] <= 0.1 <= rows[0]["ci_high"]
    assert rows[1]["mean_diff"] == 0.0 and (rows[1]["ci_low"], rows[1]["ci_high"]) == (0.0, 0.0)
    # an interrupted run: an agent without a common seed is left out, never an error
    assert paired_differences(_records("a", {1: 0.5}) + _records("b", {2: 0.5}), "a") == []


def test_compare_prints_and_writes_the_paired_differences(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    result = runner.invoke(app, ["compare", "pharmacy", "--agents", "random,base_stock", "-s",
                                 "light", "--episodes", "3", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "paired difference vs random" in result.output
    assert "Δ score [95% CI]" in result.output and "Wilcoxon p" in result.output
    assert any(ln.split("│")[2].strip() == "base_stock" for ln in result.output.splitlines()
               if ln.count("│") == 7)
    (row,) = json.loads(out.read_text())["paired"]
    assert (row["agent"], row["reference"], row["n"]) == ("base_stock", "random", 3)
    assert row["ci_low"] <= row["mean_diff"] <= row["ci_high"]
    one = runner.invoke(app, ["compare", "pharmacy", "--agents", "random", "--episodes", "1"])
    assert one.exit_code == 2 and "at least two agents" in one.output


@pytest.mark.parametrize("flags", [["-s", "light,heavy"], ["-s", "light", "-s", "heavy"],
                                   ["--scenario", "light, heavy", "-s", "light"]])
def test_scenario_takes_comma_lists_and_repeats(tmp_path: Path, flags: list[str]) -> None:
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["eval", "pharmacy", "--agents", "random", *flags,
                                 "--episodes", "1", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert [r["scenario"] for r in json.loads(out.read_text())["records"]] == ["light", "heavy"]


@pytest.mark.parametrize("argv", [["eval", "ed", "-s", "surg"],
                                  ["compare", "ed", "-s", "surge,surg", "--json", "/sys/x.json"],
                                  ["run", "ed", "-s", "surg", "--agents", "nobody,nothing"]])
def test_a_bad_scenario_is_named_first_in_one_line(argv: list[str]) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "unknown scenario 'surg'" in lines[0], result.output
    assert "did you mean 'surge'" in lines[0] and "--agents" not in lines[0]


def test_piped_list_keeps_every_gym_id_whole() -> None:
    import lifeline

    result = runner.invoke(app, ["list"])  # CliRunner's stdout is not a terminal: a pipe
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split("\t")[:2] == ["name", "gym_id"] and "…" not in result.output
    assert [ln.split("\t")[1] for ln in lines[1:]] == [s.gym_id for s in lifeline.all_specs()]


def test_run_record_without_suffix_and_view_agree(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("uvicorn")
    import uvicorn

    served: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda app_, **kw: served.append(app_))
    name = tmp_path / "runs" / "mine"
    res = runner.invoke(app, ["run", "pharmacy", "--seed", "2", "--record", str(name)])
    assert res.exit_code == 0, res.output
    written = tmp_path / "runs" / "mine.jsonl.gz"
    assert written.is_file() and not name.exists() and str(written) in res.output
    assert verify(written) == (True, "")
    assert find_replays(name) == [written] == find_replays(tmp_path / "runs")
    view = runner.invoke(app, ["view", str(name), "--no-browser", "--port", "0"])
    assert view.exit_code == 0, view.output
    assert len(served) == 1
    # a directory (existing, or written with a trailing slash) holds named replays
    res = runner.invoke(app, ["run", "pharmacy", "--seed", "3", "--record",
                              f"{tmp_path / 'dir'}/"])
    assert res.exit_code == 0, res.output
    (inside,) = (tmp_path / "dir").iterdir()
    assert inside.name == "pharmacy_light_base_stock_3.jsonl.gz"
    missing = runner.invoke(app, ["view", str(tmp_path / "nothing"), "--no-browser"])
    assert missing.exit_code == 2 and "no such replay file" in missing.output


def test_replay_targets() -> None:
    class T:
        env, scenario, agent, seed = "ed", "surge", "ppo:runs/x", 4

    assert replay_target("a/b.jsonl", T()) == Path("a/b.jsonl")
    assert replay_target("a/b.jsonl.gz", T()) == Path("a/b.jsonl.gz")
    assert replay_target("a/b", T()) == Path("a/b.jsonl.gz")
    assert replay_target("a/b/", T()) == Path("a/b/ed_surge_ppo-runs-x_4.jsonl.gz")
    assert replay_target("a/b", T(), directory=True) == Path("a/b/ed_surge_ppo-runs-x_4.jsonl.gz")
