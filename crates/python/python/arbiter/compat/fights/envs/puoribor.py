"""Puoribor, as ``fights.envs.puoribor`` 0.9 (environment ``("puoribor", 3)``), on Arbiter's engine.

Quoridor on a 9×9 board with one more action: rotating a 4×4 section of the board clockwise,
which costs two walls. Coordinates are ``(x, y)`` with ``(0, 0)`` the top left corner; agent 0
starts at the top and wins on the bottom row, agent 1 the other way round.

The module has the API of the original and the same arrays (dtypes, shapes, values); rules,
legal actions and the path check run in Rust. Change one import::

    from arbiter.compat.fights.envs import puoribor   # was: from fights.envs import puoribor

One difference: the original lets a finished game go on; here :meth:`PuoriborEnv.step` on a
state whose ``done`` holds raises ``ValueError`` and :meth:`PuoriborEnv.legal_actions` gives an
all-zero mask. Refusal messages name the broken rule in Arbiter's words.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, Dict, Optional

import numpy as np
from numpy.typing import ArrayLike, NDArray

if sys.version_info < (3, 10):
    from typing_extensions import TypeAlias
else:
    from typing import TypeAlias

from arbiter import _engine

from ..base import BaseEnv, BaseState

PuoriborAction: TypeAlias = ArrayLike
"""An action ``[action_type, x, y]``, any array-like of three integers.

