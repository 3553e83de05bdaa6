"""The server's own table of live sessions: who created each one, when it last did something.

OpenEnv's ``HTTPEnvServer`` keeps its sessions in private fields (``_sessions``,
``_session_info``, ``_session_websocket_attachments``) and offers no public API to read them,
to record activity cheaply, or to tell which transport opened a session. Lifeline needs all
three (the fast lane, the idle reaper, the live view, ownership checks, metrics), so it keeps
this table of its own: an entry is added when the server creates a session and removed when
the session's environment is closed (whatever closes it), and nothing here writes into
OpenEnv's state.

An entry records:

* ``transport`` — ``"websocket"`` (created by a ``/ws`` or WebSocket ``/mcp`` connection: only
  that connection may drive it) or ``"http"`` (created by ``openenv/session/create``: driven by
  whoever holds its id, the unguessable capability returned at creation);
* ``last_activity`` — monotonic time of the last meaningful call (see :meth:`SessionTable.touch`);
* ``watch`` — a separate random handle the live view publishes: it lets a page *read* the
  session and nothing else (it is not a session id anywhere else).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Literal

Transport = Literal["websocket", "http"]

__all__ = ["SessionEntry", "SessionTable", "Transport"]


@dataclass
class SessionEntry:
    """One live session of one environment."""

    session_id: str
    env: Any = field(repr=False)
    """The session's environment (a :class:`~lifeline.serve.openenv.LifelineOpenEnv`)."""
    transport: Transport
    created: float = field(default_factory=time.monotonic)
    last_activity: float = field(default_factory=time.monotonic)
    steps: int = 0
    """Steps and tool calls answered in this session."""
    attached: bool = False
    """An HTTP session currently driven by a WebSocket (``/ws?session_id=``): not reaped."""
    watch: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    """The read-only handle the live view publishes for this session."""


class SessionTable:
    """The live sessions of one served environment, by id (and by watch handle)."""

    def __init__(self) -> None:
        self._entries: dict[str, SessionEntry] = {}
        self._by_watch: dict[str, str] = {}

    def add(self, session_id: str, env: Any, transport: Transport) -> SessionEntry:
        entry = SessionEntry(session_id, env, transport)
        self._entries[session_id] = entry
        self._by_watch[entry.watch] = session_id
        return entry

    def remove(self, session_id: str) -> None:
        entry = self._entries.pop(session_id, None)
        if entry is not None:
            self._by_watch.pop(entry.watch, None)

    def get(self, session_id: str) -> SessionEntry | None:
        return self._entries.get(session_id)

    def watched(self, handle: str) -> SessionEntry | None:
        """The session a live-view watch handle stands for (``None`` if unknown or ended)."""
        session_id = self._by_watch.get(handle)
        return self._entries.get(session_id) if session_id is not None else None

    def touch(self, session_id: str, step: bool = True) -> None:
        """Record a meaningful call of ``session_id`` (and count it as a step if ``step``)."""
        entry = self._entries.get(session_id)
        if entry is not None:
            entry.last_activity = time.monotonic()
            if step:
                entry.steps += 1

    def idle_http(self, timeout: float, now: float | None = None) -> list[str]:
        """HTTP sessions without a meaningful call for more than ``timeout`` seconds (a session
        a WebSocket has attached to is driven by that socket, whose own idle timer applies)."""
        now = time.monotonic() if now is None else now
        return [sid for sid, e in self._entries.items()
                if e.transport == "http" and not e.attached and now - e.last_activity > timeout]

    def entries(self) -> list[SessionEntry]:
        return list(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._entries
