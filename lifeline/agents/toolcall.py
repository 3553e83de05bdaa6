"""One parser for the tool calls agents actually produce.

LLM agents answer in several shapes; :func:`extract_calls` finds every call in any of them and
returns ``(name, arguments)`` pairs, leaving the *meaning* (does the tool exist, are the arguments
right?) to :func:`lifeline.faces.tools.parse_tool_call`, whose messages say how to fix a call.

Accepted shapes, tried in this order:

1. an OpenAI chat message (``{"tool_calls": [{"function": {"name", "arguments"}}]}``) or a
   list of such tool-call dicts;
2. an MCP ``tools/call`` request (``{"method": "tools/call", "params": {"name", "arguments"}}``)
   or a bare ``{"name": ..., "arguments": ...}`` object (``tool_name`` is accepted for ``name``);
3. text with Qwen/Hermes tags: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``;
4. text holding a JSON object of shape 2 (e.g. in a Markdown code fence);
5. text with a plain call line in the legal-action grammar: ``admit_icu(slot=0)``,
   ``wait()``, ``route(ev=3, station=12, charge_rate=1.0)`` — keyword arguments whose values are
   Python/JSON literals (numbers, strings, ``true``/``false``/``True``/``False``).

Nothing here executes the reply: literals are read with :func:`ast.literal_eval` on an AST that
has been checked to be a plain call with keyword literal arguments.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

RawCall = tuple[Any, Any]
"""``(tool name, arguments)``; arguments may still be a JSON string, dict or ``None``."""

_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)
_CALL_LINE = re.compile(r"(?<![\w.])([A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]*)\)")
_JSON_LITERALS = {"true": True, "false": False, "null": None}


def _from_tool_call_dict(item: Any) -> RawCall | None:
    if not isinstance(item, dict):
        return None
    fn = item.get("function")
    if isinstance(fn, dict) and "name" in fn:
        return fn.get("name"), fn.get("arguments")
    if "name" in item or "tool_name" in item:
        return item.get("name", item.get("tool_name")), item.get("arguments",
                                                                  item.get("parameters"))
    return None


def _from_structured(reply: Any) -> list[RawCall] | None:
    """Calls from a dict/list reply, or ``None`` when the reply is not structured."""
    if isinstance(reply, list):
        calls = [c for c in map(_from_tool_call_dict, reply) if c is not None]
        return calls
    if not isinstance(reply, dict):
        return None
    if isinstance(reply.get("tool_calls"), list) and reply["tool_calls"]:
        return [c for c in map(_from_tool_call_dict, reply["tool_calls"]) if c is not None]
    if reply.get("method") == "tools/call" and isinstance(reply.get("params"), dict):
        call = _from_tool_call_dict(reply["params"])
        return [call] if call else []
    call = _from_tool_call_dict(reply)
    if call is not None:
        return [call]
    content = reply.get("content")
    return extract_calls(content) if isinstance(content, str) else []


def _json_object(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id in _JSON_LITERALS:
        return _JSON_LITERALS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
            and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)):
        return -node.operand.value
    if isinstance(node, ast.Constant):
        return node.value
    raise ValueError("not a literal")


def parse_call_line(text: str) -> RawCall | None:
    """``name(k=v, ...)`` → ``(name, {k: v})``; ``None`` when ``text`` is not such a call."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return None
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.args:
        return None
    args: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None:
            return None
        try:
            args[kw.arg] = _literal(kw.value)
        except ValueError:
            return None
    return call.func.id, args


def extract_calls(reply: Any) -> list[RawCall]:
    """Every tool call in ``reply`` (a chat message dict, MCP request, list or text), in order.

    An empty list means the reply holds no recognisable call (the agent then gets a repair
    prompt). Malformed JSON inside a ``<tool_call>`` tag is returned as a call named ``""`` with
    the raw text as arguments, so the caller can tell the model exactly what was wrong.
    """
    structured = _from_structured(reply)
    if structured is not None:
        return structured
    if not isinstance(reply, str):
        return []
    text = reply
    tagged = _TAG.findall(text)
    if tagged:
        calls: list[RawCall] = []
        for body in tagged:
            obj = _json_object(body)
            call = _from_tool_call_dict(obj) if obj is not None else parse_call_line(body)
            calls.append(call if call is not None else ("", body))
        return calls
    for candidate in [*_FENCE.findall(text), text.strip()]:
        obj = _json_object(candidate)
        if obj is not None:
            found = _from_structured(obj)
            if found:
                return found
    calls = []
    for match in _CALL_LINE.finditer(text):
        call = parse_call_line(match.group(0))
        if call is not None:
            calls.append(call)
    return calls
