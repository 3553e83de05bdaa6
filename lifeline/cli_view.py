"""``lifeline view REPLAY...``: watch recorded episodes in the browser (several side by side).

Kept apart from ``lifeline.cli`` (which only calls :func:`register`) so the CLI does not import
FastAPI/uvicorn unless viewing. The page and its scripts ship in ``lifeline/web/static``; nothing
is fetched from the network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add the ``view`` command to ``app``."""

    @app.command("view")
    def view_command(
        replays: Annotated[list[Path], typer.Argument(
            help="Replay files (from --record); several are shown side by side on one "
                 "timeline, e.g. two agents on the same seed.")],
        host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port (0 = any free port).")] = 8765,
        browser: Annotated[bool, typer.Option(help="Open a browser tab.")] = True,
        verify: Annotated[bool, typer.Option(
            help="Re-simulate every replay first and report whether it matches.")] = False,
    ) -> None:
        """Serve a replay viewer (timeline, play/pause, charts, event log) and open it."""
        import threading
        import webbrowser

        from lifeline.adapters.server import free_port
        from lifeline.web import replay_app

        try:
            missing = [str(p) for p in replays if not p.is_file()]
            if missing:
                raise FileNotFoundError(f"no such replay file: {', '.join(missing)}")
            if verify:
                from lifeline.replay import verify as verify_replay

                for p in replays:
                    ok, why = verify_replay(p)
                    typer.echo(f"{p}: {'re-simulates byte for byte' if ok else 'MISMATCH ' + why}")
            app_ = replay_app(list(replays))
        except (ValueError, KeyError, FileNotFoundError) as exc:
            typer.secho(f"error: {exc}", fg=typer.colors.RED, err=True)
            raise typer.Exit(2) from None
        import uvicorn

        port = port or free_port(host)
        url = f"http://{host}:{port}/"
        typer.echo(f"Lifeline replay viewer on {url}  (Ctrl-C to stop)")
        if browser:
            threading.Timer(1.0, lambda: webbrowser.open(url)).start()
        uvicorn.run(app_, host=host, port=port, log_level="warning")
