"""``lifeline check`` (the environment checker) and ``lifeline bench`` (throughput JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lifeline.cli.common import (
    EnvArg,
    JsonOutOpt,
    check_out_file,
    complete_env,
    env_help,
    friendly_errors,
    progress,
    write_json,
)


@friendly_errors
def check(env: EnvArg,
          scenario: Annotated[str | None, typer.Option(
              "--scenario", "-s", help="Scenario or 'all' (default: the env's first).")] = None,
          seed: Annotated[int, typer.Option(help="Seed of the checked episodes (>= 0).")] = 7,
          subprocess_check: Annotated[bool, typer.Option(
              "--subprocess/--no-subprocess",
              help="Also replay in another process under another PYTHONHASHSEED.")] = True,
          json_path: JsonOutOpt = None,
          ) -> None:
    """Run the conformance checker (determinism, exact mask, invalid actions, ...) on ENV."""
    from lifeline.core.registry import resolve_scenario, spec
    from lifeline.testing.checker import check_env

    env_spec = spec(env)
    check_out_file(json_path)
    names = list(env_spec.scenarios) if scenario == "all" else [
        resolve_scenario(env_spec, scenario)]
    reports = []
    for name in names:
        report = check_env(env_spec.name, name, seed, subprocess_check=subprocess_check,
                           raise_on_failure=False)
        reports.append(report)
        if json_path is None or str(json_path) != "-":
            typer.echo(report.summary())
    write_json([r.to_dict() for r in reports], json_path)
    if not all(r.passed for r in reports):
        raise typer.Exit(1)


@friendly_errors
def bench(
        steps: Annotated[int, typer.Option(help="Steps per measurement.")] = 20_000,
        env: Annotated[list[str] | None, typer.Option(
            help="Only this env (repeatable; default: all). " + env_help(),
            autocompletion=complete_env)] = None,
        all_scenarios: Annotated[bool, typer.Option(help="Every scenario, not the first.")] = False,
        json_path: JsonOutOpt = None,
        ) -> None:
    """Throughput benchmark (JSON): core/Gymnasium steps/s and reset time under masked random."""
    from lifeline.eval.throughput import plan as bench_plan
    from lifeline.eval.throughput import run as run_bench

    check_out_file(json_path)
    jobs = bench_plan(env, all_scenarios)
    with progress() as bar:
        task = bar.add_task("bench", total=len(jobs))

        def advance(env_name: str, scenario: str) -> None:
            bar.update(task, advance=1, description=f"bench {env_name}/{scenario}")

        result = run_bench(steps, env, all_scenarios, on_done=advance)
    write_json(result, json_path or Path("-"))


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app`` (in ``--help`` order)."""
    app.command()(check)
    app.command()(bench)