``action_type`` is 0 (move the pawn to ``(x, y)``), 1 (horizontal wall whose left end is under
cell ``(x, y)``), 2 (vertical wall whose top end is right of cell ``(x, y)``) or 3 (rotate the 4×4
section whose top left cell is ``(x, y)``).
"""

_STEP = _engine.puoribor_step
_LEGAL_ACTIONS = _engine.puoribor_legal_actions


@dataclass
class PuoriborState(BaseState):
    """A Puoribor position: the board, the walls each agent has left and whether it is over."""

    board: NDArray[np.int_]
    """Array of shape ``(6, 9, 9)`` indexed ``[channel, x, y]``.

    - channel 0: the pawn of agent 0 (one-hot), which starts at the top;
    - channel 1: the pawn of agent 1 (one-hot), which starts at the bottom;
    - channel 2: horizontal wall segments under each cell, labelled 1 (placed by agent 0) or 2;
    - channel 3: vertical wall segments right of each cell, labelled as channel 2;
    - channel 4: midpoints of whole horizontal walls (one-hot);
    - channel 5: midpoints of whole vertical walls (one-hot).
    """

    walls_remaining: NDArray[np.int_]
    """Array of shape ``(2,)``: the walls agent 0 and agent 1 can still place."""

    done: bool = False
    """Whether a pawn has reached its goal row."""

    def __str__(self) -> str:
        """The board drawn with box-drawing characters, walls in bold (as the original)."""
        board = self.board.tolist()
        pawn0, pawn1, horizontal, vertical, h_mid, v_mid = board
        lines = ["┌───" + "┬───" * 8 + "┐\n"]
        for y in range(9):
            last_row = y == 8
            row = ["│"]
            for x in range(9):
                row.append(" 0 " if pawn0[x][y] else " 1 " if pawn1[x][y] else "   ")
                row.append("┃" if vertical[x][y] else "│" if x == 8 else " ")
            row.append("\n")
            row.append("└" if last_row else "├")
            for x in range(9):
                row.append("━━━" if horizontal[x][y] else "───" if last_row else "   ")
                if x == 8:
                    row.append("┘" if last_row else "┤")
                elif h_mid[x][y] or v_mid[x][y]:
                    row.append("╋")
                else:
                    row.append("┴" if last_row else "┼")
            row.append("\n")
            lines.append("".join(row))
        return "".join(lines)

    def perspective(self, agent_id: int) -> NDArray[np.int_]:
        """The board seen by ``agent_id``, as if it had started at the top.

        For agent 0 this is ``board`` itself. For agent 1 the board is turned by 180°: channel
        0 holds agent 1's pawn and channel 1 the opponent's, and in channels 2 and 3 walls
        labelled 1 are agent 1's own.
        """
        if agent_id == 0:
            return self.board
        board = self.board
        walls = board[2:4]
        swapped = (walls == 2).astype(np.int_) + (walls == 1).astype(np.int_) * 2
        turned = np.zeros((6, 9, 9), dtype=np.int_)
        turned[0] = board[1, ::-1, ::-1]
        turned[1] = board[0, ::-1, ::-1]
        # A segment under cell (x, y) lies above cell (8 - x, 8 - y) once turned, which is
        # under cell (8 - x, 7 - y); likewise for vertical segments and midpoints.
        turned[2, :, :8] = swapped[0, ::-1, 7::-1]
        turned[3, :8, :] = swapped[1, 7::-1, ::-1]
        turned[4, :8, :8] = board[4, 7::-1, 7::-1]
        turned[5, :8, :8] = board[5, 7::-1, 7::-1]
        return turned

    def to_dict(self) -> Dict:
        """The state as plain lists, ints and a bool (what the msgpack logs hold)."""
        return {
            "board": self.board.tolist(),
            "walls_remaining": self.walls_remaining.tolist(),
            "done": self.done,
        }

    @staticmethod
    def from_dict(serialized) -> "PuoriborState":
        """The state a dict made by :meth:`to_dict` describes."""
        return PuoriborState(
            board=np.array(serialized["board"]),
            walls_remaining=np.array(serialized["walls_remaining"]),
            done=serialized["done"],
        )


class PuoriborEnv(BaseEnv[PuoriborState, PuoriborAction]):
    """The Puoribor environment: pure functions of a :class:`PuoriborState`."""

    env_id = ("puoribor", 3)  # type: ignore
    """The environment's ``(name, version)``."""

    board_size: int = 9
    """Width and height of the board (the engine plays 9 only)."""

    max_walls: int = 10
    """Walls each agent holds at the start."""

    def step(
        self,
        state: PuoriborState,
        agent_id: int,
        action: PuoriborAction,
        *,
        pre_step_fn: Optional[Callable[[PuoriborState, int, PuoriborAction], None]] = None,
        post_step_fn: Optional[Callable[[PuoriborState, int, PuoriborAction], None]] = None,
    ) -> PuoriborState:
        """The state after agent ``agent_id`` (0 or 1) plays ``action``; ``state`` is unchanged.

        ``pre_step_fn(state, agent_id, action)`` runs before the step and
        ``post_step_fn(next_state, agent_id, action)`` after it. Raises ``ValueError`` for an
        illegal action, an ``agent_id`` other than 0 or 1, or a finished game.
        """
        if pre_step_fn is not None:
            pre_step_fn(state, agent_id, action)
        # (board, walls_remaining, done), in the dataclass's field order
        next_state = PuoriborState(*_STEP(state.board, state.walls_remaining, agent_id, action))
        if post_step_fn is not None:
            post_step_fn(next_state, agent_id, action)
        return next_state

    def legal_actions(self, state: PuoriborState, agent_id: int) -> NDArray[np.int_]:
        """The ``(4, 9, 9)`` mask of the actions ``agent_id`` may take, 1 where legal.

        Indexed ``[action_type, x, y]``, so ``numpy.argwhere(mask)`` lists the legal actions.
        """
        return _LEGAL_ACTIONS(state.board, state.walls_remaining, agent_id)

    def initialize_state(self) -> PuoriborState:
        """The start: pawns at ``(4, 0)`` and ``(4, 8)``, ten walls each."""
        if self.board_size != 9:
            raise ValueError(f"the engine plays on a 9×9 board, not board_size={self.board_size}")
        board = np.zeros((6, 9, 9), dtype=np.int_)
        board[0, 4, 0] = 1
        board[1, 4, 8] = 1
        return PuoriborState(
            board=board,
            walls_remaining=np.array((self.max_walls, self.max_walls)),
            done=False,
        )


__all__ = ["PuoriborAction", "PuoriborEnv", "PuoriborState"]
