"""The OpenEnv face: any registered environment as an ``openenv`` (0.10) ``Environment``.

One generic class, :class:`LifelineOpenEnv`, wraps a core environment; :func:`openenv_env_class`
makes a subclass bound to one registry entry (what ``create_app`` / ``HTTPEnvServer`` needs as a
factory: one instance per WebSocket session). Nothing here is specific to an environment.

The wire models (action, observation, state) live in :mod:`lifeline.serve.wire`.

Episodes are multi-step, so they run over the WebSocket ``/ws`` (or an MCP session): OpenEnv's
HTTP ``/reset`` and ``/step`` build a fresh environment per request; ``/step`` therefore answers
with a clear :class:`NoEpisodeError` instead of pretending to be stateful.
"""

from __future__ import annotations

import inspect
import math
import uuid
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from openenv.core.env_server.interfaces import Environment as OEEnvironment
from openenv.core.env_server.types import EnvironmentMetadata

from lifeline.core.env import Action, CoreState, Environment, TimeStep
from lifeline.core.registry import EnvSpec, resolve_scenario
from lifeline.eval.seeds import drawn_seed
from lifeline.faces.tools import (
    LegalView,
    ToolCallError,
    parse_tool_call,
    text_observation,
    tool_specs,
)
from lifeline.serve.frames import wire_dict
from lifeline.serve.wire import (
    DEFAULT_VIEWS,
    VIEWS,
    LifelineAction,
    LifelineObservation,
    LifelineState,
    LifelineToolsObservation,
    camel_name,
    core_env,
    env_models,
    resolve_spec,
)

__all__ = [
    "DEFAULT_VIEWS", "VIEWS", "LifelineAction", "LifelineObservation", "LifelineOpenEnv",
    "LifelineState", "LifelineToolsObservation", "NoEpisodeError", "core_env", "env_models",
    "openenv_env_class", "resolve_spec",
]


class NoEpisodeError(RuntimeError):
    """A step was requested but no episode is running in this session."""


RESET_OPTIONS = ("seed", "episode_id", "scenario", "views")
"""What a ``reset`` accepts (the WebSocket message's ``data``, HTTP ``/reset``, MCP
``start_episode``)."""
MAX_SEED = 2**64
"""Seeds are non-negative integers below this (what a SeedSequence entropy word holds)."""
MAX_EPISODE_ID = 255
"""Longest accepted ``episode_id`` (OpenEnv's ``ResetRequest`` limit)."""
START_TOOL = "start_episode"
"""The MCP tool that starts (or restarts) this session's episode. Not named ``reset``: OpenEnv
reserves ``reset``/``step``/``state``/``close`` as tool names (``RESERVED_TOOL_NAMES``)."""


def check_reset_options(options: dict[str, Any], env_name: str = "") -> str | None:
    """Why ``options`` are not a valid reset, in words that say what is accepted, or ``None``."""
    unknown = sorted(repr(str(k))[:40] for k in options if k not in RESET_OPTIONS)
    if unknown:
        return (f"unknown reset option(s): {', '.join(unknown[:5])}; "
                f"accepted: {', '.join(RESET_OPTIONS)}")
    seed = options.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                             or not 0 <= seed < MAX_SEED):
        return f"seed must be a non-negative integer below 2**64 (or omitted), got {_short(seed)}"
    episode_id = options.get("episode_id")
    if episode_id is not None and (not isinstance(episode_id, str)
                                   or not 0 < len(episode_id) <= MAX_EPISODE_ID):
        return (f"episode_id must be a non-empty string of at most {MAX_EPISODE_ID} "
                f"characters (or omitted), got {_short(episode_id)}")
    scenario = options.get("scenario")
    if scenario is not None and not isinstance(scenario, str):
        return f"scenario must be a string naming a scenario (or omitted), got {_short(scenario)}"
    views = options.get("views")
    if views is not None:
        if isinstance(views, str):
            views = [views]
        if not isinstance(views, (list, tuple)):
            return f"views must be a list such as ['text'], got {_short(views)}"
        if not all(isinstance(v, str) for v in views):
            return f"views must be a list of strings among {list(VIEWS)}, got {_short(views)}"
        unknown_views = sorted(set(views) - set(VIEWS))
        if unknown_views:
            return f"unknown view(s) {unknown_views}; choose from {list(VIEWS)}"
    return None


def _short(value: Any) -> str:
    """``repr`` of a client-sent value, cut short (error messages quote what was sent)."""
    text = f"{type(value).__name__} {value!r}"
    return text if len(text) <= 80 else text[:77] + "..."



