"""LLM agents: play any registered environment through the tool face.

``make_agent("llm:MODEL", env)`` talks to any OpenAI-compatible chat-completions endpoint;
``make_agent("hf:PATH", env)`` runs a local ``transformers`` causal LM in-process. Both use the
same prompt and the same parser (:mod:`lifeline.agents.toolcall`).

**Configuration** (read from environment variables so that evaluation worker processes inherit
it; the CLI's ``--base-url``/``--api-key-env``/... flags set them):

- ``LIFELINE_LLM_BASE_URL``: endpoint root (``.../v1``), default ``http://127.0.0.1:8000/v1``;
- ``LIFELINE_LLM_API_KEY_ENV``: the *name* of the variable holding the API key
  (default ``OPENAI_API_KEY``);
- ``LIFELINE_LLM_MAX_REPAIRS``: repairs per turn after a malformed/invalid call (2);
- ``LIFELINE_LLM_TEMPERATURE`` (0.0), ``LIFELINE_LLM_MAX_TOKENS`` (512 per request);
- ``LIFELINE_LLM_TIMEOUT``: seconds per request (60); ``LIFELINE_LLM_RETRIES``: retries on
  HTTP 429/5xx, malformed replies and transport errors (3, exponential backoff);
- ``LIFELINE_LLM_RATE``: requests per second per process (0 = unlimited);
- ``LIFELINE_LLM_TRANSCRIPTS``: directory for one JSONL transcript per episode (unset: none);
- ``LIFELINE_LLM_EXPLICIT``: ``1`` lists legal calls one per line instead of ranges.

The API key is never taken from the command line or a file: only from the variable named above.

**Prompt.** A system message (:data:`SYSTEM_PROMPT`: the environment's description and rules)
and, each turn, one user message: the text observation (``render_text`` plus the legal actions
as calls, :func:`lifeline.faces.tools.text_observation`) and the last few actions with their
results. The env's JSON-schema tools are sent for native tool calling; replies without native
calls are parsed as text (tags, JSON, or ``name(arg=value)``).

**Repairs.** A reply with no call, an unknown tool, bad arguments or an illegal action gets a
repair message (what was wrong and how to fix it) up to ``max_repairs`` times per turn, each
counted. Out of repairs, the turn is sent to the env as it is (an invalid action, counted: it
uses the turn). Transport failures are retried with exponential backoff; an endpoint that never
answered raises :class:`LLMUnavailable` (one clear error), one that fails later in the episode
degrades to invalid actions so the episode finishes cleanly.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lifeline.agents.toolcall import extract_calls
from lifeline.core.agent import Agent
from lifeline.core.env import Action, Environment
from lifeline.core.registry import spec
from lifeline.faces.tools import (
    ToolCallError,
    format_call,
    openai_tools,
    parse_tool_call,
    text_observation,
)

SYSTEM_PROMPT = """You are the operator of a Lifeline simulation: {name} ({description})
Scenario: {scenario}.

Each turn you see the current situation and the list of legal actions, written as tool calls.
Answer with exactly one tool call (natively, or as text like <tool_call>{{"name": "...",
"arguments": {{...}}}}</tool_call> or name(arg=value)). Lines such as
"- admit(slot=N), N in {{0..3, 7}}" mean admit(slot=0), admit(slot=1), ... admit(slot=7) are legal.
Time moves whatever you send: an illegal call is wasted and penalised. The episode is scored on
outcomes (lives first); the do-nothing action is {noop}."""

REPAIR_NO_CALL = ("Your reply contained no tool call. Answer with exactly one call from the legal "
                  "actions, e.g. {example}.")
MAX_CONSECUTIVE_FAILED_TURNS = 3
"""After this many turns in a row without an answer from the endpoint, stop asking (the rest of
the episode's turns are invalid actions, counted) so a dying endpoint cannot hang an evaluation."""


class LLMUnavailable(RuntimeError):
    """The endpoint could not be reached at all (wrong URL, server down, bad key)."""


@dataclass(frozen=True)
class LLMConfig:
    """Settings of an LLM agent (see the module docstring for the environment variables)."""

    model: str
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key_env: str = "OPENAI_API_KEY"
    max_repairs: int = 2
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    retries: int = 3
    rate: float = 0.0
    transcripts: str | None = None
    explicit: bool = False
    history: int = 4
    """Previous turns (call and result, one line each) repeated in the prompt."""

    @classmethod
    def from_env(cls, model: str) -> LLMConfig:
        env = os.environ
        return cls(
            model=model,
            base_url=env.get("LIFELINE_LLM_BASE_URL", cls.base_url),
            api_key_env=env.get("LIFELINE_LLM_API_KEY_ENV", cls.api_key_env),
            max_repairs=int(env.get("LIFELINE_LLM_MAX_REPAIRS", cls.max_repairs)),
            temperature=float(env.get("LIFELINE_LLM_TEMPERATURE", cls.temperature)),
            max_tokens=int(env.get("LIFELINE_LLM_MAX_TOKENS", cls.max_tokens)),
            timeout_s=float(env.get("LIFELINE_LLM_TIMEOUT", cls.timeout_s)),
            retries=int(env.get("LIFELINE_LLM_RETRIES", cls.retries)),
            rate=float(env.get("LIFELINE_LLM_RATE", cls.rate)),
            transcripts=env.get("LIFELINE_LLM_TRANSCRIPTS") or None,
            explicit=env.get("LIFELINE_LLM_EXPLICIT", "0") == "1",
        )


@dataclass
class Completion:
    """One model answer: the assistant message (OpenAI shape) and its cost."""

    message: dict[str, Any]
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0


class EndpointError(RuntimeError):
    """A request failed after its retries (the message says how)."""


class ChatBackend(ABC):
    """Something that answers chat messages (with tools) with an assistant message."""

    @abstractmethod
    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 seed: int) -> Completion:
        """The assistant's reply, or :class:`EndpointError`."""


