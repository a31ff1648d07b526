#!/usr/bin/env python3
"""A Puoribor starter bot for Arbiter: reads the whole protocol, keeps the board, and walks a
shortest path to its goal row. Copy it and make it smarter (walls, rotations).

Protocol (docs/games/puoribor.md, "Protocol"): the referee sends "your id" (0 or 1) and the board size (9),
then before each of your turns: the tick (actions played so far), two lines "x y walls_left"
(player 0, then player 1), K, and K wall lines "kind x y owner". Kinds: H (whole horizontal
wall: segments h(x,y) and h(x+1,y)), V (whole vertical wall: v(x,y) and v(x,y+1)), h and v (one
segment, left over from a wall split by a rotation). h(x,y) lies between cells (x,y) and
(x,y+1); v(x,y) between (x,y) and (x+1,y). x is the column, y the row; row 0 is the top.
Player 0 starts at (4,0) and must reach row 8; player 1 starts at (4,8) and must reach row 0.

Answer one line "type x y": 0 = move your pawn to (x,y), 1 = horizontal wall at (x,y),
2 = vertical wall at (x,y), 3 = rotate the 4x4 sub-board whose top-left cell is (x,y) (costs two
walls). A malformed or illegal answer, a crash, or more than 1 second (3 for the first answer)
loses the match at once. "-1" means the match is over: exit.

Anything written to stderr is shown in the replay viewer for that turn.
"""
import sys
from collections import deque

SIZE = 9
DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0))


class Board:
    def __init__(self, me):
        self.me = me
        self.tick = 0
        self.pawns = [(4, 0), (4, 8)]
        self.walls_left = [10, 10]
        self.h = set()  # (x, y): a segment between (x, y) and (x, y+1)
        self.v = set()  # (x, y): a segment between (x, y) and (x+1, y)
        self.whole = []  # (kind, x, y, owner) of whole walls, as sent

    def read_walls(self, lines):
        self.h, self.v, self.whole = set(), set(), []
        for kind, x, y, owner in lines:
            if kind == "H":
                self.h |= {(x, y), (x + 1, y)}
                self.whole.append((kind, x, y, owner))
            elif kind == "V":
                self.v |= {(x, y), (x, y + 1)}
                self.whole.append((kind, x, y, owner))
            elif kind == "h":
                self.h.add((x, y))
            elif kind == "v":
                self.v.add((x, y))
            else:
                raise ValueError("unknown wall kind %r" % kind)

    @staticmethod
    def inside(x, y):
        return 0 <= x < SIZE and 0 <= y < SIZE

    def open(self, x, y, dx, dy):
        """Whether one step from (x, y) by (dx, dy) stays on the board and meets no wall."""
        nx, ny = x + dx, y + dy
        if not self.inside(nx, ny):
            return False
        if dx:
            return (min(x, nx), y) not in self.v
        return (x, min(y, ny)) not in self.h

    @staticmethod
    def goal_row(player):
        return SIZE - 1 if player == 0 else 0

    def distances(self, player):
        """Steps from every cell to the player's goal row, ignoring pawns (BFS from the goal)."""
        row = self.goal_row(player)
        dist = {(x, row): 0 for x in range(SIZE)}
        queue = deque(dist)
        while queue:
            x, y = queue.popleft()
            for dx, dy in DIRECTIONS:
                if self.open(x, y, dx, dy) and (x + dx, y + dy) not in dist:
                    dist[(x + dx, y + dy)] = dist[(x, y)] + 1
                    queue.append((x + dx, y + dy))
        return dist

    def pawn_moves(self, player):
        """Steps, straight jumps over the opponent, and diagonal jumps when the straight one is
        walled or off the board."""
        x, y = self.pawns[player]
        other = self.pawns[1 - player]
        moves = []
        for dx, dy in DIRECTIONS:
            if not self.open(x, y, dx, dy):
                continue
            nx, ny = x + dx, y + dy
            if (nx, ny) != other:
                moves.append((nx, ny))
            elif self.open(nx, ny, dx, dy):
                moves.append((nx + dx, ny + dy))
            else:
                for sx, sy in ((dy, dx), (-dy, -dx)):
                    if self.open(nx, ny, sx, sy):
                        moves.append((nx + sx, ny + sy))
        return moves

    def choose(self):
        dist = self.distances(self.me)
        best = min(self.pawn_moves(self.me), key=lambda cell: dist.get(cell, 10**9))
        return "0 %d %d" % best


def main():
    lines = (line.strip() for line in sys.stdin)

    def words():
        for line in lines:
            if line:
                return line.split()
        sys.exit(0)

    me = int(words()[0])
    size = int(words()[0])
    if size != SIZE:
        print("unexpected board size %d" % size, file=sys.stderr)
    board = Board(me)
    while True:
        tick = int(words()[0])
        if tick == -1:
            return
        board.tick = tick
        for p in range(2):
            x, y, walls_left = map(int, words())
            board.pawns[p] = (x, y)
            board.walls_left[p] = walls_left
        count = int(words()[0])
        walls = []
        for _ in range(count):
            kind, x, y, owner = words()
            walls.append((kind, int(x), int(y), int(owner)))
        board.read_walls(walls)
        answer = board.choose()
        print("tick %d: %s (distance %d)" % (tick, answer, board.distances(me)[board.pawns[me]]),
              file=sys.stderr)
        print(answer, flush=True)


if __name__ == "__main__":
    main()
