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
    """Add the ``view`` and ``replays`` commands to ``app``."""

    @app.command("replays")
    def replays_command(
        out: Annotated[Path, typer.Option(help="Directory for the replay files.")] = Path(
            "reports/replays"),
        env: Annotated[list[str] | None, typer.Option(help="Only these envs.")] = None,
        seed: Annotated[int | None, typer.Option(
            help="Episode seed (default: the first held-out evaluation seed).")] = None,
    ) -> None:
        """Record one replay per environment: its reference baseline on its first scenario."""
        from lifeline.core.registry import all_specs
        from lifeline.eval.episode import Task
        from lifeline.eval.replay import record_episode
        from lifeline.eval.seeds import EVAL_SEED_BASE

        specs = [s for s in all_specs() if not env or s.name in env]
        if not specs:
            typer.secho(f"error: no registered environment among {env}", fg=typer.colors.RED,
                        err=True)
            raise typer.Exit(2)
        written = []
        for s in specs:
            agent = s.reference or (s.agents[-2] if len(s.agents) > 1 else "random")
            task = Task(s.name, s.default_scenario, agent, EVAL_SEED_BASE if seed is None else seed)
            rec = record_episode(task, out, directory=True)
            written.append(rec["replay"])
            typer.echo(f"{s.name}/{task.scenario} {agent} seed {task.seed}: score "
                       f"{rec['score']:.3f} -> {rec['replay']}")
        typer.echo("watch them: " + " ; ".join(f"lifeline view {w}" for w in written))

    @app.command("view")
    def view_command(
        replays: Annotated[list[Path], typer.Argument(
            help="Replay files (from --record; the name without .jsonl.gz, or a directory of "
                 "a few, also work); several are shown side by side on one timeline, e.g. two "
                 "agents on the same seed.")],
        host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port (0 = any free port).")] = 8765,
        browser: Annotated[bool, typer.Option(help="Open a browser tab.")] = True,
        verify: Annotated[bool, typer.Option(
            help="Re-simulate every replay first and report whether it matches.")] = False,
    ) -> None:
        """Serve a replay viewer (timeline, play/pause, charts, event log) and open it."""
        import threading
        import webbrowser

        from lifeline.core.extras import MissingExtra, require

        try:
            require("server", "lifeline view")
        except MissingExtra as exc:
            typer.secho(f"Error: {exc}", fg=typer.colors.RED, err=True)
            raise typer.Exit(2) from None
        from lifeline.serve.run import free_port
        from lifeline.web import replay_app

        try:
            from lifeline.eval.replay import find_replays

            replays = [f for p in replays for f in find_replays(p)]
            if verify:
                from lifeline.eval.replay import verify as verify_replay

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
