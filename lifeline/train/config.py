"""Hyperparameter overrides for ``lifeline train ppo``: ``--set key=value`` and ``--config FILE``.

A config file is JSON or TOML (by suffix) mapping :class:`~lifeline.train.ppo.PPOConfig` field
names to values; ``--set`` items are applied after it, in order. Values are converted to the
field's type (``--set net_arch=128,128``, ``--set learning_rate=1e-4``); unknown keys and
unconvertible values are errors that list the valid keys. No torch import here.
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

C = TypeVar("C")


def _convert(kind: str, key: str, value: Any) -> Any:
    """``value`` as the field type named ``kind`` (the dataclass's string annotation)."""
    try:
        if kind.startswith("tuple"):
            items = value if isinstance(value, (list, tuple)) else [
                v for v in str(value).strip("()[] ").split(",") if v.strip()]
            return tuple(int(v) for v in items)
        if kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(value)
            return text in ("true", "1", "yes")
        if kind == "int":
            number = float(value)
            if number != int(number):
                raise ValueError(value)
            return int(number)
        if kind == "float":
            return float(value)
        return str(value)
    except (TypeError, ValueError):
        raise ValueError(f"{key}={value!r}: expected {kind}") from None


def read_config_file(path: Path) -> dict[str, Any]:
    """The mapping in a ``.json`` or ``.toml`` file (a clear error naming the file otherwise)."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"--config {path}: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        kind = "TOML" if path.suffix == ".toml" else "JSON"
        raise ValueError(f"--config {path}: not valid {kind} ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"--config {path}: expected a mapping of hyperparameters")
    return data


def parse_sets(items: Sequence[str]) -> dict[str, str]:
    """``["a=1", "b=x"]`` -> ``{"a": "1", "b": "x"}`` (later items win)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r}: expected KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def apply_overrides(config: C, overrides: Mapping[str, Any]) -> C:
    """A copy of dataclass ``config`` with ``overrides`` converted to each field's type."""
    fields = {f.name: str(f.type) for f in dataclasses.fields(config)}  # type: ignore[arg-type]
    unknown = sorted(set(overrides) - set(fields))
    if unknown:
        raise ValueError(f"unknown hyperparameter(s) {', '.join(unknown)}; valid: "
                         f"{', '.join(fields)}")
    values = {k: _convert(fields[k], k, v) for k, v in overrides.items()}
    return dataclasses.replace(config, **values)  # type: ignore[type-var]


def build_config(config: C, file: Path | None = None, sets: Sequence[str] = ()) -> C:
    """``config`` overridden by ``file`` (if any) and then by the ``--set`` items."""
    if file is not None:
        config = apply_overrides(config, read_config_file(file))
    return apply_overrides(config, parse_sets(sets))
