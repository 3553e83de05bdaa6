"""Registry of environments: versioned ids, scenarios and tags, loaded lazily.

Each environment registers an :class:`EnvSpec` naming the class by import path, so listing
environments imports nothing heavy. The registry imports no environment: ``import lifeline``
imports :mod:`lifeline.envs`, whose ``register`` calls add the built-ins.
``make(name, scenario)`` builds a core environment.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lifeline.core.agent import Agent
    from lifeline.core.env import Environment


@dataclass(frozen=True)
class EnvSpec:
    """How to build one registered environment."""

    name: str
    """Short id used by the CLI and Python API, e.g. ``"ed"``."""
    gym_id: str
    """Versioned Gymnasium id, e.g. ``"lifeline/ED-v3"``."""
    entry_point: str
    """``"module.path:ClassName"`` of the :class:`Environment` subclass."""
    scenarios: tuple[str, ...]
    """Named scenarios; the first is the default."""
    tags: tuple[str, ...] = ()
    description: str = ""
    agents: tuple[str, ...] = field(default=())
    """Baseline ladder, weakest first (names resolvable by :func:`lifeline.agents.make_agent`)."""
    baselines: str = ""
    """Import path of the env's ``baselines`` module, where the env declares its agents once:
    ``AGENTS`` maps names to agent classes (the ladder and the exploit policies live with the
    environment, not in ``agents/``), ``EXPLOITS`` names the exploit policies and
    ``TEXT_POLICY`` its text-only heuristic (see :attr:`exploits`, :attr:`text_policy`)."""
    reference: str = ""
    """The operations-standard baseline every exploit is compared with (e.g. ``"heuristic"``)."""
    bound: str = ""
    """The upper-bound baseline (no policy may beat it on a bounded component), if any."""
    harm_metric: str = "deaths"
    """Grade metric counting harm (deaths, expected deaths, unmet critical need): no policy may
    score significantly higher than ``reference`` while causing significantly more of it."""
    vector_entry_point: str = ""
    """``"module:function"`` building the env's own ``gymnasium.vector.VectorEnv`` for
    ``gymnasium.make_vec`` (e.g. a batch kernel); empty: the generic loop of scalar envs."""

    @property
    def default_scenario(self) -> str:
        return self.scenarios[0]

    @property
    def exploits(self) -> tuple[str, ...]:
        """Env-specific exploit policies (in ``AGENTS``) that the exploit suite proves lose:
        ``baselines.EXPLOITS``, a tuple of names, or a mapping from env name to such a tuple when
        one ``baselines`` module serves several registered envs (``evgrid``, ``evgrid_team``)."""
        declared = self.baselines_value("EXPLOITS") or ()
        if isinstance(declared, Mapping):
            declared = declared.get(self.name, ())
        return tuple(declared)

    @property
    def text_policy(self) -> str:
        """``"module:Class"`` of the env's :class:`lifeline.core.agent.TextPolicy` (its
        ``baselines.TEXT_POLICY``; a mapping by env name as for :attr:`exploits`), or ``""``."""
        declared = self.baselines_value("TEXT_POLICY") or ""
        if isinstance(declared, Mapping):
            declared = declared.get(self.name, "")
        return str(declared)

    def agent_classes(self) -> dict[str, type[Agent]]:
        """The env's own agents (ladder and exploits) from its ``baselines`` module."""
        classes: dict[str, type[Agent]] = self.baselines_value("AGENTS") or {}
        return dict(classes)

    def baselines_value(self, name: str) -> Any:
        """Optional attribute ``name`` of the ``baselines`` module (``None`` when absent), e.g.
        ``PASS_THRESHOLD`` or ``BOUNDED_COMPONENTS``."""
        if not self.baselines:
            return None
        return getattr(importlib.import_module(self.baselines), name, None)

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


def spec(name: str) -> EnvSpec:
    """The spec registered under ``name`` (a short id or a Gymnasium id), or a clear error."""
    if name in _REGISTRY:
        return _REGISTRY[name]
    for candidate in _REGISTRY.values():
        if name.lower() in (candidate.gym_id.lower(), candidate.name.lower()):
            return candidate
    known = ", ".join(sorted(_REGISTRY))
    raise KeyError(f"unknown environment {name!r}; registered: {known}")


def all_specs() -> list[EnvSpec]:
    """Every registered spec, sorted by name."""
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def resolve_scenario(env_spec: EnvSpec, scenario: str | None) -> str:
    """``scenario`` validated against the spec (``None`` means the default)."""
    if scenario is None:
        return env_spec.default_scenario
    if scenario not in env_spec.scenarios:
        import difflib

        close = difflib.get_close_matches(scenario, env_spec.scenarios, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(
            f"unknown scenario {scenario!r} for {env_spec.name}{hint}; "
            f"choose one of: {', '.join(env_spec.scenarios)}"
        )
    return scenario


def make(name: str, scenario: str | None = None) -> Environment:
    """Build core environment ``name`` for ``scenario`` (``None`` = its default scenario)."""
    env_spec = spec(name)
    return env_spec.load()(resolve_scenario(env_spec, scenario))
