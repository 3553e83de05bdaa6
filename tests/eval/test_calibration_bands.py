"""Calibration cards (issue 18): the command works, and realism does not silently regress.

The slow tests play each env's default scenario with its reference policy on a few held-out
seeds and assert that the statistics that are within their published band today stay there: a
later change to dynamics that breaks realism fails CI (the card in ``docs/calibration`` says why
each band was chosen; statistics outside their band are listed there, not here).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lifeline.calibrate import MODULES, Stat, calibrate, card_module
from lifeline.calibrate.card import render
from lifeline.cli import app
from lifeline.core.registry import spec

IN_BAND: dict[str, tuple[int, tuple[str, ...]]] = {
    # env: (episodes, statistics within band on the default scenario today)
    # ed: ESI-2 LOS left its band (350 vs 191-350) in stop 37, when the reference began to expedite
    # ESI 4-5 imaging; the card's _LOS_OUTSIDE note says why
    "ed": (40, ("d2p_median", "seen_in_target", "los_esi3", "los_esi4", "los_esi5",
                "los_order", "los_discharged_median", "los_ward_median", "boarding_median_h")),
    "dispatch": (30, ("resp_median", "resp_p90", "scene_median", "transport_median",
                      "handover_median", "uhu_pct_light", "offload_le_30_pct")),
    "codered": (100, ("d2b_median", "d2b_le90", "inhosp_cardiac")),
    "pharmacy": (20, ("outdate_plt", "fill_crit", "fill_all", "rbc_days")),  # the card's 20:
    # round 3 put platelet outdating at the band's lower edge (5.4 % on 20 episodes, 4.6 on 10)
    "evgrid": (2, ("wp_energy", "wp_plugged", "wp_charging", "wp_peak3h", "fast_minutes",
                   "fast_kwh", "peak_ratio", "hot_spot_max")),
}
"""Kept cheap (the five together take about a minute on one core); ed plays the card's 40
episodes because its per-ESI rows pool a few ESI-1 and ESI-5 visits a day."""


def test_band_check_is_inclusive_and_ignores_unjudged() -> None:
    stat = Stat(key="x", label="x", reference="r", band=(1.0, 2.0), source="s", why="w")
    assert stat.within(1.0) and stat.within(2.0) and not stat.within(2.01)
    assert stat.within(math.nan) is None
    assert Stat(key="y", label="y", reference="r", band=None, source="s", why="w").within(5) \
        is None


def test_every_card_cites_a_source_and_says_why() -> None:
    for env in MODULES:
        for stat in card_module(env).STATS:
            assert stat.source and stat.why and stat.reference, (env, stat.key)
            if stat.checked == "K":
                assert stat.band is None, f"{env}.{stat.key}: a K reference must not be judged"


def test_unknown_env_is_one_error_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["calibrate", "nope", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "Error" in result.output


def test_cli_writes_a_card(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["calibrate", "codered", "--episodes", "2", "--out",
                                      str(tmp_path), "--no-plots"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "codered.md").read_text()
    assert "Door-to-balloon" in text and "Krumholz" in text
    index = (tmp_path / "README.md").read_text()
    assert index.count("[codered](codered.md)") == 1
    CliRunner().invoke(app, ["calibrate", "codered", "--episodes", "1", "--out", str(tmp_path),
                             "--no-plots"])
    assert (tmp_path / "README.md").read_text().count("[codered](codered.md)") == 1


@pytest.mark.slow
@pytest.mark.parametrize("env", sorted(IN_BAND))
def test_default_scenario_stays_within_band(env: str) -> None:
    episodes, keys = IN_BAND[env]
    card = calibrate(env, spec(env).default_scenario, episodes)
    assert render(card).startswith(f"# Calibration card: `{env}`")
    for key in keys:
        row = card.row(key)
        assert row.within, (f"{env} {row.stat.label}: {row.value} left its band "
                            f"{row.stat.band} ({row.stat.source})")


def test_ed_probe_reads_stays_from_the_state() -> None:
    """ED-v3: the probe reads the env's own per-visit log. A visit seen after 30 min that left
    home after 150 min, and an ICU admission seen at once that left after 300 min, 60 of them
    boarding; a visit arriving after 18:00 is not in the LOS rows."""
    from types import SimpleNamespace

    from lifeline.calibrate.ed import Probe
    from lifeline.envs.ed.types import EDCounters, EDLog

    env = SimpleNamespace(params=SimpleNamespace(tick_minutes=15.0))
    log = EDLog(provider=[(3, 2, 0), (1, 1, 0)],
                departures=[(3, 10, 0, -1, 0), (1, 20, 2, 4, 0), (3, 8, 0, -1, 80)],
                busy_physician_ticks=5, physician_ticks=10)
    state = SimpleNamespace(log=log, counters=EDCounters(patients=3, lwbs=0), schedule=[[]])
    probe = Probe()
    probe.on_step(env, state)
    values = probe.values()
    assert values["los_esi3"] == 150.0 and values["los_esi1"] == 300.0
    assert values["d2p_median"] == (30.0 + 15.0) / 2
    assert values["los_icu_mean"] == 300.0 and values["boarding_median_h"] == 1.0
    assert values["admitted_within_6h"] == 100.0 and values["physician_utilisation"] == 50.0


def test_dispatch_probe_reads_the_env_intervals() -> None:
    """Scene times are the env's per-type table (x2 for a fire with one of its two units);
    handovers respect the env's 10-min floor; responses are non-negative."""
    from lifeline.calibrate.dispatch import Probe
    from lifeline.envs.dispatch.params import SCENE_MIN
    from lifeline.eval.episode import Task, run_episode

    probe = Probe()
    run_episode(Task("dispatch", "advanced", "closest_idle", 1_000_000), on_step=probe.on_step)
    allowed = {float(x) for x in SCENE_MIN} | {2.0 * x for x in SCENE_MIN}
    assert probe.scene and all(min(abs(v - a) for a in allowed) < 1e-6
                               for v in probe.scene.values())
    assert probe.handover and min(probe.handover.values()) >= 10.0 - 1e-9
    assert probe.transport and all(b >= a for a, b in probe.transport.values())
    assert (probe.responses() >= 0).all()


def test_ed_probe_counts_a_boarded_ward_admission_as_admitted() -> None:
    """ED-v3: a ward admission the env logged (ESI 2, left for the ward after 105 min, 4 ticks
    boarding) is an admission in the shares, the ward-LOS median and the boarding rows; no home
    discharge, so the discharged median is undefined."""
    from types import SimpleNamespace

    from lifeline.calibrate.ed import Probe
    from lifeline.envs.ed.types import EDCounters, EDLog

    env = SimpleNamespace(params=SimpleNamespace(tick_minutes=15.0))
    log = EDLog(provider=[(2, 1, 0)], departures=[(2, 7, 1, 4, 0)])
    state = SimpleNamespace(log=log, counters=EDCounters(patients=1), schedule=[[]])
    probe = Probe()
    probe.on_step(env, state)
    values = probe.values()
    assert values["admit_esi2"] == 100.0 and values["admit_share"] == 100.0
    assert values["los_esi2"] == 105.0 and values["los_ward_median"] == 105.0
    assert values["boarding_mean_h"] == 1.0
    assert math.isnan(values["los_discharged_median"])
