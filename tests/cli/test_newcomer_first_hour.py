"""A newcomer's first hour (issue 14): errors that keep work, one error style, merged reports,
Gymnasium conventions, the check command, packaging files."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from typer.testing import CliRunner

import lifeline
from lifeline.cli import EVAL_SEED_BASE, app
from lifeline.core import extras
from lifeline.eval import harness, seeds

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def _out(result: Any) -> str:
    return " ".join(result.output.split())


# ----- CLI ------------------------------------------


def test_version_short_help_and_eval_seed_constant() -> None:
    assert runner.invoke(app, ["--version"]).output.strip() == f"lifeline {lifeline.__version__}"
    short = runner.invoke(app, ["eval", "-h"])
    assert short.exit_code == 0 and "--agents" in short.output and "--agent " not in short.output
    assert EVAL_SEED_BASE == seeds.EVAL_SEED_BASE  # the CLI's copy stays in step


def test_help_is_fast_and_imports_nothing_heavy() -> None:
    code = ("import sys, time; t = time.perf_counter(); from lifeline.cli import app; "
            "heavy = [m for m in ('scipy.stats', 'matplotlib', 'torch', 'fastapi') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert out.stdout.strip() == "[]"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "lifeline", "--help"], capture_output=True,
                   cwd=ROOT, check=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert time.perf_counter() - start < 2.0  # ~0.25 s measured; generous for a loaded CI box


def test_agent_alias_and_consistent_json(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    old = runner.invoke(app, ["eval", "ed", "--agent", "noop", "-s", "surge", "--episodes", "1",
                              "--json", str(out)])
    assert old.exit_code == 0, old.output
    assert json.loads(out.read_text())["records"][0]["agent"] == "noop"
    both = runner.invoke(app, ["eval", "ed", "--agents", "noop,random", "-s", "surge",
                               "--episodes", "1", "--json", "-"])
    assert both.exit_code == 0
    assert {r["agent"] for r in json.loads(both.stdout)["records"]} == {"noop", "random"}
    listed = runner.invoke(app, ["list", "--json"])  # bare --json = stdout, as before
    assert json.loads(listed.stdout)[0]["name"]
    one = runner.invoke(app, ["run", "ed", "--agents", "noop", "--json"])
    assert json.loads(one.stdout)["agent"] == "noop"


def test_bad_output_paths_fail_before_any_work(tmp_path: Path, monkeypatch: Any) -> None:
    calls: list[int] = []
    monkeypatch.setattr(harness, "run_tasks", lambda *a, **k: calls.append(1) or [])
    (tmp_path / "file").write_text("x")
    cases = {
        ("eval", "ed", "--agents", "noop", "--json", str(tmp_path)): "is a directory",
        ("compare", "ed", "--agents", "noop", "--json", str(tmp_path / "file" / "r.json")):
            "is not a directory",
        ("leaderboard", "--out", str(tmp_path / "file")): "exists and is not a directory",
        ("report", str(tmp_path / "file"), "--out", str(tmp_path / "file")): "not a directory",
    }
    for args, message in cases.items():
        result = runner.invoke(app, list(args))
        assert result.exit_code == 2, (args, result.output)
        assert message in _out(result) and "Traceback" not in result.output
        assert result.output.startswith("Error: ")
    assert not calls


def test_ctrl_c_writes_partial_results(tmp_path: Path, monkeypatch: Any) -> None:
    real = harness.run_tasks

    def interrupted(tasks: Any, workers: int = 1, on_record: Any = None, **kw: Any) -> Any:
        real(tasks[:2], workers, on_record, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(harness, "run_tasks", interrupted)
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["compare", "ed", "--agents", "noop,random", "-s", "surge",
                                 "--episodes", "3", "--json", str(out)])
    assert result.exit_code == 130
    assert "interrupted: partial results (2 of 6 episodes) written to" in _out(result)
    data = json.loads(out.read_text())
    assert len(data["records"]) == 2 and data["meta"]["interrupted"] is True
    assert data["summary"][0]["n"] == 2
    board = runner.invoke(app, ["leaderboard", "--episodes", "2", "--env", "ed", "--out",
                                str(tmp_path / "lb")])
    assert board.exit_code == 130 and (tmp_path / "lb" / "report.md").is_file()
    assert "partial" in (tmp_path / "lb" / "report.md").read_text()


def test_missing_extra_is_one_line_exit_2(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.setattr(extras, "missing", lambda extra: list(extras.EXTRAS[extra]))
    results = tmp_path / "r.json"
    results.write_text(json.dumps({"records": []}))
    cases = {
        ("report", str(results)): "lifeline-gym[viz]",
        ("leaderboard", "--out", str(tmp_path / "lb")): "lifeline-gym[viz]",
        ("train", "ppo", "ed", "-n", "10"): "lifeline-gym[train]",
        ("eval", "ed", "--agents", "ppo:runs/x"): "lifeline-gym[train]",
        ("serve",): "lifeline-gym[server]",
    }
    for args, message in cases.items():
        result = runner.invoke(app, list(args))
        assert result.exit_code == 2, (args, result.output)
        text = result.output.strip()
        assert message in text and len(text.splitlines()) == 1, (args, text)


def test_check_command_and_report_object() -> None:
    result = runner.invoke(app, ["check", "ed", "-s", "surge", "--no-subprocess"])
    assert result.exit_code == 0, result.output
    assert "ed/surge: all 9 checks passed" in result.output and "PASS  mask_exact" in result.output
    from lifeline.testing import CheckFailure, CheckReport, CheckResult, check_env

    report = check_env("ed", "surge", subprocess_check=False, only=("spec_valid",))
    assert isinstance(report, CheckReport) and isinstance(report, list)
    assert all(isinstance(r, CheckResult) for r in report) and report.passed
    assert "all 1 checks passed" in str(report)
    bad = CheckReport("x", "y", [CheckResult("a", True), CheckResult("b", False, "boom")])
    assert "FAIL  b: boom" in bad.summary() and not bad.passed
    with pytest.raises(CheckFailure, match="b: boom"):
        bad.raise_if_failed()


def test_bench_shows_progress_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "b.json"
    result = runner.invoke(app, ["bench", "--steps", "50", "--env", "ed", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["results"][0]["env"] == "ed"


# ----- report ------------------------------------------


def _records(agent: str, seeds_: range, score: float = 0.5) -> list[dict[str, Any]]:
    return [{"env": "ed", "scenario": "surge", "agent": agent, "seed": s,
             "score": score + s * 1e-3, "components": {"c": 0.5}, "metrics": {}, "steps": 1,
             "return": 0.0, "invalid": 0}
            for s in seeds_]


def test_report_merges_overlaps_and_names_conflicts(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from lifeline.eval.report import ResultsConflict, load_results, write_report

    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(json.dumps({"records": _records("noop", range(3)) + _records("heuristic",
                                                                             range(3))}))
    b.write_text(json.dumps({"records": _records("noop", range(2, 5))}))
    merged = load_results([a, b])
    assert len(merged["records"]) == 8 and merged["duplicates"] == 1
    text = write_report([a, b], tmp_path / "r").read_text()
    assert "identical duplicate records merged: 1" in text
    c = tmp_path / "c.json"
    c.write_text(json.dumps({"records": _records("noop", range(1), score=0.9)}))
    with pytest.raises(ResultsConflict, match=r"a\.json and .*c\.json differ in score"):
        load_results([a, c])
    result = runner.invoke(app, ["report", str(a), str(c), "--out", str(tmp_path / "r2")])
    assert result.exit_code == 2 and "c.json" in result.output and "Traceback" not in result.output
    kept = runner.invoke(app, ["report", str(a), str(c), "--out", str(tmp_path / "r3"),
                               "--on-conflict", "last"])
    assert kept.exit_code == 0, kept.output
    assert "Conflicting records" in (tmp_path / "r3" / "report.md").read_text()
    junk = tmp_path / "notes.txt"
    junk.write_text("not json")
    bad = runner.invoke(app, ["report", str(junk)])
    assert bad.exit_code == 2 and "notes.txt: not a results JSON file" in _out(bad)


def test_plots_wrap_into_a_readable_grid(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from PIL import Image

    from lifeline.eval import plots
    from lifeline.eval.stats import mean_ci, paired_compare

    scenarios = [f"metro_scenario_{i}" for i in range(9)]  # wraps into 3 rows
    agents = ["hold", "random", "closest_idle", "dmexclp", "bound"]
    rng = np.random.default_rng(0)
    vals = {s: {a: list(rng.uniform(0, 1, 5)) for a in agents} for s in scenarios}
    cells = {s: {a: mean_ci(v) for a, v in d.items()} for s, d in vals.items()}
    comps = {s: {a: paired_compare(dict(enumerate(vals[s][a])),
                                   dict(enumerate(vals[s]["dmexclp"])))
                 for a in agents if a != "dmexclp"} for s in scenarios}
    paths = [plots.bar_means(cells, scenarios, agents, "t", tmp_path / "a.png"),
             plots.distributions(vals, scenarios, agents, "t", tmp_path / "b.png"),
             plots.paired_differences(comps, scenarios, agents, "dmexclp", "t",
                                      tmp_path / "c.png"),
             plots.learning_curves({"surge": ([2048.0], [0.7])}, {"surge": 0.8}, "t", "score",
                                   tmp_path / "d.png")]
    for p in paths:
        width, height = Image.open(p).size
        assert 900 <= width <= 1000 and height <= 2000, (p.name, width, height)
    colours = plots.agent_colours(agents)
    assert colours == plots.agent_colours(agents) and len(set(colours.values())) == len(agents)


# ----- Gymnasium ------------------------------------------


def test_gym_ids_reject_unknown_kwargs_and_keep_the_checker() -> None:
    with pytest.raises(TypeError, match=r"unexpected keyword argument.*env"):
        gym.make("lifeline/ED-v3", env="dispatch")
    env = gym.make("lifeline/ED-v3", scenario="surge")
    assert "PassiveEnvChecker" in str(env) and env.unwrapped.core.name == "ed"
    assert gym.spec("lifeline/ED-v3").disable_env_checker is False


def test_vector_entry_point() -> None:
    venv = gym.make_vec("lifeline/ED-v3", num_envs=2, scenario="surge")
    obs, _ = venv.reset(seed=3)
    assert obs["action_mask"].shape[0] == 2
    _, reward, *_ = venv.step(np.zeros(2, dtype=np.int64))
    assert reward.shape == (2,)
    venv.close()


def test_evaluate_masked_uses_masks() -> None:
    from lifeline.eval import evaluate_masked

    class LastLegal:
        def predict(self, obs: Any, deterministic: bool = True, action_masks: Any = None) -> Any:
            return int(np.flatnonzero(action_masks)[-1]), None

    result = evaluate_masked(LastLegal(), "lifeline/ED-v3", n_eval_episodes=1)
    assert result.seeds == [seeds.EVAL_SEED_BASE] and sum(result.invalid) == 0
    assert 0.0 <= result.mean_score <= 1.0


# ----- training config ------------------------------------------


def test_hyperparameter_overrides(tmp_path: Path) -> None:
    from lifeline.train.config import build_config
    from lifeline.train.ppo import PPOConfig, planned_timesteps

    cfg_file = tmp_path / "c.toml"
    cfg_file.write_text('learning_rate = 1e-4\nnet_arch = [64, 64]\n')
    cfg = build_config(PPOConfig(), cfg_file, ["n_envs=2", "net_arch=32,32"])
    assert cfg.learning_rate == 1e-4 and cfg.n_envs == 2 and cfg.net_arch == (32, 32)
    with pytest.raises(ValueError, match="unknown hyperparameter"):
        build_config(PPOConfig(), None, ["lr=1"])
    with pytest.raises(ValueError, match="n_envs='x': expected int"):
        build_config(PPOConfig(), None, ["n_envs=x"])
    assert planned_timesteps(3000, PPOConfig()) == 4096  # whole rollouts, said up front


# ----- packaging ------------------------------------------

INSTRUCTIONS = {"FROM", "ARG", "ENV", "WORKDIR", "COPY", "ADD", "RUN", "USER", "EXPOSE",
                "HEALTHCHECK", "CMD", "ENTRYPOINT", "LABEL", "VOLUME", "STOPSIGNAL", "SHELL"}


def _dockerfile_instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_dockerfile_lints() -> None:
    instructions = _dockerfile_instructions()
    assert {w for w, _ in instructions} <= INSTRUCTIONS
    assert next(w for w, _ in instructions if w != "ARG") == "FROM"
    for word, rest in instructions:
        if word in ("CMD", "ENTRYPOINT"):
            cmd = json.loads(rest)  # exec form
            assert cmd[:2] == ["lifeline", "serve"] and "0.0.0.0" in cmd
        if word == "HEALTHCHECK":
            json.loads(rest.split("CMD", 1)[1])
    ignore = (ROOT / ".dockerignore").read_text().split()
    assert {"!lifeline", "!pyproject.toml", "!README.md"} <= set(ignore)
    serve_help = runner.invoke(app, ["serve", "--help"])
    assert "--host" in serve_help.output and "--port" in serve_help.output


@pytest.mark.slow
def test_docker_build_when_docker_is_available() -> None:
    if subprocess.run(["docker", "info"], capture_output=True, check=False).returncode != 0:
        pytest.skip("no docker daemon here; the lint test above still runs")
    subprocess.run(["docker", "build", "-q", "-t", "lifeline-server-test", str(ROOT)],
                   check=True, timeout=1800)


def test_openenv_manifest_parses_and_its_app_resolves() -> None:
    pytest.importorskip("openenv")
    pytest.importorskip("fastapi")
    from openenv.validation.parsers.openenv_yaml import OpenEnvYamlParser

    manifest = OpenEnvYamlParser().parse(ROOT)
    assert manifest.name == "lifeline" and manifest.version == lifeline.__version__
    import yaml  # openenv's dependency

    module, _, attr = yaml.safe_load((ROOT / "openenv.yaml").read_text())["app"].partition(":")
    from fastapi.testclient import TestClient

    asgi = getattr(__import__(module, fromlist=[attr]), attr)
    with TestClient(asgi) as client:
        assert client.get("/health").status_code == 200


def test_train_interrupt_saves_and_resume_continues(tmp_path: Path, monkeypatch: Any) -> None:
    pytest.importorskip("sb3_contrib")
    import csv

    from lifeline.train import ppo

    real = ppo._make_logging_callback

    def stop_after_two_rollouts(start: float, max_seconds: float | None) -> Any:
        callback = real(start, max_seconds)
        original = callback._on_step

        def on_step() -> bool:
            if callback.num_timesteps >= 128:
                raise KeyboardInterrupt
            return bool(original())

        callback._on_step = on_step
        return callback

    cfg = ppo.PPOConfig(n_envs=1, n_steps=64, batch_size=64, n_epochs=1)
    out = tmp_path / "run"
    monkeypatch.setattr(ppo, "_make_logging_callback", stop_after_two_rollouts)
    with pytest.raises(ppo.TrainingInterrupted) as stop:
        ppo.train_ppo("ed", "surge", 1000, out, config=cfg, progress_bar=False)
    meta = stop.value.result.metadata
    assert meta["interrupted"] and meta["timesteps"] == 128 and (out / ppo.MODEL_FILE).is_file()
    monkeypatch.setattr(ppo, "_make_logging_callback", real)
    result = ppo.train_ppo("ed", "surge", 256, out, config=ppo.PPOConfig(n_envs=4),
                           progress_bar=False, resume=True)
    meta = result.metadata
    assert meta["timesteps"] == 256 and meta["parts"] == 2 and not meta["interrupted"]
    assert meta["config"]["n_envs"] == 1  # the saved run's hyperparameters
    with (out / ppo.CURVE_FILE).open() as fh:
        steps = [int(float(r["time/total_timesteps"])) for r in csv.DictReader(fh)]
    assert steps == [64, 192, 256]  # part 1 (interrupted in its 2nd rollout), then part 2
    with pytest.raises(ValueError, match="already trained"):
        ppo.train_ppo("ed", "surge", 200, out, config=cfg, progress_bar=False, resume=True)
