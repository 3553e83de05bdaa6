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
    "ed": (40, ("los_esi1", "los_esi2", "los_esi3", "los_esi4", "los_esi5", "los_order",
                "admit_esi1", "admit_esi2", "admit_esi3", "admit_esi4", "admit_esi5",
                "admit_share", "lwbs_pct", "d2p_median", "los_discharged_median", "esi3_share")),
    "dispatch": (30, ("resp_median", "resp_p90", "scene_median", "transport_median",
                      "handover_median", "non_transport_pct")),
    "codered": (100, ("d2b_median", "d2b_le90", "inhosp_cardiac")),
    "pharmacy": (10, ("fill_crit", "fill_all", "rbc_days")),
    "evgrid": (2, ("wp_energy", "wp_plugged", "wp_charging", "wp_peak3h", "fast_minutes",
                   "fast_kwh", "peak_ratio", "hot_spot_max")),
}
"""Kept cheap (the five together take about a minute on one core); ed plays the card's 40
episodes because its admission shares by ESI pool a few ESI-1 and ESI-5 visits a day."""


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
    """Hand-made ED states: arrival at tick 0, a bed at tick 2, gone at tick 10 -> LOS 150 min,
    door-to-bed 30 min; a second patient takes an ICU bed at tick 1 (its ED stay ends there)."""
    from types import SimpleNamespace

    from lifeline.calibrate.ed import Probe
    from lifeline.envs.ed.types import GENERAL, ICU, EDCounters, Patient

    env = SimpleNamespace(params=SimpleNamespace(tick_minutes=15.0))
    a = Patient(pid=0, arrival_tick=0, true_acuity=3, triage_error=0, condition=0,
                needs_icu=False, needs_vent=False, treatment_ticks=8, patience_ticks=99)
    b = Patient(pid=1, arrival_tick=0, true_acuity=1, triage_error=0, condition=0,
                needs_icu=True, needs_vent=False, treatment_ticks=80, patience_ticks=99)
    counters = EDCounters(patients=2)

    def state(tick: int, waiting: list[Patient], general: list[Patient | None],
              icu: list[Patient | None]) -> SimpleNamespace:
        return SimpleNamespace(tick=tick, waiting=waiting, general=general, icu=icu,
                               counters=counters)

    probe = Probe()
    probe.on_step(env, state(0, [a, b], [None], [None]))
    b.location, b.admitted_tick = ICU, 1
    probe.on_step(env, state(1, [a], [None], [b]))
    a.location, a.admitted_tick = GENERAL, 2
    probe.on_step(env, state(2, [], [a], [b]))
    a.progress_ticks = 8
    probe.on_step(env, state(10, [], [None], [b]))
    values = probe.values()
    assert values["los_esi3"] == 150.0
    assert values["los_all_esi1"] == 15.0 and math.isnan(values["los_esi1"])
    assert values["admit_esi1"] == 100.0 and values["admit_esi3"] == 0.0
    assert values["d2p_median"] == (30.0 + 15.0) / 2


def test_dispatch_probe_reads_the_env_intervals() -> None:
    """Scene times are the env's per-type table (x2 for a fire with one of its two units);
    handovers respect the env's 10-min floor; responses are non-negative."""
    from lifeline.calibrate.dispatch import Probe
    from lifeline.envs.dispatch.params import SCENE_MIN
    from lifeline.eval.harness import Task, run_episode

    probe = Probe()
    run_episode(Task("dispatch", "advanced", "closest_idle", 1_000_000), on_step=probe.on_step)
    allowed = {float(x) for x in SCENE_MIN} | {2.0 * x for x in SCENE_MIN}
    assert probe.scene and all(min(abs(v - a) for a in allowed) < 1e-6
                               for v in probe.scene.values())
    assert probe.handover and min(probe.handover.values()) >= 10.0 - 1e-9
    assert probe.transport and all(b >= a for a, b in probe.transport.values())
    assert (probe.responses() >= 0).all()


def test_ed_probe_counts_a_boarded_ward_admission_as_admitted() -> None:
    """A ward admission (v2): arrives at tick 0, bed at tick 1, treated by tick 3, boards 4 ticks,
    leaves for the ward at tick 7 -> admitted, LOS 105 min in the judged (non-ICU) rows and the
    ward-LOS median; an early discharge of a boarder would not be an admission."""
    from types import SimpleNamespace

    from lifeline.calibrate.ed import Probe
    from lifeline.envs.ed.types import GENERAL, EDCounters, Patient

    env = SimpleNamespace(params=SimpleNamespace(tick_minutes=15.0))
    c = Patient(pid=0, arrival_tick=0, true_acuity=2, triage_error=0, condition=0,
                needs_icu=False, needs_vent=False, treatment_ticks=2, patience_ticks=99,
                needs_ward=True, board_ticks=4)
    counters = EDCounters(patients=1)

    def state(tick: int, waiting: list[Patient], general: list[Patient | None]
              ) -> SimpleNamespace:
        return SimpleNamespace(tick=tick, waiting=waiting, general=general, icu=[None],
                               counters=counters)

    probe = Probe()
    probe.on_step(env, state(0, [c], [None]))
    c.location, c.admitted_tick = GENERAL, 1
    probe.on_step(env, state(1, [], [c]))
    c.progress_ticks = 6  # treatment (2) and boarding (4) done: ready
    probe.on_step(env, state(7, [], [None]))
    values = probe.values()
    assert values["admit_esi2"] == 100.0 and values["admit_share"] == 100.0
    assert values["icu_share"] == 0.0
    assert values["los_esi2"] == 105.0 and values["los_ward_median"] == 105.0
    assert math.isnan(values["los_discharged_median"])
