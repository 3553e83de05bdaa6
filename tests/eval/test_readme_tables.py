"""The README's throughput tables are the committed benchmark JSON, rendered (issue 15, item 5)."""

from __future__ import annotations

import pytest

from bench.readme_tables import ROOT, main, render_blocks, render_throughput, rewrite


def test_readme_tables_match_the_committed_benchmarks() -> None:
    assert main(["--check", "--readme", str(ROOT / "README.md")]) == 0, \
        "README.md's throughput tables are stale: run python bench/readme_tables.py"


def test_throughput_rows_are_ranges_over_scenarios() -> None:
    data = {"results": [
        {"env": "a", "scenario": "x", "core_steps_per_s": 1000, "gym_steps_per_s": 500,
         "reset_ms": 1.04},
        {"env": "a", "scenario": "y", "core_steps_per_s": 3000, "gym_steps_per_s": 500,
         "reset_ms": 2.0},
        {"env": "b", "scenario": "x", "core_steps_per_s": 7, "gym_steps_per_s": 5,
         "reset_ms": 0.5}]}
    table = render_throughput(data).splitlines()
    assert table[2] == "| a | 2 | 1,000–3,000 | 500 | 1.0–2.0 |"
    assert table[3] == "| b | 1 | 7 | 5 | 0.5 |"


def test_rewrite_replaces_only_the_block_and_needs_its_markers() -> None:
    text = "head\n<!-- scale:begin x -->\nold\n<!-- scale:end -->\ntail\n"
    assert rewrite(text, {"scale": "new"}) == \
        "head\n<!-- scale:begin x -->\nnew\n<!-- scale:end -->\ntail\n"
    with pytest.raises(ValueError, match="throughput"):
        rewrite(text, {"throughput": "t"})
    assert set(render_blocks()) == {"throughput", "scale"}
