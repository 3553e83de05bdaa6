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

import json
import os
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

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
    from lifeline.core.extras import MissingExtra

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
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise UserError(f"cannot write {path}: directory {parent} does not exist")
    if not parent.is_dir():
        raise UserError(f"cannot write {path}: {parent} is not a directory")
    _probe_write(path)


def _probe_write(path: Path, what: str | None = None) -> None:
    """Open ``path`` for appending (and remove it again if it was new): the only test that
    also catches what permission bits don't show (root on ``/sys``, read-only mounts)."""
    existed = path.exists()
    try:
        with path.open("a"):
            pass
    except OSError as exc:
        raise UserError(f"{what or f'cannot write {path}'}: {exc.strerror or exc}") from None
    finally:
        if not existed and path.exists():
            path.unlink()


def check_out_dir(path: Path, option: str = "--out") -> None:
    """Fail now if ``path`` cannot be used (created) as an output directory."""
    if path.exists() and not path.is_dir():
        raise UserError(f"{option} {path}: exists and is not a directory")
    parent = _existing_ancestor(path)
    if not parent.is_dir():
        raise UserError(f"{option} {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK):
        raise UserError(f"{option} {path}: permission denied")
    probe_dir = path if path.is_dir() else parent  # else: its nearest existing ancestor
    _probe_write(probe_dir / f".lifeline-write-test-{os.getpid()}",
                 f"{option} {path}: cannot create files in {probe_dir}")


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


EVAL_SEED_BASE = 1_000_000
"""The held-out evaluation seeds (``lifeline.eval.seeds.EVAL_SEED_BASE``, asserted in tests);
repeated here so ``--help`` does not import the evaluation stack."""


EnvArg = Annotated[str, typer.Argument(help=env_help(),
                                       autocompletion=complete_env)]
ScenarioOpt = Annotated[list[str] | None, typer.Option(
    "--scenario", "-s", help="Scenario name, comma list or 'all' (default); repeatable: "
                             "`-s warmup,expert` = `-s warmup -s expert` (`lifeline list`).")]
AgentsOpt = Annotated[str | None, typer.Option(
    "--agents", "-a", help="Comma-separated agents: a ladder name (`lifeline list`), same:K or "
                           "ppo:RUN_DIR.")]
AgentAlias = Annotated[str | None, typer.Option("--agent", hidden=True,
                                                help="Old name of --agents.")]
EpisodesOpt = Annotated[int, typer.Option(help="Episodes per scenario and agent (>= 1).")]
SeedStartOpt = Annotated[int, typer.Option(help="First seed (default: the held-out set).")]
WorkersOpt = Annotated[int, typer.Option(help="Worker processes (>= 1).")]
BackendOpt = Annotated[str, typer.Option(
    help="Where episodes run: 'process' (local --workers) or 'ray' (Ray tasks; 'dist' extra; "
         "records identical to --workers 1).")]
AddressOpt = Annotated[str | None, typer.Option(
    help="--backend ray: cluster to join ('auto', 'HOST:6379', 'ray://HOST:10001'; default: "
         "$RAY_ADDRESS, else a private local Ray instance).")]
JsonOutOpt = Annotated[Path | None, typer.Option(
    "--json", metavar="PATH", help="Write the results JSON to PATH ('-' or no value: stdout).")]
RecordDirOpt = Annotated[Path | None, typer.Option(
    "--record", metavar="DIR", help="Write every episode's replay (gzipped JSONL) into DIR "
                                    "(watch with `lifeline view`).")]
TrialsOpt = Annotated[int, typer.Option(
    help="Attempts per seed (stochastic agents such as LLMs); adds pass^k to the results.")]
PassThresholdOpt = Annotated[float | None, typer.Option(
    help="Score an attempt must reach to pass (pass^k; default: the env's PASS_THRESHOLD).")]
BaseUrlOpt = Annotated[str | None, typer.Option(
    help="OpenAI-compatible endpoint for llm:MODEL agents, e.g. http://127.0.0.1:8001/v1.")]
ApiKeyEnvOpt = Annotated[str | None, typer.Option(
    help="NAME of the environment variable holding the API key (never the key itself).")]
MaxRepairsOpt = Annotated[int | None, typer.Option(
    help="LLM agents: repair prompts per turn after a malformed or illegal call (default 2).")]
RateLimitOpt = Annotated[float | None, typer.Option(
    help="LLM agents: total requests per second across workers (default: unlimited).")]
TranscriptsOpt = Annotated[Path | None, typer.Option(
    metavar="DIR", help="LLM agents: write one JSONL transcript per episode into DIR.")]
ExplicitOpt = Annotated[bool, typer.Option(
    "--explicit-legal", help="LLM agents: list legal calls one per line (no N ranges).")]


def print_rich(renderable: Any, to_stderr: bool = False) -> None:
    """Print a rich renderable (a table, marked-up text) on stdout or stderr."""
    from rich.console import Console

    Console(stderr=to_stderr).print(renderable)


def write_json(results: Any, path: Path | None) -> None:
    """``results`` as indented JSON to ``path`` (``-``: stdout; ``None``: nowhere)."""
    if path is None:
        return
    text = json.dumps(results, indent=1)
    if str(path) == "-":
        typer.echo(text)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    note(f"wrote {path}")