def _jsonable(value: Any) -> Any:
    """``value`` as plain JSON values (for ``info`` dicts): numpy scalars/arrays turned into
    Python, non-finite floats (NaN, ±inf: JSON has no such numbers) into ``None``."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist()) if value.dtype.kind == "f" else value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _finite(values: dict[str, Any]) -> dict[str, float | None]:
    """Grader components/metrics as floats, a non-finite one (e.g. an error measure with
    nothing to measure: NaN) as ``None`` (sent as JSON ``null``, as the schema says)."""
    out: dict[str, float | None] = {}
    for key, value in values.items():
        out[key] = value if math.isfinite(value) else None  # finite values sent as they are
    return out



class _McpTool:
    """One action as a tool in the duck-typed shape OpenEnv's MCP handler reads from a server."""

    def __init__(self, name: str, description: str, parameters: dict[str, Any],
                 fn: Callable[..., dict[str, Any]]) -> None:
        self.name, self.description, self.parameters, self.fn = name, description, parameters, fn


class _McpTools:
    """What OpenEnv's ``/mcp`` handler expects as ``env.mcp_server``: ``await list_tools()``.

    Each tool's ``fn(**arguments)`` plays one step of *this session's* episode and returns the
    observation (reward included), so MCP ``tools/call`` is exactly a tool-call step.
    """

    def __init__(self, session: LifelineOpenEnv) -> None:
        self._session = session

    async def list_tools(self) -> list[_McpTool]:
        session = self._session

        def make(name: str) -> Callable[..., dict[str, Any]]:
            def call(**arguments: Any) -> dict[str, Any]:
                obs = session.step(LifelineAction(tool_name=name, arguments=arguments))
                return obs.model_dump()
            return call

        def start(**options: Any) -> dict[str, Any]:
            return session.reset(**options).model_dump()

        tools = [_McpTool(s.name, s.description, s.parameters, make(s.name))
                 for s in tool_specs(session.env_spec.load())]
        return [*tools, _McpTool(START_TOOL, _START_DESCRIPTION, _START_SCHEMA, start)]

    def fast_tool(self, name: str) -> Callable[..., dict[str, Any]] | None:
        """The tool ``name`` as a plain call (what ``list_tools()`` would give as its ``fn``),
        or ``None`` if there is no such tool. Used by the fast lanes
        (:mod:`lifeline.serve.fastlane`): no tool list is built per call."""
        session = self._session
        if name == START_TOOL:
            return lambda **options: wire_dict(session.reset(**options))
        if name not in _tool_names(session.env_spec):
            return None

        def call(**arguments: Any) -> dict[str, Any]:
            return session.step_fields(LifelineAction(tool_name=name, arguments=arguments))
        return call


@cache
def _mcp_tools(env_spec: EnvSpec) -> tuple[dict[str, Any], ...]:
    """``env_spec``'s tools and ``start_episode`` in MCP's shape (``inputSchema``)."""
    tools = [{"name": s.name, "description": s.description, "inputSchema": s.parameters}
             for s in tool_specs(env_spec.load())]
    start = {"name": START_TOOL, "description": _START_DESCRIPTION, "inputSchema": _START_SCHEMA}
    return (*tools, start)


@cache
def _tool_names(env_spec: EnvSpec) -> frozenset[str]:
    """The names of ``env_spec``'s tools (the MCP tools besides ``start_episode``)."""
    return frozenset(s.name for s in tool_specs(env_spec.load()))


_START_DESCRIPTION = (
    "Start a new episode in this session (ends the running one, if any) and return its first "
    "observation. Every other tool is one step of the running episode.")
_START_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": [],
    "properties": {
        "seed": {"type": "integer", "minimum": 0,
                 "description": "Episode seed (drawn and reported back if omitted)."},
        "scenario": {"type": "string", "description": "Scenario name (default if omitted)."},
        "episode_id": {"type": "string", "description": "Your label for the episode."},
        "views": {"type": "array", "items": {"type": "string", "enum": list(VIEWS)},
                  "description": "Observation parts (default: text + structured)."}}}


