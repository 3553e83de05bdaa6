"""The tool face: semantic actions as JSON-schema tools, text observations, tool-call parsing.

Every environment declares its actions as frozen dataclasses (``Environment.action_types``), each
with a ``kind`` (the tool name), a docstring (the tool description) and typed fields whose docs may
live in ``dataclasses.field(metadata={"doc": ...})``. This module turns that declaration — and
nothing else — into:

* :func:`tool_specs` / :func:`openai_tools`: one JSON-schema tool per action type;
* :func:`parse_tool_call`: a tool call (name + JSON arguments) back into a semantic action, with
  an error message precise enough for an LLM to fix its call (:class:`ToolCallError`);
* :func:`text_observation`: ``render_text`` plus the legal actions right now, written as calls.

The same layer serves MCP (``lifeline.serve.openenv``), TRL and OpenAI-compatible agents, so
adding an environment needs no change here.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import json
import math
import typing
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from lifeline.core.env import Action, Environment

_JSON_TYPES: dict[type, str] = {bool: "boolean", int: "integer", float: "number", str: "string"}
_TYPE_WORDS = {"boolean": "a boolean", "integer": "an integer", "number": "a number",
               "string": "a string"}


class ToolCallError(ValueError):
    """A tool call that cannot be turned into an action; the message says exactly why."""


@dataclass(frozen=True)
class ToolParam:
    """One argument of a tool: JSON type, Python type, whether required, documentation."""

    name: str
    json_type: str
    py_type: type
    required: bool
    doc: str = ""
    default: Any = None


@dataclass(frozen=True)
class ToolSpec:
    """One action type seen as a tool."""

    name: str
    description: str
    params: tuple[ToolParam, ...]
    action_type: type[Action]

    @property
    def parameters(self) -> dict[str, Any]:
        """JSON schema (``type: object``) of the arguments; extra arguments are rejected."""
        props: dict[str, Any] = {}
        for p in self.params:
            prop: dict[str, Any] = {"type": p.json_type}
            if p.doc:
                prop["description"] = p.doc
            if not p.required:
                prop["default"] = p.default
            props[p.name] = prop
        return {"type": "object", "properties": props,
                "required": [p.name for p in self.params if p.required],
                "additionalProperties": False}

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "description", "input_schema"}`` — the MCP tool shape."""
        return {"name": self.name, "description": self.description,
                "input_schema": self.parameters}

    def signature(self) -> str:
        """``admit_general(slot: integer)`` — a one-line human/LLM-readable signature."""
        args = ", ".join(f"{p.name}: {p.json_type}" for p in self.params)
        return f"{self.name}({args})"


def _description(cls: type[Action]) -> str:
    doc = inspect.getdoc(cls) or ""
    # A dataclass without a docstring gets an auto-generated "Name(field: type)" one: ignore it.
    if not doc or doc.startswith(f"{cls.__name__}("):
        return f"Action '{cls.kind}'."
    return doc


def _param(cls: type[Action], f: dataclasses.Field[Any], hints: dict[str, Any]) -> ToolParam:
    py_type = hints.get(f.name, f.type)
    if py_type not in _JSON_TYPES:
        raise TypeError(f"{cls.__name__}.{f.name}: unsupported field type {py_type!r} "
                        f"for a tool argument (use int, float, bool or str)")
    has_default = f.default is not dataclasses.MISSING
    has_factory = f.default_factory is not dataclasses.MISSING
    default: Any = f.default if has_default else None
    if has_factory:
        default = f.default_factory()  # type: ignore[operator]
    return ToolParam(name=f.name, json_type=_JSON_TYPES[py_type], py_type=py_type,
                     required=not (has_default or has_factory), doc=str(f.metadata.get("doc", "")),
                     default=default)


_SPECS: dict[type[Action], ToolSpec] = {}


