"""The abstract bases of ``fights.base``: a state, an environment and an agent."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Callable, Dict, Generic, Optional, Tuple, TypeVar

from numpy.typing import ArrayLike

S = TypeVar("S", bound="BaseState")
"""A state type."""

A = TypeVar("A", bound=ArrayLike)
"""An action type."""


class BaseState(ABC):
    """A game state that serialises to and from a dict."""

    @staticmethod
    @abstractmethod
    def from_dict(serialized) -> "BaseState":
        """Deserialise from a dict made by :meth:`to_dict`."""

    @abstractmethod
    def to_dict(self) -> Dict:
        """Serialise to a dict of plain Python values."""

    @property
    @abstractmethod
    def done(self) -> bool:
        """Whether the game is finished."""


class BaseEnv(ABC, Generic[S, A]):
    """An environment: pure functions from a state and an action to the next state."""

    @property
    @abstractmethod
    def env_id(self) -> Tuple[str, int]:
        """The environment's ``(name, version)``."""

    @abstractmethod
    def step(
        self,
        state: S,
        agent_id: int,
        action: A,
        *,
        pre_step_fn: Optional[Callable[[S, int, A], None]] = None,
        post_step_fn: Optional[Callable[[S, int, A], None]] = None,
    ) -> S:
        """The state after ``agent_id`` plays ``action`` in ``state``."""

    @abstractmethod
    def initialize_state(self) -> S:
        """The state a game starts from."""


class BaseAgent(ABC, Generic[S, A]):
    """A player: a callable from a state to an action."""

    @property
    @abstractmethod
    def env_id(self) -> Tuple[str, int]:
        """The ``(name, version)`` of the environment the agent plays."""

    @abstractmethod
    def __init__(self, agent_id: int) -> None:
        """An agent playing as ``agent_id``."""

    @abstractmethod
    def __call__(self, state: S) -> A:
        """The action the agent takes in ``state``."""
