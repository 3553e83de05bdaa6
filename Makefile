# Lifeline — two commands: `make run` (set up, run the baseline leaderboard) and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EPISODES ?= 10
WORKERS ?= 2

.PHONY: setup run test lint typecheck bench clean

setup: $(VENV)/.installed

# torch is pinned to the CPU build first so no resolver ever pulls a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "torch==2.13.0"
	$(BIN)/python -m pip install -q -c constraints.txt -e ".[all]"
	command -v chromium >/dev/null 2>&1 || (apt-get update -q && apt-get install -y -q chromium) || \
		echo "warning: could not install chromium (needs root): browser tests will be skipped"
	touch $@

run: setup
	$(BIN)/lifeline leaderboard --episodes $(EPISODES) --workers $(WORKERS) --out reports/leaderboard
	$(BIN)/lifeline replays --out reports/replays

lint: setup
	$(BIN)/ruff check lifeline tests bench examples

# A fixed hash seed: mypy's inference order (and so, rarely, its verdict) depends on it.
typecheck: setup
	PYTHONHASHSEED=0 $(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest -n $(WORKERS) -q

# Every benchmark of the README's throughput tables, each side by side within its own run; the
# README's tables are then rewritten from the JSON (bench/readme_tables.py). Takes ~10 minutes.
bench: setup
	$(BIN)/lifeline bench --all-scenarios > results/throughput.json
	$(BIN)/python bench/batch.py > results/ed/batch_bench.json
	$(BIN)/python bench/scale.py > results/scale_bench.json
	$(BIN)/python bench/readme_tables.py

clean:
	rm -rf $(VENV) reports .pytest_cache .mypy_cache .ruff_cache

# Calibration cards (docs/calibration/*.md + PNGs): each env's statistics next to published
# references (issue 18); `make calibration` regenerates every committed card.
.PHONY: calibration
calibration: setup
	$(BIN)/lifeline calibrate ed --episodes 40
	for s in warmup learning advanced expert heatwave mass_casualty; do $(BIN)/lifeline calibrate dispatch -s $$s --episodes 30; done
	for s in metro_warmup metro_advanced metro_expert; do $(BIN)/lifeline calibrate dispatch_metro -s $$s --episodes 30; done
	$(BIN)/lifeline calibrate codered -s task1 --episodes 100
	$(BIN)/lifeline calibrate codered -s task3 --episodes 30
	$(BIN)/lifeline calibrate pharmacy --episodes 20
	$(BIN)/lifeline calibrate evgrid --episodes 10
