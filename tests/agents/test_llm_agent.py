"""The LLM agent against a scripted OpenAI-compatible server, the tool-call parser, pass^k."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from lifeline.agents import make_agent
from lifeline.agents.llm import LLMUnavailable
from lifeline.agents.toolcall import extract_calls, parse_call_line
from lifeline.eval.episode import Task, run_episode
from lifeline.eval.harness import evaluate
from lifeline.eval.stats import pass_hat_k
from tests.fake_llm import FakeLLM

CALL = ("admit_icu", {"slot": 0})


@pytest.mark.parametrize("reply", [
    {"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {
        "name": "admit_icu", "arguments": '{"slot": 0}'}}]},
    [{"function": {"name": "admit_icu", "arguments": {"slot": 0}}}],
    {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "admit_icu",
                                                          "arguments": {"slot": 0}}},
    {"tool_name": "admit_icu", "arguments": {"slot": 0}},
    'ok <tool_call>{"name": "admit_icu", "arguments": {"slot": 0}}</tool_call>',
    '```json\n{"name": "admit_icu", "arguments": {"slot": 0}}\n```',
    "I will admit the patient.\nadmit_icu(slot=0)",
    {"role": "assistant", "content": "admit_icu(slot=0)"},
])
def test_every_reply_shape_gives_the_same_call(reply: object) -> None:
    name, args = extract_calls(reply)[0]
    assert name == CALL[0]
    assert (json.loads(args) if isinstance(args, str) else args) == CALL[1]


def test_plain_call_lines_are_literals_only() -> None:
    assert parse_call_line("route(ev=3, station=-1, charge_rate=0.5, fast=true)") == (
        "route", {"ev": 3, "station": -1, "charge_rate": 0.5, "fast": True})
    assert parse_call_line("wait()") == ("wait", {})
    assert parse_call_line("route(ev=__import__('os'))") is None  # never evaluated
    assert parse_call_line("route(3)") is None
    assert extract_calls("no call in this prose.") == []
    assert extract_calls("<tool_call>{broken</tool_call>") == [("", "{broken")]


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("LIFELINE_LLM_RETRIES", "1")
    monkeypatch.setenv("LIFELINE_LLM_TRANSCRIPTS", str(tmp_path / "tx"))
    monkeypatch.setenv("LIFELINE_LLM_API_KEY_ENV", "FAKE_LLM_KEY")
    monkeypatch.setenv("FAKE_LLM_KEY", "sk-test")
    return tmp_path / "tx"


def _play(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch, scenario: str = "night_shift") -> dict:
    monkeypatch.setenv("LIFELINE_LLM_BASE_URL", fake.url)
    return run_episode(Task("ed", scenario, "llm:fake-model", 3))


@pytest.mark.parametrize("mode", ["legal", "text", "plain"])
def test_a_model_that_answers_plays_a_whole_episode(mode: str, llm_env: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM([mode]) as fake:
        record = _play(fake, monkeypatch)
    m = record["metrics"]
    assert record["invalid"] == 0 and m["llm_repairs"] == 0 and m["llm_invalid_calls"] == 0
    assert m["llm_requests"] == record["steps"] == fake.requests
    assert m["llm_tokens_in"] == 100 * fake.requests and m["llm_tokens_out"] == 7 * fake.requests
    assert fake.bodies[0]["model"] == "fake-model" and fake.bodies[0]["tools"]
    lines = (llm_env / "ed_night_shift_3.jsonl").read_text().splitlines()
    assert len(lines) == fake.requests and "reply" in json.loads(lines[0])


def test_repairs_are_bounded_and_counted(llm_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM(["none", "bad_tool", "legal"]) as fake:  # two repairs, then fine
        record = _play(fake, monkeypatch)
    assert record["metrics"]["llm_repairs"] == 2 and record["invalid"] == 0
    repair = fake.bodies[1]["messages"][-1]["content"]
    assert "no tool call" in repair
    assert "unknown tool" in fake.bodies[2]["messages"][-1]["content"]


def test_a_model_that_never_calls_wastes_turns_but_finishes(
        llm_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM(["none"]) as fake:
        record = _play(fake, monkeypatch)
    m = record["metrics"]
    assert record["invalid"] == record["steps"] == m["llm_invalid_calls"] > 0
    assert m["llm_repairs"] == 2 * record["steps"]  # max_repairs per turn, each counted


def test_429_and_garbage_are_retried(llm_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIFELINE_LLM_RETRIES", "2")
    with FakeLLM(["429", "garbage", "legal"]) as fake:
        record = _play(fake, monkeypatch)
    assert record["invalid"] == 0 and record["metrics"]["llm_requests"] == fake.requests - 2


def test_a_dead_endpoint_is_one_clear_error(llm_env: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("LIFELINE_LLM_BASE_URL", f"http://127.0.0.1:{port}/v1")
    start = time.perf_counter()
    with pytest.raises(LLMUnavailable, match="did not answer"):
        run_episode(Task("ed", "night_shift", "llm:m", 3))
    assert time.perf_counter() - start < 10


def test_an_endpoint_dying_mid_episode_ends_it_cleanly(
        llm_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM(["legal"] * 5 + ["close"]) as fake:
        record = _play(fake, monkeypatch)
    m = record["metrics"]
    assert m["llm_aborted"] == 1 and m["llm_failed_turns"] == 3
    assert record["invalid"] == record["steps"] - 5 and 0.0 <= record["score"] <= 1.0


def test_trials_and_pass_k() -> None:
    result = evaluate("ed", ["random"], ["night_shift"], episodes=3, trials=2,
                      pass_threshold=0.0)
    trials = [r.get("trial", 0) for r in result["records"]]
    assert trials == [0, 1, 0, 1, 0, 1]
    first, second = result["records"][:2]
    assert first["seed"] == second["seed"] and first["score"] != second["score"]
    row = result["pass_k"][0]
    assert row["k"] == 2 and row["seeds"] == 3 and row["pass_k"] == 1.0


def test_pass_k_needs_every_attempt_to_pass() -> None:
    recs = [{"env": "e", "scenario": "s", "agent": "a", "seed": s, "score": v, "trial": t}
            for s, t, v in [(1, 0, 0.9), (1, 1, 0.9), (2, 0, 0.9), (2, 1, 0.1),
                            (3, 0, 0.1), (3, 1, 0.1)]]
    row = pass_hat_k(recs, threshold=0.5)[0]
    assert row["pass_k"] == pytest.approx(1 / 3) and row["pass_1"] == pytest.approx(0.5)


def test_unknown_llm_spec_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="expected llm:MODEL"):
        make_agent("llm:", "ed")
