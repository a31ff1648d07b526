"""The environments of ``fights.envs`` that Arbiter provides: Puoribor."""

from __future__ import annotations

from typing import Tuple, Type, cast

from numpy.typing import ArrayLike

from ..base import BaseEnv, BaseState
from .puoribor import PuoriborEnv, PuoriborState


def resolve(name: str) -> Tuple[Type[BaseEnv[BaseState, ArrayLike]], Type[BaseState]]:
    """The ``(environment class, state class)`` of the environment called ``name``.

    Raises ``ValueError`` for a name this drop-in does not provide (only ``"puoribor"``).
    """
    mappings = {"puoribor": (PuoriborEnv, PuoriborState)}
    if name not in mappings:
        raise ValueError(f"environment with name {name} not found")
    return cast(Tuple[Type[BaseEnv[BaseState, ArrayLike]], Type[BaseState]], mappings[name])


__all__ = ["PuoriborEnv", "PuoriborState", "resolve"]
