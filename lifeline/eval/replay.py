"""Episode replays: compact JSONL files that the web viewer plays and that re-simulate exactly.

A replay is one JSON object per line:

* ``header`` — ``format``, ``env``, ``env_version``, ``scenario``, ``seed``, ``agent``,
  ``package_version``, ``created`` and ``static`` (the parts of the picture that never change,
  e.g. a road graph: :meth:`Environment.frame_static`);
* one ``step`` line per state, the first for the state after ``reset`` (``i`` = 0, no action):
  the ``action`` sent (``{"kind": ..., fields}``; its integer ``index`` when it has one),
  ``valid`` and the validity ``message``, the ``reward``, the running ``return``, the running
  grade (``score`` and ``components``) and the ``frame``. To stay compact a frame lists only the
  top-level keys that changed since the previous one (the viewer merges them);
* a ``footer`` with the final grade, its metrics, steps, return and invalid count.

Everything after the header is a deterministic function of (env, version, scenario, seed, agent's
prepared environment, actions), so :func:`verify` re-simulates the actions and compares the bytes.
Recording is opt-in (``lifeline run --record``, ``lifeline eval --record``); when off nothing here
runs.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import gzip
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from lifeline.core.env import Action, Environment, TimeStep
from lifeline.core.jsonable import clean
from lifeline.eval.episode import run_episode

FORMAT = "lifeline-replay/1"


def dumps(obj: Any) -> str:
    """The one serialisation every replay line uses (compact, key order as built)."""
    return json.dumps(clean(obj), separators=(",", ":"), allow_nan=False)


def _action_fields(env: Environment, action: Any) -> tuple[dict[str, Any] | None, int | None]:
    """``(semantic description, integer index)`` of what the agent sent (either may be None)."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        index = int(action)
        try:
            return env.decode(index).to_dict(), index
        except ValueError:
            return None, index
    if isinstance(action, Action):
        try:
            encoded: int | None = env.encode(action)
        except ValueError:
            encoded = None
        return action.to_dict(), encoded
    return {"kind": "unknown", "repr": repr(action)}, None


def action_from_record(env: Environment, line: dict[str, Any]) -> Any:
    """The action a ``step`` line recorded, ready for ``env.step`` (index first, else fields)."""
    if line.get("index") is not None:
        return int(line["index"])
    data = dict(line.get("action") or {})
    kind = data.pop("kind", None)
    for cls in env.action_types:
        if cls.kind == kind:
            return cls(**data)
    return data.get("repr", "unknown action")  # replays as the same invalid action


class Recorder:
    """Writes one episode's replay to ``out`` as it is played (see the module docstring)."""

    def __init__(self, out: IO[str], env_name: str, scenario: str, seed: int, agent: str,
                 created: str | None = None) -> None:
        self.out = out
        self.env_name, self.scenario, self.seed, self.agent = env_name, scenario, seed, agent
        self.created = created or _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        self._last: dict[str, Any] = {}
        self._total = 0.0
        self._i = 0

    def start(self, env: Environment, state: Any) -> None:
        """Write the header and the frame after ``reset``."""
        from lifeline import __version__

        self.out.write(dumps({
            "type": "header", "format": FORMAT, "env": self.env_name,
            "env_version": env.version, "scenario": self.scenario, "seed": self.seed,
            "agent": self.agent, "package_version": __version__, "created": self.created,
            "num_actions": env.num_actions, "static": env.frame_static(),
        }) + "\n")
        self._write_step(env, state, None, None)

    def step(self, env: Environment, state: Any, action: Any, ts: TimeStep) -> None:
        """Write the line for the state reached by ``action``."""
        self._total += ts.reward
        self._write_step(env, state, action, ts)

    def _write_step(self, env: Environment, state: Any, action: Any,
                    ts: TimeStep | None) -> None:
        frame = clean(env.frame(state))
        delta = {k: v for k, v in frame.items() if self._last.get(k, _MISSING) != v}
        self._last = frame
        grade = env.grade(state)
        line: dict[str, Any] = {"type": "step", "i": self._i}
        if ts is not None:
            semantic, index = _action_fields(env, action)
            line.update(action=semantic, index=index, valid=ts.valid, message=ts.message,
                        reward=ts.reward, **{"return": self._total})
        line.update(score=grade.score, components=dict(grade.components), frame=delta)
        self.out.write(dumps(line) + "\n")
        self._i += 1

    def finish(self, env: Environment, state: Any) -> None:
        """Write the footer with the final grade."""
        grade = env.grade(state)
        self.out.write(dumps({
            "type": "footer", "score": grade.score, "components": dict(grade.components),
            "metrics": dict(grade.metrics), "steps": state.steps, "return": self._total,
            "invalid": state.invalid_actions,
        }) + "\n")


