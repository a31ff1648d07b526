#!/usr/bin/env python3
"""A Quoridor starter bot for Arbiter: reads the whole protocol, keeps the board, and walks a
shortest path to its goal. Copy it and make it smarter.

Protocol (docs/games/quoridor.md): the referee sends a start message (N, your id, M, then N lines
"x y walls_left"), then before each of your turns: tick, N lines "x y walls_left" (-1 -1 for an
eliminated player), F, and F lines "x y is_vertical who", then an empty line. Answer one line:
"x y" to move your pawn there, or "x y v" to place a wall (v=1 vertical, v=0 horizontal).
"-1" means the match is over for you: exit.

Anything written to stderr is shown in the replay viewer for that turn (2000 characters a turn).
"""
import sys
from collections import deque

DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))


class Board:
    def __init__(self, players, me, size):
        self.players, self.me, self.size = players, me, size
        self.pawns = []
        self.walls_left = []
        self.walls = []  # (x, y, vertical, who) in the order they were placed

    def goal(self, player, x, y):
        m = self.size - 1
        if self.players == 2:
            return y == m if player == 0 else y == 0
        return (y == m, x == 0, y == 0, x == m)[player]

    def inside(self, x, y):
        return 0 <= x < self.size and 0 <= y < self.size

    def blocked(self, x, y, dx, dy, walls=None):
        """Whether a wall stands between (x, y) and (x+dx, y+dy)."""
        walls = self.walls if walls is None else walls
        for wx, wy, vertical, _ in walls:
            if vertical and dy == 0:
                col = min(x, x + dx)
                if wx == col and wy <= y <= wy + 1:
                    return True
            if not vertical and dx == 0:
                row = min(y, y + dy)
                if wy == row and wx <= x <= wx + 1:
                    return True
        return False

    def distances(self, player, walls=None):
        """Distance from every cell to the player's goal, ignoring pawns (BFS from the goal)."""
        dist = {}
        queue = deque()
        for x in range(self.size):
            for y in range(self.size):
                if self.goal(player, x, y):
                    dist[(x, y)] = 0
                    queue.append((x, y))
        while queue:
            x, y = queue.popleft()
            for dx, dy in DIRECTIONS:
                nx, ny = x + dx, y + dy
                if self.inside(nx, ny) and (nx, ny) not in dist and not self.blocked(x, y, dx, dy, walls):
                    dist[(nx, ny)] = dist[(x, y)] + 1
                    queue.append((nx, ny))
        return dist

    def pawn_moves(self, player):
        x, y = self.pawns[player]
        occupied = {p for p in self.pawns if p != (-1, -1)}
        moves = []
        for dx, dy in DIRECTIONS:
            nx, ny = x + dx, y + dy
            if not self.inside(nx, ny) or self.blocked(x, y, dx, dy):
                continue
            if (nx, ny) not in occupied:
                moves.append((nx, ny))
                continue
            bx, by = nx + dx, ny + dy
            if self.inside(bx, by) and not self.blocked(nx, ny, dx, dy):
                if (bx, by) not in occupied:
                    moves.append((bx, by))
                continue  # two pawns in a row: no jump, no side-step
            for sx, sy in ((dy, dx), (-dy, -dx)):
                cx, cy = nx + sx, ny + sy
                if self.inside(cx, cy) and not self.blocked(nx, ny, sx, sy) and (cx, cy) not in occupied:
                    moves.append((cx, cy))
        return moves

    def wall_allowed(self, x, y, vertical):
        if not (0 <= x <= self.size - 2 and 0 <= y <= self.size - 2):
            return False
        for wx, wy, wv, _ in self.walls:
            if wv == vertical and wx == x and wy == y:
                return False
            if wv == vertical and vertical and wx == x and abs(wy - y) == 1:
                return False
            if wv == vertical and not vertical and wy == y and abs(wx - x) == 1:
                return False
            if wv != vertical and wx == x and wy == y:
                return False
        walls = self.walls + [(x, y, vertical, self.me)]
        for p, pawn in enumerate(self.pawns):
            if pawn != (-1, -1) and pawn not in self.distances(p, walls):
                return False
        return True

    def choose(self):
        dist = self.distances(self.me)
        moves = self.pawn_moves(self.me)
        if moves:
            best = min(moves, key=lambda cell: dist.get(cell, 10**9))
            return "%d %d" % best
        # Boxed in by pawns: a wall is the only legal action left.
        for x in range(self.size - 1):
            for y in range(self.size - 1):
                for vertical in (0, 1):
                    if self.wall_allowed(x, y, vertical):
                        return "%d %d %d" % (x, y, vertical)
        return "0 0"


def main():
    lines = (line.strip() for line in sys.stdin)

    def ints():
        for line in lines:
            if line:
                return [int(t) for t in line.split()]
        sys.exit(0)

    players = ints()[0]
    me = ints()[0]
    size = ints()[0]
    board = Board(players, me, size)
    for _ in range(players):
        ints()
    while True:
        tick = ints()[0]
        if tick == -1:
            return
        board.pawns, board.walls_left = [], []
        for _ in range(players):
            x, y, walls_left = ints()
            board.pawns.append((x, y))
            board.walls_left.append(walls_left)
        board.walls = [tuple(ints()) for _ in range(ints()[0])]
        answer = board.choose()
        print("tick %d: %s" % (tick, answer), file=sys.stderr)
        print(answer, flush=True)


if __name__ == "__main__":
    main()
