"""Quoridor for 2 or 4 players as a PettingZoo AEC environment (docs/python.md).

Actions on an ``m`` × ``m`` board (``m = board_size``): ``y*m + x`` moves the pawn to
``(x, y)``; ``m*m + y*(m-1) + x`` places the horizontal wall anchored at ``(x, y)``;
``m*m + (m-1)**2 + y*(m-1) + x`` the vertical one. Observation planes ``(2n + 2, m, m)``,
indexed ``[plane, y, x]``: each player's pawn (the observer first, then in turn order), the
horizontal and the vertical wall anchors, each player's walls left over its starting walls.
"""

from typing import Optional

import numpy as np
from gymnasium.utils import EzPickle

from arbiter._engine import AecMatch
from arbiter.pettingzoo._aec import ArbiterAECEnv, wrap


class raw_env(ArbiterAECEnv, EzPickle):
    """Quoridor: ``players`` (2 or 4) on a ``board_size`` × ``board_size`` board."""

    metadata = {**ArbiterAECEnv.metadata, "name": "quoridor_v0"}

    def __init__(
        self, players: int = 2, board_size: int = 9, render_mode: Optional[str] = None
    ) -> None:
        EzPickle.__init__(self, players, board_size, render_mode)
        self._players, self._board_size = players, board_size
        super().__init__(render_mode)

    def _new_match(self, rng: np.random.Generator) -> AecMatch:
        return AecMatch.quoridor(self._players, self._board_size)


def env(**kwargs) -> raw_env:
    """``raw_env(**kwargs)`` with PettingZoo's wrappers for classic games."""
    return wrap(raw_env(**kwargs))