def spec_for(action_type: type[Action]) -> ToolSpec:
    """The tool of one action type (cached: action types are immutable declarations)."""
    cached = _SPECS.get(action_type)
    if cached is not None:
        return cached
    hints = typing.get_type_hints(action_type)
    fields: list[dataclasses.Field[Any]] = []
    if dataclasses.is_dataclass(action_type):
        fields = [f for f in dataclasses.fields(action_type) if f.init]
    params = tuple(_param(action_type, f, hints) for f in fields)
    spec = _SPECS[action_type] = ToolSpec(action_type.kind, _description(action_type), params,
                                          action_type)
    return spec


def tool_specs(env: Environment | type[Environment]) -> list[ToolSpec]:
    """One :class:`ToolSpec` per action type of ``env`` (an instance or the class), in order."""
    return [spec_for(t) for t in env.action_types]


@functools.cache
def _tool_index(action_types: tuple[type[Action], ...]) -> dict[str, ToolSpec]:
    """``{tool name: spec}`` of an environment's action types (read-only; parsed per call)."""
    return {s.name: s for s in (spec_for(t) for t in action_types)}


def openai_tools(env: Environment | type[Environment]) -> list[dict[str, Any]]:
    """Tools in the OpenAI / TRL chat-template format (``{"type": "function", ...}``)."""
    return [{"type": "function",
             "function": {"name": s.name, "description": s.description,
                          "parameters": s.parameters}}
            for s in tool_specs(env)]


# ----- parsing --------------------------------------------------------------------------------
def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _coerce(tool: str, p: ToolParam, value: Any) -> Any:
    """``value`` as ``p``'s Python type, or a :class:`ToolCallError` saying what was expected."""
    expected = _TYPE_WORDS[p.json_type]
    got = type(value).__name__
    if p.py_type is bool:
        if isinstance(value, bool):
            return value
    elif p.py_type is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        # JSON has one number type; accept 3.0 for 3, but never 3.5.
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return int(value)
    elif p.py_type is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool) \
                and math.isfinite(value):
            return float(value)
    elif isinstance(value, str):
        return value
    raise ToolCallError(f"{tool}: argument '{p.name}' must be {expected}, "
                        f"got {got} {_describe(value)}")


def _load_arguments(tool: str, arguments: Any) -> dict[str, Any]:
    if arguments is None:
        return {}
    if isinstance(arguments, (str, bytes)):
        text = arguments.decode("utf-8", "replace") if isinstance(arguments, bytes) else arguments
        if not text.strip():
            return {}
        try:
            arguments = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ToolCallError(f"{tool}: arguments are not valid JSON ({exc}); "
                                f"send a JSON object such as {{\"name\": value}}") from None
        if not _is_unicode(arguments):
            raise ToolCallError(f"{tool}: arguments hold a lone UTF-16 surrogate escape, which "
                                f"is not Unicode text; send valid UTF-8 strings")
    if not isinstance(arguments, dict):
        raise ToolCallError(f"{tool}: arguments must be a JSON object, "
                            f"got {type(arguments).__name__} {_describe(arguments)}")
    return arguments


