"""The face's ``reward="grade"``: its per-episode sum is the final grade, on every id.

The reward is the increase of ``Φ = s₀ + progress × (score so far − s₀)`` (the grader on the
partial episode, ``s₀`` its grade at reset; Φ = 0 before the first step), with Φ = the final
score at the last step, so the return telescopes to ``info["score"]``. Checked on an episode
of the env's reference on every registered id; the grader is also checked to score every
partial episode inside [0, 1] (the potential needs it).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.core.registry import all_specs, spec
from lifeline.faces.gymnasium import LifelineGymEnv, grade_potential

IDS = [s.name for s in all_specs()]


def _episode(env: LifelineGymEnv, seed: int, agent: str = "random",
             ) -> tuple[list[float], list[float], float]:
    """Rewards, partial scores after each step and the final score of one episode of ``agent``
    (``"random"``: masked random; otherwise a registered agent, e.g. the env's reference)."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    player = None if agent == "random" else make_agent(agent, env.core.name)
    if player is not None:
        player.reset(env.core, seed)
    rewards, partial = [], []
    done = False
    while not done:
        action = (int(rng.choice(np.flatnonzero(info["action_mask"]))) if player is None
                  else player.act(env.core, env.state))
        _, r, term, trunc, info = env.step(action)
        rewards.append(float(r))
        partial.append(float(env.core.grade(env.state).score))
        done = term or trunc
    return rewards, partial, float(info["score"])


@pytest.mark.parametrize("name", IDS)
def test_grade_reward_sums_to_the_final_score(name: str) -> None:
    env = LifelineGymEnv(name, reward="grade")
    # the env's reference: masked random scores 0 on most codered / evgrid_team episodes
    rewards, partial, score = _episode(env, seed=3, agent=spec(name).reference)
    assert score > 0, name
    assert abs(math.fsum(rewards) - score) <= 1e-9, (name, math.fsum(rewards), score)
    assert all(0.0 <= p <= 1.0 for p in partial), name  # partial episodes are gradeable
    if name != "codered":  # codered's partial grade stayed 0 until the horizon (one lump)
        assert sum(r != 0.0 for r in rewards) > 1, name  # paid along the way, not one lump


def test_env_reward_is_unchanged_by_default_and_is_not_the_grade() -> None:
    # The default stays the env's own shaping (ED's is in its own units: returns of -1e3), so
    # switching the option off is visible: that return is far from the score.
    shaped = LifelineGymEnv("ed")
    assert shaped.reward_mode == "env"
    rewards, _, score = _episode(shaped, seed=3)
    assert abs(math.fsum(rewards) - score) > 1.0


def test_truncated_episode_still_pays_the_final_score() -> None:
    # Φ at the last step is the score itself, not progress × score: a budget-truncated episode
    # (progress < 1) still returns exactly the grade.
    env = LifelineGymEnv("ed", reward="grade")
    env.reset(seed=5)
    env.step(0)
    assert grade_potential(env.core, env.state, final=True) == env.core.grade(env.state).score
    mid = grade_potential(env.core, env.state, final=False)
    assert mid == pytest.approx(env.core.progress(env.state) * env.core.grade(env.state).score)
    start = 0.3
    assert grade_potential(env.core, env.state, final=False, start=start) == pytest.approx(
        start + env.core.progress(env.state) * (env.core.grade(env.state).score - start))


def test_making_time_pass_is_not_paid() -> None:
    # Issue 31: ``progress × score`` paid about score / 96 for every ED tick, so a discounted
    # learner learned to ``wait``. Now the first step pays the grade at reset (ED: 1) and a
    # later step pays the change of progress × (score − s₀): a tick with the grade unchanged
    # is paid Δprogress × (score − s₀), nothing while the grade stays at s₀.
    env = LifelineGymEnv("ed", reward="grade")
    env.reset(seed=5)
    start = env.core.grade(env.state).score
    _, first, *_ = env.step(0)
    expected = start + env.core.progress(env.state) * (env.core.grade(env.state).score - start)
    assert float(first) == pytest.approx(expected)
    for _ in range(40):
        p, s = env.core.progress(env.state), env.core.grade(env.state).score
        _, r, *_ = env.step(0)  # wait: one tick passes
        p2, s2 = env.core.progress(env.state), env.core.grade(env.state).score
        assert float(r) == pytest.approx(p2 * (s2 - start) - p * (s - start), abs=1e-12)
        if s2 == s == start:
            assert float(r) == 0.0


def test_unknown_reward_is_rejected() -> None:
    with pytest.raises(ValueError, match="reward must be one of"):
        LifelineGymEnv("ed", reward="dense")


def test_pharmacy_pays_nothing_for_hurrying() -> None:
    # Issue 31: pharmacy's calls are free in simulated time, so a policy picks its episode
    # length in steps. Its grade at reset was 0, so Φ = progress × score paid the score's level
    # round by round and advancing at once had the best discounted return (MaskablePPO's argmax
    # learned it). The grade before anything was demanded is now 1 (nobody harmed), so s₀ = 1:
    # the first step pays 1 and every round advanced with nothing done costs reward.
    env = LifelineGymEnv("pharmacy", reward="grade")
    env.reset(seed=5)
    assert env.core.grade(env.state).score == 1.0
    advance = env.core.encode(env.core.noop_action())
    rewards, done = [], False
    while not done:
        _, r, term, trunc, info = env.step(advance)
        rewards.append(float(r))
        done = term or trunc
    assert rewards[0] < 1.0 and all(r < 0.0 for r in rewards[1:])
    assert abs(math.fsum(rewards) - info["score"]) <= 1e-9
