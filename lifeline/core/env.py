"""The environment contract shared by every Lifeline simulation.

An :class:`Environment` is a *stateless* object configured with one scenario's parameters; all
mutable data, RNG streams included, lives in a ``State`` object it creates in :meth:`reset`.
:meth:`Environment.step` advances that state in place and returns a :class:`TimeStep`. Because the
state is a plain picklable object, episodes can be snapshotted, restored, compared and served
concurrently without any hidden coupling.

Actions are typed semantic objects (frozen dataclasses subclassing :class:`Action`). Every
environment also has an exact integer encoding (``encode``/``decode``) for the Gymnasium face and
a boolean mask over it. Validity is decided in one place per environment (its ``rules.py``):
an invalid action never raises and never half-applies; it is penalised, reported with a message,
and *still uses the agent's turn* (:meth:`Environment._apply_invalid`: by default exactly what the
do-nothing action does), so time moves whatever the agent sends and no step budget can end an
episode with the world frozen in a good state.

The entity view learners use (``lifeline.faces.entities``, ``docs/learning.md``) is derived from
this contract alone: observation arrays with a leading row dimension are entity tables, and a
decoded action's integer fields that name a table (``unit`` -> ``units``) are pointers to its
rows. Name action fields after the observation table they index to get it for free; otherwise
declare the mapping in ``lifeline/envs/<env>/entities.py`` (``entity_hints()``).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from lifeline.core.specs import ArraySpec


class Action:
    """Base class of semantic actions. Subclasses are frozen dataclasses with a docstring.

    ``kind`` is the action's (tool) name, e.g. ``"admit_general"``.
    """

    kind: ClassVar[str] = "action"

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": ..., **fields}`` — a JSON-ready description of the action."""
        data: dict[str, Any] = {"kind": self.kind}
        if dataclasses.is_dataclass(self):
            data.update(dataclasses.asdict(self))
        return data


@dataclass
class CoreState:
    """Bookkeeping every environment's ``State`` carries (subclasses add the world).

    These fields change on *every* step, valid or not; everything else changes only on valid steps.
    """

    steps: int = 0
    """Number of ``step`` calls applied in this episode (valid or invalid)."""
    invalid_actions: int = 0
    """Number of steps whose action was invalid (no-ops)."""
    done: bool = False
    """True once the episode has terminated or been truncated."""


BOOKKEEPING_FIELDS = ("steps", "invalid_actions", "done")

StateT = TypeVar("StateT", bound=CoreState)
ActionT = TypeVar("ActionT", bound=Action)


@dataclass
class TimeStep:
    """What one ``step`` returns (the state itself is updated in place)."""

    reward: float
    terminated: bool
    truncated: bool
    valid: bool = True
    message: str = ""
    """Why the action was invalid (empty when valid)."""
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Grade:
    """The episode grader's verdict: ``score`` in [0, 1] plus named components and raw metrics."""

    score: float
    components: dict[str, float]
    metrics: dict[str, float] = field(default_factory=dict)


