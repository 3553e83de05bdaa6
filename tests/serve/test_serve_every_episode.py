"""Every registered environment's whole episode finishes through both clients of the server:
Lifeline's typed ``LifelineClient`` and OpenEnv's ``GenericEnvClient`` (issue 30, item 2).

The final observation carries the grade; metrics that are not finite numbers (evgrid's forecast
errors when there was nothing to forecast are NaN) must arrive as JSON ``null`` — which the
schema allows — rather than break the typed client's validation on the last step.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("openenv")

from openenv.core.generic_client import GenericEnvClient

import lifeline
from lifeline.serve.client import LifelineClient
from lifeline.serve.run import background_server
from lifeline.serve.server import build_app

SPECS = lifeline.all_specs()


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with background_server(build_app(SPECS, max_sessions=4)) as base:
        yield base


def _first_legal(mask: list[Any]) -> int:
    return next((i for i, ok in enumerate(mask) if ok), 0)


def _check_final(obs: dict[str, Any], name: str) -> None:
    assert obs["score"] is not None and 0.0 <= obs["score"] <= 1.0, name
    for part in ("components", "metrics"):
        values = obs[part]
        assert isinstance(values, dict) and values, (name, part)
        assert all(v is None or math.isfinite(v) for v in values.values()), (name, part)


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_lifeline_client_finishes_an_episode(url: str, spec: Any) -> None:
    with LifelineClient(url, spec.name).sync() as env:
        result = env.reset(seed=1, views=["structured"])
        steps = 0
        while not result.done:
            mask = result.observation.structured["action_mask"]
            result = env.act(_first_legal(mask))
            steps += 1
        final = result.observation.model_dump()
    assert steps == final["step"] > 0
    _check_final(final, spec.name)


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_generic_openenv_client_finishes_an_episode(url: str, spec: Any) -> None:
    with GenericEnvClient(base_url=f"{url}/{spec.name}").sync() as env:
        result = env.reset(seed=1, views=["structured"])
        while not result.done:
            mask = result.observation["structured"]["action_mask"]
            result = env.step({"index": _first_legal(mask)})
        final = result.observation
    _check_final(final, spec.name)
