"""Frames and replays: JSON-ready pictures, byte-exact re-simulation, the record options."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import lifeline
from lifeline.cli import app
from lifeline.core.registry import make
from lifeline.eval.episode import Task, run_episode
from lifeline.eval.harness import evaluate
from lifeline.eval.replay import load, record_episode, replay_name, verify

SPECS = [(s.name, s.default_scenario) for s in lifeline.all_specs()]


def _plain(value: Any, where: str = "frame") -> None:
    """Fail unless ``value`` is made of plain JSON types (no numpy, no NaN/inf)."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str), f"{where}: key {k!r} is not a string"
            _plain(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _plain(v, f"{where}[{i}]")
    elif isinstance(value, float):
        assert math.isfinite(value), f"{where} = {value}"
    else:
        assert value is None or type(value) in (str, int, bool), \
            f"{where} is a {type(value).__name__}, not a plain JSON type"


@pytest.mark.parametrize(("env_name", "scenario"), SPECS)
def test_frames_are_plain_json_and_do_not_alias_the_state(env_name: str, scenario: str) -> None:
    env = make(env_name, scenario)
    state = env.reset(3)
    _plain(env.frame_static(), "frame_static")
    rng = np.random.default_rng(0)
    for _ in range(40):
        frame = env.frame(state)
        _plain(frame)
        assert 0.0 <= frame["progress"] <= 1.0
        before = json.dumps(frame, sort_keys=True)
        frame.clear()  # mutating the picture must not touch the state
        assert json.dumps(env.frame(state), sort_keys=True) == before
        if state.done:
            break
        env.step(state, int(rng.choice(np.flatnonzero(env.action_mask(state)))))


def test_ed_frame_matches_the_state() -> None:
    env = make("ed", "surge")
    state = env.reset(5)
    for _ in range(30):
        env.step(state, int(np.flatnonzero(env.action_mask(state))[-1]))
    f = env.frame(state)
    assert len(f["general"]) == env.params.general_beds and len(f["icu"]) == env.params.icu_beds
    occupied = [p for p in state.general if p is not None]
    assert sum(b is not None for b in f["general"]) == len(occupied)
    assert len(f["waiting"]) == len(state.waiting)
    assert [w["slot"] for w in f["waiting"][: env.params.queue_slots]] == \
        list(range(min(len(state.waiting), env.params.queue_slots)))
    assert f["counters"]["deaths"] == state.counters.deaths
    assert f["ventilators"]["in_use"] == state.ventilators_in_use


def test_dispatch_frame_positions_units_on_roads() -> None:
    env = make("dispatch", "learning")
    static = env.frame_static()
    assert len(static["nodes"]) == env.params.city.n_nodes
    assert all(0.0 <= c <= 1.0 for xy in static["nodes"] for c in xy)
    state = env.reset(2)
    edges = {(a, b) for a, b, _ in static["edges"]} | {(b, a) for a, b, _ in static["edges"]}
    from lifeline.envs.dispatch.baselines import AGENTS

    agent = AGENTS["closest_idle"]()
    agent.reset(env, 2)
    moving_seen = 0
    while not state.done:
        env.step(state, agent.act(env, state))
        for u in env.frame(state)["units"]:
            if u["from"] != u["to"]:
                moving_seen += 1
                assert (u["from"], u["to"]) in edges and 0.0 <= u["frac"] <= 1.0
    assert moving_seen > 0


@pytest.mark.parametrize(("env_name", "scenario", "agent"),
                         [("ed", "normal_day", "heuristic"), ("dispatch", "learning", "random"),
                          ("ed", "normal_day", "invalid_spam"), ("ed", "normal_day", "bound")])
def test_replay_resimulates_byte_for_byte(tmp_path: Path, env_name: str, scenario: str,
                                          agent: str) -> None:
    rec = record_episode(Task(env_name, scenario, agent, 4), tmp_path)
    path = Path(rec["replay"])
    assert path.name == replay_name(env_name, scenario, agent, 4)
    assert verify(path) == (True, "")
    replay = load(path)
    header, steps, footer = replay["header"], replay["steps"], replay["footer"]
    assert (header["env"], header["scenario"], header["seed"], header["agent"]) == \
        (env_name, scenario, 4, agent)
    assert header["package_version"] == lifeline.__version__
    assert len(steps) == rec["steps"] + 1 and footer["score"] == pytest.approx(rec["score"])
    assert footer["invalid"] == rec["invalid"] and steps[-1]["return"] == pytest.approx(
        rec["return"])
    # merged frames equal the live frames of a fresh re-run
    env = make(env_name, scenario)
    if agent == "bound":
        return
    state = env.reset(4)
    assert steps[0]["frame"] == json.loads(json.dumps(env.frame(state)))
    for step in steps[1:6]:
        env.step(state, step["index"] if step["index"] is not None else -1)
        assert step["frame"] == json.loads(json.dumps(env.frame(state)))


def test_tampered_replay_fails_verification(tmp_path: Path) -> None:
    path = Path(record_episode(Task("ed", "normal_day", "heuristic", 1),
                               tmp_path / "t.jsonl")["replay"])
    original = path.read_text()
    lines = original.splitlines(keepends=True)
    n = next(i for i, raw in enumerate(lines) if json.loads(raw).get("index") not in (None, 0))
    step = json.loads(lines[n])
    step["index"] = 0  # claim another action (wait) was taken
    lines[n] = json.dumps(step, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    ok, why = verify(path)
    assert not ok and "line" in why
    path.write_text(original.replace('"reward":', '"reward":1', 1))  # a doctored reward
    assert not verify(path)[0]


def test_recording_off_costs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from lifeline.envs.ed.env import EDEnv

    def boom(*_: Any) -> Any:
        raise AssertionError("frame() called while not recording")

    monkeypatch.setattr(EDEnv, "frame", boom)
    monkeypatch.setattr(EDEnv, "frame_static", boom)
    assert run_episode(Task("ed", "normal_day", "heuristic", 0))["steps"] > 0


def test_cli_run_and_eval_record(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "one.jsonl"
    res = runner.invoke(app, ["run", "dispatch", "--scenario", "warmup", "--seed", "3",
                              "--record", str(out)])
    assert res.exit_code == 0, res.output
    assert verify(out) == (True, "")
    res = runner.invoke(app, ["eval", "ed", "--agent", "heuristic", "--scenario", "night_shift",
                              "--episodes", "2", "--workers", "2", "--record",
                              str(tmp_path / "ev")])
    assert res.exit_code == 0, res.output
    files = sorted((tmp_path / "ev").glob("*.jsonl.gz"))
    assert [f.name for f in files] == [replay_name("ed", "night_shift", "heuristic", s)
                                       for s in (1_000_000, 1_000_001)]
    assert all(verify(f)[0] for f in files)


def test_eval_records_match_with_and_without_recording(tmp_path: Path) -> None:
    plain = evaluate("ed", ["heuristic"], ["normal_day"], episodes=1)["records"]
    rec = evaluate("ed", ["heuristic"], ["normal_day"], episodes=1,
                   record_dir=str(tmp_path))["records"]
    assert [{k: v for k, v in r.items() if k != "replay"} for r in rec] == plain


def test_cli_replays_and_view_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["replays", "--out", str(tmp_path), "--env", "dispatch"])
    assert res.exit_code == 0, res.output
    (written,) = tmp_path.glob("*.jsonl.gz")
    assert written.name == replay_name("dispatch", "warmup", "verify_dmexclp", 1_000_000)
    assert f"lifeline view {written}" in res.output
    res = runner.invoke(app, ["view", str(tmp_path / "missing.jsonl"), "--no-browser"])
    assert res.exit_code == 2 and "no such replay" in res.output
    bogus = tmp_path / "bogus.jsonl"
    bogus.write_text('{"type": "header", "format": "other"}\n')
    res = runner.invoke(app, ["view", str(bogus), "--no-browser"])
    assert res.exit_code == 2 and "not a Lifeline replay" in res.output


def test_gzip_replays(tmp_path: Path) -> None:
    plain = Path(record_episode(Task("dispatch", "warmup", "closest_idle", 2),
                                tmp_path / "a.jsonl")["replay"])
    packed = Path(record_episode(Task("dispatch", "warmup", "closest_idle", 2),
                                 tmp_path / "a.jsonl.gz")["replay"])
    assert packed.name == "a.jsonl.gz" and packed.stat().st_size * 5 < plain.stat().st_size
    assert verify(packed) == (True, "")
    assert load(packed)["steps"][-1]["frame"] == load(plain)["steps"][-1]["frame"]
