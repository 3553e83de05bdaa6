"""Registry of environments: versioned ids, scenarios and tags, loaded lazily.

Each environment registers an :class:`EnvSpec` naming the class by import path, so listing
environments imports nothing heavy. ``make(name, scenario)`` builds a core environment.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lifeline.core.env import Environment


@dataclass(frozen=True)
class EnvSpec:
    """How to build one registered environment."""

    name: str
    """Short id used by the CLI and Python API, e.g. ``"ed"``."""
    gym_id: str
    """Versioned Gymnasium id, e.g. ``"lifeline/ED-v0"``."""
    entry_point: str
    """``"module.path:ClassName"`` of the :class:`Environment` subclass."""
    scenarios: tuple[str, ...]
    """Named scenarios; the first is the default."""
    tags: tuple[str, ...] = ()
    description: str = ""
    agents: tuple[str, ...] = field(default=())
    """Baseline ladder, weakest first (names resolvable by :func:`lifeline.agents.make_agent`)."""

    @property
    def default_scenario(self) -> str:
        return self.scenarios[0]

    def load(self) -> type[Environment]:
        module_name, _, cls_name = self.entry_point.partition(":")
        cls: type[Environment] = getattr(importlib.import_module(module_name), cls_name)
        return cls


_REGISTRY: dict[str, EnvSpec] = {}


def register(spec: EnvSpec) -> None:
    """Add ``spec``; re-registering the same name with a different spec is an error."""
    existing = _REGISTRY.get(spec.name)
    if existing is not None and existing != spec:
        raise ValueError(f"environment {spec.name!r} is already registered differently")
    _REGISTRY[spec.name] = spec


def unregister(name: str) -> None:
    """Remove ``name`` from the registry (for tests that register throwaway environments)."""
    _REGISTRY.pop(name, None)


def _ensure_builtin() -> None:
    importlib.import_module("lifeline.envs")


def spec(name: str) -> EnvSpec:
    """The spec registered under ``name`` (a short id or a Gymnasium id), or a clear error."""
    _ensure_builtin()
    if name in _REGISTRY:
        return _REGISTRY[name]
    for candidate in _REGISTRY.values():
        if name.lower() in (candidate.gym_id.lower(), candidate.name.lower()):
            return candidate
    known = ", ".join(sorted(_REGISTRY))
    raise KeyError(f"unknown environment {name!r}; registered: {known}")


def all_specs() -> list[EnvSpec]:
    """Every registered spec, sorted by name."""
    _ensure_builtin()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def resolve_scenario(env_spec: EnvSpec, scenario: str | None) -> str:
    """``scenario`` validated against the spec (``None`` means the default)."""
    if scenario is None:
        return env_spec.default_scenario
    if scenario not in env_spec.scenarios:
        raise ValueError(
            f"unknown scenario {scenario!r} for {env_spec.name}; "
            f"choose one of: {', '.join(env_spec.scenarios)}"
        )
    return scenario


def make(name: str, scenario: str | None = None) -> Environment:
    """Build core environment ``name`` for ``scenario`` (``None`` = its default scenario)."""
    env_spec = spec(name)
    return env_spec.load()(resolve_scenario(env_spec, scenario))
