"""``lifeline calibrate ENV [--scenario S] [--episodes N] [--out DIR] [--no-plots]``.

Plays the env's reference policy on held-out seeds and writes its calibration card
(``<out>/<env>.md`` for the default scenario, ``<out>/<env>_<scenario>.md`` otherwise, plus PNG
plots; see :mod:`lifeline.calibrate`) and updates the card's row in ``<out>/README.md`` (the
index of cards). ``lifeline.cli`` calls :func:`register` to add it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lifeline.cli.common import (
    UserError,
    check_out_dir,
    complete_env,
    env_help,
    friendly_errors,
    note,
)


def register(app: typer.Typer) -> None:
    """Add the ``calibrate`` command to ``app``."""

    @app.command("calibrate")
    @friendly_errors
    def calibrate_cmd(
        env: Annotated[str, typer.Argument(help=env_help(), autocompletion=complete_env)],
        scenario: Annotated[str | None, typer.Option(
            "--scenario", "-s", help="Scenario (default: the env's first).")] = None,
        episodes: Annotated[int, typer.Option(help="Episodes (held-out seeds, >= 1).")] = 20,
        out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")
                       ] = Path("docs/calibration"),
        plots: Annotated[bool, typer.Option(
            "--plots/--no-plots", help="Write PNG plots (needs the viz extra).")] = True,
    ) -> None:
        """Write a calibration card: the env's statistics next to published references."""
        from lifeline.calibrate import calibrate, card_module
        from lifeline.calibrate.card import render, update_index
        from lifeline.core.registry import resolve_scenario, spec

        if episodes < 1:
            raise UserError(f"--episodes must be >= 1, got {episodes}")
        env_spec = spec(env)
        policy = getattr(card_module(env_spec.name), "POLICY", None) or env_spec.reference
        scen = resolve_scenario(env_spec, scenario)
        check_out_dir(out)
        if plots:
            from lifeline.core.extras import require

            require("viz", "lifeline calibrate (plots; --no-plots skips them)")
        note(f"calibrate {env_spec.name}/{scen}: {episodes} episodes of "
             f"{policy} ...")
        card = calibrate(env_spec.name, scen, episodes, out_dir=out if plots else None)
        out.mkdir(parents=True, exist_ok=True)
        name = env_spec.name if scen == env_spec.default_scenario else f"{env_spec.name}_{scen}"
        path = out / f"{name}.md"
        path.write_text(render(card, out), encoding="utf-8")
        update_index(out / "README.md", card, name)
        judged = [r for r in card.rows if r.within is not None]
        note(f"wrote {path}: {sum(bool(r.within) for r in judged)} of {len(judged)} judged "
             "statistics within band")
