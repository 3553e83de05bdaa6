"""Gymnasium face, generic over the registry.

``gymnasium.make("lifeline/ED-v3", scenario="surge")`` (after ``import lifeline``) builds a
:class:`LifelineGymEnv`: a ``Dict`` observation whose arrays follow the core
``observation_spec`` plus ``action_mask`` (int8), a ``Discrete`` action space over the core's
flat encoding, ``info["action_mask"]`` and ``env.action_masks()`` (found by sb3-contrib's
MaskablePPO). Invalid or out-of-range actions are no-ops reported in ``info`` (never a crash).
The episode's natural end (e.g. the end of a shift) is ``terminated``; the step budget that
stops stalling agents is ``truncated``.

Two rewards (``reward=`` at construction, also through ``gym.make(id, reward=...)``):

- ``"env"`` (the default): the environment's own dense shaping reward, in its own units
  (the spec's; other recipes and the batch env's parity rely on it).
- ``"grade"``: the per-step change of the potential ``Φ = s₀ + progress × (score − s₀)``:
  ``score`` is the env's grader applied to the partial episode, ``s₀`` the grade of the
  episode at reset (before anything happened: ED and pharmacy 1, dispatch 0.1, EVGrid 0.05,
  CodeRed 0) and ``progress`` :meth:`~lifeline.core.env.Environment.progress`. Φ = 0 before
  the first step and Φ = the final grade at the episode's last step (whether it terminated or
  was truncated), so the undiscounted return telescopes to exactly ``info["score"]``: the first
  step pays the level ``s₀`` (whatever it does), and from then on a step pays the change of
  ``progress × (score − s₀)``. Every step is paid in the grader's currency: no shaped trade-off
  the grader does not make (ED's waiting time vs deaths). It costs one ``core.grade`` per step
  (0.03-0.5 ms).

  Why ``s₀`` (issue 31; the potential was ``progress × score`` before): under a learner's
  discount γ < 1 a potential that moves as time passes pays for hurrying (it grows) or for
  stalling (it shrinks). ``progress × score`` grew by the whole score over the episode, so in
  ED (up to 6 decisions a tick, ``wait`` ends the tick, partial grade ~0.8) it paid about
  score / 96 a tick and MaskablePPO with defaults learned to ``wait`` on 83 % of its steps
  (0.74 vs masked random's 0.79). With ``s₀``, time passing is paid only as far as the grade
  has moved from where it started: nothing for an episode in which nothing was graded yet.
  Pharmacy's grade at reset was 0 (its grader scored "no demand yet" as 0) and its calls
  within a round are free in simulated time, so a policy's episode length in steps is its own
  choice: with Φ = progress × score, advancing every round at once (8 steps) had the highest
  discounted return (γ = 0.99, `light` seeds 0–2: 0.22, above the projected reference's 0.21
  and masked random's 0.15) and MaskablePPO's argmax learned exactly that. The grader now scores
  a partial episode with nothing demanded yet as 1 (nobody harmed, as ED), so s₀ = 1 and time
  passing costs what the grade has lost (same seeds: advancing at once 0.26, masked random
  0.97, the projected reference 0.995; 59 filler calls a round 0.94: the 60-call round caps
  stalling).
"""

from __future__ import annotations

from functools import partial
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from lifeline.core.env import Environment
from lifeline.core.registry import all_specs, make, spec
from lifeline.faces.features import squash

#: An episode in which at least this share of at least ``ILLEGAL_WARN_MIN_STEPS`` actions were
#: illegal triggers the once-per-environment warning of :meth:`LifelineGymEnv.step`.
ILLEGAL_WARN_SHARE = 0.5
ILLEGAL_WARN_MIN_STEPS = 50
_warned_illegal: set[str] = set()  # env names already warned in this process (warn once)

#: The face's reward options (see the module docstring): the env's shaping, or the grade's
#: increments ``Δ(s₀ + progress × (score so far − s₀))``.
REWARDS = ("env", "grade")


def grade_potential(core: Environment, state: Any, final: bool, start: float = 0.0) -> float:
    """``Φ`` of the ``"grade"`` reward (module docstring): ``start + progress × (score −
    start)`` of the partial episode, ``start`` the grade at reset (``s₀``), and the final score
    itself at the episode's last step (so the return is the grade even when the step budget
    truncates an episode before ``progress`` reaches 1). ``Φ = 0`` before the first step (the
    face's reset), so the first step pays the level ``start``."""
    score = float(core.grade(state).score)
    return score if final else start + float(core.progress(state)) * (score - start)


def observation_space(core: Environment) -> spaces.Dict:
    """The ``Dict`` space of ``core``'s observations plus ``action_mask``."""
    items: dict[str, spaces.Space[Any]] = {
        name: spaces.Box(low=s.low, high=s.high, shape=s.shape, dtype=np.dtype(s.dtype))
        for name, s in core.observation_spec().items()
    }
    items["action_mask"] = spaces.Box(0, 1, shape=(core.num_actions,), dtype=np.int8)
    return spaces.Dict(items)


