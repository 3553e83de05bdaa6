"""The text face is sufficient (issue 16, item 4): ``text_heuristic`` — each env's reference
heuristic fed only the text observation, answering with tool-call text — plays like the
structured heuristic.

Fast checks: the policy receives nothing but strings (never the state or the structured
observation), every env has one, and on one seed per scenario the two agents choose the same
actions at the same states (lockstep). Slow check: mean scores over held-out seeds on every
scenario of every env, the text agent's mean inside the heuristic's bootstrap CI.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from lifeline.agents import agent_names, make_agent
from lifeline.agents.text_heuristic import TextHeuristicAgent, text_policies
from lifeline.agents.toolcall import extract_calls
from lifeline.core.registry import all_specs, make, spec
from lifeline.eval.harness import evaluate
from lifeline.eval.seeds import EVAL_SEED_BASE
from lifeline.eval.stats import bootstrap_ci

POLICIES = text_policies()
LOCKSTEP = [e for e in POLICIES if e != "pharmacy"]
"""Envs whose text policy is memoryless: it can be asked about any state of another agent's
episode. Pharmacy's reads its own earlier tool results, so it is compared episode by episode."""


def _twin(env_name: str) -> str:
    """The structured agent the text policy mirrors: the env's reference, unless its baselines
    module names another (``TEXT_POLICY_TWIN``; dispatch: ``closest_idle``)."""
    twin = spec(env_name).baselines_value("TEXT_POLICY_TWIN") or spec(env_name).reference
    assert twin is not None
    return str(twin)


def _encoded(env: Any, action: Any) -> int:
    return action if isinstance(action, int) else env.encode(action)


def test_every_registered_env_has_a_text_heuristic() -> None:
    names = [s.name for s in all_specs() if s.entry_point.startswith("lifeline.envs.")]
    assert set(names) <= set(POLICIES)
    for name in names:
        assert "text_heuristic" in agent_names(name)
        assert isinstance(make_agent("text_heuristic", name), TextHeuristicAgent)


@pytest.mark.parametrize("env_name", sorted(POLICIES))
def test_the_policy_sees_only_strings_and_answers_in_text(env_name: str,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The policy's only input is a string; the agent never reads the structured observation."""
    seen: list[Any] = []
    env = make(env_name)
    agent = make_agent("text_heuristic", env_name)
    state = env.reset(3)
    agent.reset(env, 3)
    assert isinstance(agent, TextHeuristicAgent) and agent.policy is not None
    reply = agent.policy.reply

    def spy(observation: Any) -> str:
        seen.append(observation)
        out = reply(observation)
        assert isinstance(out, str) and extract_calls(out)
        return out

    monkeypatch.setattr(agent.policy, "reply", spy)

    def forbidden(*_: Any, **__: Any) -> None:
        raise AssertionError("text_heuristic read the structured observation")

    for _ in range(25):
        if state.done:
            break
        with monkeypatch.context() as m:
            m.setattr(env, "observe", forbidden)
            action = agent.act(env, state)
        env.step(state, action)
    assert seen and all(type(o) is str for o in seen)
    assert agent.invalid == 0


@pytest.mark.parametrize("env_name", LOCKSTEP)
def test_lockstep_same_actions_as_the_structured_heuristic(env_name: str) -> None:
    """On one seed per scenario, asked at every state of the heuristic's own episode, the text
    agent picks the same action (numbers rounded in the text may flip a rare near-tie)."""
    reference = _twin(env_name)
    for scenario in spec(env_name).scenarios:
        env = make(env_name, scenario)
        h, t = make_agent(reference, env_name), make_agent("text_heuristic", env_name)
        state = env.reset(7)
        h.reset(env, 7)
        t.reset(env, 7)
        agree = total = 0
        while not state.done:
            a = h.act(env, state)
            agree += _encoded(env, a) == _encoded(env, t.act(env, state))
            total += 1
            env.step(state, a)
        assert agree >= 0.97 * total, f"{env_name} {scenario}: {agree}/{total} actions agree"


def _play(env: Any, agent: Any, seed: int) -> tuple[float, list[str]]:
    from lifeline.faces.tools import format_call

    state = env.reset(seed)
    agent.reset(env, seed)
    calls = []
    while not state.done:
        action = agent.act(env, state)
        calls.append(format_call(action))
        env.step(state, action)
    return env.grade(state).score, calls


def test_pharmacy_text_policy_is_base_stock_up_to_the_wms_rounding(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the WMS scan printed at full precision the text agent makes exactly base-stock's
    calls (its round opens with ``view_requests`` where base-stock opens with the briefing: both
    are the round's one overview call); as printed (whole units) scores stay within 0.01."""
    from lifeline.envs.pharmacy import queries
    from lifeline.envs.pharmacy.params import NO_EXPIRY, SKU_NAMES
    from lifeline.envs.pharmacy.types import WmsScanInventory

    env = make("pharmacy", "heavy")
    text_scores = [_play(env, make_agent("text_heuristic", "pharmacy"), s)[0] for s in (1, 2)]
    base_scores = [_play(env, make_agent("base_stock", "pharmacy"), s)[0] for s in (1, 2)]
    assert np.allclose(text_scores, base_scores, atol=0.01)

    def precise_scan(state: Any, params: Any, a: Any) -> str:
        state.systems[queries.WMS] = True
        rng = state.rng["wms"]
        rows = []
        for s in range(len(SKU_NAMES)):
            state.wms_seen[s] = 0.0
            parts = []
            for lot in state.central[s]:
                seen = lot.qty * (1.0 + rng.uniform(-0.05, 0.05))
                state.wms_seen[s] += seen
                exp = "no expiry" if lot.expiry >= NO_EXPIRY else f"exp day {lot.expiry}"
                parts.append(f"{lot.lot_id} ~{seen!r} ({exp})")
            rows.append(f"{SKU_NAMES[s]}: " + (", ".join(parts) if parts else "empty"))
        return "WMS scan (live, +-5% per lot): " + "; ".join(rows)

    monkeypatch.setitem(queries.QUERIES, WmsScanInventory, precise_scan)
    for seed in (1, 2):
        score_t, calls_t = _play(env, make_agent("text_heuristic", "pharmacy"), seed)
        score_b, calls_b = _play(env, make_agent("base_stock", "pharmacy"), seed)
        assert calls_t == [c.replace("get_round_briefing()", "view_requests()") for c in calls_b]
        assert score_t == score_b


CASES = [(e, s) for e in sorted(POLICIES) for s in spec(e).scenarios]


@pytest.mark.slow
@pytest.mark.parametrize(("env_name", "scenario"), CASES)
def test_text_heuristic_scores_within_the_heuristic_ci(env_name: str, scenario: str) -> None:
    """Held-out seeds, paired: the text agent's mean lies inside the structured heuristic's
    bootstrap 95% CI, and the mean paired difference is small."""
    reference = _twin(env_name)
    n = 6
    result = evaluate(env_name, [reference, "text_heuristic"], [scenario], episodes=n,
                      seed_start=EVAL_SEED_BASE)
    scores: dict[str, dict[int, float]] = {}
    for rec in result["records"]:
        scores.setdefault(rec["agent"], {})[rec["seed"]] = float(rec["score"])
    seeds = sorted(scores[reference])
    ref = np.array([scores[reference][s] for s in seeds])
    txt = np.array([scores["text_heuristic"][s] for s in seeds])
    low, high = bootstrap_ci(ref)
    assert low - 1e-9 <= txt.mean() <= high + 1e-9, (ref.mean(), (low, high), txt.mean())
    assert abs(float((txt - ref).mean())) <= 0.01
