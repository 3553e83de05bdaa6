"""The wire models of the OpenEnv face: what goes over HTTP/WebSocket/MCP, published at ``/schema``.

* :class:`LifelineAction` — a tool call ``{"tool_name": ..., "arguments": {...}}`` (the shape of
  OpenEnv's MCP ``CallToolAction``), an encoded ``{"index": i}`` as the Gymnasium face uses, or
  ``{"type": "list_tools"}``.
* :class:`LifelineObservation` — ``reward`` (a float after every step, never null), ``done``, the
  text view, the structured view, ``valid``/``error`` and, at the end, ``score`` + components.
* :class:`LifelineState` — episode id, step count, env, scenario, seed.

:func:`env_models` derives per-environment subclasses whose schemas name the environment's tools
and describe its arrays. Shared by the server (:mod:`lifeline.serve.openenv`) and the client.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Literal

from openenv.core.env_server.types import Action as OEAction
from openenv.core.env_server.types import Observation as OEObservation
from openenv.core.env_server.types import State as OEState
from pydantic import Field, create_model

from lifeline.core.env import Environment
from lifeline.core.registry import EnvSpec
from lifeline.core.registry import spec as registry_spec
from lifeline.faces.tools import tool_specs

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
    components: dict[str, float | None] | None = Field(
        default=None, description="Named grader components at the end (null: not a finite "
                                  "number).")
    metrics: dict[str, float | None] | None = Field(
        default=None, description="Raw episode metrics at the end; a metric that is not a "
                                  "finite number (NaN, e.g. a forecast error with nothing to "
                                  "forecast) is null.")


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
MESSAGE_TYPES = ("reset", "step", "state", "close", "mcp")
"""The WebSocket session messages (OpenEnv's protocol)."""
_MESSAGE_SHAPES = {
    "reset": '{"type": "reset", "data": {"seed": 0, "scenario": ..., "views": [...]}}',
    "step": '{"type": "step", "data": ' + _STEP_SHAPE + "}",
    "state": '{"type": "state"}',
    "close": '{"type": "close"}',
    "mcp": '{"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}',
}
MAX_INDEX = 2**63
"""Action indices are 64-bit integers: ``|index| < 2**63`` (larger numbers, floats among them,
are refused with a reason instead of overflowing further down)."""
RPC_METHODS = ("tools/list", "tools/call", "openenv/session/create", "openenv/session/close")
"""The JSON-RPC methods of the ``/mcp`` endpoints (OpenEnv's MCP handler)."""


def _keys(keys: Any) -> str:
    return ", ".join(sorted(repr(str(k))[:40] for k in keys)[:5])


def check_session_message(message: dict[str, Any]) -> str | tuple[str, str] | None:
    """Why a WebSocket session message has the wrong *shape*, in words, or ``None``.

    A plain string is a ``VALIDATION_ERROR``; a ``(code, reason)`` pair names another code.
    OpenEnv answers shape errors with a bare "Invalid message" (its clients drop the details),
    so the server checks every shape first and names what is wrong and what is accepted. What a
    valid-shaped call *means* (unknown tool, bad argument) is the tool parser's business,
    reported as an invalid step; reset options are checked by the session (``EXECUTION_ERROR``).
    """
    kind, data = message.get("type"), message.get("data")
    if not isinstance(kind, str) or kind not in MESSAGE_TYPES:
        shown = repr(kind)[:40] if "type" in message else "missing"
        return ("UNKNOWN_TYPE", f"Unknown message type ({shown}); 'type' is one of "
                                f"{', '.join(MESSAGE_TYPES)}, e.g. {_MESSAGE_SHAPES['step']}")
    allowed = ("type",) if kind in ("state", "close") else ("type", "data")
    extra = [k for k in message if k not in allowed]
    if extra:
        return (f"unexpected field(s) {_keys(extra)} in a {kind} message; "
                f"a {kind} message is {_MESSAGE_SHAPES[kind]}")
    if kind == "step":
        if not isinstance(data, dict):
            return f"a step message needs 'data': {_STEP_SHAPE}"
        unexpected = [k for k in data if k not in LifelineAction.model_fields]
        if unexpected:
            return (f"unexpected field(s) {_keys(unexpected)} in a step; "
                    f"a step is {_STEP_SHAPE}")
        index = data.get("index")
        if index is not None and (isinstance(index, bool) or not isinstance(index, int | float)
                                  or (isinstance(index, float) and not index.is_integer())):
            return f"'index' must be an integer action index, got {index!r}"[:200]
        if index is not None and not -MAX_INDEX <= index < MAX_INDEX:
            return (f"'index' must be an integer action index (a 64-bit integer; the "
                    f"environment's indices start at 0), got {index!r}")[:200]
        if data.get("type", "call_tool") not in ("call_tool", "list_tools"):
            return "a step's 'type' is 'call_tool' (default) or 'list_tools'"
        if not isinstance(data.get("metadata", {}), dict):
            return "a step's 'metadata' must be a JSON object (or omitted)"
    elif kind == "reset" and "data" in message and not isinstance(data, dict):
        return "a reset's 'data' must be an object such as {\"seed\": 0, \"scenario\": ...}"
    elif kind == "mcp" and not isinstance(data, dict):
        return f"an mcp message's 'data' is a JSON-RPC request: {_MESSAGE_SHAPES['mcp']}"
    return None


def check_rpc_request(request: dict[str, Any]) -> tuple[tuple[int, str] | None, bool]:
    """``((JSON-RPC error code, reason) or None, changed)`` for one ``/mcp`` request.

    Normalises in place what is unambiguous — ``tools/call`` ``arguments`` given as ``null``
    or as a JSON-encoded object string (as LLM APIs send them) — and names everything else
    that OpenEnv's handler would answer with a Python-internal message or an HTTP 500 (a
    ``session_id`` that is not a string, ``arguments`` that are not an object).
    """
    example = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {...}}'
    extra = [k for k in request if k not in ("jsonrpc", "id", "method", "params")]
    if extra:
        return (-32600, f"unexpected field(s) {_keys(extra)} in a JSON-RPC request; "
                        f"a request is {example}"), False
    if request.get("jsonrpc") != "2.0":
        return (-32600, f"a JSON-RPC request needs \"jsonrpc\": \"2.0\"; a request is "
                        f"{example}"), False
    rid = request.get("id")
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, str | int)):
        return (-32600, "a JSON-RPC 'id' must be a string, an integer or null"), False
    method = request.get("method")
    if method == "tools/call" and rid is None:
        return (-32600, "tools/call needs an 'id' (a string or an integer): a request without "
                        "one is a JSON-RPC notification, which gets no answer, so this server "
                        "does not play a step from it"), False
    if not isinstance(method, str):
        return (-32600, f"a JSON-RPC request needs 'method' (a string), one of "
                        f"{', '.join(RPC_METHODS)}; a request is {example}"), False
    if method not in RPC_METHODS:
        return (-32601, f"method not found: {repr(method)[:60]}; available methods: "
                        f"{', '.join(RPC_METHODS)}"), False
    params = request.get("params", {})
    if not isinstance(params, dict):
        return (-32602, "'params' must be a JSON object such as {\"name\": \"wait\", "
                        "\"arguments\": {}}"), False
    session_id = params.get("session_id")
    if session_id is not None and (not isinstance(session_id, str) or not session_id):
        return (-32602, "'session_id' must be the string returned by openenv/session/create, "
                        f"got {type(session_id).__name__}"), False
    changed = False
    if method == "tools/call":
        if not isinstance(params.get("name"), str) or not params["name"]:
            return (-32602, "tools/call needs 'name': the tool's name as a string (see "
                            "tools/list)"), False
        arguments = params.get("arguments")
        if arguments is None:
            params["arguments"], changed = {}, True
        elif isinstance(arguments, str):
            try:
                decoded = json.loads(arguments) if arguments.strip() else {}
            except (ValueError, RecursionError):
                return (-32602, "'arguments' is a string but not valid JSON; send a JSON "
                                "object such as {\"slot\": 0} (or one encoded as a string)"), False
            try:
                json.dumps(decoded, ensure_ascii=False).encode("utf-8")
            except (UnicodeEncodeError, RecursionError):
                return (-32602, "'arguments' hold a lone UTF-16 surrogate escape, which is not "
                                "Unicode text; send valid UTF-8 strings"), False
            if not isinstance(decoded, dict):
                return (-32602, "'arguments' must be a JSON object (or a JSON-encoded object "
                                f"string), got a string holding {type(decoded).__name__}"), False
            params["arguments"], changed = decoded, True
        elif not isinstance(arguments, dict):
            return (-32602, "'arguments' must be a JSON object (or a JSON-encoded object "
                            f"string), got {type(arguments).__name__}"), False
    return None, changed


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
