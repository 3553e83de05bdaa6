"""GRPO with TRL on any Lifeline environment: an ``environment_factory`` built from the tool layer.

:func:`environment_factory` returns a class that TRL's ``GRPOTrainer(environment_factory=...)``
instantiates once per rollout. Built from the env's action types and nothing else:

* one public method per action type (``admit_icu(self, slot: int) -> str``) with type hints and a
  Google-style ``Args:`` docstring, so TRL renders it as a tool; calling it steps the environment
  and returns the next observation as text (an illegal call is a wasted, penalised turn — the
  result says why; a call after the end raises, which TRL turns into ``{"error": ...}``);
* ``reset(**row)`` starting an episode (the row may carry ``seed`` and ``scenario``; otherwise a
  fresh *training* seed is drawn) and returning the text observation;
* ``get_reward()``: the grader's score in [0, 1] of the episode — the turns the model did not
  take (it stopped or ran out of tool-call iterations) are played as do-nothing turns first, so
  stopping early can never hide harm that was still coming.

Episodes run in-process (the core env) or against a ``lifeline serve`` URL over the WebSocket
(:class:`lifeline.serve.client.LifelineClient`): the same class, ``server_url=...``.

:func:`train` wraps ``GRPOTrainer`` for ``lifeline train grpo``; see ``docs/llm.md`` for the GPU
recipe. Facts about TRL on CPU: ``../shared/notes/trl-grpo.md``.
"""

from __future__ import annotations

import inspect
import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lifeline.core.registry import make, resolve_scenario, spec
from lifeline.eval.seeds import train_seed_stream
from lifeline.faces.tools import (
    LegalView,
    ToolSpec,
    format_call,
    parse_tool_call,
    text_observation,
    tool_specs,
)

TASK_PROMPT = ("You operate the Lifeline environment '{env}' ({description}). Call one tool per "
               "turn; each call advances the simulation and returns the new situation. Scores "
               "follow outcomes: lives first.")


class EpisodeOver(RuntimeError):
    """Raised by a tool after the episode ended (TRL shows the message as the tool's error)."""


class _Session:
    """One episode, in-process or remote; the factory class delegates to it."""

    def reset(self, seed: int, scenario: str) -> str:
        raise NotImplementedError

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        raise NotImplementedError

    def final_score(self) -> float:
        raise NotImplementedError


class LocalSession(_Session):
    def __init__(self, env_name: str, brief: bool) -> None:
        self.env_name, self.brief = env_name, brief
        self.env: Any = None
        self.state: Any = None

    def reset(self, seed: int, scenario: str) -> str:
        self.env = make(self.env_name, scenario)
        self.state = self.env.reset(seed)
        return text_observation(self.env, self.state)

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.state is None or self.state.done:
            raise EpisodeOver("the episode is over; nothing more can be done")
        action = parse_tool_call(self.env, name, arguments)
        ts = self.env.step(self.state, action)
        head = (f"{format_call(action)}: ok, reward {ts.reward:+.2f}" if ts.valid else
                f"{format_call(action)}: INVALID ({ts.message}); the turn was used")
        if self.state.done:
            return f"{head}\nThe episode is over; score {self.env.grade(self.state).score:.3f}."
        if self.brief:  # the legal calls only: no need to render the whole situation
            return "\n".join([head, *LegalView(self.env, self.state).lines()])
        return f"{head}\n\n{text_observation(self.env, self.state)}"

    def final_score(self) -> float:
        if self.state is None:
            return 0.0
        while not self.state.done:
            self.env.step(self.state, self.env.noop_action())
        return float(self.env.grade(self.state).score)


class RemoteSession(_Session):
    """The same over ``lifeline serve`` (one WebSocket session per rollout)."""

    def __init__(self, env_name: str, url: str, token: str | None, brief: bool) -> None:
        from lifeline.serve.client import LifelineClient

        self.env_name, self.brief = env_name, brief
        self.client = LifelineClient(url, env_name, token=token).sync()
        self.client.connect()
        self.noop = make(env_name).noop_action()
        self.result: Any = None

    def reset(self, seed: int, scenario: str) -> str:
        self.result = self.client.reset(seed=seed, scenario=scenario)
        return str(self.result.observation.text)

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.result is None or self.result.done:
            raise EpisodeOver("the episode is over; nothing more can be done")
        self.result = self.client.call(name, **arguments)
        obs = self.result.observation
        head = "ok" if obs.valid else f"INVALID ({obs.error}); the turn was used"
        if self.result.done:
            return f"{head}\nThe episode is over; score {obs.score:.3f}."
        return f"{head}\n\n{obs.text}"

    def final_score(self) -> float:
        if self.result is None:
            return 0.0
        while not self.result.done:
            self.result = self.client.act(self.noop)
        return float(self.result.observation.score or 0.0)