class LifelineOpenEnv(OEEnvironment[LifelineAction, LifelineObservation, LifelineState]):
    """One session of one registered environment (subclassed per env by :func:`openenv_env_class`).

    All episode data lives in the core ``State`` held by this instance, and the core environment
    objects are stateless, so sessions are isolated: ``SUPPORTS_CONCURRENT_SESSIONS = True``.
    ``reset_async``/``step_async`` run the (fast, CPU-bound) simulation inline instead of hopping
    to a thread per call, which is where most of the server's per-step overhead would go.
    """

    SUPPORTS_CONCURRENT_SESSIONS: ClassVar[bool] = True
    env_spec: ClassVar[EnvSpec]
    action_model: ClassVar[type[LifelineAction]] = LifelineAction
    observation_model: ClassVar[type[LifelineObservation]] = LifelineObservation

    def __init__(self) -> None:
        super().__init__()
        self._core: Environment | None = None
        self._state: CoreState | None = None
        self._seed: int | None = None
        self._episode_id: str | None = None
        self._views: frozenset[str] = frozenset(DEFAULT_VIEWS)
        self._closed = False
        self.on_close: Callable[[], None] | None = None
        """Called once when the session is closed (the server frees a cross-process slot)."""
        self.mcp_server = _McpTools(self)

    # ----- OpenEnv API ------------------------------------------------------------------------
    def reset(self, /, **options: Any) -> LifelineObservation:
        """Start an episode; ``options`` are :data:`RESET_OPTIONS`, checked first.

        ``seed`` None draws one (reported back); ``scenario`` None = default; ``views`` chooses
        the observation's parts among ``text``, ``structured``, ``legal`` (default
        :data:`DEFAULT_VIEWS`). Unknown or mistyped options are rejected with a message saying
        what is accepted, and the running episode is left untouched.
        """
        problem = check_reset_options(options, self.env_spec.name)
        if problem is not None:
            raise ValueError(problem)
        if self._closed:
            raise NoEpisodeError(f"this {self.env_spec.name} session has been closed by the "
                                 f"server; open a new session")
        seed: int | None = options.get("seed")
        episode_id: str | None = options.get("episode_id")
        views = options.get("views")
        if isinstance(views, str):
            views = [views]
        chosen = frozenset(DEFAULT_VIEWS if views is None else views)
        core = core_env(self.env_spec, resolve_scenario(self.env_spec, options.get("scenario")))
        if seed is None:
            seed = drawn_seed()
        state = core.reset(seed)  # raises ValueError for a bad seed; session state untouched
        self._core, self._state, self._seed, self._views = core, state, seed, chosen
        self._episode_id = episode_id or uuid.uuid4().hex
        return self._observation(reward=0.0)

    def step(self, action: LifelineAction, timeout_s: float | None = None,
             **kwargs: Any) -> LifelineObservation | LifelineToolsObservation:
        """Apply one action. Bad tool calls are invalid no-ops (penalised), never exceptions."""
        if action.type == "list_tools":
            return LifelineToolsObservation(
                tools=[s.to_dict() for s in tool_specs(self.env_spec.load())], reward=0.0,
                done=bool(self._state is not None and self._state.done))
        if self._core is None or self._state is None:
            raise NoEpisodeError(
                f"no episode is running in this {self.env_spec.name} session: send a reset "
                f"first (WebSocket message {{'type': 'reset', 'data': {{'seed': 0}}}}); "
                f"HTTP /step is stateless in OpenEnv, use the WebSocket /ws for episodes")
        return self.observation_model.model_construct(**self.step_fields(action))

    def step_fields(self, action: LifelineAction) -> dict[str, Any]:
        """One ``call_tool`` step (as :meth:`step`), answered as the observation's fields: the
        dict ``step(action).model_dump()`` would give, without building the model (the fast
        lanes send it as is). The server's metrics time and count this method."""
        if self._core is None or self._state is None:
            raise NoEpisodeError(
                f"no episode is running in this {self.env_spec.name} session: send a reset "
                f"first (WebSocket message {{'type': 'reset', 'data': {{'seed': 0}}}}); "
                f"HTTP /step is stateless in OpenEnv, use the WebSocket /ws for episodes")
        was_done = self._state.done
        semantic = self._semantic(action)
        ts = self._core.step(self._state, semantic)
        if isinstance(semantic, _Rejected) and not was_done:
            ts.message = semantic.reason  # the parser's precise reason, not the core's generic one
        return self._fields(reward=ts.reward, ts=ts)

    async def reset_async(self, /, **options: Any) -> LifelineObservation:
        return self.reset(**options)

    async def step_async(self, action: LifelineAction, timeout_s: float | None = None,
                         **kwargs: Any) -> LifelineObservation | LifelineToolsObservation:
        return self.step(action, timeout_s=timeout_s, **kwargs)

    @property
    def state(self) -> LifelineState:
        st = self._state
        return LifelineState(
            episode_id=self._episode_id, step_count=st.steps if st else 0,
            env=self.env_spec.name, scenario=self._core.scenario if self._core else None,
            seed=self._seed, done=bool(st and st.done),
            invalid_actions=st.invalid_actions if st else 0)

    def get_metadata(self) -> EnvironmentMetadata:
        cls = self.env_spec.load()
        readme = Path(inspect.getfile(cls)).with_name("README.md")
        text = readme.read_text(encoding="utf-8") if readme.is_file() else None
        return EnvironmentMetadata(
            name=self.env_spec.name, description=self.env_spec.description or self.env_spec.name,
            version=str(getattr(cls, "version", "0")), readme_content=text,
            author="Lifeline")

    def close(self) -> None:
        """Drop the episode and refuse new ones (called once the session ends or is reaped).

        The server calls this exactly when it forgets the session, so a closed instance that is
        still reachable (a socket whose session was reaped) cannot start an uncounted episode.
        """
        self._state = None
        self._core = None
        self._closed = True
        callback, self.on_close = self.on_close, None
        if callback is not None:
            callback()

    def fast_tool(self, name: str) -> Callable[..., dict[str, Any]] | None:
        """The MCP tool ``name`` as a plain call (see :meth:`_McpTools.fast_tool`); what the
        fast lane (:class:`lifeline.serve.frames.LaneSession`) calls."""
        return self.mcp_server.fast_tool(name)

    def mcp_tools(self) -> list[dict[str, Any]]:
        """Every tool (each action, then ``start_episode``) as MCP lists it: ``name``,
        ``description``, ``inputSchema`` (:mod:`lifeline.serve.mcp`)."""
        return [dict(t) for t in _mcp_tools(self.env_spec)]

    # ----- helpers --------------------------------------------------------------------------
    def _semantic(self, action: LifelineAction) -> Action | int | _Rejected:
        """The core action for a wire action, or a :class:`_Rejected` carrying the reason."""
        assert self._core is not None
        if action.index is not None:
            if action.tool_name is not None:
                return _Rejected("give either 'tool_name' (+ 'arguments') or 'index', not both")
            return action.index
        if action.tool_name is None:
            return _Rejected("a step needs 'tool_name' (+ 'arguments') or 'index'")
        try:
            return parse_tool_call(self._core, action.tool_name, action.arguments)
        except ToolCallError as exc:
            return _Rejected(str(exc))

    def _observation(self, reward: float, ts: TimeStep | None = None) -> LifelineObservation:
        return self.observation_model.model_construct(**self._fields(reward, ts))

    def _fields(self, reward: float, ts: TimeStep | None = None) -> dict[str, Any]:
        """Every field of the observation, in the model's field order (= ``model_dump()``)."""
        core, state = self._core, self._state
        assert core is not None and state is not None
        # Every field is given explicitly: pydantic's model_construct inspects the signature of
        # each default_factory it has to call, which would cost more than the whole step.
        fields: dict[str, Any] = {
            "done": bool(state.done), "reward": float(reward), "metadata": {},
            "env": self.env_spec.name, "scenario": core.scenario, "seed": self._seed,
            "step": state.steps, "text": "", "structured": {}, "legal_actions": [], "valid": True,
            "error": "", "truncated": False, "info": {}, "score": None, "components": None,
            "metrics": None}
        if ts is not None:
            fields.update(valid=ts.valid, truncated=ts.truncated,
                          error=ts.message if not ts.valid else "",
                          info=_jsonable(ts.info) if ts.info else {})
        views = self._views
        mask = core.action_mask(state)
        if "structured" in views:
            structured = {k: v.tolist() for k, v in core.observe(state).items()}
            structured["action_mask"] = mask.tolist()
            fields["structured"] = structured
        if "legal" in views or "text" in views:
            legal = LegalView(core, state, mask)
            if "legal" in views:
                fields["legal_actions"] = legal.calls()
            if "text" in views:
                fields["text"] = text_observation(core, state, legal=legal)
        if state.done:
            grade = core.grade(state)
            score = float(grade.score)
            fields.update(score=score if math.isfinite(score) else None,  # NaN score: null
                          components=_finite(grade.components), metrics=_finite(grade.metrics))
        # Built from trusted values: the model is made without re-validating every nested list.
        return fields


class _Rejected:
    """Stand-in for an unparseable call: the core treats it as an invalid action (a penalised
    no-op that still counts as a step); the reason replaces the core's generic message."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"rejected call ({self.reason})"



@cache
def openenv_env_class(env: str | EnvSpec) -> type[LifelineOpenEnv]:
    """The :class:`LifelineOpenEnv` subclass bound to ``env`` (a name, gym id or spec).

    The class itself is the session factory ``HTTPEnvServer``/``create_app`` wants; its
    ``action_model``/``observation_model`` are the env's wire models (:func:`env_models`).
    """
    env_spec = resolve_spec(env)
    action, observation = env_models(env_spec)
    return type(f"{camel_name(env_spec.name)}OpenEnv", (LifelineOpenEnv,), {
        "env_spec": env_spec, "action_model": action, "observation_model": observation,
        "__module__": __name__,
        "__doc__": f"OpenEnv session of the Lifeline '{env_spec.name}' environment."})
