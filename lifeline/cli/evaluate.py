"""``lifeline run``, ``eval``, ``compare`` and ``leaderboard``: play and evaluate agents.

Ctrl-C during ``eval``/``compare``/``leaderboard`` writes the results finished so far (and says
so); exit status 130.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lifeline.cli.common import (
    EVAL_SEED_BASE,
    INTERRUPTED,
    AddressOpt,
    AgentAlias,
    AgentsOpt,
    ApiKeyEnvOpt,
    BackendOpt,
    BaseUrlOpt,
    EnvArg,
    EpisodesOpt,
    ExplicitOpt,
    JsonOutOpt,
    MaxRepairsOpt,
    PassThresholdOpt,
    RateLimitOpt,
    RecordDirOpt,
    ScenarioOpt,
    SeedStartOpt,
    TranscriptsOpt,
    TrialsOpt,
    UserError,
    WorkersOpt,
    check_out_dir,
    check_out_file,
    complete_env,
    env_help,
    friendly_errors,
    note,
    print_rich,
    progress,
    split_names,
    write_json,
)

if TYPE_CHECKING:
    from rich.table import Table


def _scenarios(env: str, values: list[str] | None) -> list[str] | None:
    """The scenarios ``-s`` names (comma lists, repeats, in order, each once), validated now,
    before any other option is looked at; ``None`` (every scenario) for none or ``all``."""
    from lifeline.core.registry import resolve_scenario, spec

    names = split_names(*(values or []))
    if not names or "all" in names:
        return None
    env_spec = spec(env)
    return [resolve_scenario(env_spec, name) for name in names]


def _agents(agents: str | None, alias: str | None, required: bool = True) -> list[str]:
    names = split_names(agents, alias)
    if required and not names:
        raise UserError("--agents needs at least one agent name")
    return names


def _check_agents(names: list[str]) -> None:
    from lifeline.core.extras import require

    if any(n.startswith("ppo:") for n in names):
        require("train", "a ppo:PATH agent")
    if any(n.startswith("llm:") for n in names):
        require("llm", "an llm:MODEL agent")
    if any(n.startswith("hf:") for n in names):
        require("grpo", "an hf:PATH agent")


def _check_backend(backend: str, address: str | None, agents: list[str]) -> None:
    from lifeline.core.extras import require
    from lifeline.eval.harness import BACKENDS

    if backend not in BACKENDS:
        raise UserError(f"unknown --backend {backend!r}; choose one of: {', '.join(BACKENDS)}")
    if backend != "ray":
        if address is not None:
            raise UserError("--address needs --backend ray")
        return
    require("dist", "--backend ray")
    if any(n.startswith(("llm:", "hf:")) for n in agents):
        raise UserError("--backend ray runs scripted, ppo: and same: agents; LLM agents take "
                        "their endpoint options per process, use --workers for them")


class _Interrupted(Exception):
    """Raised after partial results were saved, to exit with status 130."""


def _evaluate(env: str, agents: list[str], scenarios: list[str] | None, episodes: int,
              seed_start: int, workers: int, record: Path | None = None, trials: int = 1,
              pass_threshold: float | None = None, backend: str = "process",
              address: str | None = None) -> tuple[dict[str, Any], bool]:
    """Results of a paired evaluation with a progress bar; ``(results, interrupted)``.

    On Ctrl-C the records finished so far come back (with ``meta.interrupted``), never nothing.
    """
    from lifeline.core.registry import spec
    from lifeline.eval.harness import meta, plan, resolve_pass_threshold, run_tasks
    from lifeline.eval.stats import pass_hat_k, summarise

    env_spec = spec(env)
    _check_agents(agents)
    _check_backend(backend, address, agents)
    if episodes < 1:
        raise UserError(f"episodes must be >= 1, got {episodes}")
    from lifeline.core.rng import check_seed

    seeds = range(check_seed(seed_start), seed_start + episodes)
    tasks = plan(env_spec.name, agents, scenarios, seeds, trials)
    threshold = resolve_pass_threshold(env_spec.name, trials, pass_threshold)
    if record is not None:
        check_out_dir(record, "--record")
    records: list[dict[str, Any]] = []
    interrupted = False
    start = time.perf_counter()
    with progress() as bar:
        task = bar.add_task(env_spec.name, total=len(tasks))

        def keep(record: dict[str, Any]) -> None:
            records.append(record)
            bar.advance(task)

        try:
            run_tasks(tasks, workers=workers, on_record=keep,
                      record_dir=None if record is None else str(record), backend=backend,
                      address=address)
        except KeyboardInterrupt:
            interrupted = True
        except RuntimeError as exc:  # an LLM endpoint that never answered: one clear line
            from lifeline.agents.llm import LLMUnavailable
            from lifeline.eval.ray_backend import RayUnavailable

            if isinstance(exc, (LLMUnavailable, RayUnavailable)):
                raise UserError(str(exc)) from None
            raise
    info = meta([env_spec.name], time.perf_counter() - start)
    if interrupted:
        info.update(interrupted=True, completed=len(records), planned=len(tasks))
    results = {"records": records, "summary": summarise(records) if records else [],
               "meta": info}
    if trials > 1 and records:
        results["pass_k"] = pass_hat_k(records, threshold)
    if record is not None:
        note(f"replays written to {record}/ (*.jsonl.gz; watch: lifeline view "
             f"{record}/<file>, or lifeline view {record} for up to 8 side by side)")
    return results, interrupted


def _llm_options(base_url: str | None, api_key_env: str | None, max_repairs: int | None,
                 rate_limit: float | None, transcripts: Path | None, explicit: bool,
                 workers: int) -> None:
    from lifeline.cli.llm import apply_llm_options

    if transcripts is not None:
        check_out_dir(transcripts, "--transcripts")
    try:
        apply_llm_options(base_url, api_key_env, max_repairs, rate_limit, transcripts, explicit,
                          workers)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _summary_table(results: dict[str, Any], title: str) -> Table:
    from rich.table import Table

    table = Table(title=title)
    for col in ("env", "scenario", "agent", "n", "score (mean ± 95% CI)"):
        table.add_column(col, justify="right" if col in ("n",) else "left")
    for row in results["summary"]:
        half = (row["ci_high"] - row["ci_low"]) / 2
        table.add_row(row["env"], row["scenario"], row["agent"], str(row["n"]),
                      f"{row['mean']:.3f} ± {half:.3f}")
    return table


def _finish(results: dict[str, Any], interrupted: bool, title: str, json_path: Path | None
            ) -> None:
    """Show the table, write the JSON and, after Ctrl-C, say what was kept and exit 130."""
    if results["records"]:
        print_rich(_summary_table(results, title), to_stderr=str(json_path) == "-")
        for row in results.get("pass_k", []):
            print_rich(f"pass^{row['k']} {row['scenario']}/{row['agent']}: {row['pass_k']:.3f} "
                   f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}] over {row['seeds']} seeds "
                   f"(threshold {row['threshold']:.2f}; pass@1 {row['pass_1']:.3f})",
                   to_stderr=str(json_path) == "-")
    write_json(results, json_path)
    if interrupted:
        m = results["meta"]
        where = f" written to {json_path}" if json_path and str(json_path) != "-" else (
            " shown above (add --json PATH to keep them)" if json_path is None else "")
        note(f"interrupted: partial results ({m['completed']} of {m['planned']} episodes)"
             f"{where}")
        raise typer.Exit(INTERRUPTED)


@friendly_errors
def run(env: EnvArg,
        scenario: Annotated[str | None, typer.Option(
            "--scenario", "-s", help="Scenario (default: the env's first; `lifeline list`).")
        ] = None,
        agents: Annotated[str | None, typer.Option(
            "--agents", "-a", help="One agent: a ladder name, same:K or ppo:RUN_DIR (default: "
                                   "the env's best non-bound baseline).")] = None,
        agent: AgentAlias = None,
        seed: Annotated[int, typer.Option(help="Episode seed (>= 0).")] = 0,
        render: Annotated[bool, typer.Option(help="Print a text frame after every step.")] = False,
        json_path: JsonOutOpt = None,
        record_to: Annotated[str | None, typer.Option(  # str: keeps a trailing "/"
            "--record", metavar="PATH",
            help="Write the episode's replay to this file (.jsonl.gz, gzip, unless it ends in "
                 ".jsonl; a name without either gets .jsonl.gz) or into this directory "
                 "(existing, or ending in /).")] = None,
        ) -> None:
    """Run one episode and print its grade (and text frames with --render)."""
    from lifeline.core.registry import resolve_scenario, spec
    from lifeline.eval.episode import Task, run_episode

    env_spec = spec(env)
    scen = resolve_scenario(env_spec, scenario)
    check_out_file(json_path)
    names = _agents(agents, agent, required=False)
    if len(names) > 1:
        raise UserError(f"run plays one agent, got {len(names)}: use `lifeline compare` for more")
    name = names[0] if names else (env_spec.agents[-2] if len(env_spec.agents) > 1 else "random")
    _check_agents([name])

    from rich.console import Console

    console = Console()

    def show(core: Any, state: Any) -> None:
        console.print(f"[dim]── step {state.steps} ──[/]")
        console.print(core.render_text(state), markup=False, highlight=False, soft_wrap=True)

    if record_to is not None:
        from lifeline.eval.replay import record_episode

        record = record_episode(Task(env_spec.name, scen, name, seed), record_to)
        note(f"replay written: {record['replay']} (watch: lifeline view {record['replay']})")
    else:
        record = run_episode(Task(env_spec.name, scen, name, seed),
                             on_step=show if render else None)
    if json_path is not None:
        write_json(record, json_path)
        if str(json_path) == "-":
            return
    console.print(f"[bold]{env_spec.name}/{scen}[/] agent={name} seed={seed}: "
                  f"score [bold]{record['score']:.3f}[/] in {record['steps']} steps "
                  f"(return {record['return']:.1f}, invalid {record['invalid']})")
    for key, value in record["components"].items():
        console.print(f"  {key:<20} {value:.3f}")


@friendly_errors
def eval_cmd(env: EnvArg,
             agents: AgentsOpt = None,
             agent: AgentAlias = None,
             scenario: ScenarioOpt = None,
             episodes: EpisodesOpt = 30,
             seed_start: SeedStartOpt = EVAL_SEED_BASE,
             workers: WorkersOpt = 1,
             backend: BackendOpt = "process",
             address: AddressOpt = None,
             json_path: JsonOutOpt = None,
             record: RecordDirOpt = None,
             trials: TrialsOpt = 1,
             pass_threshold: PassThresholdOpt = None,
             base_url: BaseUrlOpt = None,
             api_key_env: ApiKeyEnvOpt = None,
             max_repairs: MaxRepairsOpt = None,
             rate_limit: RateLimitOpt = None,
             transcripts: TranscriptsOpt = None,
             explicit: ExplicitOpt = False,
             ) -> None:
    """Evaluate agents over scenarios and seeds; print mean ± 95% CI."""
    scenarios = _scenarios(env, scenario)
    names = _agents(agents, agent)
    check_out_file(json_path)
    _llm_options(base_url, api_key_env, max_repairs, rate_limit, transcripts, explicit, workers)
    results, interrupted = _evaluate(env, names, scenarios, episodes, seed_start, workers,
                                     record, trials, pass_threshold, backend, address)
    _finish(results, interrupted, f"{env}: {', '.join(names)}", json_path)


@friendly_errors
def compare(env: EnvArg,
            agents: AgentsOpt = None,
            agent: AgentAlias = None,
            scenario: ScenarioOpt = None,
            episodes: EpisodesOpt = 30,
            seed_start: SeedStartOpt = EVAL_SEED_BASE,
            workers: WorkersOpt = 1,
            backend: BackendOpt = "process",
            address: AddressOpt = None,
            json_path: JsonOutOpt = None,
            record: RecordDirOpt = None,
            trials: TrialsOpt = 1,
            pass_threshold: PassThresholdOpt = None,
            base_url: BaseUrlOpt = None,
            api_key_env: ApiKeyEnvOpt = None,
            max_repairs: MaxRepairsOpt = None,
            rate_limit: RateLimitOpt = None,
            transcripts: TranscriptsOpt = None,
            explicit: ExplicitOpt = False,
            ) -> None:
    """Compare agents on paired seeds (every agent sees the same seeds): each agent's score
    minus the first agent's, per seed, with its 95% CI, wins/losses and Wilcoxon p."""
    scenarios = _scenarios(env, scenario)
    names = _agents(agents, agent)
    check_out_file(json_path)
    if len(names) < 2:
        raise UserError(f"compare needs at least two agents, got {names}: use `lifeline eval` "
                        "for one")
    _llm_options(base_url, api_key_env, max_repairs, rate_limit, transcripts, explicit, workers)
    results, interrupted = _evaluate(env, names, scenarios, episodes, seed_start, workers,
                                     record, trials, pass_threshold, backend, address)
    if results["records"]:
        from lifeline.eval.stats import paired_differences

        results["paired"] = paired_differences(results["records"], names[0])
    _finish(results, interrupted, f"{env}: {', '.join(names)}", json_path)
    if results.get("paired"):
        print_rich(_paired_table(results["paired"], f"{env}: paired difference vs {names[0]}"),
                   to_stderr=str(json_path) == "-")


