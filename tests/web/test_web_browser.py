"""The web pages in a real browser (Playwright driving Debian's chromium; nothing downloaded).

Loads a replay of each environment, scrubs, checks the drawn elements against the frame
(beds, waiting patients, units, hospitals, stations, calls), plays two replays side by side,
plays a live session by hand through ``/<env>/web``, watches an OpenEnv client's session, and
saves screenshots under ``reports/screenshots`` (``LIFELINE_SCREENSHOTS`` overrides).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lifeline.envs.ed.params import SCENARIOS as ED_SCENARIOS
from lifeline.eval.episode import Task
from lifeline.eval.replay import Recorder, load, record_episode
from tests.web.browser_support import SHOTS, chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("replays")
    files = {
        "ed": record_episode(Task("ed", "surge", "heuristic", 11), out)["replay"],
        "ed_random": record_episode(Task("ed", "surge", "random", 11), out)["replay"],
        "dispatch": record_episode(Task("dispatch", "bridge_collapse", "closest_idle", 11),
                                   out)["replay"],
    }
    # an environment without a dedicated visual: the generic view
    from lifeline.testing.counter import CounterEnv

    env = CounterEnv("default")
    path = out / "counter.jsonl"
    with path.open("w") as f:
        rec = Recorder(f, "counter", "default", 3, "random")
        state = env.reset(3)
        rec.start(env, state)
        while not state.done:
            action = 1 if state.count + 1 <= state.target else 0
            rec.step(env, state, action, env.step(state, action))
        rec.finish(env, state)
    files["counter"] = str(path)
    return {k: Path(v) for k, v in files.items()}


def _serve(app: Any) -> Any:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "viewer did not start"
        time.sleep(0.02)
    return server, f"http://127.0.0.1:{sock.getsockname()[1]}", thread


def _open_viewer(browser: Any, paths: list[Path], width: int = 1100) -> Any:
    from lifeline.web import replay_app

    server, url, thread = _serve(replay_app(paths))
    page = browser.new_page(viewport={"width": width, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("window.LLV && window.LLV.ready", timeout=20_000)
    page.errors = errors  # type: ignore[attr-defined]
    page.server = (server, thread)  # type: ignore[attr-defined]
    return page


def _close(page: Any) -> None:
    assert page.errors == []
    server, thread = page.server
    page.close()
    server.should_exit = True
    thread.join(5)


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _goto(page: Any, i: int) -> None:
    page.locator("#scrub").fill(str(i))  # the timeline scrubber, as a person drags it
    page.wait_for_function(f"LLV.index === {i}")


def test_ed_bed_board_matches_frames(browser: Any, replays: dict[str, Path]) -> None:
    steps = load(replays["ed"])["steps"]
    page = _open_viewer(browser, [replays["ed"]])
    for i in (0, len(steps) // 3, len(steps) - 1):
        _goto(page, i)
        f = steps[i]["frame"]
        assert page.locator(".bed").count() == len(f["general"]) + len(f["icu"])
        occupied = sum(p is not None for p in f["general"] + f["icu"])
        assert page.locator(".bed[data-occupied='1']").count() == occupied
        assert page.locator(".waiter").count() == min(40, len(f["waiting"]))
        assert page.locator(".vent").count() == f["ventilators"]["total"]
        assert f"step {i}/" in page.locator("#clock").inner_text()
    assert page.locator(".log div").count() > 10  # arrivals, treatments, actions ...
    _goto(page, len(steps) // 2)
    _shot(page, "viewer_ed")
    _close(page)


def test_dispatch_map_matches_frames(browser: Any, replays: dict[str, Path]) -> None:
    rep = load(replays["dispatch"])
    st, steps = rep["header"]["static"], rep["steps"]
    page = _open_viewer(browser, [replays["dispatch"]])
    assert page.locator(".station").count() == len(st["stations"])
    assert page.locator(".hospital").count() == len(st["hospitals"])
    busiest = max(range(len(steps)), key=lambda i: len(steps[i]["frame"]["calls"]))
    for i in (0, busiest, len(steps) - 1):
        _goto(page, i)
        f = steps[i]["frame"]
        assert page.locator(".unit").count() == len(f["units"])
        assert page.locator(".call").count() == len(f["calls"])
        assert page.locator(".hospital[data-divert='1']").count() == \
            sum(h["divert"] for h in f["hospitals"])
        assert page.locator("line.closed").count() == len(f["closed_roads"])
    # play advances the timeline, pause stops it
    _goto(page, 0)
    page.click("#play")
    page.wait_for_function("LLV.index > 5", timeout=10_000)
    page.click("#play")
    stopped = page.evaluate("LLV.index")
    page.wait_for_timeout(300)
    assert page.evaluate("LLV.index") == stopped
    _goto(page, busiest)
    _shot(page, "viewer_dispatch")
    _close(page)


def test_two_replays_side_by_side(browser: Any, replays: dict[str, Path]) -> None:
    page = _open_viewer(browser, [replays["ed"], replays["ed_random"]], width=1600)
    assert page.locator(".panel").count() == 2
    n = page.evaluate("LLV.panels[0].rep.steps.length")
    _goto(page, n // 2)
    # both panels show the same simulated moment (the second follows the first's clock)
    p0, p1 = page.evaluate("LLV.panels.map(p => p.rep.steps[p.current].frame.tick)")
    assert p0 == p1
    surge = ED_SCENARIOS["surge"]
    beds = surge.general_beds + surge.icu_beds
    assert page.locator(".panel").nth(1).locator(".bed").count() == beds
    _shot(page, "viewer_ed_side_by_side")
    _close(page)


def test_generic_view_for_envs_without_a_visual(browser: Any, replays: dict[str, Path]) -> None:
    steps = load(replays["counter"])["steps"]
    page = _open_viewer(browser, [replays["counter"]], width=900)
    _goto(page, len(steps) - 1)
    assert page.locator("[data-view='generic'] pre.text").inner_text().strip() == \
        steps[-1]["frame"]["text"].strip()
    _close(page)


def test_generic_view_shows_tables_and_numbers(browser: Any, tmp_path: Path) -> None:
    """A frame shaped like a new env's (stock levels, a pipeline of orders, counters)."""
    header = {"type": "header", "format": "lifeline-replay/1", "env": "stockroom",
              "env_version": 0, "scenario": "s", "seed": 0, "agent": "a",
              "package_version": "0", "created": "", "num_actions": 2, "static": {}}
    lines = [header]
    for i in range(5):
        frame = {"progress": i / 4, "day": i, "stock": [10 - i, 5, 3 + i],
                 "pipeline": [{"drug": "insulin", "qty": 4, "eta_days": 2 - i % 2}] * (i + 1),
                 "counters": {"stockouts": i // 2}, "budget": {"left": 100.0 - 7.5 * i},
                 "sites": [{"name": "A", "lat": 12.9, "lng": 77.6},
                           {"name": "B", "lat": 13.0, "lng": 77.7 + 0.01 * i}]}
        lines.append({"type": "step", "i": i, "score": 0.5, "components": {"service": 0.5},
                      "frame": frame, **({} if i == 0 else {
                          "action": {"kind": "order", "drug": 0}, "index": 1, "valid": True,
                          "message": "", "reward": 1.0, "return": float(i)})})
    path = tmp_path / "stockroom.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    page = _open_viewer(browser, [path], width=900)
    _goto(page, 4)
    assert page.locator("table.rows[data-field='pipeline'] tr").count() == 1 + 5
    assert page.locator("svg.bars[data-field='stock'] rect").count() == 3
    assert "budget.left" in page.locator("table.scalars").inner_text()
    assert page.locator(".map-point[data-table='sites']").count() == 2  # rows with lat/lng
    assert "stockouts: 1 → 2" in page.locator(".log").inner_text()
    _shot(page, "viewer_generic")
    _close(page)


def test_live_page_play_by_hand_and_watch(browser: Any) -> None:
    from lifeline.serve.client import LifelineClient
    from lifeline.serve.run import background_server
    from lifeline.serve.server import build_app

    app = build_app(["ed", "dispatch", "lifeline.testing.counter:COUNTER_SPEC"], watch=True)
    with background_server(app) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/")
        assert page.locator("#envs li").count() == 3  # the HTML index for browsers
        page.click("#envs a[href='/ed/web']")
        page.wait_for_function("window.LLL && window.LLL.ready", timeout=20_000)
        page.select_option("#scenario", "surge")
        page.fill("#seed", "5")
        page.click("#new")
        page.wait_for_function("LLL.snap && LLL.snap.steps === 0")
        surge = ED_SCENARIOS["surge"]
        assert page.locator(".bed").count() == surge.general_beds + surge.icu_beds
        assert page.locator("#tools form").count() == 12  # one form per tool (ED-v3: 12 kinds)
        n_legal = page.evaluate("LLL.snap.legal.length")
        assert page.locator("#legal button.call").count() == n_legal
        # ED triages arrivals for one tick: wait (a legal call) until someone can be admitted
        steps = 0
        while page.locator("#legal button[data-tool='admit_general']").count() == 0:
            assert steps < 12, "nobody reached the waiting room"
            page.locator("#legal button[data-tool='wait']").first.click()
            steps += 1
            page.wait_for_function(f"LLL.snap.steps === {steps}")
        # an admit from the legal list (the mask) ...
        page.locator("#legal button[data-tool='admit_general']").first.click()
        page.wait_for_function(f"LLL.snap.steps === {steps + 1}")
        assert page.locator("#lastmsg.ok").count() == 1
        assert page.locator(".bed[data-occupied='1']").count() >= 1
        # ... then an illegal one through its form: refused with the rules' message
        form = page.locator("#tools form[data-tool='step_down']")
        form.locator("input[name='bed']").fill("4")
        form.locator("button").click()
        page.wait_for_function(f"LLL.snap.steps === {steps + 2}")
        assert page.locator("#lastmsg.bad").count() == 1
        assert page.evaluate("LLL.snap.invalid") == 1
        _shot(page, "live_ed")

        # watch an OpenEnv client's session, read-only
        with LifelineClient(base, "dispatch").sync() as client:
            client.reset(seed=4, scenario="learning")
            for _ in range(3):
                client.call("hold")
            page.goto(base + "/dispatch/web")
            page.wait_for_function("window.LLL && window.LLL.ready", timeout=20_000)
            page.locator(".session button").first.click()
            page.wait_for_function("LLL.snap && LLL.snap.source === 'openenv'")
            assert page.evaluate("LLL.snap.steps") == 3
            assert page.locator(".unit").count() >= 1
            assert page.locator("#legal button.call").first.is_disabled()
            client.call("hold")
            page.wait_for_function("LLL.snap.steps === 4", timeout=10_000)  # polled
            _shot(page, "live_dispatch_watch")

        page.goto(base + "/counter/web")  # an env without a visual: the generic live view
        page.wait_for_function("window.LLL && window.LLL.ready", timeout=20_000)
        page.click("#new")
        page.wait_for_function("LLL.snap && LLL.snap.steps === 0")
        assert page.locator("[data-view='generic']").count() == 1
        assert errors == []
        page.close()
