"""The report must state the right numbers, flag real differences, and be reproducible."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lifeline.eval import report
from lifeline.eval.seeds import eval_seeds


def _fake_results(ppo_path: str = "ppo:models/surge") -> dict[str, Any]:
    """Two scenarios, paired seeds; ppo is +0.05 over heuristic on 'surge' and equal on 'calm'."""
    rng = np.random.default_rng(0)
    seeds = eval_seeds(30)
    base = {s: rng.uniform(0.5, 0.7) for s in seeds}
    offsets = {"noop": -0.4, "random": -0.2, "heuristic": 0.0, "bound": 0.2}
    records = []
    for scenario in ("surge", "calm"):
        agents = {**offsets, ppo_path: 0.05 if scenario == "surge" else 0.0}
        for agent, off in agents.items():
            for s in seeds:
                noise = rng.normal(0, 0.005) if agent.startswith("ppo") and off == 0.0 else 0.0
                score = float(np.clip(base[s] + off + noise, 0, 1))
                records.append({"env": "ed", "scenario": scenario, "agent": agent, "seed": s,
                                "score": score, "components": {"survival": score, "wait": 1.0},
                                "metrics": {}, "steps": 100, "return": 1.0, "invalid": 0,
                                "wall_s": 0.01})
    return {"records": records, "summary": [],
            "meta": {"package_version": "0.1.0", "env_versions": {"ed": 0},
                     "git_commit": "abc", "created": "2026-01-01"}}


def _section(text: str, heading: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("#")), len(lines))
    return lines[start:end]


def _rows(lines: list[str]) -> dict[tuple[str, str], str]:
    out = {}
    for line in lines:
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) >= 2 and cells[0] in ("surge", "calm"):
            out[(cells[0], cells[1])] = line
    return out


def test_report_contents_and_plots(tmp_path: Path) -> None:
    path = report.write_report(_fake_results(), tmp_path / "out")
    text = path.read_text()
    assert path.name == "report.md"
    for name in ("ed_scores.png", "ed_distributions.png", "ed_paired.png"):
        assert (tmp_path / "out" / name).stat().st_size > 1000
        assert f"({name})" in text
    # Columns in ladder order with ppo before bound.
    header = next(line for line in text.splitlines() if line.startswith("| scenario | noop"))
    assert header == "| scenario | noop | random | heuristic | ppo | bound |"
    # The paired rows: ppo better on surge (+0.050), no difference on calm; noop worse.
    rows = _rows(_section(text, "### Paired differences"))
    assert "+0.050" in rows[("surge", "ppo")] and "| better |" in rows[("surge", "ppo")]
    assert "no significant difference" in rows[("calm", "ppo")]
    assert "| worse |" in rows[("surge", "noop")] and "-0.400" in rows[("surge", "noop")]
    assert "| better |" in rows[("surge", "bound")] and "+0.200" in rows[("surge", "bound")]
    # Normalised: ppo on surge = 0.05 / 0.2 = 0.25; noop = -0.4 / 0.2 = -2.
    norm = _rows(_section(text, "### Normalised score"))
    assert "+0.250" in norm[("surge", "ppo")]
    assert "-2.000" in norm[("surge", "noop")]
    assert ("surge", "bound") not in norm
    assert "`ed/surge/ppo` = `ppo:models/surge`" in text
    assert "survival" in text  # components table
    # Component deltas only for the non-baseline agent (ppo): survival follows the score here.
    diffs = _rows(_section(text, "### Where the difference comes from"))
    assert set(diffs) == {("surge", "ppo"), ("calm", "ppo")}
    assert "+0.050 [+0.050, +0.050] |" in diffs[("surge", "ppo")]
    assert "(ns)" in diffs[("calm", "ppo")]


def test_report_is_deterministic_and_accepts_files(tmp_path: Path) -> None:
    res = _fake_results()
    f = tmp_path / "r.json"
    f.write_text(json.dumps(res))
    a = report.write_report(f, tmp_path / "a").read_text()
    b = report.write_report(res, tmp_path / "b").read_text()
    assert a == b
    assert (tmp_path / "a" / "ed_scores.png").read_bytes() == (
        tmp_path / "b" / "ed_scores.png").read_bytes()


def test_report_merges_files_and_finds_learning_curves(tmp_path: Path) -> None:
    model_dir = tmp_path / "models" / "surge"
    model_dir.mkdir(parents=True)
    (model_dir / report.CURVE_FILE).write_text(
        "timesteps,episodes,ep_return_mean,ep_score_mean,ep_len_mean,wall_s\n"
        "1000,3,1.0,0.4,300,1.0\n2000,6,2.0,0.5,300,2.0\n")
    res = _fake_results(f"ppo:{model_dir}")
    half = len(res["records"]) // 2
    first = {**res, "records": res["records"][:half]}
    second = {**res, "records": res["records"][half:]}
    text = report.write_report([first, second], tmp_path / "out").read_text()
    assert "records: 300" in text
    assert "ed_learning_curves.png" in text
    assert (tmp_path / "out" / "ed_learning_curves.png").is_file()
    (model_dir / report.VALIDATION_FILE).write_text("timesteps,val_score_mean\n0,0.5\n2000,0.6\n")
    assert report.read_validation(model_dir / report.CURVE_FILE) == ([0.0, 2000.0], [0.5, 0.6])
    (model_dir / "metadata.json").write_text(json.dumps({"env": "ed", "scenario": "surge"}))
    assert report.find_curves_in(tmp_path) == {("ed", "surge"): model_dir / report.CURVE_FILE}
    assert report.read_curve(model_dir / report.CURVE_FILE) == (
        [1000.0, 2000.0], [0.4, 0.5], "ep_score_mean")


def test_agent_labels() -> None:
    assert report.agent_label("heuristic") == "heuristic"
    assert report.agent_label("ppo:runs/ppo/ed-surge") == "ppo"
    assert report.agent_label("ppo:runs/ppo_lives/ed-surge/model.zip") == "ppo_lives"
    assert report.agent_label("ppo:/tmp/x/model.zip") == "ppo"
    recs = [{"env": "ed", "scenario": "s", "agent": a, "seed": 1, "score": 0.5}
            for a in ("ppo:a/m1", "ppo:a/m2", "ppo:runs/ppo_lives/m3")]
    labels = [r["agent"] for r in report.relabel(recs)[0]]
    assert labels == ["ppo:a/m1", "ppo:a/m2", "ppo_lives"]


def test_reference_is_the_envs_strongest_baseline(tmp_path: Path) -> None:
    assert report.env_ladder("ed") == (("noop", "random", "heuristic"), "heuristic")
    res = _fake_results()
    names = {"noop": "hold", "random": "closest_idle", "heuristic": "verify_dmexclp"}
    for r in res["records"]:
        r["env"] = "dispatch"
        r["agent"] = names.get(r["agent"], r["agent"])
    ladder, ref = report.env_ladder("dispatch")
    assert ref == "verify_dmexclp" and ladder[0] == "hold"
    text = report.write_report(res, tmp_path).read_text()
    assert "### Paired differences vs `verify_dmexclp`" in text
    rows = _rows(_section(text, "### Paired differences"))
    assert "+0.050" in rows[("surge", "ppo")]


def test_report_rejects_empty(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        report.write_report({"records": []}, tmp_path)
    with pytest.raises(ValueError):
        report.write_report({"summary": []}, tmp_path)


def test_cli_report_command(tmp_path: Path) -> None:
    import typer
    from typer.testing import CliRunner

    from lifeline.cli.train import register

    app = typer.Typer()
    register(app)
    f = tmp_path / "r.json"
    f.write_text(json.dumps(_fake_results()))
    result = CliRunner().invoke(app, ["report", str(f), "--out", str(tmp_path / "rep")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "rep" / "report.md").is_file()
    bad = CliRunner().invoke(app, ["report", str(tmp_path / "missing.json")])
    assert bad.exit_code != 0 and "no such file" in bad.output
    bad = CliRunner().invoke(app, ["train", "ppo", "nosuchenv", "--timesteps", "10"])
    assert bad.exit_code != 0 and "unknown environment" in bad.output


def test_cli_train_ppo_command(tmp_path: Path) -> None:
    import typer
    from typer.testing import CliRunner

    from lifeline.cli.train import register

    app = typer.Typer()
    register(app)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["train", "ppo", "ed", "--scenario", "night_shift",
                                      "--timesteps", "64", "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert f"ppo:{out}" in result.output
    assert (out / "model.zip").is_file() and (out / "metadata.json").is_file()
    bad = CliRunner().invoke(app, ["train", "ppo", "ed", "--scenario", "nope"])
    assert bad.exit_code != 0 and "unknown scenario" in bad.output