class RateLimiter:
    """At most ``rate`` calls per second in this process (0 = unlimited), thread-safe."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


class OpenAIChat(ChatBackend):
    """An OpenAI-compatible ``/chat/completions`` endpoint over ``httpx`` (retries, backoff)."""

    RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})

    def __init__(self, config: LLMConfig) -> None:
        import httpx  # the llm extra

        self.config = config
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(config.api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._http = httpx.Client(base_url=config.base_url.rstrip("/"), headers=headers,
                                  timeout=httpx.Timeout(config.timeout_s, connect=5.0))
        self._httpx = httpx
        self._limiter = RateLimiter(config.rate)

    def _backoff(self, attempt: int, retry_after: str | None) -> None:
        delay = min(8.0, 0.5 * 2 ** attempt)
        if retry_after:
            with contextlib.suppress(ValueError):  # an HTTP-date Retry-After: keep the backoff
                delay = min(30.0, max(delay, float(retry_after)))
        time.sleep(delay)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 seed: int) -> Completion:
        c = self.config
        body = {"model": c.model, "messages": messages, "tools": tools, "tool_choice": "auto",
                "temperature": c.temperature, "max_tokens": c.max_tokens, "seed": seed}
        problem = "no attempt made"
        for attempt in range(c.retries + 1):
            self._limiter.wait()
            start = time.perf_counter()
            try:
                response = self._http.post("/chat/completions", json=body)
            except self._httpx.HTTPError as exc:
                problem = f"{type(exc).__name__}: {exc}"
                if attempt < c.retries:
                    self._backoff(attempt, None)
                continue
            latency = time.perf_counter() - start
            if response.status_code in self.RETRY_STATUS:
                problem = f"HTTP {response.status_code}"
                if attempt < c.retries:
                    self._backoff(attempt, response.headers.get("retry-after"))
                continue
            if response.status_code >= 400:
                raise EndpointError(f"HTTP {response.status_code} from {c.base_url}: "
                                    f"{response.text[:300]}")
            try:
                data = response.json()
                message = data["choices"][0]["message"]
                if not isinstance(message, dict):
                    raise TypeError("message is not an object")
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                problem = f"malformed response ({exc}): {response.text[:200]!r}"
                if attempt < c.retries:
                    self._backoff(attempt, None)
                continue
            usage = data.get("usage") or {}
            return Completion(message, int(usage.get("prompt_tokens") or 0),
                              int(usage.get("completion_tokens") or 0), latency)
        raise EndpointError(f"{c.base_url}: {problem} (after {c.retries + 1} attempts)")


@dataclass
class EpisodeLog:
    """Counters of one episode (reported as ``llm_*`` record metrics) and its transcript."""

    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    requests: int = 0
    repairs: int = 0
    invalid_calls: int = 0
    failed_turns: int = 0
    aborted: int = 0
    transcript: list[dict[str, Any]] = field(default_factory=list)

    def metrics(self) -> dict[str, float]:
        return {"llm_tokens_in": float(self.tokens_in), "llm_tokens_out": float(self.tokens_out),
                "llm_latency_s": self.latency_s, "llm_requests": float(self.requests),
                "llm_repairs": float(self.repairs), "llm_invalid_calls": float(self.invalid_calls),
                "llm_failed_turns": float(self.failed_turns), "llm_aborted": float(self.aborted)}


class LLMAgent(Agent):
    """Plays through the tool face with a chat model (``llm:MODEL`` or ``hf:PATH``)."""

    name = "llm"

    def __init__(self, backend: ChatBackend, config: LLMConfig, label: str = "llm") -> None:
        self.backend, self.config, self.name = backend, config, label
        self.log = EpisodeLog()
        self._recent: list[str] = []
        self._answered_once = False
        self._failed_in_a_row = 0
        self._seed = 0
        self._episode = ""

    # ----- episode ------------------------------------------------------------------------
    def reset(self, env: Environment, seed: int) -> None:
        self._flush_transcript()
        self.log = EpisodeLog()
        self._recent = []
        self._failed_in_a_row = 0
        self._seed = seed
        self._episode = f"{env.name}_{env.scenario}_{seed}"
        self._tools = openai_tools(env)
        try:
            description = spec(env.name).description
        except KeyError:  # an unregistered (user) env
            description = (type(env).__doc__ or "").strip().splitlines()[0]
        self._system = SYSTEM_PROMPT.format(
            name=env.name, description=description, scenario=env.scenario,
            noop=format_call(env.noop_action()))

    def set_trial(self, trial: int) -> None:
        if trial:  # a different sampling seed per attempt (pass^k needs independent attempts)
            import numpy as np

            self._seed = int(np.random.SeedSequence([self._seed, trial]).generate_state(1)[0])
            self._episode += f"_t{trial}"

    def episode_metrics(self) -> dict[str, float]:
        self._flush_transcript()
        return self.log.metrics()

    def _flush_transcript(self) -> None:
        if not (self.config.transcripts and self.log.transcript):
            return
        out = Path(self.config.transcripts)
        out.mkdir(parents=True, exist_ok=True)
        with (out / f"{self._episode}.jsonl").open("w", encoding="utf-8") as fh:
            for entry in self.log.transcript:
                fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self.log.transcript = []

    # ----- one turn -----------------------------------------------------------------------
    def _ask(self, messages: list[dict[str, Any]]) -> Completion | None:
        try:
            reply = self.backend.complete(messages, self._tools, self._seed)
        except EndpointError as exc:
            if not self._answered_once:
                raise LLMUnavailable(f"the LLM endpoint did not answer: {exc}") from None
            self.log.transcript.append({"error": str(exc)})
            return None
        self._answered_once = True
        self.log.requests += 1
        self.log.tokens_in += reply.tokens_in
        self.log.tokens_out += reply.tokens_out
        self.log.latency_s += reply.latency_s
        self.log.transcript.append({"messages": messages[-1:], "reply": reply.message,
                                    "tokens_in": reply.tokens_in,
                                    "tokens_out": reply.tokens_out})
        return reply

    def _check(self, env: Environment, state: Any, reply: dict[str, Any]
               ) -> tuple[Action | None, str]:
        """The legal action in ``reply``, or ``None`` and the repair message."""
        calls = extract_calls(reply)
        if not calls:
            return None, REPAIR_NO_CALL.format(example=format_call(env.noop_action()))
        name, arguments = calls[0]
        try:
            action = parse_tool_call(env, name, arguments)
        except ToolCallError as exc:
            return None, f"That call cannot be executed: {exc}"
        problem = env.validate(state, action)
        if problem:
            return action, f"{format_call(action)} is not legal now: {problem}"
        return action, ""

    def act(self, env: Environment, state: Any) -> Action | int:
        if self._failed_in_a_row >= MAX_CONSECUTIVE_FAILED_TURNS:
            self.log.aborted = 1
            self.log.invalid_calls += 1
            return -1
        observation = text_observation(env, state, explicit=self.config.explicit)
        recent = "\n".join(self._recent[-self.config.history:])
        user = observation + (f"\n\nYour last actions:\n{recent}" if recent else "")
        messages: list[dict[str, Any]] = [{"role": "system", "content": self._system},
                                          {"role": "user", "content": user}]
        action: Action | None = None
        problem = "no answer"
        for attempt in range(self.config.max_repairs + 1):
            reply = self._ask(messages)
            if reply is None:
                self._failed_in_a_row += 1
                self.log.failed_turns += 1
                self.log.invalid_calls += 1
                self._recent.append("- (no answer from the model)")
                return -1
            self._failed_in_a_row = 0
            action, problem = self._check(env, state, reply.message)
            if not problem:
                break
            if attempt == self.config.max_repairs:
                break
            self.log.repairs += 1
            messages = [*messages, *self._repair_messages(reply.message, problem)]
        if problem:
            self.log.invalid_calls += 1
            self._recent.append(f"- invalid: {problem}")
            return action if action is not None else -1
        assert action is not None
        self._recent.append(f"- {format_call(action)}")
        return action

    @staticmethod
    def _repair_messages(message: dict[str, Any], problem: str) -> list[dict[str, Any]]:
        """The assistant's reply and the correction, in the protocol's shape."""
        assistant = {"role": "assistant", "content": message.get("content") or ""}
        calls = message.get("tool_calls")
        if isinstance(calls, list) and calls and all(isinstance(c, dict) and c.get("id")
                                                     for c in calls):
            assistant["tool_calls"] = calls
            return [assistant, *({"role": "tool", "tool_call_id": c["id"], "content": problem}
                                 for c in calls)]
        return [assistant, {"role": "user", "content": problem}]
