"""CLI commands for training and reporting; ``lifeline.cli`` calls :func:`register` to add them.

* ``lifeline report RESULTS.json [MORE.json ...] [--out DIR]`` — Markdown report + PNG plots
  (needs the ``viz`` extra); overlapping inputs are merged.
* ``lifeline train ppo ENV --scenario S --timesteps N [--seed K] [--out DIR] [--set k=v]
  [--config FILE] [--resume] [--tensorboard DIR]`` — MaskablePPO (needs the ``train`` extra).
* ``lifeline train fastppo ed --scenario S --cpu-seconds T [--target X] [--out DIR]`` — the
  compact masked PPO on the batch ED (``lifeline.train.ed.fastppo``; extras ``train`` and ``fast``).
* ``lifeline train pointer ENV --scenario S [--cpu-seconds T] [--set k=v] [--out DIR]
  [--json PATH]`` — the entity-pointer policy on any env (``lifeline.train.pointer``: cloning,
  DAgger, anchored PPO, validation selection), then the held-out paired comparison.

Heavy imports (torch, sb3, matplotlib) happen inside the commands so ``lifeline --help`` is fast;
a missing extra is one ``Error:`` line naming it, checked before any work.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from lifeline.cli.common import (
    INTERRUPTED,
    UserError,
    check_out_dir,
    complete_env,
    env_help,
    friendly_errors,
    note,
)


class OnConflict(StrEnum):
    """What ``lifeline report`` does with differing records for one env/scenario/agent/seed."""

    error = "error"
    first = "first"
    last = "last"


def register(app: typer.Typer) -> None:
    """Add the ``report`` command and the ``train`` command group to ``app``."""
    train_app = typer.Typer(help="Train agents (MaskablePPO) on training seeds only.",
                            no_args_is_help=True, rich_markup_mode=None,
                            context_settings={"help_option_names": ["-h", "--help"]})

    @app.command("report")
    @friendly_errors
    def report_cmd(
        results: Annotated[list[Path], typer.Argument(
            help="Results JSON file(s) from eval/compare/leaderboard; overlapping files are "
                 "merged (identical records kept once).")],
        out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")
                       ] = Path("report"),
        runs: Annotated[Path | None, typer.Option(
            "--runs", help="Directory of training runs (metadata.json + progress.csv) for "
                           "learning curves; default: beside the ppo:PATH models in the "
                           "results.")] = None,
        on_conflict: Annotated[OnConflict, typer.Option(
            "--on-conflict",
            help="Two inputs with different records for the same env/scenario/agent/seed: "
                 "stop (error) or keep the first/last input's record and list the conflicts "
                 "in the report.")] = OnConflict.error,
    ) -> None:
        """Write a Markdown report with CIs, paired differences and plots from results JSON."""
        from lifeline.core.extras import require

        require("viz", "lifeline report")
        missing = [str(p) for p in [*results, *([runs] if runs else [])] if not p.exists()]
        if missing:
            raise UserError(f"no such file: {', '.join(missing)}")
        check_out_dir(out)
        from lifeline.eval.report import find_curves_in, write_report

        path = write_report(results, out, curves=find_curves_in(runs) if runs else None,
                            on_conflict=on_conflict.value)
        typer.echo(f"report written to {path}")

    @train_app.command("ppo")
    @friendly_errors
    def train_ppo_cmd(
        env: Annotated[str, typer.Argument(help=env_help(), autocompletion=complete_env)],
        scenario: Annotated[str | None, typer.Option(
            "--scenario", "-s", help="Scenario (default: the env's first; `lifeline list`).")
        ] = None,
        timesteps: Annotated[int, typer.Option(
            "--timesteps", "-n", help="Environment steps (rounded up to whole rollouts of "
                                      "n_envs × n_steps; the total with --resume).")] = 100_000,
        seed: Annotated[int, typer.Option(help="Run seed (a training seed, 0..899999).")] = 0,
        out: Annotated[Path | None, typer.Option(
            "--out", "-o", help="Run directory (default: runs/ppo/ENV-SCENARIO-sSEED).")] = None,
        bc_episodes: Annotated[int, typer.Option(
            help="Warm-start by behaviour cloning of the env's reference baseline on this many "
                 "training episodes.")] = 0,
        max_minutes: Annotated[float | None, typer.Option(
            help="Stop after this much wall time.")] = None,
        sets: Annotated[list[str] | None, typer.Option(
            "--set", metavar="KEY=VALUE",
            help="Override a hyperparameter (repeatable), e.g. --set learning_rate=1e-4 "
                 "--set net_arch=128,128; keys are PPOConfig's fields.")] = None,
        config: Annotated[Path | None, typer.Option(
            "--config", help="JSON or TOML file of hyperparameters (applied before --set).")
        ] = None,
        resume: Annotated[bool, typer.Option(
            help="Continue the model in --out up to --timesteps steps in total.")] = False,
        tensorboard: Annotated[Path | None, typer.Option(
            help="Also log to TensorBoard event files in this directory (needs the "
                 "'tensorboard' extra).")] = None,
        curriculum: Annotated[bool, typer.Option(
            help="Train on the env's curriculum (easier levels of the same city first, "
                 "escalating on score); evaluate on SCENARIO.")] = False,
        progress: Annotated[bool, typer.Option(help="Progress bar.")] = True,
    ) -> None:
        """Train MaskablePPO on ENV/SCENARIO and save model, metadata and learning curve.

        Ctrl-C saves the model trained so far; continue it with --resume.
        """
        from lifeline.core.extras import require
        from lifeline.core.registry import resolve_scenario
        from lifeline.core.registry import spec as env_spec

        spec_ = env_spec(env)
        scen = resolve_scenario(spec_, scenario)
        require("train", "lifeline train ppo")
        if tensorboard is not None:
            require("tensorboard", "--tensorboard")
            check_out_dir(tensorboard, "--tensorboard")
        run_dir = out or Path("runs") / "ppo" / f"{spec_.name}-{scen}-s{seed}"
        check_out_dir(run_dir)
        from lifeline.train.config import build_config
        from lifeline.train.ppo import (
            PPOConfig,
            TrainingInterrupted,
            planned_timesteps,
            resume_config,
            rollout_size,
            train_ppo,
        )

        cfg = build_config(PPOConfig(bc_episodes=bc_episodes, curriculum=curriculum), config,
                           sets or [])
        if resume:  # the saved model's hyperparameters decide the rollout size
            if sets or config:
                raise UserError("--resume continues with the saved run's hyperparameters; "
                                "drop --set/--config")
            cfg = resume_config(run_dir, spec_.name, scen, cfg)[1]
        planned = planned_timesteps(timesteps, cfg)
        if planned != timesteps:
            note(f"training {planned:,} steps: {timesteps:,} rounded up to whole rollouts of "
                 f"{rollout_size(cfg):,} ({cfg.n_envs} envs × {cfg.n_steps} steps)")
        try:
            result = train_ppo(spec_.name, scen, timesteps, run_dir, seed=seed, config=cfg,
                               progress_bar=progress, max_minutes=max_minutes, resume=resume,
                               tensorboard=tensorboard)
        except TrainingInterrupted as stop:
            meta = stop.result.metadata
            note(f"interrupted after {meta['timesteps']:,} steps; model saved to "
                 f"{stop.result.model_path}; continue with: lifeline train ppo {spec_.name} "
                 f"-s {scen} -n {timesteps} --out {run_dir} --resume")
            raise typer.Exit(INTERRUPTED) from None
        meta = result.metadata
        typer.echo(f"trained {meta['timesteps']:,} steps in {meta['wall_s']:.0f} s; "
                   f"model: {result.model_path}; use --agents ppo:{result.out_dir}")

    register_fastppo(train_app)
    register_pointer(train_app)

    from lifeline.cli.llm import register_grpo

    register_grpo(train_app)
    app.add_typer(train_app, name="train")


def register_fastppo(train_app: typer.Typer) -> None:
    """Add ``lifeline train fastppo`` (masked PPO on the batch ED-v3 kernel)."""

    @train_app.command("fastppo")
    @friendly_errors
    def train_fastppo_cmd(
        env: Annotated[str, typer.Argument(
            help="Environment: 'ed' runs the batch-kernel PPO; any other env the entity-pointer "
                 "recipe (as `lifeline train pointer ENV --scenario S`).")] = "ed",
        scenario: Annotated[str, typer.Option("--scenario", "-s", help="Scenario.")] = "surge",
        cpu_seconds: Annotated[float, typer.Option(
            help="Training CPU seconds (process_time; evaluations excluded).")] = 120.0,
        seed: Annotated[int, typer.Option(help="Run seed (a training seed).")] = 0,
        out: Annotated[Path | None, typer.Option(
            "--out", "-o", help="Output directory (ed: results/ed/fastppo; other envs: "
                                "runs/pointer/ENV_SCENARIO).")] = None,
        target: Annotated[float | None, typer.Option(
            help="Score to reach (e.g. the heuristic's on the same validation seeds); the curve "
                 "records when it is first reached.")] = None,
        stop_at_target: Annotated[bool, typer.Option(help="Stop once reached.")] = False,
        sets: Annotated[list[str] | None, typer.Option(
            "--set", metavar="KEY=VALUE",
            help="Override a FastPPOConfig field (repeatable), e.g. --set num_envs=256.")] = None,
        json_out: Annotated[Path | None, typer.Option(
            "--json", help="After training: play the selected model (agent 'learned') and the "
                           "reference on the 30 held-out seeds and write a `lifeline compare "
                           "--json` file here (records of other scenarios in it are kept).")
                            ] = None,
    ) -> None:
        """Masked PPO on the batch ED-v3; writes curve.json, curve.png and model.pt."""
        import dataclasses
        import json

        from lifeline.core.extras import require

        if env != "ed":  # no batch kernel: the generic entity-pointer recipe
            run_pointer(env, scenario, cpu_seconds, seed, out, json_out, 30, sets)
            return
        out = out or Path("results/ed/fastppo")
        require("train", "lifeline train fastppo")
        require("fast", "lifeline train fastppo")
        from lifeline.train.ed.fastppo import FastPPOConfig, train_fast_ppo

        cfg = FastPPOConfig()
        types = {f.name: f.type for f in dataclasses.fields(cfg)}
        for item in sets or []:
            key, _, value = item.partition("=")
            if key not in types:
                raise UserError(f"unknown FastPPOConfig field {key!r}; one of {', '.join(types)}")
            current = getattr(cfg, key)
            setattr(cfg, key, (value.lower() in ("1", "true", "yes")) if isinstance(current, bool)
                    else type(current)(value))
        result = train_fast_ppo(scenario, cpu_seconds, out, seed=seed, config=cfg,
                                target=target, stop_at_target=stop_at_target,
                                log=typer.echo)
        best = max((p["eval_score"] for p in result.points), default=float("nan"))
        typer.echo(json.dumps({"out": str(out), "best_eval_score": best,
                               "reached_at_cpu_s": result.reached_at_cpu_s}))
        if json_out is not None:
            from lifeline.train.ed.fastppo import held_out_comparison

            earlier = json.loads(json_out.read_text()) if json_out.exists() else None
            report = held_out_comparison(scenario, out, 30, earlier=earlier)
            json_out.parent.mkdir(parents=True, exist_ok=True)
            json_out.write_text(json.dumps(report, indent=2) + "\n")
            typer.echo(json.dumps({"paired": [r for r in report["paired"]
                                              if r["scenario"] == scenario],
                                   "paired_harm": [r for r in report["paired_harm"]
                                                   if r["scenario"] == scenario]}))


def register_pointer(train_app: typer.Typer) -> None:
    """Add ``lifeline train pointer`` (the entity-pointer recipe on any env)."""

    @train_app.command("pointer")
    @friendly_errors
    def train_pointer_cmd(
        env: Annotated[str, typer.Argument(help=env_help(), autocompletion=complete_env)],
        scenario: Annotated[str | None, typer.Option("--scenario", "-s", help="Scenario.")
                            ] = None,
        cpu_seconds: Annotated[float, typer.Option(
            help="Training CPU budget (process_time), checked between rounds.")] = 600.0,
        seed: Annotated[int, typer.Option(help="Run seed (a training seed).")] = 0,
        out: Annotated[Path | None, typer.Option(
            "--out", "-o", help="Run directory (default runs/pointer/ENV_SCENARIO).")] = None,
        json_path: Annotated[Path | None, typer.Option(
            "--json", help="Write the held-out comparison (learned vs reference) here.")
                             ] = None,
        episodes: Annotated[int, typer.Option(
            help="Held-out episodes for the final comparison (0: skip it).")] = 30,
        sets: Annotated[list[str] | None, typer.Option(
            "--set", metavar="KEY=VALUE",
            help="Override a PointerConfig field (repeatable), e.g. --set ppo_iters=10.")
                        ] = None,
    ) -> None:
        """Cloning + DAgger + anchored PPO for the pointer policy; held-out paired comparison."""
        run_pointer(env, scenario, cpu_seconds, seed, out, json_path, episodes, sets)


def run_pointer(env: str, scenario: str | None, cpu_seconds: float, seed: int, out: Path | None,
                json_path: Path | None, episodes: int, sets: list[str] | None) -> None:
    """``lifeline train pointer`` (and ``fastppo`` on envs without a batch kernel): train, then
    the held-out paired comparison (learned vs reference)."""
    import dataclasses
    import json

    from lifeline.core.extras import require
    from lifeline.core.registry import resolve_scenario, spec

    require("train", "lifeline train pointer")
    from lifeline.train.pointer import PointerConfig, held_out_comparison, train_pointer

    env_spec = spec(env)
    scen = resolve_scenario(env_spec, scenario)
    cfg = PointerConfig(env_spec.name, scen, seed=seed, cpu_seconds=cpu_seconds)
    types = {f.name: type(getattr(cfg, f.name)) for f in dataclasses.fields(cfg)}
    for item in sets or []:
        key, _, value = item.partition("=")
        if key not in types or key in ("env", "scenario"):
            raise UserError(f"unknown PointerConfig field {key!r}; one of {', '.join(types)}")
        setattr(cfg, key, types[key](value))
    run_dir = out or Path("runs/pointer") / f"{env_spec.name}_{scen}"
    meta = train_pointer(cfg, run_dir)
    note(f"trained in {meta['cpu_s']} CPU s; best validation score "
         f"{meta['best_validation_score']:.4f}; model: {run_dir}")
    if episodes > 0:
        teacher = [cfg.teacher] if cfg.teacher and cfg.teacher != env_spec.reference else []
        result = held_out_comparison(env_spec.name, scen, run_dir, episodes, also=teacher)
        result["training"] = {k: meta[k] for k in ("config", "cpu_s",
                                                    "best_validation_score", "history")}
        if json_path is not None:
            json_path.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps(result, indent=2) + "\n")
        typer.echo(json.dumps({"paired": result["paired"],
                               "paired_harm": result["paired_harm"]}))
