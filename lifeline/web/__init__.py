"""The web faces: the replay viewer (``lifeline view``) and the live page of ``lifeline serve``.

Both are plain HTML + JavaScript + SVG/canvas shipped in ``lifeline/web/static`` (no CDN, nothing
fetched at run time). The pages draw every environment from its ``frame(state)`` pictures:
``ed`` as a bed board, ``dispatch`` and ``dispatch_metro`` as a city map (the metro's units and
calls clustered, labels placed without overlap), ``codered`` as Prakashnagar's map with hospital
gauges and the 911 queue, ``pharmacy`` as stock against par, expiry, orders and budget,
``evgrid`` / ``evgrid_team`` as stations and feeder zones under load; any other environment gets
a generic view (its text plus its numeric fields and tables), so a new environment is viewable
the day it lands. Mid-episode the grade's components are shown as *running*; the score is
*final* only at the end. The event log lists each action (tool call) with the env's reply.
The same frames drive ``render_mode="rgb_array"`` (:mod:`lifeline.faces.raster`).

* :func:`replay_app` — a FastAPI app serving replay files (:mod:`lifeline.eval.replay`) to the
  viewer;
  several replays are shown side by side on one timeline.
* :func:`mount_web` — adds ``/<env>/web`` (watch any running session, or play one by hand with
  buttons built from the tool schemas and the action mask) to an app made by
  :func:`lifeline.serve.server.build_app`, and an HTML index at ``/`` for browsers (JSON
  clients still get the JSON index).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lifeline.web.assets import ASSETS, STATIC_DIR, add_assets, page

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["ASSETS", "STATIC_DIR", "add_assets", "mount_web", "page", "replay_app"]


def replay_app(paths: list[Path]) -> FastAPI:
    """The viewer for ``paths`` (replay files; checked to be replays up front)."""
    from fastapi import FastAPI, HTTPException
    from fastapi.responses import HTMLResponse, PlainTextResponse

    from lifeline import __version__
    from lifeline.eval.replay import FORMAT, read_lines, read_text

    files = [Path(p) for p in paths]
    headers: list[dict[str, Any]] = []
    for f in files:
        first = next(read_lines(f), {})
        if first.get("format") != FORMAT:
            raise ValueError(f"{f}: not a Lifeline replay")
        headers.append({k: v for k, v in first.items() if k != "static"})
    app = FastAPI(title="Lifeline replay viewer", version=__version__)
    add_assets(app)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> str:
        return page("viewer.html", BASE="")

    @app.get("/api/replays")
    async def replays() -> list[dict[str, Any]]:
        return [{"id": i, "file": f.name, **h} for i, (f, h) in
                enumerate(zip(files, headers, strict=True))]

    @app.get("/api/replay/{i}", response_class=PlainTextResponse)
    async def replay(i: int) -> str:
        if not 0 <= i < len(files):
            raise HTTPException(404, f"no replay {i}")
        return read_text(files[i])

    return app


def mount_web(root: FastAPI, served: dict[str, Any], watch: bool = False) -> None:
    """Add the live pages to ``root`` (see :mod:`lifeline.web.live`); ``watch`` publishes the
    OpenEnv clients' sessions under read-only watch handles."""
    from lifeline.web.live import mount

    mount(root, served, watch)
