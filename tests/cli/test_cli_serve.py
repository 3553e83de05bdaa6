"""``lifeline serve`` as registered on a Typer app (the lead's CLI calls ``register``)."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from lifeline.cli.serve import register


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
                   "--workers"):
        assert option in result.output
    assert "LIFELINE_TOKEN" in result.output


def test_serve_rejects_unknown_envs_and_bad_limits_cleanly() -> None:
    runner = CliRunner()
    bad_env = runner.invoke(_app(), ["serve", "no_such_env"])
    assert bad_env.exit_code == 2 and "unknown environment 'no_such_env'" in bad_env.output
    bad_limit = runner.invoke(_app(), ["serve", "--max-sessions", "0"])
    assert bad_limit.exit_code == 2 and "max_sessions must be at least 1" in bad_limit.output
