"""Agents by name: generic baselines plus each environment's ladder.

``make_agent("heuristic", "ed")`` resolves the environment-specific class; ``"noop"`` and
``"random"`` work for every environment; ``"ppo:PATH"`` loads a trained MaskablePPO model.
"""

from __future__ import annotations

import importlib

from lifeline.agents.base import Agent, NoopAgent, RandomAgent

# (env name or "*", agent name) -> "module:Class". Environment-specific entries win.
_AGENTS: dict[tuple[str, str], str] = {
    ("*", "noop"): "lifeline.agents.base:NoopAgent",
    ("*", "random"): "lifeline.agents.base:RandomAgent",
    ("ed", "heuristic"): "lifeline.agents.ed:EDHeuristicAgent",
    ("ed", "bound"): "lifeline.agents.ed:EDBoundAgent",
    ("dispatch", "hold"): "lifeline.agents.dispatch:HoldAgent",
    ("dispatch", "closest_idle"): "lifeline.agents.dispatch:ClosestIdleAgent",
    ("dispatch", "dmexclp"): "lifeline.agents.dispatch:DMEXCLPAgent",
    ("dispatch", "bound"): "lifeline.agents.dispatch:BoundAgent",
}


def register_agent(env_name: str, agent_name: str, entry_point: str) -> None:
    """Register ``module:Class`` as agent ``agent_name`` for ``env_name`` (``"*"`` = every env)."""
    _AGENTS[(env_name, agent_name)] = entry_point


def agent_names(env_name: str) -> list[str]:
    """Agent names usable with ``env_name``."""
    return sorted({a for (e, a) in _AGENTS if e in ("*", env_name)})


def make_agent(name: str, env_name: str) -> Agent:
    """Build agent ``name`` for ``env_name``, or raise ``ValueError`` listing the choices."""
    if name.startswith("ppo:"):
        module = importlib.import_module("lifeline.agents.ppo")
        agent: Agent = module.PPOAgent(name.removeprefix("ppo:"))
        return agent
    entry = _AGENTS.get((env_name, name)) or _AGENTS.get(("*", name))
    if entry is None:
        choices = ", ".join([*agent_names(env_name), "ppo:PATH"])
        raise ValueError(f"unknown agent {name!r} for {env_name}; choose one of: {choices}")
    module_name, _, cls_name = entry.partition(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    made: Agent = cls()
    return made


__all__ = ["Agent", "NoopAgent", "RandomAgent", "agent_names", "make_agent", "register_agent"]
