"""The designed pictures of codered, pharmacy, evgrid / evgrid_team and the metro city, in a real
browser (Playwright + Debian's chromium, nothing fetched): one short replay each, the elements
drawn checked against the frame, no console errors, the grade labelled running mid-episode and
final at the end. Screenshots go to ``reports/screenshots`` (``LIFELINE_SCREENSHOTS``); the ones
in ``docs/img/`` were made by this file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lifeline.eval.episode import Task
from lifeline.eval.replay import load, record_episode
from tests.web.browser_support import SHOTS, chromium

EPISODES = {
    "codered": ("task3", "heuristic"),
    "pharmacy": ("medium", "base_stock"),
    "evgrid": ("heatwave_peak", "greedy"),
    "evgrid_team": ("heatwave_peak", "team_greedy"),  # the operator caps hot zones
    "dispatch_metro": ("metro_mass_casualty", "closest_idle"),
}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("designed")
    return {env: Path(record_episode(Task(env, scenario, agent, 3), out)["replay"])
            for env, (scenario, agent) in EPISODES.items()}


def _open(browser: Any, path: Path, width: int = 1400) -> Any:
    from lifeline.web import replay_app
    from tests.web.test_web_browser import _serve

    server, url, thread = _serve(replay_app([path]))
    page = browser.new_page(viewport={"width": width, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.wait_for_function("window.LLV && window.LLV.ready", timeout=20_000)
    page.errors = errors
    page.server = (server, thread)
    return page


def _goto(page: Any, i: int) -> None:
    page.locator("#scrub").fill(str(i))
    page.wait_for_function(f"LLV.index === {i}")


def _close(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".panel").first.screenshot(path=str(SHOTS / f"{name}.png"))
    assert page.errors == []
    server, thread = page.server
    page.close()
    server.should_exit = True
    thread.join(5)


def _grade_labels(page: Any, n: int) -> None:
    """Mid-episode the grade is the running one (no 'score'); at the end the final score."""
    _goto(page, n // 2)
    label = page.locator(".status .grade")
    assert label.get_attribute("data-final") == "0"
    assert label.inner_text().startswith("running")
    assert "score" not in page.locator(".status").inner_text()
    _goto(page, n - 1)
    assert page.locator(".status .grade").get_attribute("data-final") == "1"
    assert "final score" in page.locator(".status .grade").inner_text()


def test_codered_map_hospitals_and_queue(browser: Any, replays: dict[str, Path]) -> None:
    steps = load(replays["codered"])["steps"]
    page = _open(browser, replays["codered"])
    assert page.locator("[data-view='codered']").count() == 1
    busiest = max(range(len(steps)), key=lambda i: sum(
        p["status"] in ("waiting", "call", "unit_en_route", "on_scene")
        for p in steps[i]["frame"]["patients"]))
    for i in (0, busiest, len(steps) - 1):
        _goto(page, i)
        f = steps[i]["frame"]
        assert page.locator("line.road").count() == len(f["roads"])
        assert page.locator("line.road.closed").count() == sum(r["closed"] for r in f["roads"])
        assert page.locator(".ambulance").count() == sum(
            u["status"] != "inactive" for u in f["ambulances"])
        assert page.locator(".site .patient").count() == sum(
            p["status"] in ("waiting", "call", "unit_en_route", "on_scene", "callback_pending",
                            "self_transport") for p in f["patients"])
        assert page.locator(".hcard").count() == len(f["hospitals"])
        assert page.locator("rect.blood").count() == 8 * len(f["hospitals"])
        assert page.locator("rect.or").count() == sum(len(h["ors"]) for h in f["hospitals"])
        assert page.locator(".qcall").count() == min(12, len(f["queue"]))
        units = page.locator("rect.blood[data-type='O-']").first.get_attribute("data-units")
        assert int(units) == f["hospitals"][0]["blood"]["O-"]
    _grade_labels(page, len(steps))
    _goto(page, busiest)
    _close(page, "view_codered")


def test_pharmacy_stock_expiry_orders_and_tool_replies(browser: Any,
                                                       replays: dict[str, Path]) -> None:
    steps = load(replays["pharmacy"])["steps"]
    page = _open(browser, replays["pharmacy"])
    assert page.locator("[data-view='pharmacy']").count() == 1
    mid = len(steps) // 2
    for i in (0, mid, len(steps) - 1):
        _goto(page, i)
        f = steps[i]["frame"]
        n_cells = len(f["central"]) * (1 + len(f["wards"]))
        assert page.locator(".stock .cell").count() == n_cells
        stocked = len(f["par"]["central"]) + sum(len(w) for w in f["par"]["wards"].values())
        assert page.locator(".stock rect.level").count() == stocked
        assert page.locator(".lot").count() == sum(len(v) for v in f["lots"].values())
        assert page.locator(".po").count() == min(12, sum(
            po["status"] != "cancelled" for po in f["purchase_orders"]))
        assert float(page.locator(".budget").get_attribute("data-left")) == f["available"]
        assert page.locator(".req").count() == len(f["wards"]) * len(f["central"])
        assert page.locator(".events .event").count() == min(5, len(f["events"]))
        ratio = page.locator(".cell[data-sku='BLOOD-RBC'][data-loc='CENTRAL'] rect.level")
        par = f["par"]["central"]["BLOOD-RBC"]
        assert abs(float(ratio.get_attribute("data-ratio")) - f["central"]["BLOOD-RBC"] / par) \
            < 1e-3
    # the event log shows each tool call and the reply it got
    _goto(page, 6)
    log = page.locator(".log").inner_text()
    assert "get_round_briefing" in log and "↩ Round 1/" in log
    assert page.locator(".log .ev-reply").count() >= 6
    _grade_labels(page, len(steps))
    _goto(page, mid)
    _close(page, "view_pharmacy")


def test_live_pharmacy_tools_are_usable_and_replies_logged(browser: Any) -> None:
    from lifeline.serve.run import background_server
    from lifeline.serve.server import build_app

    with background_server(build_app(["pharmacy"])) as base:
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(base + "/pharmacy/web")
        page.wait_for_function("window.LLL && window.LLL.ready", timeout=20_000)
        page.fill("#seed", "2")
        page.click("#new")
        page.wait_for_function("LLL.snap && LLL.snap.steps === 0")
        assert page.locator("[data-view='pharmacy']").count() == 1
        assert page.locator("#tools form").count() == page.evaluate("LLL.info.tools.length")
        # the enterprise tools take free-form arguments: usable, not greyed out as "0 legal"
        free = page.locator("#tools form.freeform")
        assert free.count() >= 15
        assert page.locator("#tools form.freeform.masked").count() == 0
        assert "0 legal" not in free.first.inner_text()
        page.locator("#tools form[data-tool='get_round_briefing'] button").click()
        page.wait_for_function("LLL.snap.steps === 1")
        text = page.locator("#toollog").inner_text()
        assert "get_round_briefing()" in text and "↩ Round 1/" in text
        assert page.locator(".status .grade[data-final='0']").count() == 1
        _ = page.locator("#status").inner_text()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "live_pharmacy.png"), full_page=True)
        assert errors == []
        page.close()


@pytest.mark.parametrize("env_name", ["evgrid", "evgrid_team"])
def test_evgrid_stations_zones_and_the_day(browser: Any, replays: dict[str, Path],
                                           env_name: str) -> None:
    steps = load(replays[env_name])["steps"]
    page = _open(browser, replays[env_name])
    assert page.locator("[data-view='evgrid']").count() == 1
    busiest = max(range(len(steps)), key=lambda i: sum(
        x["queue"] + x["en_route"] for x in steps[i]["frame"]["stations"]))
    picks = [0, busiest, len(steps) - 1]
    if env_name == "evgrid_team":
        capped = [i for i, s in enumerate(steps)
                  if any(c is not None for c in s["frame"]["operator"]["caps_kw"])]
        assert capped, "the operator never capped a zone: pick a hotter scenario"
        picks.append(capped[len(capped) // 2])
    for i in picks:
        _goto(page, i)
        f = steps[i]["frame"]
        assert page.locator(".station").count() == len(f["stations"])
        assert page.locator(".station .queue-badge").count() == sum(
            x["queue"] > 0 for x in f["stations"])
        assert page.locator(".station[data-out='1']").count() == sum(
            x["out"] for x in f["stations"])
        assert page.locator(".zone").count() == len(f["zones"])
        assert page.locator(".feeder").count() == len(f["zones"])
        assert page.locator(".feeder .heat").count() == len(f["zones"])
        assert page.locator(".feeder[data-tripped='1']").count() == sum(
            z["tripped"] for z in f["zones"])
        assert page.locator(".ev-route").count() == min(80, sum(
            e["status"] == "driving" and e["station"] >= 0 for e in f["evs"]))
        z = f["zones"][0]
        shown = float(page.locator(".zone").first.get_attribute("data-loading"))
        assert abs(shown - z["load_kw"] / (z["limit_kw"] * z["derate"])) < 1e-3
        if env_name == "evgrid_team":  # the operator's directives
            op = f["operator"]
            assert page.locator(".feeder line.cap").count() == sum(
                c is not None for c in op["caps_kw"])
            assert page.locator(".station .blacklisted").count() == len(op["blacklisted"])
        else:
            assert "operator" not in f
        assert page.locator(".curve path.price").count() == 1
        assert page.locator(".curve line.now").count() == 1
    # labels never overlap (clustered: a label that would collide is left to the tooltip)
    boxes = page.evaluate("[...document.querySelectorAll('.station text.label')].map(t => "
                          "{const b = t.getBBox(); return [b.x, b.y, b.width, b.height];})")
    for k, a in enumerate(boxes):
        for b in boxes[k + 1:]:
            assert not (a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and
                        a[1] < b[1] + b[3] and b[1] < a[1] + a[3]), (a, b)
    _grade_labels(page, len(steps))
    _goto(page, picks[-1])
    _close(page, f"view_{env_name}")


def _overlaps(page: Any, selector: str) -> list[tuple[Any, Any]]:
    boxes = page.evaluate(f"[...document.querySelectorAll({selector!r})].map(t => "
                          "{const b = t.getBBox(); return [b.x, b.y, b.width, b.height];})")
    return [(a, b) for k, a in enumerate(boxes) for b in boxes[k + 1:]
            if a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3]
            and b[1] < a[1] + a[3]]


def test_metro_city_at_full_hd(browser: Any, replays: dict[str, Path]) -> None:
    rep = load(replays["dispatch_metro"])
    st, steps = rep["header"]["static"], rep["steps"]
    assert len(st["nodes"]) == 240
    page = _open(browser, replays["dispatch_metro"], width=1920)
    assert page.locator("[data-view='dispatch_metro']").count() == 1
    assert page.locator(".hospital").count() == len(st["hospitals"])
    busiest = max(range(len(steps)), key=lambda i: len(steps[i]["frame"]["calls"]))
    for i in (0, busiest, len(steps) - 1):
        _goto(page, i)
        f = steps[i]["frame"]
        # every unit and call is drawn, alone or inside a cluster that counts it
        units = page.evaluate("[...document.querySelectorAll('.unit, .unit-cluster')]"
                              ".reduce((a, g) => a + Number(g.dataset.count || 1), 0)")
        assert units == len(f["units"])
        calls = page.evaluate("[...document.querySelectorAll('.call, .call-cluster')]"
                              ".reduce((a, g) => a + Number(g.dataset.count || 1), 0)")
        assert calls == len(f["calls"])
        assert page.locator("line.closed").count() == len(f["closed_roads"])
        # labels readable: none overlaps another
        assert _overlaps(page, "svg text.maplabel") == []
        # readable at full HD: the map is drawn at least 1200 px wide
        assert page.locator(".visual svg").bounding_box()["width"] >= 1200
    _grade_labels(page, len(steps))
    _goto(page, busiest)
    _close(page, "view_dispatch_metro")


def test_live_pages_draw_the_designed_pictures(browser: Any) -> None:
    """``/<env>/web``: a new hand-played episode shows its designed picture, the grade running."""
    from lifeline.serve.run import background_server
    from lifeline.serve.server import build_app

    views = {"codered": "codered", "evgrid": "evgrid", "dispatch_metro": "dispatch_metro"}
    with background_server(build_app(list(views))) as base:
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        for env_name, view in views.items():
            page.goto(f"{base}/{env_name}/web")
            page.wait_for_function("window.LLL && window.LLL.ready", timeout=20_000)
            page.fill("#seed", "4")
            page.click("#new")
            page.wait_for_function("LLL.snap && LLL.snap.steps === 0")
            assert page.locator(f"[data-view='{view}']").count() == 1, env_name
            assert page.locator(".status .grade[data-final='0']").count() == 1
            page.locator("#legal button.call").first.click()
            page.wait_for_function("LLL.snap.steps === 1")
            assert page.locator("#toollog div").count() >= 1
            if env_name == "codered":
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / "live_codered.png"), full_page=True)
        assert errors == []
        page.close()
