"""``/<env>/web``: watch a running session or play one by hand, in the browser.

Routes added to each environment's sub-application (so they sit beside OpenEnv's ``/ws``,
``/schema``, ... and behind the same bearer-token guard):

* ``GET  /<env>/web`` — the page (``static/live.html``);
* ``GET  /<env>/web/api/info`` — scenarios, tool schemas (the forms), the tools the action mask
  covers (``masked_tools``; the others take free-form arguments the rules check), the static
  picture;
* ``GET  /<env>/web/api/sessions`` — sessions to watch, OpenEnv clients' and hand-played ones,
  each under a *watch handle* ``watch:<random>``: a read-only capability, not a session id;
* ``POST /<env>/web/api/new`` — ``{"scenario", "seed"}``: a hand-played session; the answer's
  ``id`` (``web:<random>``) is the only key that plays it, known only to its creator;
* ``GET  /<env>/web/api/session/{id}`` — frame, text, legal calls (the mask), running grade
  (``id`` a watch handle or the creator's ``web:`` key);
* ``POST /<env>/web/api/session/{id}/step`` — ``{"tool_name", "arguments"}`` or ``{"index"}``,
  with the creator's key only (a watch handle gets 403).

Watching reads a session's state between its steps (everything runs on one event loop), never
changes it; a watch handle cannot step, reset or close anything. Bodies are checked as the
WebSocket path checks them (same reasons, HTTP 400; seeds are integers in [0, 2**64)). The
page's own sessions are capped per environment (oldest dropped).
``/`` answers browsers (``Accept: text/html``) with an HTML index; other clients keep the JSON.
"""

# No ``from __future__ import annotations`` here: FastAPI must resolve the endpoints'
# ``Request`` annotations, and fastapi is imported inside ``_mount_env`` (not at module level,
# so that importing lifeline.web needs no server extra).
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from lifeline.core.jsonable import clean
from lifeline.eval.seeds import drawn_seed

MAX_WEB_SESSIONS = 32
"""Hand-played sessions kept per environment (the oldest is dropped beyond this)."""


@dataclass
class WebSession:
    """One episode played from the page."""

    core: Any
    state: Any
    seed: int
    last: dict[str, Any] = field(default_factory=dict)
    total: float = 0.0
    watch: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    """The read-only handle other pages see in the session list."""


def _snapshot(core: Any, state: Any, seed: Any, sid: str, source: str,
              last: dict[str, Any] | None = None, with_static: bool = False) -> dict[str, Any]:
    from lifeline.faces.tools import LegalView

    grade = core.grade(state)
    out: dict[str, Any] = {
        "id": sid, "source": source, "scenario": core.scenario, "seed": seed,
        "steps": state.steps, "done": bool(state.done), "invalid": state.invalid_actions,
        "frame": core.frame(state), "text": core.render_text(state),
        "legal": LegalView(core, state).calls() if not state.done else [],
        "score": grade.score, "components": dict(grade.components),
        "last": last or {},
    }
    if with_static:
        out["static"] = core.frame_static()
    cleaned: dict[str, Any] = clean(out)
    return cleaned


def _watchable(env: Any) -> dict[str, Any]:
    """``{watch handle: session}`` of OpenEnv clients' sessions with a running episode, from
    the server's own session table (``env.server.sessions``, :mod:`lifeline.serve.sessions`)."""
    return {e.watch: e.env for e in env.server.sessions.entries()
            if getattr(e.env, "_state", None) is not None}


def _json_body(raw: bytes) -> dict[str, Any]:
    """A request body as a JSON object (empty body: ``{}``), or HTTP 400 saying why not."""
    import json

    from fastapi import HTTPException

    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise HTTPException(400, f"the body is not valid JSON ({exc}); send a JSON object"
                            ) from None
    if not isinstance(body, dict):
        raise HTTPException(400, f"the body must be a JSON object, got {type(body).__name__}")
    return body


def _new_options(env: Any, body: dict[str, Any]) -> tuple[str | None, int | None]:
    """``(scenario, seed)`` of a ``new`` request, checked as a WebSocket reset is (by the
    served env's ``reset_problem``: the server's words, without importing the server)."""
    from fastapi import HTTPException

    unknown = sorted(repr(str(k))[:40] for k in body if k not in ("scenario", "seed"))
    if unknown:
        raise HTTPException(400, f"unexpected field(s) {', '.join(unknown[:5])}; "
                                 f"a new session is {{\"scenario\": ..., \"seed\": 0}}")
    scenario = body.get("scenario") or None
    seed = body.get("seed")
    seed = None if seed == "" else seed
    problem = env.reset_problem({"scenario": scenario, "seed": seed})
    if problem is not None:
        raise HTTPException(400, problem)
    return scenario, seed


