"""The ``lifeline`` command line: list, run, eval, compare, leaderboard, report, train, serve,
bench.

Bad input (unknown environment, scenario or agent, a negative seed, ...) prints one clear
error line and exits with status 2 — never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from lifeline.core.registry import all_specs, spec
from lifeline.eval.harness import Task, evaluate, run_episode
from lifeline.eval.seeds import EVAL_SEED_BASE

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Lifeline: RL environments for the operations that keep people alive.")
console = Console()
err_console = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])

# Options shared by several commands.
ScenarioOpt = Annotated[str, typer.Option(help="Scenario name or 'all'.")]
EpisodesOpt = Annotated[int, typer.Option(help="Episodes per scenario and agent.")]
SeedStartOpt = Annotated[int, typer.Option(help="First seed (default: the held-out set).")]
WorkersOpt = Annotated[int, typer.Option(help="Worker processes.")]
JsonOutOpt = Annotated[Path | None, typer.Option("--json", help="Write results JSON here.")]


def friendly_errors(fn: F) -> F:
    """Turn user errors into one red line and exit status 2."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (ValueError, KeyError, FileNotFoundError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            err_console.print(f"[bold red]error:[/] {message}")
            raise typer.Exit(2) from None

    return cast(F, wrapper)


def _scenarios(scenario: str | None) -> list[str] | None:
    """``None`` (every scenario) for ``None``/``"all"``, else the one named scenario."""
    return None if scenario is None or scenario == "all" else [scenario]


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=err_console, transient=True)


def _run_with_progress(env: str, agents: list[str], scenario: str | None, episodes: int,
                       seed_start: int, workers: int,
                       record_dir: str | None = None) -> dict[str, Any]:
    env_spec = spec(env)
    scenarios = _scenarios(scenario)
    n_scen = len(env_spec.scenarios) if scenarios is None else 1
    with _progress() as progress:
        bar = progress.add_task(f"{env_spec.name}", total=n_scen * len(agents) * episodes)
        return evaluate(env_spec.name, agents, scenarios, episodes, seed_start,
                        workers, on_record=lambda _: progress.advance(bar),
                        record_dir=record_dir)


def _summary_table(results: dict[str, Any], title: str) -> Table:
    table = Table(title=title)
    for col in ("env", "scenario", "agent", "n", "score (mean ± 95% CI)"):
        table.add_column(col, justify="right" if col in ("n",) else "left")
    for row in results["summary"]:
        half = (row["ci_high"] - row["ci_low"]) / 2
        table.add_row(row["env"], row["scenario"], row["agent"], str(row["n"]),
                      f"{row['mean']:.3f} ± {half:.3f}")
    return table


def _write_json(results: dict[str, Any], path: Path | None) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1))
    err_console.print(f"wrote {path}")


