#!/usr/bin/env python3
"""Reference speed for `arbiter bench quoridor`: OpenSpiel's C++ Quoridor (2 players, 9x9) played
by its uniform random bots inside `pyspiel.evaluate_bots`, the loop running in C++.

    python3 -m venv venv && venv/bin/pip install open-spiel
    venv/bin/python scripts/openspiel-quoridor-speed.py [seconds]

Prints one JSON object, {"games_per_sec": ..., "plies_per_sec": ...}, like `arbiter bench --json`.
"""
import json
import sys
import time

import numpy as np
import pyspiel


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    game = pyspiel.load_game("quoridor", {"board_size": 9, "players": 2})
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(2)]
    # evaluate_bots does not say how long a game was; count plies on a sample of games replayed
    # step by step in Python with the same uniform choice.
    rng = np.random.default_rng(1)
    sample_plies, sample_games = 0, 200
    for _ in range(sample_games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            sample_plies += 1
    plies_per_game = sample_plies / sample_games

    games = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while time.perf_counter() - started < seconds:
        for _ in range(50):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, games)
            games += 1
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    # Per CPU second too: on a shared machine wall-clock rates measure the neighbours.
    print(json.dumps({
        "games_per_sec": games / elapsed,
        "plies_per_sec": games * plies_per_game / elapsed,
        "plies_per_cpu_sec": games * plies_per_game / cpu,
        "plies_per_game": plies_per_game,
    }))


if __name__ == "__main__":
    main()