def _mount_env(name: str, env: Any, watch: bool = False) -> None:
    from fastapi import HTTPException, Request
    from fastapi.responses import HTMLResponse

    from lifeline.core.registry import resolve_scenario
    from lifeline.faces.tools import ToolCallError, action_to_call, parse_tool_call, tool_specs
    from lifeline.web.assets import add_assets, page

    app = env.app
    spec = env.spec
    own: OrderedDict[str, WebSession] = OrderedDict()
    add_assets(app, "/web/static")

    @app.get("/web", response_class=HTMLResponse, include_in_schema=False)
    async def web_page() -> str:
        return page("live.html", ENV=name, BASE=f"/{name}/web")

    @app.get("/web/api/info")
    async def info() -> dict[str, Any]:
        core = spec.load()(spec.default_scenario)
        encoded = sorted({action_to_call(core.decode(i))[0] for i in range(core.num_actions)})
        return {"env": spec.name, "description": spec.description,
                "scenarios": list(spec.scenarios),
                "tools": [t.to_dict() for t in tool_specs(core)],
                "masked_tools": encoded,
                "static": clean(core.frame_static())}

    @app.get("/web/api/sessions")
    async def sessions() -> list[dict[str, Any]]:
        out = [{"id": f"watch:{s.watch}", "source": "web", "scenario": s.core.scenario,
                "seed": s.seed, "steps": s.state.steps, "done": bool(s.state.done)}
               for s in own.values()]
        for handle, s in (_watchable(env) if watch else {}).items():
            out.append({"id": f"watch:{handle}", "source": "openenv",
                        "scenario": s._core.scenario, "seed": s._seed,
                        "steps": s._state.steps, "done": bool(s._state.done)})
        return out

    @app.post("/web/api/new")
    async def new(request: Request) -> dict[str, Any]:
        scenario_name, seed = _new_options(env, _json_body(await request.body()))
        scenario = resolve_scenario(spec, scenario_name)
        if seed is None:
            seed = drawn_seed()
        core = spec.load()(scenario)
        sid = secrets.token_urlsafe(16)
        own[sid] = WebSession(core, core.reset(seed), seed)
        while len(own) > MAX_WEB_SESSIONS:
            own.popitem(last=False)
        snap = _snapshot(core, own[sid].state, seed, f"web:{sid}", "web", with_static=True)
        snap["watch"] = f"watch:{own[sid].watch}"
        return snap

    def _find(session_id: str) -> tuple[Any, Any, Any, WebSession | None, str]:
        """``(core, state, seed, the session if the key plays it, source)``."""
        kind, _, key = session_id.partition(":")
        if kind == "web" and key in own:
            s = own[key]
            return s.core, s.state, s.seed, s, "web"
        if kind == "watch":
            for s in own.values():
                if s.watch == key:
                    return s.core, s.state, s.seed, None, "web"
            found = _watchable(env).get(key) if watch else None
            if found is not None:
                return found._core, found._state, found._seed, None, "openenv"
        raise HTTPException(404, f"no session {session_id[:80]!r} (it may have ended; "
                                 f"sessions are named by the ids GET sessions lists)")

    @app.get("/web/api/session/{session_id}")
    async def session(session_id: str, static: bool = False) -> dict[str, Any]:
        core, state, seed, mine, source = _find(session_id)
        return _snapshot(core, state, seed, session_id, source,
                         mine.last if mine else None, with_static=static)

    @app.post("/web/api/session/{session_id}/step")
    async def step(session_id: str, request: Request) -> dict[str, Any]:
        core, state, seed, mine, _ = _find(session_id)
        if mine is None:
            raise HTTPException(403, "a watch handle is read-only: it cannot step, reset or "
                                     "close a session; only its creator's key plays it")
        body = _json_body(await request.body())
        problem = env.step_problem(body)
        if problem is not None:
            raise HTTPException(400, problem)
        action: Any
        message = ""
        if body.get("index") is not None:
            action = int(body["index"])
        else:
            try:
                action = parse_tool_call(core, body.get("tool_name"), body.get("arguments"))
            except ToolCallError as exc:
                action, message = -1, str(exc)
        ts = core.step(state, action)
        mine.total += ts.reward
        mine.last = {"action": body, "valid": ts.valid, "message": message or ts.message,
                     "reward": ts.reward, "return": mine.total}
        return _snapshot(core, state, seed, session_id, "web", mine.last)


def _index_html(served: dict[str, Any]) -> str:
    import html

    from lifeline import __version__

    rows = "".join(
        f'<li><a href="/{html.escape(n)}/web"><b>{html.escape(n)}</b></a> — '
        f"{html.escape(e.spec.description)} <small>({e.server.active_sessions} sessions; "
        f"scenarios: {html.escape(', '.join(e.spec.scenarios))})</small></li>"
        for n, e in served.items())
    return ("<!doctype html><html><head><meta charset='utf-8'><title>Lifeline</title>"
            "<link rel='stylesheet' href='/" + html.escape(next(iter(served), "")) +
            "/web/static/common.css'></head><body class='index'>"
            f"<h1>Lifeline {__version__}</h1><p>Environments served here — open one to watch a "
            f"running session or play one by hand (JSON: <code>/</code> with "
            f"<code>Accept: application/json</code>).</p><ul id='envs'>{rows}</ul></body></html>")


class HtmlIndex:
    """Pure ASGI middleware: ``GET /`` from a browser (``Accept: text/html``) gets the HTML index;
    everything else (JSON clients included) passes through untouched, streaming or not."""

    def __init__(self, app: Any, served: dict[str, Any]) -> None:
        self.app, self.served = app, served

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if (scope["type"] == "http" and scope["path"] == "/" and scope["method"] == "GET"
                and b"text/html" in dict(scope.get("headers") or []).get(b"accept", b"")):
            from fastapi.responses import HTMLResponse

            await HTMLResponse(_index_html(self.served))(scope, receive, send)
            return
        await self.app(scope, receive, send)


def mount(root: Any, served: dict[str, Any], watch: bool = False) -> None:
    """Add ``/<env>/web`` to every served environment and the HTML index at ``/``.

    ``watch`` publishes the OpenEnv clients' running sessions under read-only watch handles;
    without it the page lists and reads only the sessions started from it."""
    for name, env in served.items():
        _mount_env(name, env, watch)
    root.add_middleware(HtmlIndex, served=served)
