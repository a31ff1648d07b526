"""The Rust extension module behind ``arbiter``: engines only, no public API of its own."""

from typing import Any, List, Optional, Tuple, Union

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

class AecMatch:
    """One match of one game for the PettingZoo environments (``arbiter.pettingzoo``):
    actions are flat indices into the game's fixed layout (docs/python.md), observations
    ``float32`` planes, masks ``int8``."""

    @staticmethod
    def quoridor(players: int, board: int) -> "AecMatch": ...
    @staticmethod
    def puoribor(max_ticks: int) -> "AecMatch": ...
    @staticmethod
    def domino(size: int, seed: int) -> "AecMatch": ...
    @staticmethod
    def labyrinth(level: int, players: int) -> "AecMatch": ...
    @staticmethod
    def labyrinth_level_of_size(width: int, height: int, start: int) -> int:
        """The first generated Labyrinth level from ``start`` on of ``width`` × ``height``
        cells (each 14 to 20); ``ValueError`` for another size."""
    @property
    def num_players(self) -> int: ...
    @property
    def to_move(self) -> Optional[int]:
        """The seat on turn, ``None`` once the match is over."""
    @property
    def action_count(self) -> int: ...
    @property
    def observation_shape(self) -> Tuple[int, int, int]: ...
    @property
    def tick(self) -> int: ...
    @property
    def end_reason(self) -> Optional[str]: ...
    def legal_mask(self) -> NDArray[np.int8]:
        """The 0/1 mask of the legal action indices of the seat on turn."""
    def observe(self, player: int) -> NDArray[np.float32]:
        """``player``'s observation planes, each value in [0, 1]."""
    def step(self, index: int) -> List[float]:
        """Plays ``index`` for the seat on turn; each seat's reward. ``ValueError`` if illegal."""
    def render(self) -> str:
        """The position as text."""
    def render_rgb(self) -> NDArray[np.uint8]:
        """The position as a picture, ``uint8`` of shape ``(height, width, 3)``."""

class BatchEnv:
    """``n`` matches of one game stepped together (``arbiter.batch``). Every array is made
    once and written in place by each call: the properties return the same objects."""

    @property
    def num_envs(self) -> int:
        """The number of matches ``n``."""
    @property
    def num_players(self) -> int:
        """The number of seats ``P`` of every match."""
    @property
    def action_count(self) -> int:
        """The number of action indices ``A``."""
    @property
    def observation_shape(self) -> Tuple[int, int, int]:
        """The shape of one match's observation, ``(planes, rows, columns)``."""
    @property
    def obs(self) -> NDArray[np.uint8]:
        """``(n, planes, rows, columns)``: the observation of the seat on turn in each match."""
    @property
    def mask(self) -> NDArray[np.uint8]:
        """``(n, A)``: 1 at each legal action index of the seat on turn."""
    @property
    def rewards(self) -> NDArray[np.float32]:
        """``(n, P)``: each seat's reward for the last step."""
    @property
    def dones(self) -> NDArray[np.bool_]:
        """``(n,)``: whether the match ended with the last step (it has started again)."""
    @property
    def to_move(self) -> NDArray[np.uint8]:
        """``(n,)``: the seat on turn, whose observation and mask are shown."""
    def reset(self, seed: Optional[int] = None) -> None:
        """Starts every match again; with a seed, the random policy's draws too."""
    def step(self, actions: NDArray[Union[np.int64, np.int32]]) -> None:
        """Plays ``actions[i]`` in match ``i``; ``ValueError`` (nothing played) if any is illegal."""
    def step_random(self) -> None:
        """Plays a uniformly random legal action in every match."""
    def sample_random(self, out: NDArray[np.int64]) -> None:
        """Writes a uniformly random legal action index of each match into ``out`` ``(n,)``:
        the actions ``step_random`` would play."""

class QuoridorBatch(BatchEnv):
    """``n`` Quoridor matches: ``players`` (2 or 4) on a ``board`` × ``board`` board."""

    def __init__(
        self,
        n: int,
        players: int = 2,
        board: int = 9,
        seed: int = 0,
        max_ticks: Optional[int] = None,
    ) -> None: ...

class PuoriborBatch(BatchEnv):
    """``n`` Puoribor matches, drawn after ``max_ticks`` actions."""

    def __init__(self, n: int, seed: int = 0, max_ticks: int = 200) -> None: ...
