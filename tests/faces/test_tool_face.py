"""The tool face: schemas from action declarations, tool-call parsing, text observations."""

from __future__ import annotations

import ast
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lifeline.core.env import Action, Environment
from lifeline.core.registry import all_specs
from lifeline.faces.tools import (
    ToolCallError,
    action_to_call,
    legal_calls,
    openai_tools,
    parse_tool_call,
    text_observation,
    tool_specs,
)
from lifeline.testing.counter import COUNTER_SPEC, CounterEnv, Increment

SPECS = [COUNTER_SPEC, *all_specs()]


@pytest.fixture(scope="module", params=SPECS, ids=[s.name for s in SPECS])
def env(request: pytest.FixtureRequest) -> Environment:
    return request.param.load()(request.param.default_scenario)


def test_every_action_type_is_a_documented_tool(env: Environment) -> None:
    specs = tool_specs(env)
    assert [s.name for s in specs] == [t.kind for t in env.action_types]
    assert len({s.name for s in specs}) == len(specs), "tool names must be unique"
    for s in specs:
        assert s.description and not s.description.startswith("Action '"), s.name
        schema = s.parameters
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"])
        for prop in schema["properties"].values():
            assert prop["type"] in {"integer", "number", "boolean", "string"}
    for tool in openai_tools(env):
        assert tool["type"] == "function"
        json.dumps(tool)  # JSON-serialisable as sent to an LLM API


def test_every_encoded_action_round_trips_through_a_tool_call(env: Environment) -> None:
    for index in range(env.num_actions):
        action = env.decode(index)
        name, args = action_to_call(action)
        assert parse_tool_call(env, name, args) == action
        assert parse_tool_call(env, name, json.dumps(args)) == action  # LLM APIs send strings
        assert env.encode(parse_tool_call(env, name, args)) == index


def test_text_observation_lists_exactly_the_legal_actions(env: Environment) -> None:
    state = env.reset(seed=3)
    text = text_observation(env, state)
    assert text.startswith(env.render_text(state).rstrip())
    calls = legal_calls(env, state)
    assert f"Legal actions ({len(calls)}):" in text
    legal = [parse_tool_call(env, c["tool_name"], c["arguments"]) for c in calls]
    assert legal == env.legal_actions(state)
    assert _expand_legal_text(text) == {(c["tool_name"], json.dumps(c["arguments"],
                                                                     sort_keys=True))
                                        for c in calls}


def _expand_legal_text(text: str) -> set[tuple[str, str]]:
    """Read the compact ``Legal actions`` lines back into individual calls."""
    block = text.split("Legal actions", 1)[1].splitlines()[1:]
    out: set[tuple[str, str]] = set()
    for line in block:
        line = line.removeprefix("- ")
        if ", N in {" in line:
            call, values = line.split(", N in {")
            name, args = call.removesuffix("=N)").split("(")
            *fixed, key = args.split(", ")
            head = {k: ast.literal_eval(v) for k, v in (a.split("=") for a in fixed)}
            for part in values.rstrip("}").split(", "):
                lo, _, hi = part.partition("..")
                for v in range(int(lo), int(hi or lo) + 1):
                    out.add((name, json.dumps(head | {key: v}, sort_keys=True)))
        else:
            name, args = line.rstrip(")").split("(")
            parsed = dict(a.split("=") for a in args.split(", ")) if args else {}
            out.add((name, json.dumps({k: ast.literal_eval(v) for k, v in parsed.items()},
                                      sort_keys=True)))
    return out


@pytest.mark.parametrize(("name", "arguments", "expected"), [
    ("incremnt", {"amount": 1}, "unknown tool 'incremnt'. Did you mean 'increment'?"),
    ("fly", {}, "Available tools: hold, increment"),
    ("", {}, "tool name must be a non-empty string"),
    (None, {}, "tool name must be a non-empty string"),
    ("increment", {}, "missing required argument(s) 'amount'"),
    ("increment", {"amount": 1, "speed": 2}, "unexpected argument(s) 'speed'"),
    ("hold", {"amount": 1}, "expected arguments: none"),
    ("increment", {"amount": "2"}, "argument 'amount' must be an integer, got str '2'"),
    ("increment", {"amount": True}, "must be an integer, got bool True"),
    ("increment", {"amount": 1.5}, "must be an integer, got float 1.5"),
    ("increment", {"amount": None}, "must be an integer, got NoneType"),
    ("increment", [1], "arguments must be a JSON object, got list"),
    ("increment", '{"amount": ', "arguments are not valid JSON"),
    ("increment", "[" * 100_000, "arguments are not valid JSON"),
])
def test_bad_calls_get_precise_messages(name: Any, arguments: Any, expected: str) -> None:
    with pytest.raises(ToolCallError) as err:
        parse_tool_call(CounterEnv("default"), name, arguments)
    assert expected in str(err.value)


def test_lenient_where_unambiguous() -> None:
    env = CounterEnv("default")
    assert parse_tool_call(env, "increment", {"amount": 2.0}) == Increment(amount=2)
    assert parse_tool_call(env, "hold", None) == parse_tool_call(env, "hold", "") \
        == parse_tool_call(env, "hold", {})


# ----- property-based fuzzing of the parser ---------------------------------------------------
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=4),
    max_leaves=12)
_ENVS = [s.load()(s.default_scenario) for s in SPECS]
_NAMES = sorted({t.kind for e in _ENVS for t in e.action_types})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env_index=st.integers(0, len(_ENVS) - 1),
       name=st.sampled_from(_NAMES) | st.text(max_size=12) | _json,
       arguments=_json | st.text(max_size=30) | st.dictionaries(
           st.sampled_from(["amount", "slot", "bed", "icu_bed", "general_bed", "x"]), _json,
           max_size=3))
def test_fuzz_parser_returns_an_action_or_a_tool_call_error(env_index: int, name: Any,
                                                            arguments: Any) -> None:
    env = _ENVS[env_index]
    try:
        action = parse_tool_call(env, name, arguments)
    except ToolCallError as exc:
        assert str(exc)  # never an empty message
        return
    assert isinstance(action, env.action_types)
    # Whatever was accepted is a well-formed action: validate() answers, never raises.
    state = env.reset(seed=0)
    message = env.validate(state, action)
    assert message is None or isinstance(message, str)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_fuzz_valid_calls_round_trip(data: st.DataObject) -> None:
    env = data.draw(st.sampled_from(_ENVS))
    action: Action = env.decode(data.draw(st.integers(0, env.num_actions - 1)))
    name, args = action_to_call(action)
    assert parse_tool_call(env, name, args) == action