@app.command("list")
@friendly_errors
def list_envs(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List registered environments, their scenarios, tags and baseline agents."""
    rows: list[dict[str, Any]] = [
        {"name": s.name, "gym_id": s.gym_id, "scenarios": list(s.scenarios),
         "tags": list(s.tags), "agents": list(s.agents), "description": s.description}
        for s in all_specs()]
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    table = Table(title="Lifeline environments")
    for col in ("name", "gym id", "scenarios", "tags", "ladder"):
        table.add_column(col)
    for r in rows:
        table.add_row(str(r["name"]), str(r["gym_id"]), ", ".join(r["scenarios"]),
                      ", ".join(r["tags"]), " < ".join(r["agents"]))
    console.print(table)


@app.command()
@friendly_errors
def run(env: str,
        scenario: Annotated[str | None, typer.Option(help="Scenario (default: first).")] = None,
        agent: Annotated[str | None, typer.Option(
            help="Agent name or ppo:PATH (default: the env's best non-bound baseline).")] = None,
        seed: Annotated[int, typer.Option(help="Episode seed (>= 0).")] = 0,
        render: Annotated[bool, typer.Option(help="Print a text frame after every step.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the record as JSON.")] = False,
        record_to: Annotated[Path | None, typer.Option(
            "--record", help="Write the episode's replay to this .jsonl(.gz) file or directory.")
        ] = None,
        ) -> None:
    """Run one episode and print its grade (and text frames with --render)."""
    env_spec = spec(env)
    scen = scenario or env_spec.default_scenario
    agent = agent or (env_spec.agents[-2] if len(env_spec.agents) > 1 else "random")

    def show(core: Any, state: Any) -> None:
        console.print(f"[dim]── step {state.steps} ──[/]")
        console.print(core.render_text(state), markup=False, highlight=False, soft_wrap=True)

    if record_to is not None:
        from lifeline.replay import record_episode

        record = record_episode(Task(env_spec.name, scen, agent, seed), record_to)
        err_console.print(f"replay written: {record['replay']}  "
                          f"(watch: lifeline view {record['replay']})")
    else:
        record = run_episode(Task(env_spec.name, scen, agent, seed),
                             on_step=show if render else None)
    if as_json:
        print(json.dumps(record, indent=1))
        return
    console.print(f"[bold]{env_spec.name}/{scen}[/] agent={agent} seed={seed}: "
                  f"score [bold]{record['score']:.3f}[/] in {record['steps']} steps "
                  f"(return {record['return']:.1f}, invalid {record['invalid']})")
    for name, value in record["components"].items():
        console.print(f"  {name:<20} {value:.3f}")


@app.command("eval")
@friendly_errors
def eval_cmd(env: str,
             agent: Annotated[str, typer.Option(help="Agent name or ppo:PATH.")],
             scenario: ScenarioOpt = "all",
             episodes: EpisodesOpt = 30,
             seed_start: SeedStartOpt = EVAL_SEED_BASE,
             workers: WorkersOpt = 1,
             json_path: JsonOutOpt = None,
             record: Annotated[Path | None, typer.Option(
                 help="Write every episode's replay (JSONL) into this directory.")] = None,
             ) -> None:
    """Evaluate one agent over scenarios and seeds; print mean ± 95% CI."""
    results = _run_with_progress(env, [agent], scenario, episodes, seed_start, workers,
                                 record_dir=None if record is None else str(record))
    if record is not None:
        err_console.print(f"replays written to {record}/ (watch: lifeline view {record}/*.jsonl)")
    console.print(_summary_table(results, f"{env}: {agent}"))
    _write_json(results, json_path)


@app.command()
@friendly_errors
def compare(env: str,
            agents: Annotated[str, typer.Option(help="Comma-separated agent names.")],
            scenario: ScenarioOpt = "all",
            episodes: EpisodesOpt = 30,
            seed_start: SeedStartOpt = EVAL_SEED_BASE,
            workers: WorkersOpt = 1,
            json_path: JsonOutOpt = None,
            ) -> None:
    """Compare agents on paired seeds (every agent sees the same seeds)."""
    names = [a.strip() for a in agents.split(",") if a.strip()]
    if not names:
        raise ValueError("--agents needs at least one agent name")
    results = _run_with_progress(env, names, scenario, episodes, seed_start, workers)
    console.print(_summary_table(results, f"{env}: paired comparison"))
    _write_json(results, json_path)


@app.command()
@friendly_errors
def leaderboard(
        episodes: EpisodesOpt = 10,
        out: Annotated[Path, typer.Option(help="Output directory.")] = Path("reports/leaderboard"),
        workers: WorkersOpt = 1,
        env: Annotated[list[str] | None, typer.Option(help="Restrict to these envs.")] = None,
        ) -> None:
    """Run every environment's baseline ladder; write results JSON, a Markdown report and plots."""
    from lifeline.eval.report import write_report

    specs = [s for s in all_specs() if not env or s.name in env]
    if not specs:
        raise ValueError(f"no registered environment among {env}")
    results = [_run_with_progress(s.name, list(s.agents), "all", episodes, EVAL_SEED_BASE,
                                  workers) for s in specs]
    for s, res in zip(specs, results, strict=True):
        console.print(_summary_table(res, f"{s.name}: baseline ladder"))
    out.mkdir(parents=True, exist_ok=True)
    for s, res in zip(specs, results, strict=True):
        _write_json(res, out / f"{s.name}.json")
    report = write_report(results, out, title="Lifeline baseline leaderboard")
    console.print(f"[bold green]leaderboard written:[/] {report}")


@app.command()
@friendly_errors
def bench(
        steps: Annotated[int, typer.Option(help="Steps per measurement.")] = 20_000,
        env: Annotated[list[str] | None, typer.Option(help="Only these envs.")] = None,
        all_scenarios: Annotated[bool, typer.Option(help="Every scenario, not the first.")] = False,
        ) -> None:
    """Throughput benchmark (JSON): core/Gymnasium steps/s and reset time under masked random."""
    from lifeline.bench.throughput import run as run_bench

    print(json.dumps(run_bench(steps, env, all_scenarios), indent=1))


def _register_subcommands() -> None:
    """Commands that live in their own modules (heavy imports stay inside the commands)."""
    from lifeline import cli_serve, cli_train, cli_view

    cli_serve.register(app)
    cli_train.register(app)
    cli_view.register(app)


_register_subcommands()


def main() -> None:
    """Entry point that also works as ``python -m lifeline``."""
    app(prog_name="lifeline")


if __name__ == "__main__":
    main()
