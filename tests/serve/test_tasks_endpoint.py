"""GET /<env>/tasks: scenarios, tools, the ladder and the committed reference scores."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

import lifeline
from lifeline.serve import tasks
from lifeline.serve.run import background_server
from lifeline.serve.server import build_app
from tests.server_helpers import SERVED


@pytest.fixture(scope="module")
def live_url():  # type: ignore[no-untyped-def]
    with background_server(build_app(lifeline.all_specs(), max_sessions=2)) as url:
        yield url


@pytest.mark.parametrize("env_spec", [s for s in SERVED if s.name != "counter"],
                         ids=lambda s: s.name)
def test_every_env_lists_its_tasks(live_url: str, env_spec: lifeline.EnvSpec) -> None:
    body = httpx.get(f"{live_url}/{env_spec.name}/tasks", timeout=30).json()
    assert [s["name"] for s in body["scenarios"]] == list(env_spec.scenarios)
    core = lifeline.make(env_spec.name)
    assert [t["name"] for t in body["tools"]] == [t.kind for t in core.action_types]
    assert all(t["input_schema"]["type"] == "object" for t in body["tools"])
    assert body["ladder"] == list(env_spec.agents) and body["reference"] == env_spec.reference
    assert body["version"] == core.version


def test_reference_scores_come_from_the_snapshot(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "board.json"
    results = [{"summary": [{"env": "ed", "scenario": "surge", "agent": "heuristic", "n": 10,
                             "mean": 0.8, "ci_low": 0.78, "ci_high": 0.82, "sd": 0.03}],
                "meta": {"created": "2026-11-30T00:00:00+00:00", "git_commit": "abc",
                         "env_versions": {"ed": 1}}}]
    tasks.write_snapshot(results, path)
    got = tasks.reference_scores("ed", path)
    assert got["scores"] == {"surge": {"heuristic": {"n": 10, "mean": 0.8, "ci_low": 0.78,
                                                     "ci_high": 0.82}}}
    assert got["created"].startswith("2026-11-30") and got["env_version"] == 1
    assert tasks.reference_scores("dispatch", path)["scores"] == {}
    tasks._leaderboard.cache_clear()