def _tool_method(tool: ToolSpec) -> Callable[..., str]:
    """A method ``tool.name(self, **args) -> str`` whose signature and docstring TRL can read."""

    def method(self: Any, **arguments: Any) -> str:
        return str(self._session.call(tool.name, arguments))

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for p in tool.params:
        default = p.default if not p.required else inspect.Parameter.empty
        params.append(inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                        default=default, annotation=p.py_type))
        annotations[p.name] = p.py_type
    annotations["return"] = str
    lines = [tool.description.strip().splitlines()[0] if tool.description.strip() else tool.name]
    if tool.params:
        lines += ["", "Args:"]
        lines += [f"    {p.name}: {p.doc or p.json_type}" for p in tool.params]
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    method.__name__ = method.__qualname__ = tool.name
    method.__doc__ = "\n".join(lines) + "\n"
    return method


def environment_factory(env_name: str, scenario: str | None = None, *,
                        server_url: str | None = None, token: str | None = None,
                        brief: bool = False, train_seed: int = 0) -> type:
    """A TRL environment class for ``env_name`` (see the module docstring)."""
    env_spec = spec(env_name)
    default_scenario = resolve_scenario(env_spec, scenario)
    seeds: Iterator[int] = train_seed_stream(train_seed)
    core = make(env_spec.name, default_scenario)

    def __init__(self: Any) -> None:
        self._session = (RemoteSession(env_spec.name, server_url, token, brief) if server_url
                         else LocalSession(env_spec.name, brief))

    def reset(self: Any, **row: Any) -> str:
        seed = int(row["seed"]) if row.get("seed") is not None else next(seeds)
        return str(self._session.reset(seed, str(row.get("scenario") or default_scenario)))

    def get_reward(self: Any) -> float:
        return float(self._session.final_score())

    members: dict[str, Any] = {"__init__": __init__, "reset": reset, "get_reward": get_reward,
                               "__doc__": f"Lifeline '{env_spec.name}' as TRL tools."}
    for tool in tool_specs(core):
        members[tool.name] = _tool_method(tool)
    class_name = "".join(part.title() for part in env_spec.name.split("_")) + "ToolEnv"
    return type(class_name, (), members)


@dataclass
class GRPOSettings:
    """Knobs of :func:`train` (the CLI's ``--set key=value`` names)."""

    steps: int = 50
    batch_size: int = 4
    num_generations: int = 4
    learning_rate: float = 1e-5
    max_completion_length: int = 1024
    max_tool_calling_iterations: int = 16
    temperature: float = 1.0
    brief: bool = True
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    """Any other ``GRPOConfig`` field."""


def prompts_dataset(env_names: list[str], n: int, scenario: str | None = None) -> Any:
    """A ``datasets.Dataset`` of ``n`` prompts per env (an ``environment`` column when several)."""
    from datasets import Dataset

    rows = []
    for _, env_name in itertools.product(range(n), env_names):  # interleaved: batches mix envs
        env_spec = spec(env_name)
        rows.append({"prompt": [{"role": "user", "content": TASK_PROMPT.format(
            env=env_spec.name, description=env_spec.description)}],
            **({"environment": env_name} if len(env_names) > 1 else {}),
            "scenario": resolve_scenario(env_spec, scenario if len(env_names) == 1 else None)})
    return Dataset.from_list(rows)


def train(env_names: list[str], model: Any, out: Path, settings: GRPOSettings,
          scenario: str | None = None, server_url: str | None = None,
          token: str | None = None, tokenizer: Any = None) -> dict[str, Any]:
    """Run GRPO; writes the model, ``metadata.json`` and ``log.jsonl`` (the curve) under ``out``."""
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer

    out.mkdir(parents=True, exist_ok=True)
    factories = {e: environment_factory(e, scenario if len(env_names) == 1 else None,
                                        server_url=server_url, token=token,
                                        brief=settings.brief, train_seed=settings.seed)
                 for e in env_names}
    config = GRPOConfig(
        output_dir=str(out), max_steps=settings.steps,
        per_device_train_batch_size=settings.batch_size,
        num_generations=settings.num_generations, learning_rate=settings.learning_rate,
        max_completion_length=settings.max_completion_length,
        max_tool_calling_iterations=settings.max_tool_calling_iterations,
        temperature=settings.temperature, use_cpu=True, bf16=False, logging_steps=1,
        report_to=[], save_strategy="no", seed=settings.seed, **settings.extra)
    dataset = prompts_dataset(env_names, max(settings.batch_size, settings.steps), scenario)
    factory: Any = factories if len(env_names) > 1 else factories[env_names[0]]
    trainer = GRPOTrainer(model=model, args=config, train_dataset=dataset,
                          environment_factory=factory, processing_class=tokenizer)
    start = time.perf_counter()
    trainer.train()
    wall = time.perf_counter() - start
    trainer.save_model(str(out / "model"))
    history = trainer.state.log_history
    with (out / "log.jsonl").open("w") as fh:
        for row in history:
            fh.write(json.dumps(row) + "\n")
    meta = {"envs": env_names, "scenario": scenario, "server_url": server_url,
            "settings": asdict(settings), "wall_s": wall,
            "tool_calls": sum(float(r.get("tools/call_frequency", 0.0)) for r in history)}
    (out / "metadata.json").write_text(json.dumps(meta, indent=2))
    return {"history": history, **meta}
