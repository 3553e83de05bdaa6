"""A Ray address that does not answer is one line and exit 2, not minutes of Ray's C++ logs."""

from __future__ import annotations

import socket

import pytest
from typer.testing import CliRunner

from lifeline.cli import app
from lifeline.eval.ray_backend import RayUnavailable, check_address

pytest.importorskip("ray")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port  # closed again: nothing listens there


def test_check_address_fails_fast_and_accepts_auto() -> None:
    port = _closed_port()
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(RayUnavailable, match=f"no Ray cluster answers at {address}"):
            check_address(address, timeout_s=1.0)
    with pytest.raises(RayUnavailable, match="expected HOST:PORT"):
        check_address("nonsense")
    check_address("auto")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_address(f"127.0.0.1:{server.getsockname()[1]}")  # something answers


def test_eval_with_a_dead_ray_address_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{_closed_port()}")
    result = CliRunner().invoke(app, ["eval", "ed", "--agents", "heuristic", "-s", "surge",
                                      "--episodes", "1", "--backend", "ray"])
    text = result.output.strip()
    assert result.exit_code == 2, text
    assert len(text.splitlines()) == 1 and "no Ray cluster answers at 127.0.0.1:" in text
