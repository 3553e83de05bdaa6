"""The wire models of the OpenEnv face: what goes over HTTP/WebSocket/MCP, published at ``/schema``.

* :class:`LifelineAction` — a tool call ``{"tool_name": ..., "arguments": {...}}`` (the shape of
  OpenEnv's MCP ``CallToolAction``), an encoded ``{"index": i}`` as the Gymnasium face uses, or
  ``{"type": "list_tools"}``.
* :class:`LifelineObservation` — ``reward`` (a float after every step, never null), ``done``, the
  text view, the structured view, ``valid``/``error`` and, at the end, ``score`` + components.
* :class:`LifelineState` — episode id, step count, env, scenario, seed.

:func:`env_models` derives per-environment subclasses whose schemas name the environment's tools
and describe its arrays. Shared by the server (:mod:`lifeline.adapters.openenv`) and the client.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from openenv.core.env_server.types import Action as OEAction
from openenv.core.env_server.types import Observation as OEObservation
from openenv.core.env_server.types import State as OEState
from pydantic import Field, create_model

from lifeline.adapters.tools import tool_specs
from lifeline.core.env import Environment
from lifeline.core.registry import EnvSpec
from lifeline.core.registry import spec as registry_spec

VIEWS = ("text", "structured", "legal")
"""Parts of the observation a session can ask for at reset."""
DEFAULT_VIEWS = ("text", "structured")
"""The default: the text view (which lists the legal calls) and the arrays with the action mask.
``legal`` adds the legal calls as JSON objects — handy for harnesses, but it repeats what the
text and the mask already say, and it is the largest part of the message, so it is opt-in."""


class LifelineAction(OEAction):
    """One agent move: a tool call, an encoded action index, or a request for the tool list."""

    type: Literal["call_tool", "list_tools"] = Field(
        default="call_tool",
        description="'call_tool' to act (default), 'list_tools' to get the tool schemas.")
    # ``Any`` on purpose: a mistyped name reaches the tool parser, whose message is precise.
    tool_name: Any = Field(
        default=None, description="Action (tool) name, e.g. 'wait'; see list_tools.",
        json_schema_extra={"type": ["string", "null"]})
    arguments: Any = Field(
        default=None, description="Tool arguments: a JSON object (or a JSON-encoded string).",
        json_schema_extra={"type": ["object", "string", "null"]})
    index: int | None = Field(
        default=None, description="Alternative to tool_name: the encoded action index "
                                  "(as in the Gymnasium face / action_mask).")


class LifelineObservation(OEObservation):
    """What the agent sees after ``reset`` or a step (``reward`` is never null)."""

    env: str = Field(default="", description="Environment name.")
    scenario: str = Field(default="", description="Scenario of the running episode.")
    seed: int | None = Field(default=None, description="Episode seed (reproduces the episode).")
    step: int = Field(default=0, description="Steps taken in this episode (valid or not).")
    text: str = Field(default="", description="render_text plus the legal actions, for LLMs.")
    structured: dict[str, list[Any]] = Field(
        default_factory=dict,
        description="The core observation arrays as nested lists, plus 'action_mask'.")
    legal_actions: list[dict[str, Any]] = Field(
        default_factory=list, description="Legal tool calls right now {tool_name, arguments} "
                                          "(only with the 'legal' view, see reset).")
    valid: bool = Field(default=True, description="False if the action was rejected (no-op).")
    error: str = Field(default="", description="Why the action was rejected (empty if valid).")
    truncated: bool = Field(default=False, description="Episode ended by the step budget.")
    info: dict[str, Any] = Field(default_factory=dict, description="Step info from the core.")
    score: float | None = Field(default=None, description="Grader score in [0, 1] at the end.")
    components: dict[str, float] | None = Field(
        default=None, description="Named grader components at the end.")
    metrics: dict[str, float] | None = Field(
        default=None, description="Raw episode metrics at the end.")


class LifelineToolsObservation(OEObservation):
    """Answer to ``{"type": "list_tools"}`` (OpenEnv's ``ListToolsObservation`` shape)."""

    tools: list[dict[str, Any]] = Field(description="{name, description, input_schema} each.")


class LifelineState(OEState):
    """Session state as reported by the ``state`` message."""

    env: str = ""
    scenario: str | None = None
    seed: int | None = None
    done: bool = False
    invalid_actions: int = 0


_STEP_SHAPE = '{"tool_name": ..., "arguments": {...}} or {"index": i}'


def check_session_message(message: dict[str, Any]) -> str | None:
    """Why a WebSocket session message has the wrong *shape*, in words, or ``None``.

    OpenEnv answers shape errors with a bare "Invalid message" (its clients drop the details),
    so the server checks the common mistakes first and names them. What a valid-shaped call
    *means* (unknown tool, bad argument) is the tool parser's business, reported as an invalid
    step.
    """
    kind, data = message.get("type"), message.get("data")
    if kind == "step":
        if not isinstance(data, dict):
            return f"a step message needs 'data': {_STEP_SHAPE}"
        unexpected = sorted(repr(str(k))[:40] for k in data if k not in LifelineAction.model_fields)
        if unexpected:
            return (f"unexpected field(s) {', '.join(unexpected[:5])} in a step; "
                    f"a step is {_STEP_SHAPE}")
        index = data.get("index")
        if index is not None and (isinstance(index, bool) or not isinstance(index, int | float)
                                  or (isinstance(index, float) and not index.is_integer())):
            return f"'index' must be an integer action index, got {index!r}"[:200]
        if data.get("type", "call_tool") not in ("call_tool", "list_tools"):
            return "a step's 'type' is 'call_tool' (default) or 'list_tools'"
    elif kind == "reset" and data is not None and not isinstance(data, dict):
        return "a reset's 'data' must be an object such as {\"seed\": 0, \"scenario\": ...}"
    return None


@cache
def core_env(env_spec: EnvSpec, scenario: str) -> Environment:
    """The (stateless, hence shareable) core environment of one scenario."""
    return env_spec.load()(scenario)


def resolve_spec(env: str | EnvSpec) -> EnvSpec:
    """A registry name, a Gymnasium id or an explicit :class:`EnvSpec` as a spec."""
    return env if isinstance(env, EnvSpec) else registry_spec(env)


def camel_name(name: str) -> str:
    """``mass_casualty`` -> ``MassCasualty`` (class names of per-env models)."""
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_"))


@cache
def env_models(env: str | EnvSpec) -> tuple[type[LifelineAction], type[LifelineObservation]]:
    """Per-environment subclasses of the wire models whose JSON schemas (served at ``/schema``)
    name the environment's tools and describe its observation arrays."""
    env_spec = resolve_spec(env)
    core = core_env(env_spec, env_spec.default_scenario)
    tools = tool_specs(core)
    signatures = "; ".join(t.signature() for t in tools)
    action = create_model(
        f"{camel_name(env_spec.name)}Action", __base__=LifelineAction,
        __doc__=f"One move in '{env_spec.name}': a tool call, an action index, or list_tools.",
        tool_name=(Any, Field(
            default=None, description=f"The action (tool) to take, one of: {signatures}.",
            json_schema_extra={"type": ["string", "null"],
                               "enum": [*(t.name for t in tools), None]})))
    arrays = "; ".join(f"{k} {list(a.shape)} {a.dtype} in [{a.low:g}, {a.high:g}]: {a.doc}"
                       for k, a in core.observation_spec().items())
    observation = create_model(
        f"{camel_name(env_spec.name)}Observation", __base__=LifelineObservation,
        __doc__=f"What an agent sees in '{env_spec.name}' after reset or a step.",
        structured=(dict[str, list[Any]], Field(
            default_factory=dict,
            description=f"Observation arrays as nested lists — {arrays}; action_mask "
                        f"[{core.num_actions}] bool (shapes of scenario "
                        f"'{env_spec.default_scenario}').")))
    return action, observation
