"""CLI pieces for LLM agents: ``lifeline train grpo`` and the options of ``llm:``/``hf:`` agents.

The LLM agents read their settings from environment variables (so that evaluation worker
processes inherit them, see :mod:`lifeline.agents.llm`); :func:`apply_llm_options` sets them from
the command-line flags. Heavy imports (trl, transformers) happen inside the command.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import typer


def apply_llm_options(base_url: str | None = None, api_key_env: str | None = None,
                      max_repairs: int | None = None, rate_limit: float | None = None,
                      transcripts: Path | None = None, explicit: bool = False,
                      workers: int = 1) -> None:
    """Export the ``LIFELINE_LLM_*`` variables an ``llm:``/``hf:`` agent reads.

    ``rate_limit`` is the total requests per second; each of the ``workers`` processes gets its
    share. The API key itself is never passed: only the *name* of the variable that holds it.
    """
    settings = {
        "LIFELINE_LLM_BASE_URL": base_url,
        "LIFELINE_LLM_API_KEY_ENV": api_key_env,
        "LIFELINE_LLM_MAX_REPAIRS": None if max_repairs is None else str(max_repairs),
        "LIFELINE_LLM_RATE": None if rate_limit is None else str(rate_limit / max(1, workers)),
        "LIFELINE_LLM_TRANSCRIPTS": None if transcripts is None else str(transcripts),
        "LIFELINE_LLM_EXPLICIT": "1" if explicit else None,
    }
    if max_repairs is not None and max_repairs < 0:
        raise ValueError(f"--max-repairs must be >= 0, got {max_repairs}")
    if transcripts is not None and transcripts.exists() and not transcripts.is_dir():
        raise ValueError(f"--transcripts {transcripts} exists and is not a directory")
    for key, value in settings.items():
        if value is not None:
            os.environ[key] = value


def _parse_sets(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--set expects key=value, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def _settings(pairs: list[str]) -> object:
    from lifeline.train.grpo import GRPOSettings

    known = {f.name: f for f in dataclasses.fields(GRPOSettings) if f.name != "extra"}
    values: dict[str, object] = {}
    extra: dict[str, object] = {}
    for key, text in _parse_sets(pairs).items():
        field = known.get(key)
        kind: type | None = type(field.default) if field is not None else None
        try:
            value: object = (text.lower() in ("1", "true", "yes") if kind is bool
                             else kind(text) if kind is not None else _literal(text))
        except ValueError as exc:
            raise ValueError(f"--set {key}: {exc}") from None
        (values if field is not None else extra)[key] = value
    return GRPOSettings(**values, extra=extra)  # type: ignore[arg-type]


def _literal(text: str) -> object:
    import json

    try:
        parsed: object = json.loads(text)
        return parsed
    except ValueError:
        return text


RUN_FILES = ("model", "metadata.json", "log.jsonl")
"""What a finished ``train grpo`` run leaves in ``--out``."""


def check_no_previous_run(run_dir: Path, force: bool) -> None:
    """Refuse (``ValueError``) to overwrite a previous GRPO run in ``run_dir`` unless ``force``."""
    found = [name for name in RUN_FILES if (run_dir / name).exists()]
    if found and not force:
        raise ValueError(f"--out {run_dir} already holds a GRPO run ({', '.join(found)}); "
                         f"choose another --out or pass --force to overwrite it")


def register_grpo(train_app: typer.Typer) -> None:
    """Add ``train grpo`` and ``train tiny-lm`` to the ``train`` command group."""

    @train_app.command("tiny-lm")
    def train_tiny_cmd(
        out: Path = typer.Option(Path("runs/tiny-lm"), "--out", "-o",
                                 help="Directory for the model (transformers format)."),
        envs: str = typer.Option("ed,dispatch", "--envs", help="Environments whose text "
                                 "face the tokenizer and the SFT examples come from."),
        sft_steps: int = typer.Option(150, "--sft-steps", help="Supervised steps on the "
                                      "<tool_call> format (0: a random model)."),
        turns: int = typer.Option(60, "--turns", help="Transcript turns per environment."),
        force: bool = typer.Option(False, "--force", help="Overwrite a model in --out."),
    ) -> None:
        """Build the tiny local Qwen3 (tokenizer, 2 layers, SFT on tool calls; no download).

        Then: `lifeline train grpo ed --model OUT` or `lifeline eval ed --agents hf:OUT`.
        """
        from lifeline.cli.common import UserError, check_out_dir, fail
        from lifeline.core.extras import MissingExtra, require
        from lifeline.core.registry import spec

        try:
            names = [spec(e.strip()).name for e in envs.split(",") if e.strip()]
            if sft_steps < 0 or turns < 1:
                raise ValueError("--sft-steps must be >= 0 and --turns >= 1")
            check_out_dir(out)
            if (out / "config.json").exists() and not force:
                raise ValueError(f"--out {out} already holds a model; choose another --out "
                                 f"or pass --force to overwrite it")
            require("grpo", "lifeline train tiny-lm")
        except (KeyError, ValueError, UserError, MissingExtra) as exc:  # one line, exit 2
            raise fail(exc.args[0] if exc.args else exc) from None
        from lifeline.train.tiny_lm import build_tiny_model

        built = build_tiny_model(out, names, turns_per_env=turns, sft_steps=sft_steps)
        loss = ("" if built["sft_loss_first"] is None else
                f", SFT loss {built['sft_loss_first']:.2f} -> {built['sft_loss_last']:.2f}")
        typer.echo(f"tiny model in {out}: {built['parameters']:,} parameters, "
                   f"{built['examples']} examples{loss}; use it with --model {out} or hf:{out}")

    @train_app.command("grpo")
    def train_grpo_cmd(
        env: str = typer.Argument(..., help="Environment id (comma-separated for several, "
                                  "e.g. 'ed,dispatch')."),
        model: Path = typer.Option(None, "--model", help="Local model directory (transformers "
                                   "format with a tool-calling chat template)."),
        tiny: bool = typer.Option(False, "--tiny", help="Build the tiny local Qwen3 first "
                                  "(OUT/tiny-model, as `lifeline train tiny-lm` does) and "
                                  "train it: a CPU smoke run, nothing downloaded."),
        force: bool = typer.Option(False, "--force", help="Overwrite a previous run in --out "
                                   "(GRPO runs do not resume)."),
        scenario: str = typer.Option(None, "--scenario", "-s", help="Scenario (one env only)."),
        server: str = typer.Option(None, "--server", help="Train against a running "
                                   "`lifeline serve` URL instead of in-process envs."),
        token_env: str = typer.Option(None, "--token-env", help="Name of the environment "
                                      "variable holding the server's bearer token."),
        out: Path = typer.Option(None, "--out", "-o", help="Run directory "
                                 "(default: runs/grpo/ENV)."),
        sets: list[str] = typer.Option([], "--set", help="Setting key=value (steps, batch_size, "
                                       "num_generations, learning_rate, max_completion_length, "
                                       "max_tool_calling_iterations, temperature, brief, seed, or "
                                       "any GRPOConfig field)."),
    ) -> None:
        """GRPO with TRL on ENV through its tool face (see docs/llm.md).

        `lifeline train grpo ed --tiny` builds a tiny local model and runs GRPO on it (CPU).
        """
        from lifeline.cli.common import UserError, check_out_dir, fail
        from lifeline.core.extras import MissingExtra, require
        from lifeline.core.registry import resolve_scenario, spec

        try:
            names = [spec(e.strip()).name for e in env.split(",") if e.strip()]
            if scenario is not None:
                if len(names) != 1:
                    raise ValueError("--scenario needs exactly one environment")
                resolve_scenario(spec(names[0]), scenario)
            if (model is None) == (not tiny):
                raise ValueError("give --model PATH (a local model directory) or --tiny")
            if model is not None and not model.is_dir():
                raise ValueError(f"--model {model}: not a directory")
            settings = _settings(sets)
            run_dir = out or Path("runs") / "grpo" / "-".join(names)
            check_out_dir(run_dir)
            check_no_previous_run(run_dir, force)
            require("grpo", "lifeline train grpo")
        except (KeyError, ValueError, UserError, MissingExtra) as exc:  # one line, exit 2
            raise fail(exc.args[0] if exc.args else exc) from None
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from lifeline.train.grpo import train

        if tiny:
            from lifeline.train.tiny_lm import build_tiny_model

            model = run_dir / "tiny-model"
            typer.echo(f"building the tiny local model in {model} ...", err=True)
            built = build_tiny_model(model, sorted(set(names) | {"ed"}))
            typer.echo(f"tiny model: {built['parameters']:,} parameters, SFT loss "
                       f"{built['sft_loss_first']:.2f} -> {built['sft_loss_last']:.2f}", err=True)
        try:
            tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=True)
            lm = AutoModelForCausalLM.from_pretrained(model, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise fail(f"--model {model}: cannot load a model there "
                       f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
                       ) from None
        token = os.environ.get(token_env) if token_env else None
        result = train(names, lm, run_dir, settings, scenario=scenario,  # type: ignore[arg-type]
                       server_url=server, token=token, tokenizer=tokenizer)
        typer.echo(f"GRPO: {len(result['history'])} log rows in {result['wall_s']:.0f} s; "
                   f"model, metadata.json and log.jsonl in {run_dir}")