_MISSING = object()


SUFFIXES = (".jsonl.gz", ".jsonl", ".json")
"""Names a replay file may end with (``.gz``: gzip, the default; see :func:`replay_name`)."""


def replay_name(env: str, scenario: str, agent: str, seed: int, compress: bool = True) -> str:
    """File name for one episode's replay (agent names like ``ppo:PATH`` made file-safe);
    ``.jsonl.gz`` unless ``compress=False`` (gzip: 10-30x smaller, read the same everywhere)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", agent).strip("-") or "agent"
    return f"{env}_{scenario}_{safe}_{seed}.jsonl" + (".gz" if compress else "")


def replay_target(path: str | Path, task: Any, directory: bool = False) -> Path:
    """Where :func:`record_episode` writes ``task``'s replay for ``path``.

    An existing directory, a path ending in ``/`` or ``directory=True``: a file named by
    :func:`replay_name` inside it. A name ending in ``.jsonl``, ``.jsonl.gz`` or ``.json``: that
    file. Any other name: that name plus ``.jsonl.gz`` (so ``--record runs/ed`` writes
    ``runs/ed.jsonl.gz``, and ``lifeline view runs/ed`` finds it: :func:`find_replay`).
    """
    text = str(path)
    target = Path(path)
    if directory or target.is_dir() or text.endswith(("/", "\\")):
        return target / replay_name(task.env, task.scenario, task.agent, task.seed)
    if target.name.endswith(SUFFIXES):
        return target
    return target.with_name(target.name + ".jsonl.gz")


def find_replays(path: str | Path, most: int = 8) -> list[Path]:
    """The replay file(s) ``path`` names, for ``lifeline view``: the file itself; else the name
    plus a replay suffix (what :func:`replay_target` wrote); a directory: the replays in it (at
    most ``most``, else an error naming how many). ``FileNotFoundError`` when there is none."""
    target = Path(path)
    if target.is_file():
        return [target]
    if target.is_dir():
        found = sorted(f for f in target.iterdir() if f.is_file() and f.name.endswith(SUFFIXES))
        if not found:
            raise FileNotFoundError(f"no replay file (*.jsonl, *.jsonl.gz) in directory {path}")
        if len(found) > most:
            raise ValueError(f"{path} holds {len(found)} replays; name the ones to watch (at "
                             f"most {most} side by side), e.g. lifeline view {found[0]}")
        return found
    for suffix in SUFFIXES:
        candidate = target.with_name(target.name + suffix)
        if candidate.is_file():
            return [candidate]
    raise FileNotFoundError(f"no such replay file: {path}")


def record_episode(task: Any, path: str | Path, agent: Any = None,
                   directory: bool = False) -> dict[str, Any]:
    """Run ``task`` (a :class:`lifeline.eval.episode.Task`) writing its replay where
    :func:`replay_target` says for ``path`` (a ``.jsonl.gz`` file is gzip-compressed, 10-30x
    smaller than ``.jsonl``). Returns the usual episode record with ``replay`` (the file
    written) added.
    """
    target = replay_target(path, task, directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open_text(target, "w") as out:
        rec = Recorder(out, task.env, task.scenario, task.seed, task.agent)
        seen: list[Any] = []

        def on_step(env: Environment, state: Any) -> None:
            if not seen:
                rec.start(env, state)
                seen[:] = [env, state]

        record = run_episode(task, agent, on_step=on_step, on_transition=rec.step)
        rec.finish(*seen)
    record["replay"] = str(target)
    return record


# ----- reading and verifying -------------------------------------------------------------------
def open_text(path: str | Path, mode: str = "r") -> IO[str]:
    """A replay file opened as UTF-8 text (gzip-compressed when the name ends in ``.gz``)."""
    if str(path).endswith(".gz"):
        raw = gzip.GzipFile(path, mode + "b")  # closed with the text wrapper
        return io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    return Path(path).open(mode, encoding="utf-8", newline="\n")


def read_text(path: str | Path) -> str:
    """The whole (decompressed) text of a replay file."""
    with open_text(path) as f:
        return f.read()


def read_lines(path: str | Path) -> Iterator[dict[str, Any]]:
    """The parsed lines of a replay file."""
    with open_text(path) as f:
        for raw in f:
            if raw.strip():
                yield json.loads(raw)


def load(path: str | Path) -> dict[str, Any]:
    """A replay as ``{"header", "steps", "footer"}`` with every step's frame fully merged."""
    header: dict[str, Any] = {}
    footer: dict[str, Any] | None = None
    steps: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    for line in read_lines(path):
        kind = line.get("type")
        if kind == "header":
            header = line
        elif kind == "step":
            current = {**current, **line.get("frame", {})}
            steps.append({**line, "frame": current})
        elif kind == "footer":
            footer = line
    if header.get("format") != FORMAT:
        raise ValueError(f"{path}: not a Lifeline replay (format {header.get('format')!r})")
    return {"header": header, "steps": steps, "footer": footer}


