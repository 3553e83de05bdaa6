"""The ``lifeline`` command line: list, run, eval, compare, leaderboard, report, check, train,
serve, bench.

Bad input (unknown environment, scenario or agent, a negative seed, an unwritable output path,
a missing optional extra, ...) prints one ``Error:`` line and exits with status 2 — never a
traceback — and is caught *before* any work starts. Ctrl-C during ``eval``/``compare``/
``leaderboard`` writes the results finished so far (and says so); exit status 130.

Imports are lazy (scipy, matplotlib, torch, FastAPI load inside the commands that need them), so
``lifeline --help`` stays fast. This module holds the app, its root options and ``list``; every
other command group is a module of this package (``evaluate``: run/eval/compare/leaderboard,
``check``: check/bench, ``train``, ``serve``, ``view``, ``calibrate``; shared options and helpers
in ``common``) and adds itself through its ``register(app)``.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from lifeline import __version__
from lifeline.cli.common import (
    JsonOutOpt,
    LifelineGroup,
    UserError,
    check_out_file,
    fail,
    friendly_errors,
    print_rich,
    write_json,
)

app = typer.Typer(
    cls=LifelineGroup, add_completion=False, no_args_is_help=True,
    # Plain click formatting: one error style ("Error: ..." lines) for click's own usage errors
    # and ours, and no rich import on the --help path.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Lifeline: RL environments for the operations that keep people alive.")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"lifeline {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", "-V", callback=_version, is_eager=True,
        help="Print the version and exit.")] = False) -> None:
    """Lifeline: RL environments for the operations that keep people alive."""


# Options shared by several commands.
@app.command("list")
@friendly_errors
def list_envs(json_path: JsonOutOpt = None) -> None:
    """List registered environments, their scenarios, tags and baseline agents."""
    from lifeline.core.registry import all_specs

    check_out_file(json_path)
    rows: list[dict[str, Any]] = [
        {"name": s.name, "gym_id": s.gym_id, "scenarios": list(s.scenarios),
         "tags": list(s.tags), "agents": list(s.agents), "description": s.description}
        for s in all_specs()]
    if json_path is not None:
        write_json(rows, json_path)
        return
    import sys

    if not sys.stdout.isatty():  # piped: whole values, one env a line, tab-separated
        typer.echo("\t".join(("name", "gym_id", "scenarios", "tags", "ladder")))
        for r in rows:
            typer.echo("\t".join((str(r["name"]), str(r["gym_id"]), ",".join(r["scenarios"]),
                                  ",".join(r["tags"]), " < ".join(r["agents"]))))
        return
    from rich.table import Table

    table = Table(title="Lifeline environments")
    for col in ("name", "gym id"):
        table.add_column(col, no_wrap=True)  # ids are copied from here: never cut
    for col in ("scenarios", "tags", "ladder"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(str(r["name"]), str(r["gym_id"]), ", ".join(r["scenarios"]),
                      ", ".join(r["tags"]), " < ".join(r["agents"]))
    print_rich(table)



def _register_subcommands() -> None:
    """Commands that live in their own modules (heavy imports stay inside the commands)."""
    from lifeline.cli import calibrate, check, evaluate, serve, train, view

    evaluate.register(app)
    check.register(app)
    serve.register(app)
    train.register(app)
    view.register(app)
    calibrate.register(app)


_register_subcommands()


def main() -> None:
    """Entry point that also works as ``python -m lifeline``."""
    app(prog_name="lifeline")


__all__ = ["UserError", "app", "fail", "main"]

if __name__ == "__main__":
    main()
