#!/usr/bin/env python3
"""Speed of the batched Quoridor environment (arbiter.batch) beside OpenSpiel's Python API and
Arbiter's Rust playout loop, all in one run: 2 players, 9x9, tick limit 324, uniformly random
legal actions.

    taskset -c 0 venv/bin/python scripts/batch-speed.py [seconds] \\
        [--openspiel-python PATH] [--arbiter target/release/arbiter]

- ours: `QuoridorBatch(1024).step_random()` in a loop (observations and masks written every
  step), then `sample_random` + `step(actions)` (the actions passing through NumPy);
- OpenSpiel: `state.legal_actions()`, `random.choice`, `state.apply_action` in a Python loop,
  run by the interpreter given with --openspiel-python (one with `pyspiel`);
- Rust: `arbiter bench quoridor --json`.

Run it under `taskset -c 0`: the child processes inherit the core. Each loop runs `--rounds`
times, in turn, and counts its steps per second of CPU time (the machine may be shared: time
spent waiting for the core is not the loop's); the best round of each is kept. Prints one JSON
object with the steps per second of each loop and the ratios.
"""
import argparse
import json
import random
import resource
import subprocess
import time

N = 1024
TICK_LIMIT = 324


def batch_speed(seconds, policy):
    """Steps per second of the batched environment, the random actions drawn in Rust."""
    import numpy as np
    from arbiter.batch import QuoridorBatch

    env = QuoridorBatch(N, seed=1, max_ticks=TICK_LIMIT)
    actions = np.zeros(N, dtype=np.int64)
    calls = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while time.perf_counter() - started < seconds:
        for _ in range(20):
            if policy == "step_random":
                env.step_random()
            else:
                env.sample_random(actions)
                env.step(actions)
        calls += 20
    return calls * N / (time.process_time() - cpu_started)


def openspiel_speed(seconds):
    """Plies per second of a random-policy loop through pyspiel's Python API."""
    import pyspiel

    # OpenSpiel's own game length limit is 4 x 9 x 9 = 324 plies.
    game = pyspiel.load_game("quoridor", {"board_size": 9, "players": 2})
    rng = random.Random(1)
    plies = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while time.perf_counter() - started < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
    return plies / (time.process_time() - cpu_started)


def child(command):
    """The standard output of `command` and the CPU seconds it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return out, cpu


def rust_speed(arbiter, seconds):
    out, cpu = child([arbiter, "bench", "quoridor", "--seconds", str(seconds), "--json"])
    # The bench plays for `seconds` of wall time and reports its rate over them.
    return json.loads(out)["plies_per_sec"] * seconds / cpu


def openspiel_speed_in(python, seconds):
    out, _ = child([python, __file__, str(seconds), "--openspiel-only"])
    return float(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("seconds", nargs="?", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--openspiel-python", default="/work/venv-os/bin/python")
    parser.add_argument("--arbiter", default="target/release/arbiter")
    parser.add_argument("--openspiel-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.openspiel_only:
        print(openspiel_speed(args.seconds))
        return
    loops = {
        "ours": lambda: batch_speed(args.seconds, "step_random"),
        "ours_numpy": lambda: batch_speed(args.seconds, "sample_and_step"),
        "openspiel": lambda: openspiel_speed_in(args.openspiel_python, args.seconds),
        "rust": lambda: rust_speed(args.arbiter, args.seconds),
    }
    best = dict.fromkeys(loops, 0.0)
    for _ in range(args.rounds):
        for name, loop in loops.items():
            best[name] = max(best[name], loop())
    ours, ours_numpy, openspiel, rust = best.values()
    print(json.dumps({
        "batch_step_random_per_sec": round(ours),
        "batch_sample_and_step_per_sec": round(ours_numpy),
        "openspiel_python_per_sec": round(openspiel),
        "rust_playouts_per_sec": round(rust),
        "batch_over_openspiel_python": round(ours / openspiel, 1),
        "batch_over_rust_playouts": round(ours / rust, 3),
    }, indent=1))


if __name__ == "__main__":
    main()
