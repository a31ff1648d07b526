"""Domino as a PettingZoo AEC environment (docs/python.md).

Each ``reset`` draws a board of ``size`` × ``size`` with its obstacles from the environment's
random generator (``reset(seed=...)`` reproduces it). Actions: ``2*(y*n + x)`` covers ``(x, y)``
and ``((x+1) % n, y)``, ``2*(y*n + x) + 1`` covers ``(x, y)`` and ``(x, (y+1) % n)``.
Observation planes ``(2, n, n)``, indexed ``[plane, y, x]``: free cells, obstacles.
"""

from typing import Optional

import numpy as np
from gymnasium.utils import EzPickle

from arbiter._engine import AecMatch
from arbiter.pettingzoo._aec import ArbiterAECEnv, wrap


class raw_env(ArbiterAECEnv, EzPickle):
    """Domino on a ``size`` × ``size`` board (odd, 3 to 63) with random obstacles."""

    metadata = {**ArbiterAECEnv.metadata, "name": "domino_v0"}

    def __init__(self, size: int = 13, render_mode: Optional[str] = None) -> None:
        EzPickle.__init__(self, size, render_mode)
        self._size = size
        super().__init__(render_mode)

    def _new_match(self, rng: np.random.Generator) -> AecMatch:
        return AecMatch.domino(self._size, int(rng.integers(2**63)))


def env(**kwargs) -> raw_env:
    """``raw_env(**kwargs)`` with PettingZoo's wrappers for classic games."""
    return wrap(raw_env(**kwargs))