class LifelineGymEnv(gym.Env[dict[str, np.ndarray], np.int64]):
    """A registered Lifeline environment as a ``gymnasium.Env``."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"],  # noqa: RUF012 - gymnasium
                "render_fps": 4}

    def __init__(self, env: str = "ed", scenario: str | None = None,
                 render_mode: str | None = None, core: Environment | None = None,
                 reward: str = "env") -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            gym.logger.warn(f"render_mode {render_mode!r} is not supported (choose one of "
                            f"{self.metadata['render_modes']}); rendering is off")
            render_mode = None
        if render_mode == "rgb_array":  # one line naming the extra, not a ModuleNotFoundError
            from lifeline.core.extras import require

            require("viz", 'render_mode="rgb_array"')
        self.core = core if core is not None else make(env, scenario)
        self.render_mode = render_mode
        self.reward_mode = reward
        self._potential = 0.0  # Φ after the last step (the "grade" reward)
        self._start = 0.0  # s₀: the grade at reset (the "grade" reward)
        self.observation_space = observation_space(self.core)  # type: ignore[assignment]
        self.action_space = spaces.Discrete(self.core.num_actions)
        self.state: Any = None
        self.episode_seed: int | None = None
        self._steps = 0
        self._illegal = 0

    # ----- helpers ---------------------------------------------------------------------------
    def _observation(self, mask: np.ndarray) -> dict[str, np.ndarray]:
        obs = self.core.observe(self.state)
        obs["action_mask"] = mask.astype(np.int8)
        return obs

    def action_masks(self) -> np.ndarray:
        """Boolean mask of legal actions (the name sb3-contrib's MaskablePPO looks for)."""
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before action_masks()")
        mask: np.ndarray = self.core.action_mask(self.state)
        return mask

    # ----- gymnasium API -----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**31 - 1))
        self.episode_seed = seed
        self._steps = self._illegal = 0
        self.state = self.core.reset(seed)
        self._potential = 0.0
        if self.reward_mode == "grade":
            self._start = float(self.core.grade(self.state).score)
        mask = self.core.action_mask(self.state)
        if self.render_mode == "human":
            self.render()
        return self._observation(mask), {"action_mask": mask, "seed": seed}

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool,
                                         dict[str, Any]]:
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if isinstance(action, np.ndarray) and action.size == 1:
            action = action.item()
        ts = self.core.step(self.state, action)
        self._steps += 1
        self._illegal += not ts.valid
        mask = self.core.action_mask(self.state)
        info: dict[str, Any] = {"action_mask": mask, "valid": ts.valid, "message": ts.message,
                                **ts.info}
        if ts.terminated or ts.truncated:
            info["illegal_actions"] = self._illegal
            self._warn_if_mask_ignored()
            grade = self.core.grade(self.state)
            info["score"] = grade.score
            info["components"] = dict(grade.components)
            info["metrics"] = dict(grade.metrics)
        reward = ts.reward
        if self.reward_mode == "grade":
            potential = grade_potential(self.core, self.state, ts.terminated or ts.truncated,
                                        self._start)
            reward, self._potential = potential - self._potential, potential
        if self.render_mode == "human":
            self.render()
        return self._observation(mask), reward, ts.terminated, ts.truncated, info

    def _warn_if_mask_ignored(self) -> None:
        """Warn once per environment when an episode was mostly illegal actions.

        Plain SB3 PPO/DQN ignore ``action_masks()``; on Lifeline most actions are illegal at
        most steps, so such a learner spends its episode on no-ops. Saying so once (with the
        count) beats a silent poor score.
        """
        name = self.core.name
        if (name in _warned_illegal or self._steps < ILLEGAL_WARN_MIN_STEPS
                or self._illegal < ILLEGAL_WARN_SHARE * self._steps):
            return
        _warned_illegal.add(name)
        gym.logger.warn(
            f"{name}: {self._illegal} of {self._steps} actions in this episode were illegal "
            f"(masked) and played as no-ops. Actions are masked: use info['action_mask'] or "
            f"env.action_masks(), e.g. sb3-contrib's MaskablePPO (warned once per env)")

    def render(self) -> Any:
        """``ansi``: the text view; ``rgb_array``: an ``(H, W, 3)`` picture of the frame;
        ``human``: prints the text view (called by ``reset``/``step`` as Gymnasium expects)."""
        from lifeline.faces.rendering import render

        return render(self)


