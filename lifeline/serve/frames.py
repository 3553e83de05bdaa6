"""What the server's layers share, and nothing else: reply encoding, frame shapes, the types.

A leaf module (it imports no other part of :mod:`lifeline.serve`), so that the guard, the fast
lane, the OpenEnv face and the server each depend on it and on nothing above them:

    frames  <-  fastlane  <-  guard
       ^           ^            ^
    openenv  <-  server  ------'      (and server <- workers <- run)

* :func:`dumps`, :func:`wire_dict`, :func:`observation_frame` — how replies are written;
* :data:`WEBSOCKET` — set while a WebSocket connection is handled;
* :class:`LaneSession` and :class:`LaneServer` — the :class:`typing.Protocol` s the fast lane
  is typed against (a served session, and the server's table of them), so the lane needs
  neither the OpenEnv face nor the server.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, Protocol

try:
    import orjson
except ImportError:  # pragma: no cover - orjson ships with the server extra
    orjson = None  # type: ignore[assignment]

__all__ = ["WEBSOCKET", "LaneServer", "LaneSession", "SessionGate", "dumps", "observation_frame",
           "wire_dict"]

WEBSOCKET: ContextVar[bool] = ContextVar("lifeline_websocket", default=False)
"""True while the app handles a WebSocket connection (set by the guard): a session created
then belongs to that connection, and only it may drive it (see :mod:`lifeline.serve.sessions`)."""


def dumps(payload: Any) -> bytes:
    """Compact JSON as UTF-8 bytes (``orjson``; the standard library if it is missing or if the
    payload holds something orjson refuses, e.g. a non-string key)."""
    if orjson is not None:
        try:
            return orjson.dumps(payload)
        except TypeError:
            pass
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def wire_dict(obs: Any) -> dict[str, Any]:
    """``obs.model_dump()`` of an observation built by ``model_construct`` from plain values.

    Such a model keeps its fields, in declaration order, in ``__dict__``; copying that dict
    gives the same content as pydantic's dump without walking every nested list again.
    """
    return dict(obs.__dict__)


def observation_frame(body: dict[str, Any]) -> dict[str, Any]:
    """OpenEnv's ``serialize_observation`` of an observation's fields (consumed), wrapped as a
    WebSocket ``observation`` frame."""
    reward, done = body.pop("reward"), body.pop("done")
    data: dict[str, Any] = {"observation": body, "reward": reward, "done": done}
    if body.get("metadata"):
        data["metadata"] = body["metadata"]
    return {"type": "observation", "data": data}


class LaneSession(Protocol):
    """What the fast lane needs of a served session (:class:`lifeline.serve.openenv.LifelineOpenEnv`
    is one): its action model, one step answered as the observation's fields, and its tools as
    plain calls."""

    @property
    def action_model(self) -> Any:
        """The pydantic model of a step's ``data`` (``model_validate``)."""
        ...

    def step_fields(self, action: Any) -> dict[str, Any]:
        """One ``call_tool`` step, answered as the observation's fields."""
        ...

    def fast_tool(self, name: str) -> Callable[..., dict[str, Any]] | None:
        """The MCP tool ``name`` as a plain call, or ``None`` if there is none."""
        ...


class LaneServer(Protocol):
    """What the fast lane needs of a server (:class:`lifeline.serve.server.LifelineEnvServer`):
    the session an HTTP MCP call may drive, and where a handled call is recorded."""

    def http_session(self, session_id: str) -> LaneSession | None:
        """The live session ``session_id`` if an HTTP MCP call may drive it, else ``None``."""
        ...

    def touch(self, session_id: str, step: bool = True) -> None:
        """Record activity (and a step) of ``session_id``."""
        ...


class SessionGate(Protocol):
    """Who may drive which session (the server's rules, applied by the guard before the app
    sees a request; see :mod:`lifeline.serve.sessions`)."""

    def rpc_refusal(self, path: str, request: dict[str, Any], own: str | None,
                    websocket: bool) -> tuple[int, str] | None:
        """``(JSON-RPC code, reason)`` if ``request`` (to ``path``) names a session its sender
        may not use, else ``None``. ``own`` is the session of the sending WebSocket (if any).
        A request allowed to proceed that names a session counts as activity of it."""
        ...

    def attach(self, path: str, session_id: str) -> str | None:
        """A WebSocket asks to drive ``session_id`` (``/ws?session_id=``): the reason to refuse,
        or ``None`` (the session is then marked as driven by that socket until :meth:`detach`)."""
        ...

    def detach(self, path: str, session_id: str) -> None:
        """The WebSocket that attached to ``session_id`` has gone."""
        ...
