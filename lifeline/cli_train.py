"""CLI commands for training and reporting; ``lifeline.cli`` calls :func:`register` to add them.

* ``lifeline report RESULTS.json [MORE.json ...] [--out DIR]`` — Markdown report + PNG plots.
* ``lifeline train ppo ENV --scenario S --timesteps N [--seed K] [--out DIR]`` — MaskablePPO.

Heavy imports (torch, sb3, matplotlib) happen inside the commands so ``lifeline --help`` is fast.
"""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Add the ``report`` command and the ``train`` command group to ``app``."""
    train_app = typer.Typer(help="Train agents (MaskablePPO) on training seeds only.",
                            no_args_is_help=True)

    @app.command("report")
    def report_cmd(
        results: list[Path] = typer.Argument(..., help="Results JSON file(s) from eval/compare."),
        out: Path = typer.Option(Path("report"), "--out", "-o", help="Output directory."),
        runs: Path = typer.Option(None, "--runs", help="Directory of training runs "
                                  "(metadata.json + learning_curve.csv) for learning curves; "
                                  "default: beside the ppo:PATH models in the results."),
    ) -> None:
        """Write a Markdown report with CIs, paired differences and plots from results JSON."""
        from lifeline.eval.report import find_curves_in, write_report

        missing = [str(p) for p in [*results, *([runs] if runs else [])] if not p.exists()]
        if missing:
            raise typer.BadParameter(f"no such file: {', '.join(missing)}")
        try:
            path = write_report(results, out, curves=find_curves_in(runs) if runs else None)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc
        typer.echo(f"report written to {path}")

    @train_app.command("ppo")
    def train_ppo_cmd(
        env: str = typer.Argument(..., help="Environment id, e.g. 'ed'."),
        scenario: str = typer.Option(None, "--scenario", "-s", help="Scenario (default: first)."),
        timesteps: int = typer.Option(100_000, "--timesteps", "-n", help="Environment steps."),
        seed: int = typer.Option(0, "--seed", help="Run seed (a training seed, 0..999999)."),
        out: Path = typer.Option(None, "--out", "-o", help="Run directory "
                                 "(default: runs/ppo/ENV-SCENARIO-sSEED)."),
        bc_episodes: int = typer.Option(0, "--bc-episodes", help="Warm-start by behaviour "
                                        "cloning of the heuristic on this many training episodes."),
        max_minutes: float = typer.Option(None, "--max-minutes", help="Stop after this much "
                                          "wall time."),
        curriculum: bool = typer.Option(False, "--curriculum", help="Train on the env's "
                                        "curriculum (easier levels of the same city first, "
                                        "escalating on score); evaluate on SCENARIO."),
        progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bar."),
    ) -> None:
        """Train MaskablePPO on ENV/SCENARIO and save model, metadata and learning curve."""
        from lifeline.core.registry import resolve_scenario
        from lifeline.core.registry import spec as env_spec
        from lifeline.train.ppo import PPOConfig, train_ppo

        try:
            spec_ = env_spec(env)
            scen = resolve_scenario(spec_, scenario)
        except (KeyError, ValueError) as exc:
            raise typer.BadParameter(str(exc.args[0] if exc.args else exc)) from exc
        run_dir = out or Path("runs") / "ppo" / f"{spec_.name}-{scen}-s{seed}"
        try:
            result = train_ppo(spec_.name, scen, timesteps, run_dir, seed=seed,
                               config=PPOConfig(bc_episodes=bc_episodes,
                                                curriculum=curriculum),
                               progress_bar=progress, max_minutes=max_minutes)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc
        meta = result.metadata
        typer.echo(f"trained {meta['timesteps']} steps in {meta['wall_s']:.0f} s; "
                   f"model: {result.model_path}; use --agent ppo:{result.out_dir}")

    app.add_typer(train_app, name="train")
