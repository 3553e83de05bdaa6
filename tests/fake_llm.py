"""A scripted OpenAI-compatible chat-completions server for LLM-agent tests (127.0.0.1 only).

Each request is answered by the next behaviour of ``script`` (the last one repeats):
``"legal"`` (a native tool call: the first legal call in the observation), ``"text"`` (the same
call as ``<tool_call>`` text), ``"plain"`` (as ``name(arg=value)``), ``"none"`` (prose without a
call), ``"bad_tool"``, ``"garbage"`` (a non-JSON body), ``"429"``, ``"500"``, ``"close"`` (drop
the connection).
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lifeline.agents.toolcall import parse_call_line

_LEGAL_LINE = re.compile(r"^- (\w+\(.*?\))(?:, N in \{(\d+).*\})?$", re.MULTILINE)


def first_legal_call(observation: str) -> tuple[str, dict[str, Any]]:
    """The first legal call listed in a text observation (``N`` ranges take their first value)."""
    match = _LEGAL_LINE.search(observation.split("Legal actions", 1)[1])
    assert match, observation[-300:]
    text = match.group(1)
    if match.group(2) is not None:
        text = text.replace("=N", f"={match.group(2)}")
    call = parse_call_line(text)
    assert call is not None, text
    return call


class FakeLLM:
    def __init__(self, script: list[str]) -> None:
        self.script, self.requests = list(script), 0
        self.bodies: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.bodies.append(body)
                mode = fake.script[min(fake.requests, len(fake.script) - 1)]
                fake.requests += 1
                if mode == "close":
                    self.close_connection = True
                    self.connection.close()
                    return
                if mode in ("429", "500"):
                    self.send_response(int(mode))
                    self.send_header("Retry-After", "0")
                    self.end_headers()
                    return
                if mode == "garbage":
                    payload = b"<html>not json"
                else:
                    user = next(m for m in body["messages"] if m["role"] == "user")["content"]
                    name, args = first_legal_call(user)
                    message: dict[str, Any] = {"role": "assistant", "content": ""}
                    if mode == "legal":
                        message["tool_calls"] = [{"id": f"c{fake.requests}", "type": "function",
                                                  "function": {"name": name,
                                                               "arguments": json.dumps(args)}}]
                    elif mode == "text":
                        message["content"] = ("Thinking.\n<tool_call>" + json.dumps(
                            {"name": name, "arguments": args}) + "</tool_call>")
                    elif mode == "plain":
                        kv = ", ".join(f"{k}={v!r}" for k, v in args.items())
                        message["content"] = f"I choose:\n{name}({kv})"
                    elif mode == "bad_tool":
                        message["content"] = '<tool_call>{"name": "fly_away"}</tool_call>'
                    else:
                        message["content"] = "I am not sure what to do."
                    payload = json.dumps({"choices": [{"message": message}],
                                          "usage": {"prompt_tokens": 100,
                                                    "completion_tokens": 7}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
