"""``/<env>/web``: watch a running session or play one by hand, in the browser.

Routes added to each environment's sub-application (so they sit beside OpenEnv's ``/ws``,
``/schema``, ... and behind the same bearer-token guard):

* ``GET  /<env>/web`` — the page (``static/live.html``);
* ``GET  /<env>/web/api/info`` — scenarios, tool schemas (the forms), the static picture;
* ``GET  /<env>/web/api/sessions`` — sessions to watch: OpenEnv clients' (read-only) and the
  page's own;
* ``POST /<env>/web/api/new`` — ``{"scenario", "seed"}``: a hand-played session;
* ``GET  /<env>/web/api/session/{id}`` — frame, text, legal calls (the mask), running grade;
* ``POST /<env>/web/api/session/{id}/step`` — ``{"tool_name", "arguments"}`` or ``{"index"}``.

Watching reads an OpenEnv session's state between its steps (everything runs on one event
loop), never changes it. The page's own sessions are capped per environment (oldest dropped).
``/`` answers browsers (``Accept: text/html``) with an HTML index; other clients keep the JSON.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from lifeline.replay import clean

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


def _snapshot(core: Any, state: Any, seed: Any, sid: str, source: str,
              last: dict[str, Any] | None = None, with_static: bool = False) -> dict[str, Any]:
    from lifeline.adapters.tools import LegalView

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


def _openenv_sessions(env: Any) -> dict[str, Any]:
    """Live sessions of OpenEnv clients with a running episode, from the server's own session
    table (``env.server.sessions``, :mod:`lifeline.serve.sessions`)."""
    return {e.session_id: e.env for e in env.server.sessions.entries()
            if getattr(e.env, "_state", None) is not None}


def _mount_env(name: str, env: Any) -> None:
    from fastapi import Body, HTTPException
    from fastapi.responses import HTMLResponse

    from lifeline.adapters.tools import ToolCallError, parse_tool_call, tool_specs
    from lifeline.core.registry import resolve_scenario
    from lifeline.core.rng import check_seed
    from lifeline.web import add_assets, page

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
        return {"env": spec.name, "description": spec.description,
                "scenarios": list(spec.scenarios),
                "tools": [t.to_dict() for t in tool_specs(core)],
                "static": clean(core.frame_static())}

    @app.get("/web/api/sessions")
    async def sessions() -> list[dict[str, Any]]:
        out = [{"id": f"web:{sid}", "source": "web", "scenario": s.core.scenario,
                "seed": s.seed, "steps": s.state.steps, "done": bool(s.state.done)}
               for sid, s in own.items()]
        for sid, s in _openenv_sessions(env).items():
            out.append({"id": f"openenv:{sid}", "source": "openenv",
                        "scenario": s._core.scenario, "seed": s._seed,
                        "steps": s._state.steps, "done": bool(s._state.done)})
        return out

    @app.post("/web/api/new")
    async def new(body: dict[str, Any] = Body(default={})) -> dict[str, Any]:
        scenario = resolve_scenario(spec, body.get("scenario") or None)
        raw_seed = body.get("seed")
        seed = secrets.randbelow(2**31) if raw_seed in (None, "") else check_seed(int(raw_seed))
        core = spec.load()(scenario)
        sid = secrets.token_hex(8)
        own[sid] = WebSession(core, core.reset(seed), seed)
        while len(own) > MAX_WEB_SESSIONS:
            own.popitem(last=False)
        return _snapshot(core, own[sid].state, seed, f"web:{sid}", "web", with_static=True)

    def _find(session_id: str) -> tuple[Any, Any, Any, WebSession | None]:
        source, _, sid = session_id.partition(":")
        if source == "web" and sid in own:
            s = own[sid]
            return s.core, s.state, s.seed, s
        if source == "openenv":
            found = _openenv_sessions(env).get(sid)
            if found is not None:
                return found._core, found._state, found._seed, None
        raise HTTPException(404, f"no session {session_id!r} (it may have ended)")

    @app.get("/web/api/session/{session_id}")
    async def session(session_id: str, static: bool = False) -> dict[str, Any]:
        core, state, seed, mine = _find(session_id)
        return _snapshot(core, state, seed, session_id, session_id.partition(":")[0],
                         mine.last if mine else None, with_static=static)

    @app.post("/web/api/session/{session_id}/step")
    async def step(session_id: str, body: dict[str, Any] = Body(...)) -> dict[str, Any]:
        core, state, seed, mine = _find(session_id)
        if mine is None:
            raise HTTPException(403, "sessions of other clients can be watched, not played")
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


def mount(root: Any, served: dict[str, Any]) -> None:
    """Add ``/<env>/web`` to every served environment and the HTML index at ``/``."""
    for name, env in served.items():
        _mount_env(name, env)
    root.add_middleware(HtmlIndex, served=served)
