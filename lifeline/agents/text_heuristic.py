"""``text_heuristic``: each environment's reference heuristic playing through the *text* face.

The proof that the text an LLM gets is enough to play well (issue 16, item 4). Every turn the
agent is handed exactly what :class:`lifeline.agents.llm.LLMAgent` sends a model — the string
:func:`lifeline.adapters.tools.text_observation` (the env's ``render_text`` plus the legal
actions as calls) — and answers with a tool call *as text*, which goes through the same parser an
LLM's reply goes through (:func:`lifeline.agents.toolcall.extract_calls` then
:func:`lifeline.adapters.tools.parse_tool_call`).

The decision logic is not re-implemented: a per-env :class:`TextPolicy` parses the text back into
exactly the values the structured heuristic reads and calls the heuristic's own methods, so on
most seeds the two play identical actions (differences come only from numbers rounded in the
text). Where a policy needs static knowledge — the scenario's public map, tariff or protocol
tables, the same for every episode and documented in the env README — it builds its own fresh
environment for the scenario and reads those tables; it never receives the episode's state, its
structured observation or its mask.

Policies are found by env name in :data:`POLICIES` (``module:Class``); ``TextPolicy`` subclasses
live next to their env (``lifeline/envs/<env>/text_agent.py``).
"""

from __future__ import annotations

import importlib
import json
from abc import ABC, abstractmethod
from typing import Any

from lifeline.adapters.tools import ToolCallError, action_to_call, parse_tool_call, text_observation
from lifeline.agents.base import Agent
from lifeline.agents.toolcall import extract_calls
from lifeline.core.env import Action, Environment

POLICIES: dict[str, str] = {
    "ed": "lifeline.envs.ed.text_agent:EDTextPolicy",
    "dispatch": "lifeline.envs.dispatch.text_agent:DispatchTextPolicy",
    "dispatch_metro": "lifeline.envs.dispatch.text_agent:DispatchTextPolicy",
    "codered": "lifeline.envs.codered.text_agent:CodeRedTextPolicy",
    "pharmacy": "lifeline.envs.pharmacy.text_agent:PharmacyTextPolicy",
    "evgrid": "lifeline.envs.evgrid.text_agent:EVGridTextPolicy",
    "evgrid_team": "lifeline.envs.evgrid.text_agent:EVGridTextPolicy",
}
"""Env name -> its :class:`TextPolicy` (``module:Class``)."""


def as_tool_call(action: Action) -> str:
    """``<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>`` — the Qwen/Hermes form,
    exactly as the Qwen3 chat template writes an assistant's tool call (so SFT on these replies
    teaches a model the text it must produce)."""
    name, args = action_to_call(action)
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"


class TextPolicy(ABC):
    """Text in, tool-call text out. Built once per episode from what an LLM's system prompt
    holds (the env name and scenario); sees nothing else of the episode but the strings."""

    def __init__(self, env_name: str, scenario: str) -> None:
        self.env_name, self.scenario = env_name, scenario

    @abstractmethod
    def reply(self, observation: str) -> str:
        """The answer to one observation: a tool call written as text."""


def make_policy(env_name: str, scenario: str) -> TextPolicy:
    """The :class:`TextPolicy` of ``env_name`` or ``ValueError``."""
    entry = POLICIES.get(env_name)
    if entry is None:
        raise ValueError(f"no text_heuristic for {env_name!r} (have: {', '.join(POLICIES)})")
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
