"""Shared helpers for the server tests: a raw WebSocket peer and seeded action sequences."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from websockets.sync.client import ClientConnection, connect

from lifeline.core.env import Environment
from lifeline.core.registry import EnvSpec, all_specs
from lifeline.testing.counter import COUNTER_SPEC

SERVED: list[EnvSpec] = [COUNTER_SPEC, *all_specs()]
"""Every environment the tests serve: the reference counter plus the whole registry."""


class RawWS:
    """A bare WebSocket peer speaking OpenEnv's protocol (no client-side validation at all)."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        ws_url = url.replace("http://", "ws://", 1)
        self.conn: ClientConnection = connect(ws_url, additional_headers=headers,
                                              max_size=32 << 20, open_timeout=10, legacy=True)

    def send(self, message: Any) -> None:
        self.conn.send(message if isinstance(message, str) else json.dumps(message))

    def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        raw = self.conn.recv(timeout=timeout)
        data: dict[str, Any] = json.loads(raw)
        return data

    def request(self, message: Any) -> dict[str, Any]:
        self.send(message)
        return self.recv()

    def reset(self, **data: Any) -> dict[str, Any]:
        return self.request({"type": "reset", "data": data})

    def step(self, **action: Any) -> dict[str, Any]:
        return self.request({"type": "step", "data": action})

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> RawWS:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def masked_random_indices(core: Environment, seed: int, max_steps: int,
                          invalid_every: int = 0) -> list[int]:
    """A masked-random action sequence (optionally with an invalid action every k steps)."""
    rng = np.random.default_rng(seed + 1000)
    state = core.reset(seed)
    actions: list[int] = []
    while not state.done and len(actions) < max_steps:
        mask = core.action_mask(state)
        illegal = np.flatnonzero(~mask)
        if invalid_every and len(actions) % invalid_every == invalid_every - 1 and illegal.size:
            index = int(rng.choice(illegal))
        else:
            index = int(rng.choice(np.flatnonzero(mask)))
        actions.append(index)
        core.step(state, index)
    return actions