def _paired_table(rows: list[dict[str, Any]], title: str) -> Table:
    from rich.table import Table

    table = Table(title=title, caption="Δ = agent − reference per seed (the same seeds); "
                                        "* the 95% CI excludes 0")
    for col in ("scenario", "agent", "n", "Δ score [95% CI]", "W/L", "Wilcoxon p"):
        table.add_column(col, justify="right" if col in ("n", "W/L", "Wilcoxon p") else "left",
                         no_wrap=col != "scenario")
    for r in rows:
        mark = " *" if r["ci_low"] > 0 or r["ci_high"] < 0 else ""
        table.add_row(r["scenario"], r["agent"], str(r["n"]),
                      f"{r['mean_diff']:+.3f} [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]{mark}",
                      f"{r['wins']}/{r['losses']}", f"{r['wilcoxon_p']:.2g}")
    return table


@friendly_errors
def leaderboard(
        episodes: EpisodesOpt = 10,
        out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")
                       ] = Path("reports/leaderboard"),
        workers: WorkersOpt = 1,
        env: Annotated[list[str] | None, typer.Option(
            "--env", help="Restrict to this env (repeatable; default: every registered env). "
                          + env_help(),
            autocompletion=complete_env)] = None,
        snapshot: Annotated[bool, typer.Option(
            help="Also keep the summary as the reference scores that `GET /<env>/tasks` serves "
                 "(lifeline/data/leaderboard.json; commit it).")] = False,
        ) -> None:
    """Run every environment's baseline ladder; write results JSON, a Markdown report and plots."""
    from lifeline.core.extras import require
    from lifeline.core.registry import all_specs

    require("viz", "lifeline leaderboard")
    check_out_dir(out)
    specs = [s for s in all_specs() if not env or s.name in env]
    if not specs:
        raise UserError(f"no registered environment among {env}")
    results: list[dict[str, Any]] = []
    interrupted = False
    for s in specs:
        res, interrupted = _evaluate(s.name, list(s.agents), None, episodes, EVAL_SEED_BASE,
                                     workers)
        if res["records"]:
            results.append(res)
        if interrupted:
            break
    out.mkdir(parents=True, exist_ok=True)
    for res in results:
        name = res["records"][0]["env"]
        print_rich(_summary_table(res, f"{name}: baseline ladder"))
        write_json(res, out / f"{name}.json")
    if results:
        from lifeline.eval.report import write_report

        report = write_report(results, out, title="Lifeline baseline leaderboard" + (
            " (partial: interrupted)" if interrupted else ""))
        note(f"leaderboard written: {report}")
        if snapshot and not interrupted:
            from lifeline.serve.tasks import write_snapshot

            note(f"reference scores kept in {write_snapshot(results)}")
    if interrupted:
        note(f"interrupted: partial leaderboard ({sum(len(r['records']) for r in results)} "
             f"episodes) written to {out}")
        raise typer.Exit(INTERRUPTED)


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app`` (in ``--help`` order)."""
    app.command()(run)
    app.command("eval")(eval_cmd)
    app.command()(compare)
    app.command()(leaderboard)
