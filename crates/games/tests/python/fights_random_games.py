#!/usr/bin/env python3
"""Plays random Puoribor games in the original environment (`fights`, env ("puoribor", 3)) and
prints every step, for `puoribor_fights.rs` to replay through the Rust engine and compare.

    fights_random_games.py GAMES SEED

Per game: `game`; per step: `mask M` (the 324 digits of legal_actions(...).flatten() for the
player on turn), `step T X Y`, `board B` (the 486 digits of the board after the step, indexed
[channel][x][y]), `walls W0 W1`, `done D`; then `end`. A game stops when it is done or after
200 actions, the draw of the Rust engine (upstream has no limit).
"""
import sys

import numpy as np
from fights.envs import puoribor


def digits(array):
    return "".join(str(int(v)) for v in np.asarray(array).flatten())


def main():
    games, seed = int(sys.argv[1]), int(sys.argv[2])
    env = puoribor.PuoriborEnv()
    rng = np.random.default_rng(seed)
    out = sys.stdout
    for _ in range(games):
        state = env.initialize_state()
        out.write("game\n")
        for tick in range(200):
            agent = tick % 2
            mask = env.legal_actions(state, agent)
            out.write(f"mask {digits(mask)}\n")
            legal = np.argwhere(mask)
            # Half the choices pick an action type first, so that rotations and pawn moves
            # are played often even while walls are plentiful.
            if rng.random() < 0.5:
                kinds = np.unique(legal[:, 0])
                kind = rng.choice(kinds)
                legal = legal[legal[:, 0] == kind]
            action = legal[rng.integers(len(legal))]
            state = env.step(state, agent, action)
            out.write(f"step {action[0]} {action[1]} {action[2]}\n")
            out.write(f"board {digits(state.board)}\n")
            out.write(f"walls {state.walls_remaining[0]} {state.walls_remaining[1]}\n")
            out.write(f"done {int(state.done)}\n")
            if state.done:
                break
        out.write("end\n")
        out.flush()


if __name__ == "__main__":
    main()
