"""The Rust extension module behind ``arbiter``: engines only, no public API of its own."""

from typing import Any, Tuple

import numpy as np
from numpy.typing import NDArray

__version__: str

def puoribor_step(
    board: NDArray[np.int64],
    walls_remaining: NDArray[np.int64],
    agent_id: int,
    action: Any,
) -> Tuple[NDArray[np.int64], NDArray[np.int64], bool]:
    """The state after ``agent_id`` plays ``action``: new ``(board, walls_remaining, done)``.

    Raises ``ValueError`` for an illegal action, a finished game or a malformed state.
    """

def puoribor_legal_actions(
    board: NDArray[np.int64], walls_remaining: NDArray[np.int64], agent_id: int
) -> NDArray[np.int64]:
    """The ``(4, 9, 9)`` 0/1 mask of ``agent_id``'s legal actions, ``[action_type][x][y]``."""
