"""Labyrinth as a PettingZoo AEC environment (docs/python.md).

A turn is a push and a walk in one index on the ``W`` × ``H`` board of generated level
``level`` (with ``level=None``, a new generated level of ``size`` at each reset):
``index = push*(W*H) + y*W + x`` with ``(x, y)`` where the princess walks after the push (her
own cell to stay) and ``push = (line*2 + p)*4 + r``: ``line`` is row ``k`` (``0..H``) or
column ``k`` as ``H + k``, ``p`` the push direction of ``PUSH c p k t``, and the tile pushed in
is the player's extra tile turned ``r`` quarter turns. Observation planes ``(14, H, W)``,
indexed ``[plane, y, x]``. A player earns 1 for each display it reaches.
"""

from typing import Optional, Tuple

import numpy as np
from gymnasium.utils import EzPickle

from arbiter._engine import AecMatch
from arbiter.pettingzoo._aec import ArbiterAECEnv, wrap


class raw_env(ArbiterAECEnv, EzPickle):
    """Labyrinth on generated level ``level`` with ``players`` princesses.

    With ``level=None`` each reset draws a generated level of ``size`` (``(width, height)``,
    each 14 to 20) from the reset's seed, so that the spaces stay the same; ``current_level``
    says which level is played.
    """

    metadata = {**ArbiterAECEnv.metadata, "name": "labyrinth_v0"}

    def __init__(
        self,
        level: Optional[int] = 1,
        players: int = 2,
        render_mode: Optional[str] = None,
        size: Optional[Tuple[int, int]] = None,
    ) -> None:
        EzPickle.__init__(self, level, players, render_mode, size)
        if level is not None and size is not None:
            raise ValueError("size chooses among random levels: give it with level=None only")
        self._level, self._players = level, players
        self._size = (14, 14) if size is None else tuple(size)
        self.current_level = level
        super().__init__(render_mode)

    def _new_match(self, rng: np.random.Generator) -> AecMatch:
        if self._level is None:
            width, height = self._size
            start = int(rng.integers(2**63))
            self.current_level = AecMatch.labyrinth_level_of_size(width, height, start)
        return AecMatch.labyrinth(self.current_level, self._players)


def env(**kwargs) -> raw_env:
    """``raw_env(**kwargs)`` with PettingZoo's wrappers for classic games."""
    return wrap(raw_env(**kwargs))
