"""Pieces every ``lifeline`` subcommand shares: one error style, output-path checks, progress.

Kept free of heavy imports (no scipy, matplotlib, torch): ``lifeline --help`` imports this.

* **One error style.** Every user error, whether caught by a command (:func:`friendly_errors`)
  or by click's own parsing, prints ``Error: <one line>`` on stderr and exits with status 2.
* **Output paths are validated before any work** (:func:`check_out_file`, :func:`check_out_dir`)
  so a bad ``--json``/``--out`` never throws away a finished evaluation.
* **Ctrl-C keeps work**: commands catch ``KeyboardInterrupt``, write what they have, say so and
  exit with status 130.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar, cast

import typer
from typer.core import TyperGroup

F = TypeVar("F", bound=Callable[..., Any])

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""


class UserError(Exception):
    """A mistake in the command line or its inputs: shown as one line, exit status 2."""


def fail(message: object, code: int = 2) -> typer.Exit:
    """Print ``Error: message`` on stderr (the style click uses for usage errors) and exit."""
    typer.echo(f"Error: {message}", err=True)
    return typer.Exit(code)


def note(message: str) -> None:
    """A status line on stderr (keeps stdout clean for JSON)."""
    typer.echo(message, err=True)


def friendly_errors(fn: F) -> F:
    """Turn user errors (and missing optional extras) into one ``Error:`` line, exit status 2."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (UserError, ValueError, KeyError, FileNotFoundError, ImportError) as exc:
            if isinstance(exc, ImportError) and not _is_user_import_error(exc):
                raise
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            raise fail(message) from None

    return cast(F, wrapper)


def _is_user_import_error(exc: ImportError) -> bool:
    """Missing optional extras are user errors; a broken import inside lifeline is a bug."""
    from lifeline.extras import MissingExtra

    if isinstance(exc, MissingExtra):
        return True
    name = getattr(exc, "name", None) or ""
    return bool(name) and not name.startswith("lifeline")


# ----- output paths ----------------------------------------


def check_out_file(path: Path | None) -> None:
    """Fail now (not after the work) if ``path`` cannot be written as a file; ``-`` = stdout."""
    if path is None or str(path) == "-":
        return
    if path.is_dir():
        raise UserError(f"--json {path}: is a directory; give a file name, "
                        f"e.g. {path}/results.json")
    parent = _existing_ancestor(path.parent)
    if not parent.is_dir():
        raise UserError(f"cannot write {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"cannot write {path}: permission denied")


def check_out_dir(path: Path, option: str = "--out") -> None:
    """Fail now if ``path`` cannot be used (created) as an output directory."""
    if path.exists() and not path.is_dir():
        raise UserError(f"{option} {path}: exists and is not a directory")
    parent = _existing_ancestor(path)
    if not parent.is_dir():
        raise UserError(f"{option} {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK):
        raise UserError(f"{option} {path}: permission denied")


def _existing_ancestor(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


# ----- option parsing ----------------------------------------


def split_names(*values: str | None) -> list[str]:
    """Comma-separated names from one or more option values (empty items dropped, order kept)."""
    names: list[str] = []
    for value in values:
        for item in (value or "").split(","):
            if item.strip() and item.strip() not in names:
                names.append(item.strip())
    return names


def env_names() -> list[str]:
    """Registered environment ids (for help texts and shell completion)."""
    from lifeline.core.registry import all_specs

    return [s.name for s in all_specs()]


def complete_env(incomplete: str) -> list[str]:
    """Shell completion for an ENV argument."""
    return [n for n in env_names() if n.startswith(incomplete)]


def env_help() -> str:
    """``ENV`` help listing the choices (computed at run time: new envs register themselves)."""
    try:
        names = ", ".join(env_names())
    except Exception:  # help must never crash
        names = "see `lifeline list`"
    return f"Environment id, one of: {names} (or its Gymnasium id)."


# ----- progress ----------------------------------------


def progress() -> Any:
    """A transient rich progress bar on stderr (n/total, elapsed, remaining)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True),
                    transient=True)


# ----- the app ----------------------------------------


class LifelineGroup(TyperGroup):
    """Top-level group: ``--json`` given without a value means ``--json -`` (stdout).

    ``list --json`` and ``run --json`` used to be flags; they now take a path like
    ``eval --json PATH`` everywhere, and the bare form keeps working.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, normalise_json_flag(args))


def normalise_json_flag(args: Sequence[str]) -> list[str]:
    """``[..., "--json"]`` or ``["--json", "--other"]`` -> ``--json -``."""
    out: list[str] = []
    for i, arg in enumerate(args):
        out.append(arg)
        if arg == "--json":
            nxt = args[i + 1] if i + 1 < len(args) else None
            if nxt is None or (nxt.startswith("-") and nxt != "-"):
                out.append("-")
    return out
