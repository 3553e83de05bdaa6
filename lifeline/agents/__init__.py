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
from collections.abc import Callable
from typing import TYPE_CHECKING

from lifeline.agents.base import Agent, AlwaysSameAgent, InvalidSpamAgent, NoopAgent, RandomAgent
from lifeline.core.registry import spec

if TYPE_CHECKING:
    from lifeline.agents.llm import LLMAgent

GENERIC_AGENTS: dict[str, type[Agent]] = {
    "noop": NoopAgent,
    "random": RandomAgent,
    "invalid_spam": InvalidSpamAgent,
}
"""Agents that play any environment."""

# Extra agents registered at run time (e.g. by a user for their own env): (env or "*", name).
_EXTRA: dict[tuple[str, str], str] = {}


# Agent-name prefixes registered by higher layers (``PREFIX:ARG`` -> factory(ARG)), e.g. the ED
# fast-PPO trainer registers ``fastppo:RUN_DIR`` when it is imported, so this layer never imports
# the training layer.
_PREFIXES: dict[str, Callable[[str], Agent]] = {}


def register_agent(env_name: str, agent_name: str, entry_point: str) -> None:
    """Register ``module:Class`` as agent ``agent_name`` for ``env_name`` (``"*"`` = every env)."""
    _EXTRA[(env_name, agent_name)] = entry_point


def register_agent_prefix(prefix: str, factory: Callable[[str], Agent]) -> None:
    """Make ``make_agent(f"{prefix}:{arg}", env)`` return ``factory(arg)`` (any env)."""
    _PREFIXES[prefix] = factory


def _env_agents(env_name: str) -> dict[str, type[Agent]]:
    """The env's own agents, plus ``text_heuristic`` when it declares a text policy."""
    try:
        env_spec = spec(env_name)
    except KeyError:
        return {}
    agents = env_spec.agent_classes()
    if env_spec.text_policy:
        from lifeline.agents.text_heuristic import TextHeuristicAgent

        agents["text_heuristic"] = TextHeuristicAgent
    return agents


def agent_names(env_name: str) -> list[str]:
    """Agent names usable with ``env_name``."""
    names = set(GENERIC_AGENTS) | set(_env_agents(env_name))
    names |= {a for (e, a) in _EXTRA if e in ("*", env_name)}
    return sorted(names)


def make_llm_agent(spec_text: str) -> LLMAgent:
    """``llm:MODEL`` (OpenAI-compatible endpoint) or ``hf:PATH`` (local transformers model).

    Here, not in :mod:`lifeline.agents.llm`, so that ``llm`` and ``hf`` (which builds on it)
    import one way.
    """
    from lifeline.agents.llm import LLMAgent, LLMConfig, OpenAIChat

    kind, _, target = spec_text.partition(":")
    if not target:
        raise ValueError(f"agent {spec_text!r}: expected {kind}:MODEL")
    config = LLMConfig.from_env(target)
    if kind == "llm":
        return LLMAgent(OpenAIChat(config), config, label=spec_text)
    if kind == "hf":
        from lifeline.agents.hf import HFChat

        return LLMAgent(HFChat(target, config), config, label=spec_text)
    raise ValueError(f"unknown LLM agent kind {kind!r} (use llm:MODEL or hf:PATH)")


def make_agent(name: str, env_name: str) -> Agent:
    """Build agent ``name`` for ``env_name``, or raise ``ValueError`` listing the choices."""
    if name.startswith(("llm:", "hf:")):
        return make_llm_agent(name)
    if name.startswith("ppo:"):
        module = importlib.import_module("lifeline.agents.ppo")
        agent: Agent = module.PPOAgent(name.removeprefix("ppo:"))
        return agent
    if name.startswith("pointer:"):
        pointer = importlib.import_module("lifeline.agents.pointer")
        made_pointer: Agent = pointer.PointerAgent(name.removeprefix("pointer:"))
        return made_pointer
    prefix, sep, arg = name.partition(":")
    if sep and prefix in _PREFIXES:
        return _PREFIXES[prefix](arg)
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
        choices = ", ".join([*agent_names(env_name), "same:K", "ppo:PATH", "pointer:PATH",
                             *(f"{p}:ARG" for p in _PREFIXES), "llm:MODEL", "hf:PATH"])
        raise ValueError(f"unknown agent {name!r} for {env_name}; choose one of: {choices}")
    return cls()


__all__ = ["Agent", "AlwaysSameAgent", "InvalidSpamAgent", "NoopAgent", "RandomAgent",
           "agent_names", "make_agent", "make_llm_agent", "register_agent"]

