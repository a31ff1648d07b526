"""Puoribor as a PettingZoo AEC environment (docs/python.md).

Actions are the ``fights`` mask flattened: ``kind*81 + x*9 + y`` (kind 0 move, 1 horizontal
wall, 2 vertical wall, 3 rotation). Observation planes ``(10, 9, 9)``, indexed ``[plane, x, y]``
as ``fights`` indexes its board: the observer's pawn, the opponent's, horizontal wall segments
of the observer and of the opponent, vertical ones likewise, horizontal and vertical wall
midpoints, the observer's and the opponent's walls left over 10.
"""

from typing import Optional

import numpy as np
from gymnasium.utils import EzPickle

from arbiter._engine import AecMatch
from arbiter.pettingzoo._aec import ArbiterAECEnv, wrap


class raw_env(ArbiterAECEnv, EzPickle):
    """Puoribor from the start, drawn after ``max_ticks`` actions."""

    metadata = {**ArbiterAECEnv.metadata, "name": "puoribor_v0"}

    def __init__(self, max_ticks: int = 200, render_mode: Optional[str] = None) -> None:
        EzPickle.__init__(self, max_ticks, render_mode)
        self._max_ticks = max_ticks
        super().__init__(render_mode)

    def _new_match(self, rng: np.random.Generator) -> AecMatch:
        return AecMatch.puoribor(self._max_ticks)


def env(**kwargs) -> raw_env:
    """``raw_env(**kwargs)`` with PettingZoo's wrappers for classic games."""
    return wrap(raw_env(**kwargs))
