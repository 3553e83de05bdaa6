"""``text_heuristic``: each environment's reference heuristic playing through the *text* face.

The proof that the text an LLM gets is enough to play well (issue 16, item 4). Every turn the
agent is handed exactly what :class:`lifeline.agents.llm.LLMAgent` sends a model — the string
:func:`lifeline.faces.tools.text_observation` (the env's ``render_text`` plus the legal
actions as calls) — and answers with a tool call *as text*, which goes through the same parser an
LLM's reply goes through (:func:`lifeline.agents.toolcall.extract_calls` then
:func:`lifeline.faces.tools.parse_tool_call`).

The decision logic is not re-implemented: a per-env :class:`TextPolicy` parses the text back into
exactly the values the structured heuristic reads and calls the heuristic's own methods, so on
most seeds the two play identical actions (differences come only from numbers rounded in the
text). Where a policy needs static knowledge — the scenario's public map, tariff or protocol
tables, the same for every episode and documented in the env README — it builds its own fresh
environment for the scenario and reads those tables; it never receives the episode's state, its
structured observation or its mask.

Each env names its policy in its ``baselines.TEXT_POLICY`` (``module:Class``, read through
:attr:`lifeline.core.registry.EnvSpec.text_policy`); :class:`~lifeline.core.agent.TextPolicy`
subclasses live next to their env (``lifeline/envs/<env>/text_agent.py``).
"""

from __future__ import annotations

import importlib
from typing import Any

from lifeline.agents.toolcall import extract_calls
from lifeline.core.agent import Agent, TextPolicy
from lifeline.core.env import Action, Environment
from lifeline.core.registry import all_specs, spec
from lifeline.faces.tools import ToolCallError, parse_tool_call, text_observation


def text_policies() -> dict[str, str]:
    """Env name -> its :class:`TextPolicy` (``module:Class``), for every env that declares one
    (``baselines.TEXT_POLICY``, read through :attr:`lifeline.core.registry.EnvSpec.text_policy`)."""
    return {s.name: s.text_policy for s in all_specs() if s.text_policy}


def make_policy(env_name: str, scenario: str) -> TextPolicy:
    """The :class:`TextPolicy` of ``env_name`` or ``ValueError``."""
    try:
        entry = spec(env_name).text_policy
    except KeyError:
        entry = ""
    if not entry:
        raise ValueError(f"no text_heuristic for {env_name!r} "
                         f"(have: {', '.join(text_policies())})")
    module, _, cls = entry.partition(":")
    policy: TextPolicy = getattr(importlib.import_module(module), cls)(env_name, scenario)
    return policy


class TextHeuristicAgent(Agent):
    """Plays the env's :class:`TextPolicy` on the text observation only (see the module doc).

    ``act`` derives one thing from the state — the observation string, exactly as an LLM agent
    does — and hands only that string to the policy. A reply the parser cannot read is sent as
    an invalid action (counted in ``text_invalid``), just as an LLM's would be.
    """

    name = "text_heuristic"

    def __init__(self) -> None:
        self.policy: TextPolicy | None = None
        self.invalid = 0
        self.turns = 0
        self.last_observation = ""
        """The last string handed to the policy (SFT transcripts record it with the reply)."""
        self.last_reply = ""
        """The policy's last reply, verbatim."""

    def reset(self, env: Environment, seed: int) -> None:
        self.policy = make_policy(env.name, env.scenario)
        self.invalid = self.turns = 0

    def act(self, env: Environment, state: Any) -> Action | int:
        if self.policy is None:
            self.reset(env, 0)
        assert self.policy is not None
        observation = text_observation(env, state)
        reply = self.policy.reply(observation)  # the policy gets nothing but the string
        self.last_observation, self.last_reply = observation, reply
        self.turns += 1
        calls = extract_calls(reply)
        if not calls:
            self.invalid += 1
            return -1
        try:
            return parse_tool_call(env, *calls[0])
        except ToolCallError:
            self.invalid += 1
            return -1

    def episode_metrics(self) -> dict[str, float]:
        return {"text_invalid": float(self.invalid), "text_turns": float(self.turns)}