def _is_unicode(value: Any) -> bool:
    """Whether every string in a decoded JSON value is encodable (no lone surrogates)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):
        return False
    return True


def parse_tool_call(env: Environment | type[Environment], name: Any,
                    arguments: Any = None) -> Action:
    """Turn a tool call into a semantic action of ``env``, or raise :class:`ToolCallError`.

    ``arguments`` may be a dict, a JSON string (as LLM APIs send them) or ``None``. Whether the
    resulting action is *legal* in the current state is not checked here — that is the
    environment's ``validate`` (its message then reaches the agent the same way).
    """
    specs = _tool_index(tuple(env.action_types))
    if not isinstance(name, str) or not name:
        raise ToolCallError(f"tool name must be a non-empty string, got {_describe(name)}; "
                            f"available tools: {', '.join(specs)}")
    spec = specs.get(name)
    if spec is None:
        close = difflib.get_close_matches(name, list(specs), n=1) if len(name) <= 64 else []
        hint = f" Did you mean '{close[0]}'?" if close else ""
        raise ToolCallError(f"unknown tool {_describe(name)}.{hint} "
                            f"Available tools: {', '.join(specs)}")
    args = _load_arguments(name, arguments)
    known = {p.name: p for p in spec.params}
    unexpected = sorted(str(k) for k in args if k not in known)
    if unexpected:
        allowed = ", ".join(known) or "none"
        raise ToolCallError(f"{name}: unexpected argument(s) {', '.join(map(repr, unexpected))}; "
                            f"expected arguments: {allowed} — signature {spec.signature()}")
    missing = [p.name for p in spec.params if p.required and p.name not in args]
    if missing:
        raise ToolCallError(f"{name}: missing required argument(s) "
                            f"{', '.join(map(repr, missing))} — signature {spec.signature()}")
    values = {k: _coerce(name, known[k], v) for k, v in args.items()}
    return spec.action_type(**values)


def action_to_call(action: Action) -> tuple[str, dict[str, Any]]:
    """``(tool name, arguments)`` of a semantic action — the inverse of :func:`parse_tool_call`.

    Optional arguments left at their default are omitted (e.g. an action's optional prediction).
    """
    spec = spec_for(type(action))
    return spec.name, {p.name: getattr(action, p.name) for p in spec.params
                       if p.required or getattr(action, p.name) != p.default}


def format_call(action: Action) -> str:
    """``admit_general(slot=3)`` — how actions are written in text observations."""
    name, args = action_to_call(action)
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


def as_tool_call(action: Action) -> str:
    """``<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>`` — the Qwen/Hermes form,
    exactly as the Qwen3 chat template writes an assistant's tool call (so SFT on these replies
    teaches a model the text it must produce)."""
    name, args = action_to_call(action)
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"


@dataclass(frozen=True)
class _Call:
    """One encoded action as a tool call, precomputed (the encoding never depends on state)."""

    call: dict[str, Any]
    text: str


@dataclass(frozen=True)
class _CallTable:
    """Every encoded action of one env as a call, plus what the compact text needs.

    ``template_id[i]`` indexes ``templates`` — the call with its last integer argument written
    ``N`` (e.g. ``relocate(unit=0, post=N)``), -1 when there is none — and ``value[i]`` is that
    argument. Consecutive legal calls sharing a template are listed on one line.
    """

    calls: list[_Call]
    templates: list[str]
    template_id: np.ndarray
    value: np.ndarray
    lines_cache: dict[bytes, list[str]] = dataclasses.field(default_factory=dict)
    """Listing of recent legal sets (masks repeat a lot within an episode), bounded."""


_CALL_TABLES: weakref.WeakKeyDictionary[Environment, _CallTable] = weakref.WeakKeyDictionary()


def _call_table(env: Environment) -> _CallTable:
    """The :class:`_CallTable` of ``env`` (built once per env object)."""
    table = _CALL_TABLES.get(env)
    if table is None:
        calls: list[_Call] = []
        templates: dict[str, int] = {}
        ids: list[int] = []
        values: list[int] = []
        for index in range(env.num_actions):
            action = env.decode(index)
            name, args = action_to_call(action)
            calls.append(_Call({"tool_name": name, "arguments": args}, format_call(action)))
            if args and type(list(args.values())[-1]) is int:
                *head, (key, value) = args.items()
                fixed = "".join(f"{k}={v!r}, " for k, v in head)
                ids.append(templates.setdefault(f"{name}({fixed}{key}=N)", len(templates)))
                values.append(value)
            else:
                ids.append(-1)
                values.append(0)
        table = _CallTable(calls, list(templates), np.array(ids, dtype=np.int64),
                           np.array(values, dtype=np.int64))
        _CALL_TABLES[env] = table
    return table


class LegalView:
    """The legal actions of one state, computed once and shown as calls and as text lines."""

    def __init__(self, env: Environment, state: Any, mask: Any = None) -> None:
        self._table = _call_table(env)
        mask = env.action_mask(state) if mask is None else mask
        self._indices = np.flatnonzero(mask)

    def calls(self) -> list[dict[str, Any]]:
        """``[{"tool_name", "arguments"}, ...]`` (fresh dicts: callers may mutate them)."""
        calls = self._table.calls
        return [{"tool_name": calls[i].call["tool_name"],
                 "arguments": dict(calls[i].call["arguments"])}
                for i in self._indices.tolist()]

    def lines(self, max_listed: int = 200, explicit: bool = False) -> list[str]:
        """``Legal actions (n):`` then the calls, compact for LLM context windows.

        Grammar (one item per line, after the header)::

            line    := "- " call | "- " template ", N in {" ranges "}"
            call    := name "(" [arg "=" literal {", " arg "=" literal}] ")"
            template:= a call whose last argument is written "N"
            ranges  := (int | int ".." int) {", " (int | int ".." int)}

        Consecutive calls that differ only in their last integer argument share a line:
        ``- transfer_to_icu(bed=N), N in {0..4, 7, 9..19}``,
        ``- relocate(unit=2, post=N), N in {0..19}``. ``explicit=True`` writes one call per line
        instead (for parsers that cannot read ranges). At most ``max_listed`` lines are listed.
        """
        idx = self._indices
        table = self._table
        key = idx.tobytes() + max_listed.to_bytes(4, "little") + bytes([explicit])
        cached = table.lines_cache.get(key)
        if cached is not None:
            return list(cached)
        out = self._lines(max_listed, explicit)
        if len(table.lines_cache) >= 64:
            table.lines_cache.clear()
        table.lines_cache[key] = out
        return list(out)

    def _lines(self, max_listed: int, explicit: bool) -> list[str]:
        idx = self._indices
        out = [f"Legal actions ({idx.size}):"]
        if idx.size == 0:
            return [*out, "- none (the episode is over)"]
        table = self._table
        if explicit:
            each = [f"- {table.calls[i].text}" for i in idx.tolist()]
            more = [f"- ... and {len(each) - max_listed} more"] if len(each) > max_listed else []
            return [*out, *each[:max_listed], *more]
        tid = table.template_id[idx]
        # Segments of consecutive legal calls with the same template (vectorised: hot path).
        starts = np.flatnonzero(np.r_[True, (tid[1:] != tid[:-1]) | (tid[1:] < 0)]).tolist()
        ends = [*starts[1:], idx.size]
        body: list[str] = []
        # Plain lists from here on: many short segments made per-segment numpy calls the cost.
        ids, tids, vals = idx.tolist(), tid.tolist(), table.value[idx].tolist()
        for a, b in zip(starts, ends, strict=True):
            t = tids[a]
            if t < 0 or b - a == 1:
                body += [f"- {table.calls[i].text}" for i in ids[a:b]]
            else:
                body.append(f"- {table.templates[t]}, N in {{{_ranges(vals[a:b])}}}")
        out += body[:max_listed]
        if len(body) > max_listed:
            out.append(f"- ... and {len(body) - max_listed} more lines")
        return out


def _ranges(values: list[int]) -> str:
    """``[0, 1, 2, 5, 7, 8]`` -> ``"0..2, 5, 7..8"`` (values ascending, non-empty)."""
    parts: list[str] = []
    start = prev = values[0]
    for v in values[1:]:
        if v != prev + 1:
            parts.append(str(start) if start == prev else f"{start}..{prev}")
            start = v
        prev = v
    parts.append(str(start) if start == prev else f"{start}..{prev}")
    return ", ".join(parts)


def legal_calls(env: Environment, state: Any) -> list[dict[str, Any]]:
    """The legal actions right now as tool calls ``{"tool_name", "arguments"}``."""
    return LegalView(env, state).calls()


def text_observation(env: Environment, state: Any, max_listed: int = 200,
                     legal: LegalView | None = None, explicit: bool = False) -> str:
    """``render_text`` followed by the legal actions, written as calls an agent can copy
    (grammar: :meth:`LegalView.lines`)."""
    legal = legal if legal is not None else LegalView(env, state)
    return "\n".join([env.render_text(state).rstrip(), "", *legal.lines(max_listed, explicit)])
