#!/usr/bin/env python3
"""OpenSpiel's MCTS bot as a Quoridor bot program (2 players), a reference opponent for the
built-in robots: `pyspiel.MCTSBot` with random rollouts, UCT c = 2 and 1,000 simulations a move.

    python3 -m venv venv && venv/bin/pip install open-spiel
    venv/bin/python scripts/openspiel-mcts-bot.py [--simulations N] [--seed S]

It speaks Arbiter's Quoridor protocol (docs/games/quoridor.md) on stdin/stdout and keeps an
OpenSpiel state in step with the referee's: the opponent's action is read from the difference
between two turn messages. OpenSpiel's board is ours upside down: our cell (x, y) is its column
`a + x`, row `M - y`; our wall (x, y, v) is its `a + x`, `M - 1 - y`, `v` or `h`.

1,000 simulations take 0.2-0.4 s a move on one core, so matches against it need a clock longer
than Quoridor's default (see docs/robots.md for how the measurements give it one).
"""
import argparse
import sys

import pyspiel


def cell_name(x, y, size):
    return f"{chr(ord('a') + x)}{size - y}"


def wall_name(x, y, vertical, size):
    return f"{chr(ord('a') + x)}{size - 1 - y}{'v' if vertical else 'h'}"


def parse_name(name, size):
    """Our answer line for an OpenSpiel action string."""
    x = ord(name[0]) - ord("a")
    if name[-1] in "vh":
        return f"{x} {size - 1 - int(name[1:-1])} {1 if name[-1] == 'v' else 0}"
    return f"{x} {size - int(name[1:])}"


class Mirror:
    """An OpenSpiel state kept equal to the referee's position."""

    def __init__(self, size, simulations, seed):
        self.size = size
        self.game = pyspiel.load_game("quoridor", {"board_size": size, "players": 2})
        self.state = self.game.new_initial_state()
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        self.bot = pyspiel.MCTSBot(self.game, evaluator, 2.0, simulations, 1000, False, seed, False)
        self.pawns = None
        self.walls = 0

    def play(self, name):
        for action in self.state.legal_actions():
            if self.state.action_to_string(action) == name:
                self.state.apply_action(action)
                return
        raise SystemExit(f"OpenSpiel does not allow {name} here:\n{self.state}")

    def catch_up(self, pawns, walls):
        """Plays the action that turned the last position seen into this one."""
        if self.pawns is not None:
            if len(walls) > self.walls:
                x, y, v, _ = walls[-1]
                self.play(wall_name(x, y, v == 1, self.size))
            else:
                moved = [p for p in range(2) if pawns[p] != self.pawns[p]]
                if moved:
                    x, y = pawns[moved[0]]
                    self.play(cell_name(x, y, self.size))
        self.pawns, self.walls = pawns, len(walls)

    def choose(self):
        action = self.bot.step(self.state)
        name = self.state.action_to_string(action)
        self.state.apply_action(action)
        return name


def read_ints(stream):
    line = stream.readline()
    if not line:
        raise SystemExit(0)
    return [int(t) for t in line.split()]


def main():
    options = argparse.ArgumentParser()
    options.add_argument("--simulations", type=int, default=1000)
    options.add_argument("--seed", type=int, default=1)
    args = options.parse_args()
    stdin = sys.stdin
    players = read_ints(stdin)[0]
    me = read_ints(stdin)[0]
    size = read_ints(stdin)[0]
    if players != 2:
        raise SystemExit("OpenSpiel's MCTS bot plays 2-player Quoridor only")
    start = [tuple(read_ints(stdin)[:2]) for _ in range(players)]
    mirror = Mirror(size, args.simulations, args.seed)
    mirror.pawns = start
    while True:
        head = read_ints(stdin)
        while not head:
            head = read_ints(stdin)
        if head[0] == -1:
            return
        pawns = [tuple(read_ints(stdin)[:2]) for _ in range(players)]
        walls = [tuple(read_ints(stdin)) for _ in range(read_ints(stdin)[0])]
        mirror.catch_up(pawns, walls)
        name = mirror.choose()
        # Our own action is in the next message: remember the position it leads to.
        answer = parse_name(name, size)
        numbers = [int(t) for t in answer.split()]
        if len(numbers) == 3:
            walls.append((*numbers, me))
        else:
            pawns[me] = tuple(numbers)
        mirror.pawns, mirror.walls = pawns, len(walls)
        print(f"{name} after {args.simulations} simulations", file=sys.stderr, flush=True)
        print(answer, flush=True)


if __name__ == "__main__":
    main()
