"""``lifeline serve`` as registered on a Typer app (the lead's CLI calls ``register``)."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from lifeline.cli.serve import register
from lifeline.serve.run import TransportLimits


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test CLI."""

    register(app)
    return app


def test_serve_help_lists_the_limits() -> None:
    result = CliRunner().invoke(_app(), ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for option in ("--max-sessions", "--token", "--idle-timeout", "--max-message-mb", "--port",
                   "--workers", "--header-timeout", "--keep-alive", "--send-timeout",
                   "--write-buffer-kb", "--shutdown-timeout", "--max-connections"):
        assert option in result.output
    assert "LIFELINE_TOKEN" in result.output


def test_serve_rejects_unknown_envs_and_bad_limits_cleanly() -> None:
    runner = CliRunner()
    bad_env = runner.invoke(_app(), ["serve", "no_such_env"])
    assert bad_env.exit_code == 2 and "unknown environment 'no_such_env'" in bad_env.output
    bad_limit = runner.invoke(_app(), ["serve", "--max-sessions", "0"])
    assert bad_limit.exit_code == 2 and "max_sessions must be at least 1" in bad_limit.output


def test_serve_passes_the_transport_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr("lifeline.serve.run.serve", lambda *a, **k: seen.update(k))
    runner = CliRunner()
    result = runner.invoke(_app(), ["serve", "--header-timeout", "2.5", "--keep-alive", "3",
                                    "--send-timeout", "1", "--write-buffer-kb", "256",
                                    "--shutdown-timeout", "7", "--max-connections", "500"])
    assert result.exit_code == 0, result.output
    assert seen["limits"] == TransportLimits(header_timeout=2.5, keep_alive=3, send_timeout=1.0,
                                             write_buffer=256 << 10, shutdown_timeout=7.0,
                                             max_connections=500)
    default = runner.invoke(_app(), ["serve"])
    assert default.exit_code == 0 and seen["limits"] == TransportLimits()
    bad = runner.invoke(_app(), ["serve", "--send-timeout", "0"])
    assert bad.exit_code == 2 and "send_timeout must be a positive number" in bad.output