def _played_env(header: dict[str, Any]) -> Environment:
    from lifeline.agents import make_agent
    from lifeline.core.registry import make

    base = make(header["env"], header["scenario"])
    if base.version != header["env_version"]:
        raise ValueError(f"replay was recorded with {header['env']} v{header['env_version']}, "
                         f"this is v{base.version}")
    try:
        agent = make_agent(header["agent"], header["env"])
    except (ValueError, OSError, ImportError):
        return base  # an agent that cannot be rebuilt here played the unmodified env
    played: Environment = agent.prepare(base)
    return played


def verify(path: str | Path) -> tuple[bool, str]:
    """Re-simulate a replay from its seed and actions; ``(True, "")`` if every byte matches.

    The header's ``created`` time is taken from the file; everything else is recomputed.
    """
    raw = read_text(path).splitlines(keepends=True)
    header = json.loads(raw[0])
    env = _played_env(header)
    state = env.reset(int(header["seed"]))
    buf = io.StringIO()
    rec = Recorder(buf, header["env"], header["scenario"], header["seed"], header["agent"],
                   created=header["created"])
    rec.start(env, state)
    for text in raw[1:]:
        line = json.loads(text)
        if line.get("type") != "step" or line["i"] == 0:
            continue
        action = action_from_record(env, line)
        rec.step(env, state, action, env.step(state, action))
    rec.finish(env, state)
    fresh = buf.getvalue().splitlines(keepends=True)
    for n, (a, b) in enumerate(zip(raw, fresh, strict=False)):
        if a != b:
            return False, f"line {n + 1} differs:\n  file: {a[:300]}\n  sim:  {b[:300]}"
    if len(raw) != len(fresh):
        return False, f"{len(raw)} lines in the file, {len(fresh)} re-simulated"
    return True, ""


def dataclass_fields(action_type: type[Action]) -> list[dict[str, Any]]:
    """``[{"name", "type", "doc"}]`` of an action class (for forms in the web page)."""
    out = []
    for f in dataclasses.fields(action_type):  # type: ignore[arg-type]
        out.append({"name": f.name, "type": getattr(f.type, "__name__", str(f.type)),
                    "doc": f.metadata.get("doc", "")})
    return out
