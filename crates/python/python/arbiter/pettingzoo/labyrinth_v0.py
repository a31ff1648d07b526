"""Labyrinth as a PettingZoo AEC environment (docs/python.md).

A turn is a push and a walk in one index on the ``W`` × ``H`` board of generated level
``level``: ``index = push*(W*H) + y*W + x`` with ``(x, y)`` where the princess walks after the
push (her own cell to stay) and ``push = (line*2 + p)*4 + r``: ``line`` is row ``k`` (``0..H``)
or column ``k`` as ``H + k``, ``p`` the push direction of ``PUSH c p k t``, and the tile pushed
in is the player's extra tile turned ``r`` quarter turns. Observation planes ``(14, H, W)``,
indexed ``[plane, y, x]``. A player earns 1 for each display it reaches.
"""

from typing import Optional

import numpy as np
from gymnasium.utils import EzPickle

from arbiter._engine import AecMatch
from arbiter.pettingzoo._aec import ArbiterAECEnv, wrap


class raw_env(ArbiterAECEnv, EzPickle):
    """Labyrinth on generated level ``level`` with ``players`` princesses."""

    metadata = {**ArbiterAECEnv.metadata, "name": "labyrinth_v0"}

    def __init__(
        self, level: int = 1, players: int = 2, render_mode: Optional[str] = None
    ) -> None:
        EzPickle.__init__(self, level, players, render_mode)
        self._level, self._players = level, players
        super().__init__(render_mode)

    def _new_match(self, rng: np.random.Generator) -> AecMatch:
        return AecMatch.labyrinth(self._level, self._players)


def env(**kwargs) -> raw_env:
    """``raw_env(**kwargs)`` with PettingZoo's wrappers for classic games."""
    return wrap(raw_env(**kwargs))