class Environment(ABC, Generic[StateT, ActionT]):
    """Base class: one scenario of one simulation. Subclasses fill in the abstract methods.

    Class attributes describe the environment for the registry and the faces:
    ``name`` (registry id, e.g. ``"ed"``), ``version`` (bumped whenever dynamics or scoring change),
    ``action_types`` (the semantic action classes, in encoding order).
    """

    name: ClassVar[str]
    version: ClassVar[int]
    action_types: ClassVar[tuple[type[Action], ...]]

    def __init__(self, scenario: str) -> None:
        self.scenario = scenario

    # ----- sizes and specs ---------------------------------------------------------------
    @property
    @abstractmethod
    def num_actions(self) -> int:
        """Size of the flat integer action encoding."""

    @abstractmethod
    def observation_spec(self) -> dict[str, ArraySpec]:
        """Spec of every array :meth:`observe` returns (``action_mask`` excluded)."""

    @property
    @abstractmethod
    def max_steps(self) -> int:
        """Step budget after which an episode is truncated (guards against stalling agents)."""

    # ----- episode ------------------------------------------------------------------------
    @abstractmethod
    def reset(self, seed: int) -> StateT:
        """A fresh episode state for ``seed`` (``ValueError`` for a negative/non-int seed)."""

    @abstractmethod
    def validate(self, state: StateT, action: ActionT) -> str | None:
        """``None`` if ``action`` is legal in ``state``, otherwise a message saying why not."""

    @abstractmethod
    def action_mask(self, state: StateT) -> np.ndarray:
        """Boolean vector of length ``num_actions``: exactly the legal encoded actions."""

    @abstractmethod
    def encode(self, action: ActionT) -> int:
        """Integer index of a semantic action (``ValueError`` if it has no encoding)."""

    @abstractmethod
    def decode(self, index: int) -> ActionT:
        """Semantic action of an integer index (``ValueError`` if out of range)."""

    @abstractmethod
    def _apply(self, state: StateT, action: ActionT) -> tuple[float, dict[str, Any]]:
        """Apply a *valid* action in place; return ``(reward, info)``."""

    @abstractmethod
    def is_terminal(self, state: StateT) -> bool:
        """True when the episode has reached its natural end."""

    @abstractmethod
    def noop_action(self) -> ActionT:
        """The do-nothing action (always legal while the episode runs): ``wait``, ``hold``, ..."""

    @abstractmethod
    def invalid_penalty(self) -> float:
        """Reward added for an invalid action (on top of what the turn it used produced)."""

    @abstractmethod
    def progress(self, state: StateT) -> float:
        """Fraction of the simulated horizon elapsed, in [0, 1] (1 at the natural end).

        The exploit suite uses it to prove that time advances whatever the agent sends.
        """

    def _apply_invalid(self, state: StateT) -> tuple[float, dict[str, Any]]:
        """What an invalid action does to the world: it uses the agent's turn.

        The default applies the do-nothing action. Environments with several decisions per clock
        tick override it to consume one decision slot instead. The action itself is never applied.
        """
        return self._apply(state, self.noop_action())

    @abstractmethod
    def observe(self, state: StateT) -> dict[str, np.ndarray]:
        """Structured observation (fresh arrays, never views into the state)."""

    @abstractmethod
    def render_text(self, state: StateT) -> str:
        """Human/LLM-readable view of what the agent may observe."""

    def frame(self, state: StateT) -> dict[str, Any]:
        """A JSON-ready picture of this moment, for replays and the web viewer.

        Environments override it (in their ``frame.py``) with what a picture needs: positions,
        statuses, queues, levels, events. The default is the text view and the progress clock.
        Values must be plain JSON types (no numpy scalars or arrays) and must not alias the state.
        """
        return {"progress": self.progress(state), "text": self.render_text(state)}

    def frame_static(self) -> dict[str, Any]:
        """Parts of the picture that never change within an episode (e.g. a road graph).

        A replay writes them once in its header instead of in every frame. Default: nothing.
        """
        return {}

    @abstractmethod
    def grade(self, state: StateT) -> Grade:
        """Episode grader: score in [0, 1] with components (final at the end of the episode)."""

    # ----- shared machinery ------------------------------------------------------------------
    def step(self, state: StateT, action: ActionT | int) -> TimeStep:
        """Advance ``state`` by one action (semantic or encoded). Never raises on bad actions."""
        if state.done:
            return TimeStep(0.0, True, False, valid=False,
                            message="episode is over: call reset() to start a new one")
        semantic, message = self._coerce(action)
        if semantic is not None:
            message = self.validate(state, semantic)
        state.steps += 1
        if message is not None or semantic is None:
            state.invalid_actions += 1
            reward, info = self._apply_invalid(state)
            reward += self.invalid_penalty()
            valid = False
        else:
            reward, info = self._apply(state, semantic)
            valid, message = True, ""
        terminated = self.is_terminal(state)
        truncated = not terminated and state.steps >= self.max_steps
        state.done = terminated or truncated
        return TimeStep(float(reward), terminated, truncated, valid=valid,
                        message=message or "", info=info)

    def _coerce(self, action: object) -> tuple[ActionT | None, str | None]:
        """Turn an int or semantic action into a semantic action, or explain why it cannot be."""
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            try:
                return self.decode(int(action)), None
            except ValueError as exc:
                return None, str(exc)
        if isinstance(action, self.action_types):
            return action, None  # type: ignore[return-value]
        names = ", ".join(t.kind for t in self.action_types)
        return None, f"unknown action {action!r}: expected an index or one of {names}"

    def legal_actions(self, state: StateT) -> list[ActionT]:
        """All legal semantic actions right now, in encoding order."""
        return [self.decode(int(i)) for i in np.flatnonzero(self.action_mask(state))]
