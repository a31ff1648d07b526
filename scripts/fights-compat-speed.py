#!/usr/bin/env python3
"""Speed of the `fights` drop-in (`arbiter.compat.fights.envs.puoribor`) against the original
(`fights.envs.puoribor` 0.9.0) in one run: the same Python loop of `legal_actions` + `step`
over uniformly random games, with the same 200-action draw as scripts/fights-puoribor-speed.py.

    python3 -m venv venv && venv/bin/pip install fights==0.9.0 "numpy<2" crates/python
    taskset -c 0 venv/bin/python scripts/fights-compat-speed.py [seconds]

The loop picks an action with Python's `random` from the flat indices of the mask (cheap next
to either environment), so the figures are what a Python agent loop around each environment
reaches. Prints one JSON object: plies per second of each whole loop, the seconds spent inside
`legal_actions` + `step` per ply, and the ratios.
"""
import json
import random
import sys
import time

from arbiter.compat.fights.envs import puoribor as compat
from fights.envs import puoribor as original


def speed(module, seconds):
    env = module.PuoriborEnv()
    rng = random.Random(1)
    clock = time.perf_counter
    games = plies = 0
    inside = 0.0
    started = clock()
    while clock() - started < seconds:
        state = env.initialize_state()
        for tick in range(200):
            agent = tick & 1
            t0 = clock()
            mask = env.legal_actions(state, agent)
            t1 = clock()
            legal = mask.ravel().nonzero()[0]
            i = int(legal[rng.randrange(len(legal))])
            t2 = clock()
            state = env.step(state, agent, (i // 81, i // 9 % 9, i % 9))
            inside += (t1 - t0) + (clock() - t2)
            plies += 1
            if state.done:
                break
        games += 1
    elapsed = clock() - started
    return {"plies_per_sec": plies / elapsed, "plies_per_game": plies / games,
            "calls_us_per_ply": inside / plies * 1e6}


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    theirs = speed(original, seconds)
    ours = speed(compat, seconds)
    print(json.dumps({
        "fights": theirs,
        "compat": ours,
        "loop_ratio": ours["plies_per_sec"] / theirs["plies_per_sec"],
        "calls_ratio": theirs["calls_us_per_ply"] / ours["calls_us_per_ply"],
    }))


if __name__ == "__main__":
    main()
