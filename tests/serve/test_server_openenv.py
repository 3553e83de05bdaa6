"""The in-process OpenEnv adapter (no network): episode API, views, tools, metadata."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from lifeline.core import registry
from lifeline.core.registry import EnvSpec
from lifeline.faces.tools import action_to_call
from lifeline.serve.openenv import (
    START_TOOL,
    LifelineAction,
    LifelineObservation,
    LifelineOpenEnv,
    LifelineToolsObservation,
    NoEpisodeError,
    openenv_env_class,
)
from lifeline.testing.checker import check_env
from lifeline.testing.counter import COUNTER_SPEC
from tests.server_helpers import SERVED


@pytest.fixture(params=SERVED, ids=[s.name for s in SERVED])
def session(request: pytest.FixtureRequest) -> LifelineOpenEnv:
    return openenv_env_class(request.param)()


def test_counter_reference_env_passes_the_conformance_checker(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Registered only for the duration of this test: the counter is not a built-in env.
    monkeypatch.setitem(registry._REGISTRY, COUNTER_SPEC.name, COUNTER_SPEC)
    results = check_env("counter", subprocess_check=False, raise_on_failure=False)
    assert all(r.passed for r in results), [r for r in results if not r.passed]


def test_concurrency_flag_and_one_class_per_env() -> None:
    classes = {openenv_env_class(s) for s in SERVED}
    assert len(classes) == len(SERVED)
    assert all(c.SUPPORTS_CONCURRENT_SESSIONS for c in classes)
    assert openenv_env_class(SERVED[-1]) is openenv_env_class(SERVED[-1])


def _index0_call(spec: EnvSpec) -> tuple[str, dict[str, Any]]:
    return action_to_call(spec.load()(spec.default_scenario).decode(0))


def test_reset_and_step_basics(session: LifelineOpenEnv) -> None:
    spec: EnvSpec = session.env_spec
    assert session.state.step_count == 0 and session.state.episode_id is None
    with pytest.raises(NoEpisodeError, match="send a reset first"):
        session.step(LifelineAction(index=0))
    obs = session.reset()
    assert obs.reward == 0.0 and not obs.done and obs.scenario == spec.default_scenario
    drawn = obs.seed
    assert isinstance(drawn, int)
    other = openenv_env_class(spec)()
    again = other.reset(seed=drawn)
    assert again.structured == obs.structured and again.text == obs.text  # reproducible
    by_index = session.step(LifelineAction(index=0))
    name, args = _index0_call(spec)
    by_call = other.step(LifelineAction(tool_name=name, arguments=args))
    assert by_index.model_dump() == by_call.model_dump()
    json.dumps(by_index.model_dump())  # everything on the wire is plain JSON
    assert session.state.step_count == 1 and session.state.seed == drawn


def test_views_limit_the_observation(session: LifelineOpenEnv) -> None:
    obs = session.reset(seed=1, views=["structured"])
    assert obs.structured and not obs.text and not obs.legal_actions
    obs = session.reset(seed=1, views=["text"])
    assert obs.text and not obs.structured and not obs.legal_actions
    obs = session.reset(seed=1)
    assert obs.text and obs.structured and not obs.legal_actions  # opt-in: repeats the text
    obs = session.reset(seed=1, views=["text", "structured", "legal"])
    assert obs.text and obs.structured and obs.legal_actions
    assert f"Legal actions ({len(obs.legal_actions)}):" in obs.text
    with pytest.raises(ValueError, match="unknown view"):
        session.reset(seed=1, views=["smell"])
    with pytest.raises(ValueError, match="unknown scenario"):
        session.reset(seed=1, scenario="nope")


def test_list_tools_and_mcp_tools(session: LifelineOpenEnv) -> None:
    listed = session.step(LifelineAction(type="list_tools"))
    assert isinstance(listed, LifelineToolsObservation)
    names = [t["name"] for t in listed.tools]
    assert names == [t.kind for t in session.env_spec.load().action_types]
    mcp_tools = {t.name: t for t in asyncio.run(session.mcp_server.list_tools())}
    assert list(mcp_tools) == [*names, START_TOOL]  # MCP adds the episode control
    session.reset(seed=2)
    name, args = _index0_call(session.env_spec)
    result = mcp_tools[name].fn(**args)
    assert result["step"] == 1 and isinstance(result["reward"], float)


def test_metadata_and_close(session: LifelineOpenEnv) -> None:
    meta = session.get_metadata()
    assert meta.name == session.env_spec.name and meta.description
    session.reset(seed=3)
    session.close()
    with pytest.raises(NoEpisodeError):
        session.step(LifelineAction(index=0))


def test_observations_are_complete_and_valid(session: LifelineOpenEnv) -> None:
    """Observations are built with ``model_construct`` (hot path): they must still validate."""
    obs = session.reset(seed=4, views=["text", "structured", "legal"])
    assert set(obs.model_fields_set) == set(LifelineObservation.model_fields)
    LifelineObservation.model_validate(obs.model_dump())
    step = session.step(LifelineAction(index=0))
    assert set(step.model_fields_set) == set(LifelineObservation.model_fields)
    LifelineObservation.model_validate(step.model_dump())


def test_per_env_schemas_name_the_tools() -> None:
    for spec in SERVED:
        cls = openenv_env_class(spec)
        prop = cls.action_model.model_json_schema()["properties"]["tool_name"]
        kinds = [t.kind for t in spec.load().action_types]
        assert prop["enum"][:-1] == kinds and all(k in prop["description"] for k in kinds)
        structured = cls.observation_model.model_json_schema()["properties"]["structured"]
        core = spec.load()(spec.default_scenario)
        assert all(k in structured["description"] for k in core.observation_spec())
        # An unknown name still reaches the parser (precise message), not a schema error.
        assert cls.action_model.model_validate({"tool_name": "nope"}).tool_name == "nope"