class FlattenMasked(gym.ObservationWrapper[np.ndarray, np.int64, dict[str, np.ndarray]],
                    gym.utils.RecordConstructorArgs):
    """Flattens every observation array except ``action_mask`` into one float32 ``Box``.

    ``action_masks()`` keeps working through the wrapper, so MaskablePPO with an MLP policy can
    use it directly.

    ``normalize=True`` (the default) passes every value through
    :func:`lifeline.faces.features.squash` (``sign(x)·log1p(|x|)``): raw observations span 0/1
    flags to counts and minutes in the thousands (bounds up to 1e6), which an MLP with default
    hyperparameters cannot learn from (MaskablePPO on raw dispatch observations scored below
    random). The squashing is fixed, so no normaliser state has to be saved or kept in sync.
    ``normalize=False`` gives the raw values.
    """

    def __init__(self, env: gym.Env[dict[str, np.ndarray], np.int64],
                 normalize: bool = True) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, normalize=normalize)
        gym.ObservationWrapper.__init__(self, env)
        self.normalize = normalize
        dict_space = env.observation_space
        assert isinstance(dict_space, spaces.Dict)
        self._keys: list[str] = [k for k in dict_space.spaces if k != "action_mask"]
        boxes: list[Any] = [dict_space.spaces[k] for k in self._keys]
        low = np.concatenate([np.broadcast_to(b.low, b.shape).ravel() for b in boxes])
        high = np.concatenate([np.broadcast_to(b.high, b.shape).ravel() for b in boxes])
        if normalize:
            low, high = squash(low), squash(high)
        self.observation_space = spaces.Box(low.astype(np.float32), high.astype(np.float32),
                                            dtype=np.float32)

    def observation(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        flat = np.concatenate([observation[k].ravel() for k in self._keys]).astype(np.float32)
        return squash(flat) if self.normalize else flat

    def action_masks(self) -> np.ndarray:
        mask: np.ndarray = self.env.get_wrapper_attr("action_masks")()
        return mask


class RegisteredGymEnv(LifelineGymEnv):
    """What ``gym.make("lifeline/<Id>-v0", ...)`` builds: the id fixes the environment.

    Only ``scenario``, ``render_mode`` and ``reward`` (``"env"`` or ``"grade"``, see the module
    docstring) may be passed; anything else (e.g. ``env="dispatch"`` under the ED id, which used
    to build a dispatch env silently) is a ``TypeError`` naming the accepted keywords.
    """

    def __init__(self, lifeline_env: str, scenario: str | None = None,
                 render_mode: str | None = None, reward: str = "env", **unknown: Any) -> None:
        if unknown:
            raise TypeError(
                f"{spec(lifeline_env).gym_id}: unexpected keyword argument(s) "
                f"{', '.join(sorted(unknown))}; accepted: scenario, render_mode, reward (the id "
                f"fixes the environment; use another id for another one)")
        super().__init__(lifeline_env, scenario, render_mode=render_mode, reward=reward)


def make_vector_env(num_envs: int = 1, lifeline_env: str = "ed", scenario: str | None = None,
                    render_mode: str | None = None, asynchronous: bool = False,
                    max_episode_steps: int | None = None, reward: str = "env", **unknown: Any,
                    ) -> gym.vector.VectorEnv[Any, Any, Any]:
    """The ids' ``vector_entry_point``: ``gym.make_vec("lifeline/ED-v3", num_envs=8)``.

    Gymnasium's own ``SyncVectorEnv`` (or ``AsyncVectorEnv`` with ``asynchronous=True``, one
    process per copy) over :class:`RegisteredGymEnv`; each copy is seeded by the vector env's
    ``reset(seed=...)`` as usual. Unknown keywords are rejected like ``gym.make`` does.
    """
    if max_episode_steps is not None:
        unknown["max_episode_steps"] = max_episode_steps  # episodes end by the env's own clock
    if unknown:
        raise TypeError(
            f"{spec(lifeline_env).gym_id}: unexpected keyword argument(s) "
            f"{', '.join(sorted(unknown))}; accepted: num_envs, scenario, render_mode, "
            f"reward, asynchronous")
    if num_envs < 1:
        raise ValueError(f"num_envs must be >= 1, got {num_envs}")
    fns = [partial(RegisteredGymEnv, lifeline_env, scenario, render_mode, reward)
           for _ in range(num_envs)]
    if asynchronous:
        return gym.vector.AsyncVectorEnv(fns)
    return gym.vector.SyncVectorEnv(fns)


def register_all() -> None:
    """Register every Lifeline environment's versioned id with Gymnasium (idempotent).

    Gymnasium's passive env checker stays on (it wraps ``gym.make`` envs and checks the first
    reset/step against the spaces, at negligible cost); ``gym.make_vec`` uses
    :func:`make_vector_env`.
    """
    for s in all_specs():
        if s.gym_id not in gym.registry:
            gym.register(id=s.gym_id,
                         entry_point="lifeline.faces.gymnasium:RegisteredGymEnv",
                         vector_entry_point=(s.vector_entry_point
                                             or "lifeline.faces.gymnasium:make_vector_env"),
                         kwargs={"lifeline_env": s.name})


def make_gym(env: str, scenario: str | None = None, flatten: bool = False,
             render_mode: str | None = None, reward: str = "env") -> gym.Env[Any, Any]:
    """Convenience: the Gymnasium env for ``env``/``scenario`` (optionally flattened; ``reward``
    as in the module docstring)."""
    gym_env: gym.Env[Any, Any] = LifelineGymEnv(spec(env).name, scenario, render_mode=render_mode,
                                                reward=reward)
    return FlattenMasked(gym_env) if flatten else gym_env
