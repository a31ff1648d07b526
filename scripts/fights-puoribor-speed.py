#!/usr/bin/env python3
"""Reference speed for `arbiter bench puoribor`: the original Puoribor environment (`fights`,
env ("puoribor", 3)) playing uniformly random games through its own `legal_actions` + `step`
loop, with the same 200-action draw as Arbiter's engine.

    python3 -m venv venv && venv/bin/pip install fights "numpy<2"
    venv/bin/python scripts/fights-puoribor-speed.py [seconds] [path/to/arbiter]

Prints one JSON object like `arbiter bench --json`. Given the `arbiter` binary, it also runs
`arbiter bench puoribor` for as long, right after, and adds its figures and the ratio.
"""
import json
import subprocess
import sys
import time

import numpy as np
from fights.envs import puoribor


def fights_speed(seconds):
    env = puoribor.PuoriborEnv()
    rng = np.random.default_rng(1)
    games = plies = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = env.initialize_state()
        for tick in range(200):
            agent = tick % 2
            legal = np.argwhere(env.legal_actions(state, agent))
            state = env.step(state, agent, legal[rng.integers(len(legal))])
            plies += 1
            if state.done:
                break
        games += 1
    elapsed = time.perf_counter() - started
    return {"games_per_sec": games / elapsed, "plies_per_sec": plies / elapsed,
            "plies_per_game": plies / games}


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    result = {"fights": fights_speed(seconds)}
    if len(sys.argv) > 2:
        out = subprocess.run([sys.argv[2], "bench", "puoribor", "--json", "--seconds", str(seconds)],
                             check=True, capture_output=True, text=True).stdout
        result["arbiter"] = json.loads(out)
        result["ratio"] = result["arbiter"]["plies_per_sec"] / result["fights"]["plies_per_sec"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
