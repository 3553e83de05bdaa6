"""Typed client for any environment served by ``lifeline serve`` (async, and sync via ``.sync()``).

It is a standard OpenEnv ``EnvClient`` (one WebSocket = one server-side session) whose results
are typed :class:`~lifeline.serve.openenv.LifelineObservation` objects, plus conveniences to
act with tool calls, semantic core actions or encoded indices::

    from lifeline.serve.client import LifelineClient

    with LifelineClient("http://127.0.0.1:8000", "ed").sync() as env:
        result = env.reset(seed=7, scenario="surge")
        while not result.done:
            result = env.call("wait")                   # a tool call by name + arguments
        print(result.observation.score, result.observation.components)

    async with LifelineClient("http://127.0.0.1:8000", "ed", token="s3cret") as env:
        result = await env.reset(seed=7)
        result = await env.act(env_core.noop_action())   # a semantic action (or an int index)
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from lifeline.core.env import Action
from lifeline.faces.tools import action_to_call
from lifeline.serve.wire import (
    LifelineAction,
    LifelineObservation,
    LifelineState,
    LifelineToolsObservation,
)

__all__ = ["LifelineAction", "LifelineClient", "LifelineObservation", "LifelineState",
           "StepResult"]


class LifelineClient(EnvClient[LifelineAction, LifelineObservation, LifelineState]):
    """Client of one served environment.

    Args:
        base_url: server URL (``http://host:port``); the environment's prefix is appended when
            ``env`` is given, so ``LifelineClient(url, "ed")`` talks to ``url/ed/ws``.
        env: environment name (path prefix) on a multi-environment server.
        token: bearer token if the server requires one.
        **kwargs: passed to ``EnvClient`` (timeouts, message size, extra ``headers``).
    """

    def __init__(self, base_url: str, env: str | None = None, *, token: str | None = None,
                 **kwargs: Any) -> None:
        url = base_url.rstrip("/") + (f"/{env}" if env else "")
        headers = dict(kwargs.pop("headers", None) or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        super().__init__(url, headers=headers or None, **kwargs)

    # ----- EnvClient hooks ------------------------------------------------------------------
    def _step_payload(self, action: LifelineAction | dict[str, Any]) -> dict[str, Any]:
        if isinstance(action, dict):
            return action
        payload: dict[str, Any] = action.model_dump(exclude_none=True)
        if not payload.get("metadata"):
            payload.pop("metadata", None)
        return payload

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[LifelineObservation]:
        fields = dict(payload.get("observation", {}))
        fields.update(reward=payload.get("reward"), done=payload.get("done", False))
        model = LifelineToolsObservation if "tools" in fields else LifelineObservation
        observation: Any = model.model_validate(fields)
        return StepResult(observation=observation, reward=payload.get("reward"),
                          done=bool(payload.get("done", False)),
                          metadata=payload.get("metadata"))

    def _parse_state(self, payload: dict[str, Any]) -> LifelineState:
        return LifelineState.model_validate(payload)

    # ----- conveniences (async; the ``.sync()`` wrapper exposes them synchronously) ----------
    async def call(self, tool_name: str, /, **arguments: Any) -> StepResult[LifelineObservation]:
        """One step as a tool call: ``await env.call("admit_general", slot=2)``."""
        return await self._step_async(LifelineAction(tool_name=tool_name, arguments=arguments))

    async def act(self, action: Action | int) -> StepResult[LifelineObservation]:
        """One step with a semantic core action or an encoded action index."""
        if isinstance(action, Action):
            name, arguments = action_to_call(action)
            return await self.call(name, **arguments)
        return await self._step_async(LifelineAction(index=int(action)))

    async def list_tools(self) -> list[dict[str, Any]]:
        """The environment's tools: ``{name, description, input_schema}`` each."""
        result = await self._step_async(LifelineAction(type="list_tools"))
        tools: list[dict[str, Any]] = result.observation.tools
        return tools
