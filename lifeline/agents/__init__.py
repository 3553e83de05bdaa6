"""Agents by name: the environment-agnostic baselines plus each environment's own ladder.

Environment-specific agents (heuristics, bounds, exploit policies) live in
``lifeline/envs/<env>/baselines.py`` and are found through the env's :class:`EnvSpec`
(``baselines`` names the module, whose ``AGENTS`` dict maps names to classes), so adding an
environment touches only its own folder and one ``register`` call.

``make_agent("heuristic", "ed")`` resolves the environment's class; ``noop``, ``random`` and
``invalid_spam`` work for every environment; ``same:K`` always sends encoded action ``K``;
``ppo:PATH`` loads a trained MaskablePPO model; ``llm:MODEL`` plays through an OpenAI-compatible
endpoint and ``hf:PATH`` through a local transformers model (:mod:`lifeline.agents.llm`).
"""

from __future__ import annotations

import importlib

from lifeline.agents.base import Agent, AlwaysSameAgent, InvalidSpamAgent, NoopAgent, RandomAgent
from lifeline.core.registry import spec

GENERIC_AGENTS: dict[str, type[Agent]] = {
    "noop": NoopAgent,
    "random": RandomAgent,
    "invalid_spam": InvalidSpamAgent,
}
"""Agents that play any environment."""

# Extra agents registered at run time (e.g. by a user for their own env): (env or "*", name).
_EXTRA: dict[tuple[str, str], str] = {}


def register_agent(env_name: str, agent_name: str, entry_point: str) -> None:
    """Register ``module:Class`` as agent ``agent_name`` for ``env_name`` (``"*"`` = every env)."""
    _EXTRA[(env_name, agent_name)] = entry_point


def _env_agents(env_name: str) -> dict[str, type[Agent]]:
    try:
        return spec(env_name).agent_classes()
    except KeyError:
        return {}


def agent_names(env_name: str) -> list[str]:
    """Agent names usable with ``env_name``."""
    names = set(GENERIC_AGENTS) | set(_env_agents(env_name))
    names |= {a for (e, a) in _EXTRA if e in ("*", env_name)}
    return sorted(names)


def make_agent(name: str, env_name: str) -> Agent:
    """Build agent ``name`` for ``env_name``, or raise ``ValueError`` listing the choices."""
    if name.startswith(("llm:", "hf:")):
        from lifeline.agents.llm import make_llm_agent

        return make_llm_agent(name)
    if name.startswith("ppo:"):
        module = importlib.import_module("lifeline.agents.ppo")
        agent: Agent = module.PPOAgent(name.removeprefix("ppo:"))
        return agent
    if name.startswith("same:"):
        index = name.removeprefix("same:")
        if not index.isdigit():
            raise ValueError(f"agent {name!r}: expected same:K with K an action index")
        return AlwaysSameAgent(int(index))
    entry = _EXTRA.get((env_name, name)) or _EXTRA.get(("*", name))
    if entry is not None:
        module_name, _, cls_name = entry.partition(":")
        made: Agent = getattr(importlib.import_module(module_name), cls_name)()
        return made
    cls = _env_agents(env_name).get(name) or GENERIC_AGENTS.get(name)
    if cls is None:
        choices = ", ".join([*agent_names(env_name), "same:K", "ppo:PATH", "llm:MODEL",
                             "hf:PATH"])
        raise ValueError(f"unknown agent {name!r} for {env_name}; choose one of: {choices}")
    return cls()


__all__ = ["Agent", "AlwaysSameAgent", "InvalidSpamAgent", "NoopAgent", "RandomAgent",
           "agent_names", "make_agent", "register_agent"]

# ``text_heuristic``: each env's reference heuristic reading only the text observation.
from lifeline.agents.text_heuristic import POLICIES as _TEXT_POLICIES  # noqa: E402

for _env_name in _TEXT_POLICIES:
    register_agent(_env_name, "text_heuristic", "lifeline.agents.text_heuristic:TextHeuristicAgent")
