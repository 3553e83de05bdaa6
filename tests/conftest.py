"""Shared fixtures: registry listing for parametrisation."""

from __future__ import annotations

import lifeline

ENV_SCENARIOS = [(s.name, sc) for s in lifeline.all_specs() for sc in s.scenarios]
